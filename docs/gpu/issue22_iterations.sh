#!/bin/bash
# Issue 22 (iterations without NVTX, advice that fits) on the GPU machine: nsys alone, with
# kscope profile's nsys options, on two zoo workloads without NVTX: zoo/models/no_nvtx_train.py
# (10 training steps) and zoo/models/graph_replay.py (a CUDA graph replayed 16 times). Run from
# the repository root with this script, the two workloads and the debs of
# /work/shared/gpu/debs carried in .gpu/iterations/. Writes $OUT/log.txt as it goes and each
# export (OS runtime tables dropped, compressed) as soon as it exists.
set -u
S=$PWD/.gpu/iterations
W=/tmp/i22; rm -rf $W; mkdir -p $W
LOG=$OUT/log.txt
log() { echo "$*" | tee -a $LOG; }
mkdir -p /tmp/dw && for f in $S/*.deb; do dpkg -x "$f" /tmp/dw; done
export LD_LIBRARY_PATH=/tmp/dw/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
export CUDA_VISIBLE_DEVICES=0
NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
ZST="zstd -19 -q"; command -v zstd >/dev/null || ZST="xz -9"
log "date: $(date -u)"; log "host: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
log "nsys: $($NSYS --version)"; log "torch: $(python3 -c 'import torch; print(torch.__version__)')"
cd $W
for name in no_nvtx_train graph_replay; do
  t0=$(date +%s%N)
  $NSYS profile --trace=cuda,nvtx,osrt --sample=none --cuda-graph-trace=node -o $name python3 $S/$name.py \
    > $name.log 2>&1
  log "profile $name: rc=$? $(( ($(date +%s%N) - t0) / 1000000 )) ms; $(grep '^ok' $name.log)"
  $NSYS export --type sqlite -o $name.sqlite $name.nsys-rep >> $name.log 2>&1; log "export $name rc=$?"
  python3 - $name.sqlite <<'PY' | tee -a $LOG
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for t in ("OSRT_API", "OSRT_CALLCHAINS", "SCHED_EVENTS"):
    c.execute(f"DROP TABLE IF EXISTS {t}")
c.commit(); c.execute("VACUUM")
k = c.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
g = c.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId "
              "WHERE s.value LIKE 'cudaGraphLaunch%'").fetchone()[0]
print(sys.argv[1], "kernels", k, "cudaGraphLaunch", g)
PY
  $ZST $name.sqlite && cp $name.sqlite.* $OUT/
done
log "done: $(date -u)"
