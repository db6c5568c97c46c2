#!/bin/bash
# Issue 14 on the GPU machine: the native import of the devset's 94 MB report beside ncu's own
# CSV export of it and NVIDIA's Python ncu_report reading every metric, in alternating rounds
# in one call. Arguments: the kscope binaries to compare (static release builds carried in
# .carry/bin/); carried too: .carry/ncu/llama_decode_quick.ncu-rep.xz (from the devset).
ROUNDS=${ROUNDS:-8}
EVERY=$PWD/docs/gpu/ncu_report_every_metric.py  # NVIDIA's ncu_report, every metric
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"; $NCU --version | tail -1
nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
PY=$(dirname "$(readlink -f "$NCU")")/extras/python
[ -d "$PY" ] || PY=$(ls -d /usr/local/cuda/nsight-compute-*/extras/python /opt/nvidia/nsight-compute/*/extras/python 2>/dev/null | head -1)
BINS=("$@")
cd .carry/ncu && { [ -f llama_decode_quick.ncu-rep ] || xz -dk llama_decode_quick.ncu-rep.xz; }
ls -l llama_decode_quick.ncu-rep
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
    timed "python3 ncu_report, every metric" python3 "$EVERY" "$PY" $rep
  fi
done
