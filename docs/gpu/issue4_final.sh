#!/bin/bash
# Issue 4, final GPU-machine run (one call): kscope doctor; kscope profile in quick mode on
# the Llama workload (whole run, 90% coverage) and `ncu --set detailed` over every kernel of
# the same workload, timed in the same run (ncu stopped after 150 s; each line time-stamped);
# kscope profile in roofline mode on the decode stage (reusing the discovery); Ctrl-C
# (SIGINT) during a deep pass; the rank wrapper. Output: $OUT/final.log, $OUT/runs.tar.xz.
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
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
echo "== kscope doctor"
$K doctor; echo "exit $?"
echo "== kscope profile -- $W   (quick, whole run, defaults)"
t0=$(date +%s.%N)
$K --db $DB profile profile.runs_dir=/tmp/runs --label llama-quick --model llama-4L --dtype bf16 --batch 2 -- $W
echo "exit $? after $(secs $t0) s"
echo "== ncu --set detailed over every kernel of the same workload (stopped after 150 s)"
t0=$(date +%s.%N)
timeout -s INT 150 ncu --target-processes all --set detailed -o /tmp/all -f $W 2>&1 | stamp > /tmp/ncu_all.log
echo "stopped after $(secs $t0) s; launches profiled: $(grep -c '==PROF== Profiling' /tmp/ncu_all.log)"
grep '==PROF== Profiling' /tmp/ncu_all.log | sed -n '1p;$p'
echo "== kscope profile ncu.mode=roofline selection.stage=decode --discovery 1"
t0=$(date +%s.%N)
$K --db $DB profile profile.runs_dir=/tmp/runs ncu.mode=roofline selection.stage=decode selection.launches=2 \
  --discovery 1 --label llama-decode-roofline --model llama-4L --dtype bf16 --batch 2 -- $W
echo "exit $? after $(secs $t0) s"
echo "== Ctrl-C (SIGINT to kscope) during a deep pass"
$K --db $DB profile profile.runs_dir=/tmp/runs --discovery 1 --label interrupted -- $W > /tmp/int.log 2>&1 &
pid=$!
for i in $(seq 1 120); do grep -q "kernel 2[0-9] of" /tmp/int.log && break; sleep 1; done
kill -INT $pid; wait $pid; echo "exit $?"; cat /tmp/int.log | tail -6
pgrep -f llama_workload.py && echo "a workload process survived" || echo "no workload process left"
echo "== rank wrapper: RANK=1 is not the profiled rank 0, so the workload runs unprofiled"
RANK=1 $K --db $DB profile profile.rank=0 -- python3 -c 'print("rank 1 ran unprofiled")'; echo "exit $?"
echo "== the runs"
$K --db $DB runs
$K --db $DB kernels 1 | cut -c1-230
$K --db $DB kernels 2 | cut -c1-230
sqlite3 $DB "select run_id, count(*), count(kernel_index), kernel_link from ncu_launch group by run_id, kernel_link" 2>/dev/null
cp /tmp/ncu_all.log /tmp/k.db /tmp/runs/
find /tmp/runs -name '*.nsys-rep' -delete; find /tmp/runs -name '*.ncu-rep' -delete
tar cJf $OUT/runs.tar.xz -C /tmp runs
