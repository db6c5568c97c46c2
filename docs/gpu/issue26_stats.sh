#!/bin/bash
# Issue 26 on the GPU machine: real exports without each kind of data, and nsys's own
# `nsys stats` output (csv, json, table; stdout, stderr and exit code apart) of every report
# kscope has, the three trace reports and the older names, on those exports and on the
# devset's llama.sqlite and tiny_cuda.sqlite. Run from the repository root with this folder's
# files carried in .gpu/stats/ (this script, zoo/models/no_nvtx_infer.py,
# docs/gpu/issue26_{kernels,nvtx}_only.cu, tests/data/nsys/tiny_cuda.cu, the devset's
# llama.sqlite and tiny_cuda.sqlite, the two debs of /work/shared/gpu/debs).
# Writes $OUT/log.txt as it goes, $OUT/exports.tar.zst once the exports exist and
# $OUT/stats.tar.zst at the end.
set -u
S=$PWD/.gpu/stats
W=/tmp/i26; rm -rf $W; mkdir -p $W/exp $W/stats
LOG=$OUT/log.txt
log() { echo "$*" | tee -a $LOG; }
mkdir -p /tmp/dw && for f in $S/*.deb; do dpkg -x "$f" /tmp/dw; done
export LD_LIBRARY_PATH=/tmp/dw/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
ZST="zstd -T0 -q"; command -v zstd >/dev/null || ZST="xz -T0"
log "date: $(date -u)"; log "host: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
log "nsys: $($NSYS --version)"; log "python: $(python3 -c 'import torch; print(torch.__version__)')"
log "compressor: $ZST"
$NSYS stats --help-reports > $W/stats/help_reports.txt 2>&1; log "help-reports rc=$?"
$NSYS stats --help > $W/stats/help.txt 2>&1

# The exports.
cd $W/exp
cp $S/llama.sqlite $S/tiny_cuda.sqlite .
nvcc -O2 -arch=sm_90 -o kernels_only $S/issue26_kernels_only.cu && nvcc -O2 -o nvtx_only $S/issue26_nvtx_only.cu \
  && nvcc -O2 -arch=sm_90 -o tiny_cuda_bin $S/tiny_cuda.cu; log "nvcc rc=$?"
record() {  # NAME TRACE COMMAND...
  local name=$1 trace=$2; shift 2
  local t0=$(date +%s%N)
  $NSYS profile --trace=$trace --sample=none -o $name "$@" > $name.profile.log 2>&1
  log "profile $name ($trace): rc=$? $(( ($(date +%s%N) - t0) / 1000000 )) ms; $(tail -n 2 $name.profile.log | tr '\n' ' ')"
  $NSYS export --type sqlite -o $name.sqlite $name.nsys-rep >> $name.profile.log 2>&1; log "export $name rc=$?"
}
record no_nvtx cuda,nvtx,osrt python3 $S/no_nvtx_infer.py
record cuda_only cuda ./tiny_cuda_bin
record kernels_only cuda,nvtx ./kernels_only
record nvtx_only cuda,nvtx ./nvtx_only
for e in no_nvtx cuda_only kernels_only nvtx_only; do
  [ -f $e.sqlite ] && log "$e: $(python3 -c "
import sqlite3,sys; c=sqlite3.connect('$e.sqlite')
t=[r[0] for r in c.execute(\"select name from sqlite_master where type='table'\")]
print(' '.join(f'{n}={c.execute(f\"select count(*) from {n}\").fetchone()[0]}' for n in ['CUPTI_ACTIVITY_KIND_KERNEL','CUPTI_ACTIVITY_KIND_RUNTIME','CUPTI_ACTIVITY_KIND_MEMCPY','CUPTI_ACTIVITY_KIND_MEMSET','NVTX_EVENTS'] if n in t))")"
done
tar -cf - *.sqlite *.profile.log | $ZST > $OUT/exports.tar.zst; log "exports tarred: $(ls -l $OUT/exports.tar.zst)"

# nsys stats, one call per (export, report, format), 14 at a time: stdout, stderr, rc apart.
REPORTS="cuda_gpu_kern_sum cuda_api_sum cuda_gpu_mem_time_sum cuda_gpu_mem_size_sum nvtx_sum nvtx_kern_sum nvtx_gpu_proj_sum cuda_gpu_trace cuda_api_trace nvtx_pushpop_trace"
ALIASES="gpukernsum cudaapisum gpumemtimesum gpumemsizesum nvtxsum nvtxppsum nvtxkernsum nvtxgpuprojsum gputrace cudaapitrace nvtxpptrace gpusum kernexecsum apigpusum summary nosuchreport"
jobs=$W/jobs.txt; : > $jobs
for e in llama tiny_cuda no_nvtx cuda_only kernels_only nvtx_only; do
  [ -f $e.sqlite ] || continue
  mkdir -p $W/stats/$e
  for r in $REPORTS; do for f in csv json table; do echo "$e $r $f" >> $jobs; done; done
  for r in $ALIASES; do echo "$e $r csv" >> $jobs; done
done
for r in $ALIASES; do echo "tiny_cuda $r table" >> $jobs; done
one() {  # EXPORT REPORT FORMAT
  local o=$W/stats/$1/$2.$3
  ( cd $W/exp && $NSYS stats --report $2 --format $3 --output - $1.sqlite > $o.stdout 2> $o.stderr; echo $? > $o.rc )
}
export -f one; export NSYS W
t0=$(date +%s%N)
xargs -P 14 -L 1 bash -c 'one "$@"' _ < $jobs
log "stats: $(wc -l < $jobs) calls in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
# The trace reports on the Llama export one at a time, timed (csv to a file).
for r in cuda_gpu_trace cuda_api_trace nvtx_pushpop_trace cuda_gpu_kern_sum; do
  t0=$(date +%s%N)
  $NSYS stats --report $r --format csv --output $W/timed_$r llama.sqlite > /dev/null 2>&1
  log "timed llama $r: rc=$? $(( ($(date +%s%N) - t0) / 1000000 )) ms"
done
# The files nsys writes with --output PREFIX for the skipped cases (empty or absent?).
( cd $W/exp && $NSYS stats --report nvtx_sum --report cuda_gpu_mem_time_sum --format csv,json --output $W/stats/prefix_no_nvtx no_nvtx.sqlite > $W/stats/prefix_no_nvtx.log 2>&1 )
ls -la $W/stats/ > $W/stats/prefix_listing.txt
cd $W/stats && tar -cf - . | $ZST > $OUT/stats.tar.zst; log "stats tarred: $(ls -l $OUT/stats.tar.zst)"
log "done $(date -u)"
