#!/bin/bash
# Issue 21 hang, experiment 3: is the stall caused by ncu being injected into the ranks it does
# not profile? (a) kscope's ncu command over the whole job (every rank injected), sampled each
# second (log size, which ranks are alive, GPU load), snapshots at a stall; (b) the same ncu
# arguments on rank 0 alone, the launcher and rank 1 run without ncu (gate/sitecustomize.py).
set -u
RES=${OUT:?}; C=$PWD/.gpu/lead/exp3; Z=$PWD/zoo/models; T=/tmp/e3; O=$T/res
rm -rf "$T"; mkdir -p "$O" "$RES"
export PYTHONUNBUFFERED=1 KSCOPE_NCU=$(command -v ncu)
{ date -u; nvidia-smi -L; ncu --version | tail -1; which gdb py-spy; } > "$O/machine.txt" 2>&1
pack() { (cd "$O" && tar -czf "$T/all.tgz" . && cp "$T/all.tgz" "$RES/all.tgz"; cp "$O/times.txt" "$RES/" 2>/dev/null); }
now() { python3 -c "import time;print(f'{time.time():.1f}')"; }
sampler() {  # sampler LOG FILE MODEL: every second, the log's size, live ranks, GPU load
  while true; do
    echo "$(now) log=$(stat -c %s "$1") ranks=$(pgrep -f "python.*$3" | tr '\n' ',') gpu=$(nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits | tr '\n' ',')" >> "$2"
    sleep 1
  done
}
snapshot() {  # snapshot DIR PGID MODEL
  local d=$1; mkdir -p "$d"
  for i in 1 2 3; do nvidia-smi --query-gpu=index,utilization.gpu,memory.used,clocks.sm --format=csv,noheader >> "$d/gpus.txt" 2>&1; sleep 0.5; done
  nvidia-smi --query-compute-apps=pid,gpu_uuid,used_memory --format=csv >> "$d/gpus.txt" 2>&1
  ps -eo pid,ppid,pgid,stat,etime,wchan:30,args --sort=pid | grep -E "python|ncu|torchrun" | grep -v grep | cut -c1-250 > "$d/ps.txt"
  for p in $(pgrep -f "python.*$3") $(pgrep -x ncu); do
    { echo "== pid $p $(tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -E '^RANK=') $(tr '\0' ' ' < /proc/$p/cmdline | cut -c1-80)";
      for t in /proc/$p/task/*; do echo "$(cat $t/comm) $(cat $t/wchan) $(cut -d' ' -f1 $t/syscall)"; done | sort | uniq -c;
      echo "-- main stack"; cat /proc/$p/stack; } >> "$d/threads.txt" 2>&1
  done
}
attempt() {  # attempt NAME LIMIT STALL MODE ARGSFILE LAUNCHCOUNT MODEL
  local name=$1 lim=$2 stall=$3 mode=$4 args=$5 cnt=$6 model=$7
  mapfile -t A < "$args"
  for i in "${!A[@]}"; do [ "${A[$i]}" = "--launch-count" ] && A[$((i+1))]=$cnt; done
  printf '%s\n' "${A[@]}" > "$T/$name.args"
  local log=$O/$name.log t0; t0=$(now); local s0=$EPOCHREALTIME
  if [ "$mode" = whole ]; then
    setsid ncu "${A[@]}" -o "$T/$name" -f torchrun --nproc_per_node=2 "$Z/$model" > "$log" 2>&1 &
  else
    PYTHONPATH=$C/gate KSCOPE_NCU_GATE_ARGS=$T/$name.args KSCOPE_NCU_GATE_RANK=0 KSCOPE_NCU_GATE_OUT=$T/$name \
      setsid torchrun --nproc_per_node=2 "$Z/$model" > "$log" 2>&1 &
  fi
  local pid=$! last=0 same=0 verdict=exit
  sampler "$log" "$O/${name}_samples.txt" "$model" & local sp=$!
  while kill -0 $pid 2>/dev/null; do
    sleep 2
    local sz; sz=$(stat -c %s "$log")
    if [ "$sz" = "$last" ]; then same=$((same+2)); else same=0; last=$sz; fi
    local el; el=$(python3 -c "print(int($EPOCHREALTIME - $s0))")
    if [ $same -ge $stall ] && tail -c 400 "$log" | tr '\r' '\n' | grep -v passes | grep -q "==PROF== Profiling"; then
      verdict="stalled at $el s"; snapshot "$O/${name}_snap" $pid "$model"; kill -TERM -- -$pid; sleep 4; kill -KILL -- -$pid 2>/dev/null; break
    fi
    if [ "$el" -ge "$lim" ]; then verdict="limit $lim s"; snapshot "$O/${name}_snap" $pid "$model"; kill -KILL -- -$pid; break; fi
  done
  wait $pid 2>/dev/null; local rc=$?
  kill $sp 2>/dev/null
  local n; n=$(grep -c -- "- [0-9]* passes" "$log")
  echo "$name ($mode, $model, launch-count $cnt): $verdict rc=$rc profiled=$n after $(python3 -c "print(round($EPOCHREALTIME - $s0, 1))") s (start $t0)" | tee -a "$O/times.txt"
  kill -KILL -- -$pid 2>/dev/null; pkill -9 -f "python.*$model"; sleep 1; pack
}
attempt base_tp 90 20 whole "$C/tp_infer.ncuargs" 3 tp_infer.py
attempt gate_tp1 100 20 gate "$C/tp_infer.ncuargs" 3 tp_infer.py
attempt gate_tp2 100 20 gate "$C/tp_infer.ncuargs" 3 tp_infer.py
attempt gate_fsdp 130 25 gate "$C/fsdp.ncuargs" 1 fsdp_train.py
attempt gate_tp3 100 20 gate "$C/tp_infer.ncuargs" 3 tp_infer.py
echo done >> "$O/times.txt"; pack
