#!/usr/bin/env python3
"""Runs the kscope commands that docs/ shows with their output, and compares.

An example in a Markdown file is a block between two comments:

    <!-- example: devset -->
        $ kscope kernels 2
        ...what it prints...
    <!-- end example -->

Each line starting with `$ kscope` is run (argv split as a POSIX shell would, no shell run)
against a store made from the bundled devset captures (the data set the comment names; see
SETUPS), and what it prints (standard output and error, as a terminal shows them) must equal
the lines after it, up to the next command or the end of the block (trailing blanks ignored);
a documented line that ends in `...` stands for a printed line that starts with its text (a
long ncu command line). --update writes what the commands print into the blocks instead, lines
longer than WIDTH cut that way, so that the documentation is generated from real output; the
check then fails whenever a change alters what a documented command prints.
"""

import argparse
import difflib
import pathlib
import re
import shlex
import subprocess
import sys

# The stores the examples run against: each a list of kscope argument lists.
SETUPS = {
    "devset": [
        ["import", "{data}/nsys/llama.sqlite", "{data}/ncu/llama_deep_raw.csv", "{data}/ncu/llama_deep_details.csv",
         "--label", "llama-4L", "--model", "llama-4L", "--dtype", "bf16", "--batch", "2", "--tokens", "288"],
        ["import", "{data}/nsys/tiny_cuda.sqlite", "{data}/ncu/tiny_cuda_gemm_full_raw.csv",
         "{data}/ncu/tiny_cuda_gemm_full_details.csv", "--label", "tiny_cuda"],
    ],
}

BLOCK = re.compile(r"(<!-- example: (\w+) -->\n)(.*?)(<!-- end example -->)", re.S)
INDENT = "    "
WIDTH = 200


def make_store(kscope, setup, data, work):
    db = work / f"{setup}.db"
    for suffix in ("", "-wal", "-shm"):
        pathlib.Path(str(db) + suffix).unlink(missing_ok=True)
    for args in SETUPS[setup]:
        argv = [kscope, "--db", str(db)] + [a.format(data=data) for a in args]
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            sys.exit(f"check_examples: setting up {setup}: {' '.join(argv)} failed:\n{done.stderr}")
    return db


def run(kscope, db, command, repo):
    args = shlex.split(command)
    assert args[0] == "kscope", command
    done = subprocess.run([kscope, "--db", str(db)] + args[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, cwd=repo, check=False)
    return done.stdout


def commands(body):
    """(command, expected lines) for each `$ kscope` line of a block's body."""
    out = []
    for line in body.splitlines():
        text = line[len(INDENT):] if line.startswith(INDENT) else line.strip()
        if text.startswith("$ kscope"):
            out.append((text[2:], []))
        elif out:
            out[-1][1].append(text.rstrip())
    return out


def render(pairs):
    lines = []
    for command, output in pairs:
        lines.append(INDENT + "$ " + command)
        lines += [(INDENT + l).rstrip() for l in output]
    return "\n".join(lines) + "\n"


def cut(line):
    return line if len(line) <= WIDTH else line[:WIDTH] + "..."


def same(documented, printed):
    if len(documented) != len(printed):
        return False
    for d, p in zip(documented, printed):
        if d != p and not (d.endswith("...") and p.startswith(d[:-3])):
            return False
    return True


def trimmed(lines):
    lines = [l.rstrip() for l in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def check_file(path, kscope, stores, repo, update):
    text = path.read_text()
    problems, blocks = [], 0

    def replace(m):
        nonlocal blocks
        blocks += 1
        pairs = []
        for command, expected in commands(m.group(3)):
            got = trimmed(run(kscope, stores[m.group(2)], command, repo).splitlines())
            if same(trimmed(expected), got):
                pairs.append((command, expected))
                continue
            diff = "\n".join(difflib.unified_diff(trimmed(expected), got, "documented", "printed", lineterm=""))
            problems.append(f"{path.name}: `{command}` prints other than documented:\n{diff}")
            pairs.append((command, [cut(line) for line in got]))
        return m.group(1) + render(pairs) + m.group(4)

    new = BLOCK.sub(replace, text)
    if update and new != text:
        path.write_text(new)
    return problems, blocks


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kscope")
    parser.add_argument("repo", help="the repository root (docs/ and tests/data/ under it)")
    parser.add_argument("work", help="a scratch folder for the stores")
    parser.add_argument("--update", action="store_true", help="write what the commands print into the docs")
    args = parser.parse_args()
    repo, work = pathlib.Path(args.repo).resolve(), pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    data = repo / "tests" / "data"
    stores = {name: make_store(args.kscope, name, data, work) for name in SETUPS}
    problems, blocks = [], 0
    for path in sorted((repo / "docs").glob("*.md")) + [repo / "README.md"]:
        p, b = check_file(path, args.kscope, stores, repo, args.update)
        problems += p
        blocks += b
    for p in problems:
        print(f"check_examples: {p}")
    print(f"check_examples: {blocks} examples, {len(problems)} differ")
    sys.exit(1 if problems and not args.update else 0)


if __name__ == "__main__":
    main()
