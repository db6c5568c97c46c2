#!/bin/bash
# Issue 26 on the GPU machine: nsys's own time for the three trace reports (and
# cuda_gpu_kern_sum for scale) on the 400,000-launch export (bench/make_scaled_export
# tests/data/nsys/llama.sqlite OUT --kernels 400000, carried xz-compressed as
# .gpu/stats/scaled.sqlite.xz), and the md5 and line count of each CSV nsys wrote, to compare
# with kscope's output of the same export on the development machine. Two rounds.
set -u
S=$PWD/.gpu/stats
mkdir -p /tmp/dw && for f in $S/*.deb; do dpkg -x "$f" /tmp/dw; done
export LD_LIBRARY_PATH=/tmp/dw/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
LOG=$OUT/scaled_log.txt
log() { echo "$*" | tee -a $LOG; }
log "$(date -u) $(nvidia-smi --query-gpu=name --format=csv,noheader) $(nproc) cores; $($NSYS --version)"
W=/tmp/i26s; rm -rf $W; mkdir -p $W
xz -dc $S/scaled.sqlite.xz > $W/scaled.sqlite; log "export: $(stat -c %s $W/scaled.sqlite) bytes"
cd $W
for round in 1 2; do
  for r in cuda_gpu_trace cuda_api_trace nvtx_pushpop_trace cuda_gpu_kern_sum; do
    t0=$(date +%s%N)
    $NSYS stats --report $r --format csv --output $W/r${round}_x scaled.sqlite > /dev/null 2>&1
    rc=$?
    t1=$(date +%s%N)
    f=$W/r${round}_x_$r.csv
    log "round $round $r: rc=$rc $(( (t1 - t0) / 1000000 )) ms; $(md5sum < $f | cut -c1-32) $(wc -l < $f) lines"
  done
done
