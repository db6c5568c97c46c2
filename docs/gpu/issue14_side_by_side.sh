#!/bin/bash
# Issue 14 on the GPU machine: the native import of the devset's 94 MB report beside ncu's own
# CSV export of it and NVIDIA's Python ncu_report reading every metric, in alternating rounds
# in one call. Arguments: the kscope binaries to compare (static release builds carried in
# .carry/bin/); carried too: .carry/ncu/llama_decode_quick.ncu-rep.xz (from the devset).
ROUNDS=${ROUNDS:-8}
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"; $NCU --version | tail -1
nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
PY=$(dirname "$(readlink -f "$NCU")")/extras/python
[ -d "$PY" ] || PY=$(ls -d /usr/local/cuda/nsight-compute-*/extras/python /opt/nvidia/nsight-compute/*/extras/python 2>/dev/null | head -1)
BINS=("$@")
cd .carry/ncu && { [ -f llama_decode_quick.ncu-rep ] || xz -dk llama_decode_quick.ncu-rep.xz; }
ls -l llama_decode_quick.ncu-rep
cat > /tmp/every_metric.py <<'PYEOF'
import sys
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
# Wall time to the millisecond (date before and after) and peak RSS (/usr/bin/time) of one
# command, printed on stderr (stdout may be redirected).
timed() {
  local what=$1; shift
  local t0 t1
  t0=$(date +%s%N)
  /usr/bin/time -f "%M" -o /tmp/rss "$@"
  t1=$(date +%s%N)
  echo "$what: $(( (t1 - t0) / 1000000 )) ms, $(cat /tmp/rss) KB" >&2
}
for i in $(seq 1 "$ROUNDS"); do
  timed "ncu --import --page raw --csv" $NCU --import $rep --page raw --csv >/tmp/r.csv
  for b in "${BINS[@]}"; do
    rm -f /tmp/k.db*; timed "kscope import ($b)" ../bin/$b --db /tmp/k.db import $rep >/dev/null
  done
  if [ "$i" -le 2 ] && [ -n "$PY" ]; then
    timed "python3 ncu_report, every metric" python3 /tmp/every_metric.py "$PY" $rep
  fi
done
