#!/bin/bash
# tp_infer again with the stall sections off (ncu.stalls=off): does the deep pass then finish?
set -u
OUT=${OUT:?}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
C=$PWD/.gpu/lead; T=/tmp/kl; W=$T/w; mkdir -p "$W" "$T/debs"
tar -xzf "$C"/kscope-*.tar.gz -C "$T"; K=$(ls "$T"/kscope-*/bin/kscope)
for f in "$C"/debs/*.deb; do dpkg -x "$f" "$T/debs"; done
export LD_LIBRARY_PATH="$T/debs/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export KSCOPE_NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys PYTHONUNBUFFERED=1
t0=$EPOCHREALTIME
timeout -s INT 150 "$K" --db "$W/k.db" profile "profile.runs_dir=$W/runs" --label tp_nostall ncu.stalls=off \
  -- torchrun --nproc_per_node=2 "$C/models/tp_infer.py" > "$OUT/tp_nostall_profile.log" 2>&1
echo "tp_infer ncu.stalls=off: exit $? after $(python3 -c "print(round($EPOCHREALTIME - $t0, 1))") s" | tee "$OUT/times.txt"
