#!/bin/bash
# Issue 4, first GPU-machine run: record what the real nsys and ncu print and do for the
# invocations `kscope profile` and `kscope doctor` make, before writing the code that reads it.
# Everything lands in $OUT/rec.tar.gz (stdout, stderr, exit codes, timings, exports).
set -u
R=/tmp/rec; mkdir -p $R; cd .carry/work
NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
NCU=$(command -v ncu)
W="python3 llama_workload.py 4 2 128 16"
step() {  # step NAME CMD...: run, keep stdout/stderr/exit/seconds
  local n=$1; shift
  local t0=$EPOCHREALTIME
  "$@" >$R/$n.out 2>$R/$n.err; echo $? >$R/$n.rc
  echo "$EPOCHREALTIME - $t0" | bc >$R/$n.sec
  echo "== $n rc=$(cat $R/$n.rc) $(cat $R/$n.sec) s"
}
{ nvidia-smi; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  echo "ncu=$NCU"; $NCU --version; echo "nsys=$NSYS"; ls /opt/nvidia /opt/nvidia/nsight-compute 2>&1
  ls /usr/local/cuda/bin | head -50; echo "CUDA_HOME=${CUDA_HOME:-}"; echo "PATH=$PATH"
  grep -i Profiling /proc/driver/nvidia/params; id; nproc
  python3 -c 'import torch, sys; print(torch.__version__, torch.version.cuda, sys.version)'
  $NCU --list-sets; $NCU --list-sections; } >$R/env.txt 2>&1
step nsys_version $NSYS --version
# nsys without libdw/libelf: the failure doctor must explain
step nsys_nolibs $NSYS profile --trace=cuda,nvtx,osrt --sample=none -o $R/nolibs --force-overwrite=true python3 -c 'import torch; torch.ones(1,device="cuda"); print("ok")'
ls -la $R >$R/nolibs_ls.txt
mkdir -p /tmp/dw && for f in ../debs/*.deb; do dpkg -x "$f" /tmp/dw; done
export LD_LIBRARY_PATH=/tmp/dw/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
step nsys_disc $NSYS profile --trace=cuda,nvtx,osrt --sample=none --cuda-graph-trace=node -o $R/disc --force-overwrite=true $W
step nsys_export $NSYS export --type sqlite -o $R/disc.sqlite --force-overwrite=true $R/disc.nsys-rep
step nsys_capture $NSYS profile --trace=cuda,nvtx,osrt --sample=none --cuda-graph-trace=node --capture-range=nvtx --nvtx-capture=decode --capture-range-end=stop -o $R/cap --force-overwrite=true $W
step nsys_capture_export $NSYS export --type sqlite -o $R/cap.sqlite --force-overwrite=true $R/cap.nsys-rep
step nsys_fail $NSYS profile --trace=cuda,nvtx -o $R/fail --force-overwrite=true python3 -c 'import sys; print("bye"); sys.exit(3)'
step nsys_crash $NSYS profile --trace=cuda,nvtx -o $R/crash --force-overwrite=true python3 -c 'import os, signal; os.kill(os.getpid(), signal.SIGSEGV)'
# ncu: a union of three kernels by mangled name, launch skip/count, NVTX-gated
U='regex:^(nvjet_sm90_tst_8x64_64x16_2x1_v_bz_TNN|nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT|_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_7MeanOpsIffffEEjfLi4ELi4EEEEEvT1_)$'
Q="--section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy"
step ncu_union $NCU --target-processes all --kernel-name-base mangled --kernel-name "$U" --launch-skip 3 --launch-count 9 --nvtx --nvtx-include decode/ $Q --replay-mode kernel --clock-control base --cache-control all -o $R/union -f $W
step ncu_union_raw $NCU --import $R/union.ncu-rep --page raw --csv
step ncu_union_details $NCU --import $R/union.ncu-rep --page details --csv
step ncu_union_rawfp $NCU --import $R/union.ncu-rep --page raw --csv --print-fp
step ncu_nokernel $NCU --target-processes all --kernel-name-base mangled --kernel-name 'regex:^nosuchkernel$' --launch-count 1 $Q -o $R/nok -f $W
step ncu_nonvtx $NCU --target-processes all --nvtx --nvtx-include 'nosuchrange/' --launch-count 1 $Q -o $R/nonvtx -f $W
step ncu_fail $NCU --target-processes all -o $R/ncufail -f python3 -c 'import sys; sys.exit(3)'
step ncu_version $NCU --version
nvcc -O2 -arch=sm_90 -o /tmp/tiny_cuda tiny_cuda.cu && chmod 755 /tmp/tiny_cuda
step ncu_nonroot setpriv --reuid=65534 --regid=65534 --clear-groups $NCU --section SpeedOfLight -o /tmp/nr -f /tmp/tiny_cuda
# The baseline: ncu --set detailed over every kernel, capped at 200 s, each progress line stamped
t0=$EPOCHREALTIME
timeout 200 $NCU --target-processes all --set detailed -o $R/all -f $W 2>&1 | while IFS= read -r l; do echo "$(echo "$EPOCHREALTIME - $t0" | bc) $l"; done >$R/ncu_all_detailed.log
echo "ncu all: $(grep -c '==PROF== Profiling' $R/ncu_all_detailed.log) kernels in $(echo "$EPOCHREALTIME - $t0" | bc) s"
rm -f $R/*.nsys-rep $R/*.qdstrm $R/all.ncu-rep $R/nok.ncu-rep $R/nonvtx.ncu-rep
xz -T0 $R/*.sqlite
ls -la $R
tar czf $OUT/rec.tar.gz -C /tmp rec
