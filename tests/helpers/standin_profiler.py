#!/usr/bin/env python3
"""nsys, ncu and nvidia-smi as kscope runs them, for tests on a machine without a GPU.

Called through links named nsys, ncu or nvidia-smi. What each prints and writes is what the
real tools printed and wrote on the GPU machine (tests/data/capture/llama_h100/, unpacked by
the test into $KSCOPE_STANDIN_DATA); the workload a profile command names runs for real, with
KSCOPE_STANDIN_UNDER=nsys or ncu in its environment, so a test sees which runs were profiled. With KSCOPE_STANDIN_NCU_STALL=NAME, ncu starts
profiling a launch of NAME and then prints nothing more, as a replay waiting for a peer does.
"""
import os
import shutil
import subprocess
import sys
import time

DATA = os.environ["KSCOPE_STANDIN_DATA"]


def show(name):
    with open(os.path.join(DATA, name), encoding="utf-8", errors="replace") as f:
        sys.stdout.write(f.read())
    sys.stdout.flush()


def value_after(argv, flag):
    return argv[argv.index(flag) + 1]


def run_workload(workload, under):
    env = dict(os.environ, KSCOPE_STANDIN_UNDER=under)
    return subprocess.run(workload, env=env, check=False).returncode


def nsys(argv):
    if "--version" in argv:
        return show("nsys_version.log") or 0
    if argv[0] == "profile":
        base = value_after(argv, "-o")
        workload = argv[argv.index("--force-overwrite=true") + 1:]
        rc = run_workload(workload, "nsys")
        show("nsys_profile.log")
        with open(base + ".nsys-rep", "w", encoding="utf-8") as f:
            f.write("stand-in report\n")
        return rc
    if argv[0] == "export":
        shutil.copyfile(os.path.join(DATA, "discovery.sqlite"), value_after(argv, "-o"))
        show("nsys_export.log")
        return 0
    return 2


def ncu(argv):
    if "--version" in argv:
        show("ncu_version.log")
        return 0
    for what, name in (("--list-sets", "list_sets.txt"), ("--list-sections", "list_sections.txt"),
                       ("--query-metrics", "query_metrics.txt")):
        if what in argv:
            show(name)
            return 0
    if "--import" in argv:
        show("pass1_raw.csv" if value_after(argv, "--page") == "raw" else "pass1_details.csv")
        return 0
    base = value_after(argv, "-o")
    workload = argv[argv.index("-f") + 1:]
    stall = os.environ.get("KSCOPE_STANDIN_NCU_STALL")
    if stall:  # a replay that waits for a peer: the launch starts, and nothing more comes
        sys.stdout.write(f'==PROF== Connected to process {os.getpid()}\n==PROF== Profiling "{stall}" - 0: 0%...')
        sys.stdout.flush()
        time.sleep(120)
        return 0
    rc = run_workload(workload, "ncu")
    show("ncu_pass1.log")
    with open(base + ".ncu-rep", "w", encoding="utf-8") as f:
        f.write("stand-in report\n")
    return rc


def main():
    tool = os.path.basename(sys.argv[0])
    if tool == "nvidia-smi":
        show("nvidia_smi.log")
        return 0
    return {"nsys": nsys, "ncu": ncu}[tool](sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
