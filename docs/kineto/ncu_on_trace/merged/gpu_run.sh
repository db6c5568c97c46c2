#!/bin/bash
# Issue 25 item 2 with the merged tree's release: a torch.profiler trace of the whole decoder
# inference, imported; kscope profile --discovery from that trace run with the defaults; the
# reports of both runs. Each part's files go under $OUT as it ends.
set -u
OUT=${OUT:?}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
C=$PWD/.gpu/lead; T=/tmp/kt; W=$T/w; mkdir -p "$W" "$T/k"
tar -xzf "$C"/kscope-merged.tar.gz -C "$T/k"; K=$T/k/bin/kscope
export CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
cd "$W"; cp "$C/record_trace.py" .
stamp() { echo "$1: exit $2 at $(python3 -c "print(round($EPOCHREALTIME - $T0, 1))") s" | tee -a "$OUT/times.txt"; }
T0=$EPOCHREALTIME
{ "$K" --version; nvidia-smi -L; ncu --version | tail -1; python3 -c "import torch; print(torch.__version__)"; } > "$OUT/machine.txt" 2>&1
timeout 60 python3 record_trace.py whole rec > "$OUT/record.log" 2>&1; stamp record $?
"$K" --db k.db import rec/decoder_whole.json.gz > "$OUT/import_trace.log" 2>&1; stamp import_trace $?
timeout -s INT 150 "$K" --db k.db profile --discovery 1 "profile.runs_dir=$W/runs" \
  -- python3 record_trace.py whole rec2 > "$OUT/profile.log" 2>&1; stamp profile $?
"$K" --db k.db runs > "$OUT/runs.txt" 2>&1
"$K" --db k.db kernels 2 > "$OUT/kernels_run2.txt" 2>&1
"$K" --db k.db report 2 > "$OUT/report_run2.txt" 2>&1; stamp report $?
