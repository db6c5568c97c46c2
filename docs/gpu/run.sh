#!/bin/bash
# Kept as it ran on the GPU machine (repository root = the carried checkout; .carry/ held
# the two Debian packages from shared/gpu/debs, llama.sqlite, llama_workload.py, the release
# kscope and make_scaled_export built on the dev machine, and scripts/compare-nsys.sh).
# GPU call 3: nsys stats vs kscope on the 400k-launch scaled export (one run), import thread
# sweep, then a real long Llama capture (nsys profile + export) compared the same way.
set -u
mkdir -p /tmp/dw && for f in .carry/*.deb; do dpkg -x "$f" /tmp/dw; done
export LD_LIBRARY_PATH=/tmp/dw/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
KS=$PWD/.carry/bin/kscope
MK=$PWD/.carry/bin/make_scaled_export
W=/tmp/w; mkdir -p $W
$MK .carry/llama.sqlite $W/scaled.sqlite --kernels 400000 > $OUT/scaled.txt 2>&1
bash .carry/compare-nsys.sh $NSYS $KS $W/scaled.sqlite $W/cmp 3 > $OUT/compare_scaled.txt 2>&1
echo "rc=$?" >> $OUT/compare_scaled.txt
for t in 2 8 16; do
  for i in 1 2 3; do
    rm -f $W/t.db*
    python3 -c '
import resource, subprocess, sys, time
t = time.perf_counter()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
print(f"threads {sys.argv[-2]} wall {time.perf_counter() - t:.3f} rss_MiB {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.1f}")
' $KS --db $W/t.db import --threads $t $W/scaled.sqlite
  done
done > $OUT/threads.txt 2>&1
cat $OUT/compare_scaled.txt $OUT/threads.txt
# A real capture: the devset workload with 1,600 decode tokens.
cd $W
START=$(date +%s)
timeout 330 $NSYS profile --trace=cuda,nvtx,osrt --sample=none -o real -f true python3 $OLDPWD/.carry/llama_workload.py 4 2 128 1600 > $OUT/real_profile.txt 2>&1
echo "profile rc=$? $(( $(date +%s) - START )) s" >> $OUT/real_profile.txt
S2=$(date +%s)
$NSYS export --type sqlite -o real.sqlite -f true real.nsys-rep >> $OUT/real_profile.txt 2>&1
echo "export rc=$? $(( $(date +%s) - S2 )) s" >> $OUT/real_profile.txt
ls -la real.* >> $OUT/real_profile.txt
cd $OLDPWD
if [ -f $W/real.sqlite ]; then
  sqlite3 $W/real.sqlite "select count(*) from CUPTI_ACTIVITY_KIND_KERNEL" >> $OUT/real_profile.txt 2>&1
  bash .carry/compare-nsys.sh $NSYS $KS $W/real.sqlite $W/cmpreal 3 > $OUT/compare_real.txt 2>&1
  echo "rc=$?" >> $OUT/compare_real.txt
  cp $W/cmpreal/nsys_nvtx_gpu_proj_sum.csv $OUT/real_nsys_nvtx_gpu_proj_sum.csv
  cp $W/cmpreal/nsys_cuda_gpu_kern_sum.csv $OUT/real_nsys_cuda_gpu_kern_sum.csv
fi
tail -5 $OUT/real_profile.txt; cat $OUT/compare_real.txt 2>/dev/null
