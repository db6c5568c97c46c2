#!/bin/bash
# Issue 34's check on the GPU machine: every workload of workloads.py timed without a profiler
# (three interleaved rounds, 100 steps each after 10 warm-up steps), then the baselines (and the
# padded vocabulary) profiled by nsys with kscope profile's trace settings and exported to
# SQLite. Run from the repository root on the device with .gpu/debs holding the two Debian
# packages nsys needs; results in $OUT: machine.txt, times.jsonl, profile.log, exports.tar.xz.
set -u
RES=${OUT:?}; T=/tmp/w34; rm -rf "$T"; mkdir -p "$T/debs"
for f in .gpu/debs/*.deb; do dpkg -x "$f" "$T/debs"; done
export LD_LIBRARY_PATH="$T/debs/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" PYTHONUNBUFFERED=1
NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
W=docs/gpu/issue34_whatif/workloads.py
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv,noheader;
  python3 -c "import torch, transformers; print(torch.__version__, transformers.__version__)"; } > "$RES/machine.txt" 2>&1
S=$EPOCHREALTIME
python3 "$W" time 3 100 > "$RES/times.jsonl" 2> "$T/times.err"
tail -5 "$T/times.err" >> "$RES/machine.txt"
echo "timing: $(awk "BEGIN{print $EPOCHREALTIME - $S}") s" >> "$RES/machine.txt"
for spec in ${SPECS:-gpu_sleep:base gpu_sleep:none gpu_host:base decode_host:base decode_sleep:base decode_graph:base adamw:base adamw:fused vocab:base vocab:padded}; do
  m=${spec%:*}; v=${spec#*:}; S=$EPOCHREALTIME
  "$NSYS" profile --trace=cuda,nvtx,osrt --sample=none --cuda-graph-trace=node -o "$T/$m-$v" \
    python3 "$W" "$m" "$v" 30 >> "$RES/profile.log" 2>&1
  "$NSYS" export --type sqlite -o "$T/$m-$v.sqlite" "$T/$m-$v.nsys-rep" >> "$RES/profile.log" 2>&1
  echo "$spec: $(awk "BEGIN{print $EPOCHREALTIME - $S}") s" >> "$RES/machine.txt"
  (cd "$T" && tar -cJf "$RES/exports.tar.xz" ./*.sqlite)
done
