#!/bin/bash
# The merged tree's release on the GPU machine: kscope profile with the defaults on the tensor-
# parallel zoo job (torchrun, 2 GPUs) and on the encoder-decoder with a growing cache (1 GPU),
# each timed, then kscope report. Each part's results go under $OUT as it ends.
set -u
OUT=${OUT:?}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
C=$PWD/.gpu/lead; T=/tmp/kl; W=$T/w; mkdir -p "$W" "$T/debs"
tar -xzf "$C"/kscope-*.tar.gz -C "$T"; K=$(ls "$T"/kscope-*/bin/kscope)
for f in "$C"/debs/*.deb; do dpkg -x "$f" "$T/debs"; done
export LD_LIBRARY_PATH="$T/debs/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export KSCOPE_NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys PYTHONUNBUFFERED=1
Z=$C/models
"$K" --version > "$OUT/machine.txt" 2>&1; nvidia-smi -L >> "$OUT/machine.txt"
part() {  # part NAME LIMIT -- WORKLOAD...
  local name=$1 lim=$2; shift 3
  local t0=$EPOCHREALTIME
  timeout -s INT "$lim" "$K" --db "$W/k.db" profile "profile.runs_dir=$W/runs" --label "$name" -- "$@" \
    > "$OUT/${name}_profile.log" 2>&1
  local rc=$?
  echo "$name: exit $rc after $(python3 -c "print(round($EPOCHREALTIME - $t0, 1))") s" | tee -a "$OUT/times.txt"
  local A; A=$("$K" --db "$W/k.db" query "select max(id) from run where label = '$name'" --format csv 2>/dev/null | tail -1)
  "$K" --db "$W/k.db" report "$A" --out "$W/r_$name" > "$OUT/${name}_report.txt" 2>&1
  cp "$W/r_$name/report.json" "$OUT/${name}_report.json" 2>/dev/null
}
part tp_infer 200 -- torchrun --nproc_per_node=2 "$Z/tp_infer.py"
CUDA_VISIBLE_DEVICES=0 part encdec_infer 220 -- python3 "$Z/encdec_infer.py"
