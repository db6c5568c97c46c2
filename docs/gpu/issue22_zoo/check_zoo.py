#!/usr/bin/env python3
"""Issue 22's "done when", checked on each zoo run that zoo/run_zoo.sh profiled and reported.

Usage: check_zoo.py KSCOPE OUT... (each OUT a zoo/run_zoo.sh output folder: zoo.db, MODEL/report.json,
MODEL/manifest.json). For every run, one block: its rows with MFU and FLOP coverage (stages, else
iterations), whether every profiled kernel carries its warp-stall breakdown, the headline, and
each advice contradiction of the issue looked for in what kscope advises (every finding's fix, and
`kscope kernel`'s advice for every profiled kernel). The register check reads "raise occupancy"
and "(ILP)" as register advice too since the calls of README.md were made. A line starting "FAIL" is a check that did not
hold; the last line counts them.
"""
import json
import os
import subprocess
import sys

VENDOR = {"cuBLAS", "cuDNN", "CUTLASS", "FlashAttention"}


def kscope_json(k, db, *args):
    out = subprocess.run([k, "--db", db, *args, "--format", "json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def findings(report):
    yield from report["timeline"].get("findings", [])
    for s in report.get("stages", []):
        yield from s.get("findings", [])
    yield from (report.get("iterations") or {}).get("findings", [])


def mfu_rows(report):
    rows = []
    for s in report.get("stages", []):
        m = s.get("mfu") or {}
        if s.get("depth") == 0 and m:
            rows.append(("stage " + s["name"], m.get("mfu_pct"), m.get("coverage_pct"), m.get("flops_source")))
    it = report.get("iterations") or {}
    if it.get("mfu"):
        m = it["mfu"]
        rows.append((f"iterations ({it.get('steady')} steady)", m.get("mfu_pct"), m.get("coverage_pct"),
                     m.get("flops_source")))
    return rows


def kernel_advice(k, db, run):
    """(short name, library, DRAM %, class, [advice]) of every profiled kernel, from `kscope kernel`."""
    table = kscope_json(k, db, "kernels", str(run))[0]["rows"]
    for row in table:
        fields = {r["Field"]: r["Value"] for r in kscope_json(k, db, "kernel", str(run), str(row["ID"]))[0]["rows"]}
        advice = [v for f, v in fields.items() if f.startswith("Advice")]
        yield row["Kernel"], row["Library"], row["DRAM (%)"], row["Class"], advice


def check(k, out, model):
    folder = os.path.join(out, model)
    report = json.load(open(os.path.join(folder, "report.json")))
    run = report["run"]["id"]
    db = os.path.join(out, "zoo.db")
    fails = []
    print(f"== {model} (run {run})")
    print(f"  headline: {report['headline']['verdict']['kind']}: {report['headline']['verdict']['title']}")
    if report.get("incomplete"):
        fails.append(f"incomplete: {report['incomplete']}")
    rows = mfu_rows(report)
    for name, mfu, cov, src in rows:
        shown = "not measured" if mfu is None else f"{mfu:.4g}%"
        print(f"  MFU {name}: {shown} (FLOP coverage {cov if cov is None else round(cov, 1)}%, {src})")
    if not any(mfu is not None and cov is not None for _, mfu, cov, _ in rows):
        fails.append("no stage or iteration row with an MFU and its coverage")
    sampled = [s["name"] for s in report.get("stages", []) if s.get("gpu_metrics")]
    it = report.get("iterations") or {}
    print(f"  nsys GPU metrics: {len(sampled)} stages" + (", the steady iterations" if it.get("gpu_metrics") else ""))
    profiled = report.get("profiled_kernels", [])
    bare = [p["short_name"] for p in profiled if not p.get("stalls")]
    print(f"  profiled kernels: {len(profiled)}, with the stall breakdown: {len(profiled) - len(bare)}")
    if not profiled:
        fails.append("no profiled kernel")
    if bare:
        fails.append(f"no stall breakdown: {bare}")
    work = report.get("workload", {})
    graphs, triton = work.get("graph_launches", 0), work.get("triton_kernels", 0)
    fixes = [f.get("fix", "") for f in findings(report)]
    try:
        advice = list(kernel_advice(k, db, run)) if profiled else []
    except subprocess.CalledProcessError as e:
        fails.append(f"kscope {' '.join(e.cmd[3:])} failed: {e.stderr.strip()[:200]}")
        advice = []
    texts = fixes + [a for *_, adv in advice for a in adv]
    if graphs > 0:
        told = [t for t in texts if "CUDA graph" in t and "already" not in t]
        fails += [f"a CUDA-graph loop ({graphs} graph launches) told: {t[:160]}" for t in told]
    if triton > 0:
        told = [t for t in texts if "torch.compile" in t and "already" not in t]
        fails += [f"a compiled run ({triton} Triton launches) told: {t[:160]}" for t in told]
    for name, library, dram, cls, adv in advice:
        if library in VENDOR:
            tune = ("launch_bounds", "maxrregcount", "raise occupancy", "(ILP)")
            fails += [f"{name} ({library}) told: {a[:160]}" for a in adv if any(t in a for t in tune)]
        if dram is not None and dram >= 80 and cls.startswith("memory"):
            fails += [f"{name} at {dram:.1f}% of DRAM peak told: {a[:160]}" for a in adv if "tile" in a.lower()]
    print(f"  advice read: {len(fixes)} finding fixes, {sum(len(a[-1]) for a in advice)} kernel advice lines "
          f"({len(advice)} kernels); graph launches {graphs}, Triton launches {triton}")
    for f in fails:
        print("  FAIL", f)
    return len(fails)


def main():
    k, outs = sys.argv[1], sys.argv[2:]
    failed = checked = 0
    for out in outs:
        for model in sorted(os.listdir(out)):
            if os.path.isfile(os.path.join(out, model, "report.json")):
                checked += 1
                failed += check(k, out, model)
    print(f"checked {checked} runs: {failed} failed checks")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
