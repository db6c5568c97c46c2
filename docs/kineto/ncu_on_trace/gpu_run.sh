#!/bin/bash
# Issue 25 item 2 on the GPU machine: a torch.profiler trace of the whole decoder inference,
# imported; kscope profile --discovery from that trace run; ncu directly on the same command,
# imported into the trace run. Each part's files go under $OUT as it ends.
set -u
OUT=${OUT:?}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
C=$PWD/.gpu/trace; T=/tmp/kt; W=$T/w; mkdir -p "$W"
tar -xzf "$C"/kscope-*.tar.gz -C "$T"; K=$(ls "$T"/kscope-*/bin/kscope)
export CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
cd "$W"; cp "$C/record_trace.py" .
stamp() { echo "$1: exit $2 at $(python3 -c "print(round($EPOCHREALTIME - $T0, 1))") s" | tee -a "$OUT/times.txt"; }
T0=$EPOCHREALTIME
{ "$K" --version; nvidia-smi -L; ncu --version | tail -1; python3 -c "import torch; print(torch.__version__)"; } > "$OUT/machine.txt" 2>&1
timeout 100 python3 record_trace.py whole rec > "$OUT/record.log" 2>&1; stamp record $?
cp rec/* "$OUT/"
"$K" --db k.db import rec/decoder_whole.json.gz > "$OUT/import_trace.log" 2>&1; stamp import_trace $?
"$K" --db k.db profile --discovery 1 --dry-run selection.top=6 -- python3 record_trace.py whole rec2 > "$OUT/profile_dryrun.log" 2>&1; stamp dryrun $?
timeout -s INT 90 "$K" --db k.db profile --discovery 1 "profile.runs_dir=$W/runs" selection.top=6 \
  -- python3 record_trace.py whole rec2 > "$OUT/profile.log" 2>&1; stamp profile $?
mkdir -p "$OUT/runs"; (cd runs && find . -name '*.ncu-rep' -o -name 'manifest.json' -o -name '*.log' | tar -cf - -T - | tar -xf - -C "$OUT/runs")
timeout 60 ncu -c 40 -f -o direct python3 record_trace.py whole rec3 > "$OUT/ncu_direct.log" 2>&1; stamp ncu_direct $?
cp direct.ncu-rep "$OUT/" 2>/dev/null
"$K" --db k.db import --run 1 direct.ncu-rep > "$OUT/import_ncu.log" 2>&1; stamp import_ncu $?
"$K" --db k.db query "select id, label, status from run" > "$OUT/runs.txt" 2>&1
"$K" --db k.db report 1 > "$OUT/report_run1.txt" 2>&1
cp k.db "$OUT/"
