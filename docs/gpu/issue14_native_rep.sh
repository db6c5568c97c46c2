#!/bin/bash
# Issue 14 on the GPU machine: the native .ncu-rep import side by side with ncu's own CSV
# export of the same report and NVIDIA's Python ncu_report reading every metric of every
# launch, three alternating rounds, on the devset's 94 MB and 8.6 MB reports. Carried:
# .carry/bin/kscope (the static release binary), .carry/ncu/llama_decode_quick.ncu-rep.xz and
# .carry/ncu/llama_deep.ncu-rep (from the devset). Run on 2026-11-25: docs/gpu/issue14_runs/,
# docs/gpu-verification.md (issue 14).
K=$PWD/.carry/bin/kscope
EVERY=$PWD/docs/gpu/ncu_report_every_metric.py  # NVIDIA's ncu_report, every metric
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"; $NCU --version | tail -1
nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
PY=$(dirname "$(readlink -f "$NCU")")/extras/python
[ -d "$PY" ] || PY=$(ls -d /usr/local/cuda/nsight-compute-*/extras/python /opt/nvidia/nsight-compute/*/extras/python 2>/dev/null | head -1)
echo "ncu_report: $PY"
cd .carry/ncu && [ -f llama_decode_quick.ncu-rep ] || xz -dk llama_decode_quick.ncu-rep.xz
ls -l *.ncu-rep
for rep in llama_decode_quick llama_deep; do
  echo "== $rep.ncu-rep (3 rounds, alternating)"
  for i in 1 2 3; do
    /usr/bin/time -f "ncu --import --page raw --csv: %e s, %M KB" $NCU --import $rep.ncu-rep --page raw --csv > /tmp/$rep.csv
    rm -f /tmp/k.db*; /usr/bin/time -f "kscope import (native): %e s, %M KB" $K --db /tmp/k.db import $rep.ncu-rep > /dev/null
    [ -n "$PY" ] && /usr/bin/time -f "python3 ncu_report, every metric: %e s, %M KB" python3 "$EVERY" "$PY" $rep.ncu-rep
  done
  rm -f /tmp/v.db*; /usr/bin/time -f "kscope import --via-ncu (the old path): %e s, %M KB" $K --db /tmp/v.db import --via-ncu $rep.ncu-rep > /dev/null
  echo "== kscope kernels: native import vs import through ncu's pages"
  $K --db /tmp/k.db kernels 1 --format csv > /tmp/a.csv; $K --db /tmp/v.db kernels 1 --format csv > /tmp/b.csv
  diff /tmp/a.csv /tmp/b.csv && echo "identical"
done
