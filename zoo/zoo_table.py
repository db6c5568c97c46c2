#!/usr/bin/env python3
"""The zoo's results as Markdown tables (for docs/zoo.md), from what zoo/run_zoo.sh kept:
OUT/times.tsv and, per model, OUT/MODEL/manifest.json and OUT/MODEL/report.json.

Usage: zoo/zoo_table.py OUT
"""
import json
import os
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def pct(v, digits=1):
    if v is None:
        return "-"
    return f"{v:.{digits}f}%" if v >= 0.1 or v == 0 else f"{v:.3g}%"


def main(out):
    times = {}
    with open(os.path.join(out, "times.tsv")) as f:
        for line in f:
            m, rc, profile_s, report_s = line.rstrip("\n").split("\t")
            times[m] = (int(rc), float(profile_s), float(report_s))
    print("| Model | Exit | Profile (s) | nsys (s) | ncu (s) | Launches profiled | Passes per launch | Deep coverage | "
          "Limited by |")
    print("|---|---|---|---|---|---|---|---|---|")
    stages = []
    for m, (rc, profile_s, _) in times.items():
        man = load(os.path.join(out, m, "manifest.json")) or {}
        rep = load(os.path.join(out, m, "report.json")) or {}
        steps = man.get("steps", [])
        nsys_s = sum(s.get("seconds", 0) for s in steps if s.get("name", "").startswith("nsys"))
        ncu_s = sum(s.get("seconds", 0) for s in steps if s.get("name", "").startswith("ncu pass"))
        launches = sum(s.get("launches_profiled", 0) for s in steps if s.get("name", "").startswith("ncu pass"))
        sel = man.get("selection", {})
        print(f"| {m} | {rc} | {profile_s:.0f} | {nsys_s:.0f} | {ncu_s:.0f} | {launches} | "
              f"{sel.get('passes_per_launch', '-')} | {pct(sel.get('deep_pct'))} | {sel.get('limited_by', '-')} |")
        for s in rep.get("stages", []):
            mfu = s.get("mfu", {})
            lines = {l["name"]: l for l in mfu.get("lines", [])}
            measured = lines.get("measured (ncu)", {})
            model = [l for n, l in lines.items() if n != "measured (ncu)"]
            model_line = model[1] if len(model) > 1 else (model[0] if model else None)
            steady = s.get("steady", {})
            other = s.get("other_threads", {}).get("ops", 0)
            stages.append((m, s.get("display_name", s.get("name")), s.get("instances"),
                           (steady.get("wall", {}) or {}).get("first_ns"), steady.get("median_wall_ns"),
                           s.get("ops"), other, pct(measured.get("mfu_pct"), 2), pct(mfu.get("coverage_pct")),
                           (model_line or {}).get("name", "-"), pct((model_line or {}).get("mfu_pct"), 2),
                           pct(mfu.get("mbu_pct"), 2)))
    print()
    print("| Model | Stage | Instances | First (ms) | Steady median (ms) | GPU ops | of other threads | "
          "MFU measured | FLOP coverage | Model count | MFU (model) | MBU |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (m, name, inst, first, steady, ops, other, measured, cov, model_name, model_mfu, mbu) in stages:
        ms = lambda ns: "-" if ns is None else f"{ns / 1e6:.2f}"
        print(f"| {m} | {name} | {inst} | {ms(first)} | {ms(steady)} | {ops} | {other} | {measured} | {cov} | "
              f"{model_name} | {model_mfu} | {mbu} |")


if __name__ == "__main__":
    main(sys.argv[1])
