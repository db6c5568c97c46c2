#!/usr/bin/env python3
"""Times the import of every zoo run with two kscope binaries (before, after), alternating
them, each import into a fresh store: the nsys export alone, the export with each ncu file
(one call), and each ncu file added to the export's run (--run, only that import timed).
Prints per case the best wall time and the best CPU time (user+sys of kscope) of each binary
over REPS repetitions, and the totals."""
import os, resource, subprocess, sys, tempfile, time
before, after, reps = sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 3
Z = "/work/derive-baseline/unpacked"
D = "/work/main/tests/data/zoo"
cases = []
for m in sorted(os.listdir(D)):
    if not os.path.isdir(os.path.join(D, m)): continue
    disc = f"{Z}/{m}_discovery.sqlite"
    cases.append((f"{m}", [], [disc]))
    for f in sorted(os.listdir(os.path.join(D, m))):
        if f == "discovery.sqlite.zst" or not (f.endswith(".csv.zst") or f.endswith(".ncu-rep.zst")): continue
        page = f"{Z}/{m}_{f[:-4]}"
        cases.append((f"{m}+{f[:-4]}", [], [disc, page]))
        cases.append((f"{m} --run {f[:-4]}", [disc], ["--run", "1", page]))

def once(k, pre, args):
    with tempfile.TemporaryDirectory(dir="/tmp") as d:
        db = os.path.join(d, "k.db")
        if pre: subprocess.run([k, "--db", db, "import", *pre], check=True, stdout=subprocess.DEVNULL)
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([k, "--db", db, "import", *args], check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)

tot = {"b": [0, 0], "a": [0, 0]}
print(f"{'case':58} {'wall before':>11} {'wall after':>10} {'cpu before':>10} {'cpu after':>9}")
for name, pre, args in cases:
    best = {"b": [1e9, 1e9], "a": [1e9, 1e9]}
    for r in range(reps):
        order = [("b", before), ("a", after)] if r % 2 == 0 else [("a", after), ("b", before)]
        for key, k in order:
            w, c = once(k, pre, args)
            best[key] = [min(best[key][0], w), min(best[key][1], c)]
    for key in tot: tot[key] = [tot[key][0] + best[key][0], tot[key][1] + best[key][1]]
    print(f"{name:58} {best['b'][0]:11.3f} {best['a'][0]:10.3f} {best['b'][1]:10.3f} {best['a'][1]:9.3f}", flush=True)
print(f"{'total':58} {tot['b'][0]:11.3f} {tot['a'][0]:10.3f} {tot['b'][1]:10.3f} {tot['a'][1]:9.3f}")
