#!/bin/bash
# Issue 14 on the GPU machine, after the content hash became XXH3: the native import of the
# devset's 94 MB report side by side with ncu's own CSV export of it (five alternating
# rounds) and NVIDIA's Python ncu_report reading every metric (two rounds), as
# docs/gpu/issue14_native_rep.sh measured them before. Not run yet: the session that wrote it had
# no device time left. Carried: .carry/bin/kscope (the static
# release binary) and .carry/ncu/llama_decode_quick.ncu-rep.xz (from the devset).
K=$PWD/.carry/bin/kscope
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"; $NCU --version | tail -1
nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
PY=$(dirname "$(readlink -f "$NCU")")/extras/python
[ -d "$PY" ] || PY=$(ls -d /usr/local/cuda/nsight-compute-*/extras/python /opt/nvidia/nsight-compute/*/extras/python 2>/dev/null | head -1)
cd .carry/ncu && [ -f llama_decode_quick.ncu-rep ] || xz -dk llama_decode_quick.ncu-rep.xz
ls -l llama_decode_quick.ncu-rep
cat > /tmp/every_metric.py <<'PYEOF'
import sys, time
sys.path.append(sys.argv[1])
import ncu_report
ctx = ncu_report.load_report(sys.argv[2])
n = 0
for r in range(ctx.num_ranges()):
    rng = ctx.range_by_idx(r)
    for a in range(rng.num_actions()):
        act = rng.action_by_idx(a)
        for name in act.metric_names():
            m = act[name]
            try:
                m.value()
            except Exception:
                m.as_string()
            n += 1
print(f"ncu_report: {n} metrics")
PYEOF
rep=llama_decode_quick.ncu-rep
for i in 1 2 3 4 5; do
  /usr/bin/time -f "ncu --import --page raw --csv: %e s, %M KB" $NCU --import $rep --page raw --csv >/tmp/r.csv
  rm -f /tmp/k.db*; /usr/bin/time -f "kscope import (native): %e s, %M KB" $K --db /tmp/k.db import $rep >/dev/null
  if [ $i -le 2 ] && [ -n "$PY" ]; then
    /usr/bin/time -f "python3 ncu_report, every metric: %e s, %M KB" python3 /tmp/every_metric.py "$PY" $rep
  fi
done
sqlite3 /tmp/k.db "SELECT content_hash FROM source_file" 2>/dev/null || true
