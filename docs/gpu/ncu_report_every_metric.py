# Reads every metric of every launch of an ncu report with NVIDIA's Python ncu_report (the
# peer the native import is timed against). Usage: python3 ncu_report_every_metric.py
# NCU_PYTHON_DIR REPORT, NCU_PYTHON_DIR being Nsight Compute's extras/python.
import sys
import time

sys.path.append(sys.argv[1])
import ncu_report  # noqa: E402

t = time.time()
ctx = ncu_report.load_report(sys.argv[2])
launches = metrics = 0
for r in range(ctx.num_ranges()):
    rng = ctx.range_by_idx(r)
    for a in range(rng.num_actions()):
        act = rng.action_by_idx(a)
        launches += 1
        for name in act.metric_names():
            m = act[name]
            try:
                m.value()
            except Exception:
                m.as_string()
            metrics += 1
print(f"ncu_report {sys.argv[2]}: {time.time() - t:.3f} s, {launches} launches, {metrics} metrics")
