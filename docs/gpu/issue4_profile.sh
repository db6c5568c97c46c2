#!/bin/bash
# Issue 4 on the GPU machine, one run: kscope doctor (without and with nsys's importer
# libraries), kscope profile in quick mode on the Llama workload (whole run, 90% coverage),
# kscope profile in roofline mode on its decode stage (reusing the discovery), and
# `ncu --set detailed` over every kernel of the same workload, each line time-stamped.
# Results: $OUT/profile.log (the screen) and $OUT/runs.tar.xz (run directories, database).
set -u
export LD_LIBRARY_PATH=$PWD/.carry/lib
K=$PWD/.carry/bin/kscope
W="python3 llama_workload.py 4 2 128 16"
stamp() { python3 -u -c '
import sys, time
t0 = time.time()
for line in sys.stdin:
    print(f"{time.time() - t0:8.2f} {line}", end="", flush=True)'; }
cd .carry/work
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
echo "== kscope doctor, nsys's importer libraries missing"
$K doctor; echo "exit $?"
mkdir -p /tmp/dw && for f in ../debs/*.deb; do dpkg -x "$f" /tmp/dw; done
export LD_LIBRARY_PATH=/tmp/dw/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH
echo "== kscope doctor, with libdw1 and libelf1 unpacked"
$K doctor; echo "exit $?"
echo "== kscope profile (quick, whole run)"
t0=$(date +%s.%N)
$K --db /tmp/k.db profile profile.runs_dir=/tmp/runs --label llama-quick --model llama-4L --dtype bf16 --batch 2 -- $W
echo "exit $? after $(python3 -c "print(round($(date +%s.%N) - $t0, 1))") s"
echo "== kscope profile (roofline, decode, discovery reused)"
t0=$(date +%s.%N)
$K --db /tmp/k.db profile profile.runs_dir=/tmp/runs ncu.mode=roofline selection.stage=decode selection.launches=2 \
  --discovery 1 --label llama-decode-roofline -- $W
echo "exit $? after $(python3 -c "print(round($(date +%s.%N) - $t0, 1))") s"
$K --db /tmp/k.db runs
$K --db /tmp/k.db kernels 1 | cut -c1-220
$K --db /tmp/k.db kernels 2 | cut -c1-220
echo "== ncu --set detailed over every kernel (stopped after 150 s)"
timeout -s INT 150 ncu --target-processes all --set detailed -o /tmp/all -f $W 2>&1 | stamp > /tmp/ncu_all.log
echo "profiled: $(grep -c '==PROF== Profiling' /tmp/ncu_all.log)"; head -3 /tmp/ncu_all.log; tail -4 /tmp/ncu_all.log
cp /tmp/ncu_all.log /tmp/runs/
cp /tmp/k.db /tmp/runs/
find /tmp/runs -name '*.nsys-rep' -delete; find /tmp/runs -name '*.ncu-rep' -size +15M -delete
tar cJf $OUT/runs.tar.xz -C /tmp runs
ls -la $OUT
