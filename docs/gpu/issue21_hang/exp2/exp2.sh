#!/bin/bash
# issue 21 hang, experiment 2: kscope's own ncu command line for tp_infer (from --dry-run on the
# recorded discovery export), run directly under a watchdog that snapshots the process tree,
# /proc/locks and the GPUs when ncu sits inside one launch; then the same with rank 1 kept out
# of ncu's injection (sitecustomize gate). Each part writes under $OUT as it ends.
set -u
RES=${OUT:?}; rm -rf /tmp/nh/res; mkdir -p "$RES" /tmp/nh/res; OUT=/tmp/nh/res
C=$PWD/.gpu/ncuhang; T=/tmp/nh; mkdir -p "$T/debs"
export PYTHONUNBUFFERED=1
Z=$C/models
NCU=$(command -v ncu)
{ date -u; nvidia-smi -L; $NCU --version; which mpirun py-spy gdb torchrun; python3 -c 'import torch;print(torch.__version__, torch.cuda.nccl.version())'; } > "$OUT/machine.txt" 2>&1
$NCU --help > "$OUT/ncu_help.txt" 2>&1; mkdir -p $T
D=$(dirname "$(readlink -f "$NCU")")/..; ls "$D" >> "$OUT/machine.txt" 2>&1
true || grep -rIl -i "nsight-compute-lock" /opt/nvidia/nsight-compute/2025.3.1/docs 2>/dev/null | head > "$OUT/docs_lock_files.txt"
for f in $(cat "$OUT/docs_lock_files.txt"); do grep -o -i ".\{400\}nsight-compute-lock.\{300\}" "$f" | sed 's/<[^>]*>//g' | head -3; done > "$OUT/docs_lock.txt" 2>&1
snapshot() {  # snapshot DIR
  local d=$1; mkdir -p "$d"
  cat /proc/locks > "$d/proc_locks.txt"
  { ls -li /tmp/nvidia/nsight_compute/ "$T"/rank*/nvidia/nsight_compute/ ; nvidia-smi -L; } > "$d/lockfiles.txt" 2>&1
  nvidia-smi --query-gpu=index,utilization.gpu,memory.used --format=csv > "$d/gpus.txt" 2>&1
  ps -eo pid,ppid,pgid,stat,etime,wchan:30,args --sort=pid | grep -v "ps -eo" | grep -E "python|ncu|torchrun" > "$d/ps.txt"
  for p in $(ps -o pid= -g "$2"); do
    grep -q -E "tp_infer|fsdp_train|ddp_train" /proc/$p/cmdline 2>/dev/null || continue
    { echo "== pid $p rank=$(tr '\0' '\n' < /proc/$p/environ | grep -E '^RANK=' )";
      for t in /proc/$p/task/*; do echo "$(cat $t/comm) $(cat $t/wchan) $(cut -d' ' -f1 $t/syscall)"; done | sort | uniq -c;
      ls -l /proc/$p/fd 2>/dev/null | grep -i -E "lock|nsight" ; cat /proc/$p/stack 2>/dev/null | head -5; } >> "$d/threads.txt" 2>&1
    command -v py-spy >/dev/null && timeout 20 py-spy dump --pid $p >> "$d/pyspy.txt" 2>&1
  done
}
attempt() {  # attempt NAME LIMIT STALL ARGSFILE LAUNCHCOUNT MODEL [ENV...]
  local name=$1 lim=$2 stall=$3 args=$4 cnt=$5 model=$6; shift 6
  mapfile -t A < "$args"
  for i in "${!A[@]}"; do [ "${A[$i]}" = "--launch-count" ] && A[$((i+1))]=$cnt; done
  local log=$OUT/$name.log t0=$EPOCHREALTIME
  env "$@" setsid "$NCU" "${A[@]}" -o "$T/$name" -f torchrun --nproc_per_node=2 "$Z/$model" > "$log" 2>&1 &
  local pid=$! last=0 same=0 verdict=exit
  while kill -0 $pid 2>/dev/null; do
    sleep 2
    local sz; sz=$(stat -c %s "$log")
    if [ "$sz" = "$last" ]; then same=$((same+2)); else same=0; last=$sz; fi
    local el; el=$(python3 -c "print(int($EPOCHREALTIME - $t0))")
    if [ $same -ge $stall ] && tail -c 400 "$log" | tr '\r' '\n' | grep -v passes | grep -q "==PROF== Profiling"; then
      verdict="stalled at $el s"; snapshot "$OUT/${name}_snap" $pid; kill -TERM -- -$pid; sleep 5; kill -KILL -- -$pid 2>/dev/null; break
    fi
    if [ "$el" -ge "$lim" ]; then verdict="limit $lim s"; snapshot "$OUT/${name}_snap" $pid; kill -KILL -- -$pid; break; fi
  done
  wait $pid 2>/dev/null; local rc=$?
  local n; n=$(grep -c -- "- [0-9]* passes" "$log")
  ( cd "$OUT" && tar -czf /tmp/nh/all.tgz --exclude=all.tgz . && cp /tmp/nh/all.tgz "$RES/all.tgz"; cp "$OUT/times.txt" "$RES/" 2>/dev/null )
  echo "$name: $verdict rc=$rc profiled=$n after $(python3 -c "print(round($EPOCHREALTIME - $t0, 1))") s" | tee -a "$OUT/times.txt"
  kill -KILL -- -$pid 2>/dev/null; sleep 1
}
G="KSCOPE_EXP_TMP=$T PYTHONPATH=$C/gate KSCOPE_EXP_ENV_DUMP=$OUT KSCOPE_EXP_KEEP_RANK=0"
attempt tmpgate 65 14 "$C/tp_infer.ncuargs" 3 tp_infer.py $G KSCOPE_EXP_GATE=tmp
attempt execgate 65 14 "$C/tp_infer.ncuargs" 3 tp_infer.py $G KSCOPE_EXP_GATE=exec
echo done >> "$OUT/times.txt"
( cd "$OUT" && tar -czf /tmp/nh/all.tgz --exclude=all.tgz . && cp /tmp/nh/all.tgz "$RES/all.tgz"; cp "$OUT/times.txt" "$RES/" 2>/dev/null )
