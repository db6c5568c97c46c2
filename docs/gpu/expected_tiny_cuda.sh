#!/bin/bash
# Kept as it ran on the GPU machine: made tests/data/nsys/expected/tiny_cuda/*.csv with
# nsys stats from tests/data/nsys/tiny_cuda.sqlite (carried in .carry/).
# first GPU call: nsys stats on tiny_cuda.sqlite, report-script semantics, tool versions
set -x
mkdir -p /tmp/dw && for f in .carry/*.deb; do dpkg -x "$f" /tmp/dw; done
export LD_LIBRARY_PATH=/tmp/dw/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH
NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
$NSYS --version > $OUT/versions.txt 2>&1
ncu --version >> $OUT/versions.txt 2>&1
nvidia-smi >> $OUT/versions.txt 2>&1
D=$(dirname $NSYS)
ls -la $D $D/reports $D/python 2>&1 | head -200 > $OUT/ls.txt
mkdir -p /tmp/ex
for r in cuda_gpu_kern_sum cuda_api_sum cuda_gpu_mem_time_sum cuda_gpu_mem_size_sum nvtx_sum nvtx_kern_sum nvtx_gpu_proj_sum cuda_gpu_trace; do
  $NSYS stats --report $r --format csv --output /tmp/ex/tiny_cuda --force-export false .carry/tiny_cuda.sqlite > /tmp/ex/log_$r.txt 2>&1
done
ls -la /tmp/ex >> $OUT/ls.txt
cd /tmp/ex && tar czf $OUT/tiny_expected.tgz . && cd - >/dev/null
tar czf $OUT/reports.tgz -C $D reports 2>/dev/null
find / -name 'nsysstats.py' -o -name 'kernel_helper.py' 2>/dev/null | head >> $OUT/ls.txt
for f in $(find / \( -name 'nsysstats.py' -o -name 'kernel_helper.py' \) 2>/dev/null | head -2); do cp $f $OUT/; done
nproc >> $OUT/versions.txt; free -g >> $OUT/versions.txt; cat /etc/os-release | head -3 >> $OUT/versions.txt
