#!/bin/bash
# Kept as it ran on the GPU machine with the final commit (see docs/gpu-verification.md).
# GPU call 4: final figures: nsys stats vs kscope on the 400k-launch scaled export, import threads.
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

