#!/bin/bash
# Issue 4, GPU-machine run 3 (after issue4_final.sh): kscope profile in quick mode with the
# top 30 kernels, so that the launches with deep metrics cover 90% of kernel time, timed in
# the same run as `ncu --set detailed` over every kernel (stopped after 150 s); then Ctrl-C
# (SIGINT to kscope) while ncu profiles. Output: $OUT/coverage.log, $OUT/runs.tar.xz.
set -u
mkdir -p /tmp/dw && for f in .carry/debs/*.deb; do dpkg -x "$f" /tmp/dw; done
export LD_LIBRARY_PATH=/tmp/dw/usr/lib/x86_64-linux-gnu:$PWD/.carry/lib
K=$PWD/.carry/bin/kscope
W="python3 llama_workload.py 4 2 128 16"
DB=/tmp/k.db
stamp() { python3 -u -c '
import sys, time
t0 = time.time()
for line in sys.stdin:
    print(f"{time.time() - t0:8.2f} {line}", end="", flush=True)'; }
secs() { python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$1" "$(date +%s.%N)"; }
cd .carry/work
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== kscope profile selection.top=30 -- $W"
t0=$(date +%s.%N)
$K --db $DB profile profile.runs_dir=/tmp/runs selection.top=30 --label llama-quick-top30 -- $W
echo "exit $? after $(secs $t0) s"
echo "== ncu --set detailed over every kernel of the same workload (stopped after 150 s)"
t0=$(date +%s.%N)
timeout -s INT 150 ncu --target-processes all --set detailed -o /tmp/all -f $W 2>&1 | stamp > /tmp/ncu_all.log
echo "stopped after $(secs $t0) s; launches profiled: $(grep -c '==PROF== Profiling' /tmp/ncu_all.log)"
grep '==PROF== Profiling' /tmp/ncu_all.log | sed -n '1p;$p'
echo "== Ctrl-C (SIGINT to kscope) while ncu profiles"
$K --db $DB profile profile.runs_dir=/tmp/runs --discovery 1 --label interrupted -- $W > /tmp/int.log 2>&1 &
pid=$!
for i in $(seq 1 120); do grep -q "kernel [0-9]* of" /tmp/int.log && break; sleep 1; done
sleep 3; kill -INT $pid; t0=$(date +%s.%N); wait $pid; echo "exit $? $(secs $t0) s after SIGINT"; tail -4 /tmp/int.log
sleep 1; pgrep -f llama_workload.py && echo "a workload process survived" || echo "no workload process left"
$K --db $DB runs | cut -c1-120
$K --db $DB kernels 2 | head -6 | cut -c1-200
cp /tmp/ncu_all.log /tmp/k.db /tmp/runs/
find /tmp/runs -name '*.nsys-rep' -delete; find /tmp/runs -name '*.ncu-rep' -delete
tar cJf $OUT/runs.tar.xz -C /tmp runs
