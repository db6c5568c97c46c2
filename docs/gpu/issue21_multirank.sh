#!/bin/bash
# Issue 21, items 2, 5, 6 and 7 on the GPU machine with two H100s (torchrun on PATH, NCCL from
# torch). Copied with the zoo workloads into .gpu/multirank/ (the call's carry): the release
# tarball kscope-*.tar.gz, or a build's bin/kscope.xz with the Debian 12 libraries it links that
# the machine lacks (lib/: yaml-cpp 0.7, the sanitizer runtimes), debs/*.deb (libdw1, libelf1 for
# nsys),
# models/{fsdp_train,tp_infer,zoo_common}.py and this script.
# Parts, each under its own timeout, each adding its results to a tar under $OUT as it ends
# (at most 8 files come back from a call):
#   m: the machine, and what the installed ncu offers for multi-process replay (ncu --help).
#   f, t: kscope profile -- torchrun --nproc_per_node=2 fsdp_train.py | tp_infer.py with the
#      defaults, then kscope report; the discovery export (OS runtime tables dropped), the raw
#      page of the deep pass's report (and the report when it is small), per-process SQL.
#   w: per-rank profiles of one job, as the nodes of a multi-node job write them: every rank
#      runs its own kscope in wrapper mode with profile.rank set to its own rank (so each rank
#      is under its own nsys session and its own ncu) and --job, each into its own runs_dir.
#   c: with f's discovery run, selection.communication=on on a ReduceScatter: the replay mode
#      kscope picks for communication kernels (ncu's shmem communicator when this ncu has it).
# Usage (from the checkout's root): OUT=... bash .gpu/multirank/issue21_multirank.sh
set -u
OUT=${OUT:?set OUT to the results folder}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
C=$PWD/.gpu/multirank
T=/tmp/kscope-multirank
W=$T/w
R=$T/results
mkdir -p "$W" "$R"
export PYTHONUNBUFFERED=1
unset KSCOPE_VEGA_DIR
START=$EPOCHREALTIME
el() { python3 -c "print(round($EPOCHREALTIME - $1, 1))"; }
left() { python3 -c "print(int(570 - ($EPOCHREALTIME - $START)))"; }
log() { echo "== $* ($(el "$START") s)" | tee -a "$OUT/steps.txt"; }
keep() { tar -C "$R" -rf "$OUT/$1.tar" "$2"; }  # keep TAR PART: part's folder into $OUT/TAR.tar
if ls "$C"/kscope-*.tar.gz >/dev/null 2>&1; then
  tar -xzf "$C"/kscope-*.tar.gz -C "$T"
  K=$(ls "$T"/kscope-*/bin/kscope)
else  # a debug build (ASan, UBSan), xz-packed: its sanitizer runtimes are in lib/
  K=$T/bin/kscope
  mkdir -p "$T/bin" && xz -dc "$C/bin/kscope.xz" >"$K" && chmod +x "$K"
  export LD_LIBRARY_PATH="$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ASAN_OPTIONS=detect_leaks=0
fi
mkdir -p "$T/debs" && for f in "$C"/debs/*.deb; do dpkg -x "$f" "$T/debs"; done
export LD_LIBRARY_PATH="$T/debs/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export KSCOPE_NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
Z=$C/models
run_of() { python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT max(id) FROM run WHERE label = ?", (sys.argv[2],)).fetchone()[0])' "$@"; }
slim() {  # slim SQLITE OUT.xz: the export without the OS runtime tables, xz-packed
  cp "$1" "$T/slim.sqlite"
  python3 - "$T/slim.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for t in ("OSRT_API", "OSRT_CALLCHAINS", "SCHED_EVENTS"):
    db.execute(f"DROP TABLE IF EXISTS {t}")
db.commit()
db.execute("VACUUM")
PY
  xz -T0 -9 -c "$T/slim.sqlite" >"$2"
}
per_process() {  # per_process SQLITE: kernels, communication kernels, device, per process
  python3 - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
q = """SELECT k.globalPid >> 24 & 16777215 AS pid, k.deviceId, count(*), sum(k.end - k.start),
  sum(CASE WHEN s.value LIKE 'nccl%' THEN k.end - k.start ELSE 0 END),
  sum(CASE WHEN s.value LIKE 'nccl%' THEN 1 ELSE 0 END)
FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName GROUP BY 1, 2 ORDER BY 1"""
print("pid device kernels kernel_ns nccl_ns nccl_kernels")
for r in db.execute(q):
    print(*r)
for r in db.execute("SELECT * FROM TARGET_INFO_SESSION_START_TIME"):
    print("session start", *r)
PY
}

log "m: machine"
{ nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id --format=csv,noheader; nproc
  "$K" --version 2>&1; ncu --version | tail -1; which torchrun mpirun srun
  python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.nccl.version())'
} >"$OUT/machine.txt" 2>&1
ncu --help >"$OUT/ncu_help.txt" 2>&1
grep -n -i -A3 'communicator\|lockstep' "$OUT/ncu_help.txt" >"$OUT/ncu_help_multiprocess.txt" || echo "(none)" >"$OUT/ncu_help_multiprocess.txt"

profile_zoo() {  # profile_zoo NAME LIMIT: part f/t, outside the launcher, defaults
  local name=$1 lim=$2 d=$R/$1
  mkdir -p "$d"
  log "$name: kscope profile -- torchrun --nproc_per_node=2 $name.py (limit $lim s)"
  local t0=$EPOCHREALTIME
  timeout -s INT "$lim" "$K" --db "$W/k.db" profile "profile.runs_dir=$W/runs" --label "$name" \
    -- torchrun --nproc_per_node=2 "$Z/$name.py" >"$d/profile.log" 2>&1
  local rc=$?
  log "$name: exit $rc after $(el "$t0") s"
  local A
  A=$(run_of "$W/k.db" "$name")
  if [ -n "$A" ] && [ "$A" != None ]; then
    "$K" --db "$W/k.db" report "$A" --out "$W/report_$name" >"$d/report.txt" 2>&1
    cp "$W/report_$name/report.json" "$d/" 2>/dev/null
    cp "$W/runs/$A/manifest.json" "$d/"
    cp -r "$W/runs/$A/logs" "$d/logs"
    local sq=$W/runs/$A/nsys/discovery.sqlite
    [ -f "$sq" ] && slim "$sq" "$d/discovery.sqlite.xz" && per_process "$sq" >"$d/ranks_sql.txt" 2>&1
    local rep=$W/runs/$A/ncu/pass1.ncu-rep
    if [ -f "$rep" ]; then
      ncu --import "$rep" --page raw --csv >"$T/raw.csv" 2>"$d/raw_export.log"
      xz -T0 -9 -c "$T/raw.csv" >"$d/default_profile_raw.csv.xz"
      ls -la "$W/runs/$A/ncu" >"$d/ncu_files.txt"
      [ "$(stat -c %s "$rep")" -lt 8000000 ] && xz -T0 -9 -c "$rep" >"$d/default_profile.ncu-rep.xz"
    fi
  fi
  keep zoo "$name"
}
profile_zoo fsdp_train 240
profile_zoo tp_infer "$(python3 -c "print(min(200, $(left) - 150))")"

# w: per-rank profiles of one job (each rank its own nsys session and ncu run, its own runs_dir).
lim=$(python3 -c "print(min(170, $(left) - 40))")
log "w: torchrun --nproc_per_node=2 --no-python: each rank kscope profile --job tp-job-1 profile.rank=\$RANK (limit $lim s)"
t0=$EPOCHREALTIME
mkdir -p "$R/nodes"
export K W Z
timeout -s INT "$lim" torchrun --nproc_per_node=2 --no-python bash -c \
  'exec "$K" --db "$W/node$RANK.db" profile --job tp-job-1 "profile.rank=$RANK" "profile.runs_dir=$W/node$RANK" \
     --label "tp_infer-rank$RANK" selection.top=3 -- python3 "$Z/tp_infer.py" --rounds 2' >"$R/nodes/wrapper.log" 2>&1
log "w: exit $? after $(el "$t0") s"
for r in 0 1; do
  d=$W/node$r
  [ -d "$d" ] || continue
  for run in "$d"/[0-9]*; do
    o=$R/nodes/node$r/$(basename "$run")
    mkdir -p "$o/nsys" "$o/ncu"
    cp "$run/manifest.json" "$o/"
    [ -f "$run/nsys/discovery.sqlite" ] && slim "$run/nsys/discovery.sqlite" "$o/nsys/discovery.sqlite.xz" &&
      per_process "$run/nsys/discovery.sqlite" >"$R/nodes/node${r}_sql.txt" 2>&1
    for rep in "$run"/ncu/*.ncu-rep; do [ -f "$rep" ] && xz -T0 -9 -c "$rep" >"$o/ncu/$(basename "$rep").xz"; done
    ls -laR "$run" >"$R/nodes/node${r}_files.txt"
  done
done
keep nodes nodes

# c: a communication kernel asked for, from f's discovery.
A=$(run_of "$W/k.db" fsdp_train)
lim=$(python3 -c "print($(left) - 10)")
mkdir -p "$R/comm"
if [ -n "$A" ] && [ "$A" != None ] && [ "$lim" -gt 60 ]; then
  log "c: --discovery $A selection.communication=on selection.kernel=ReduceScatter (limit $lim s)"
  t0=$EPOCHREALTIME
  timeout -s INT "$lim" "$K" --db "$W/k.db" profile --discovery "$A" "profile.runs_dir=$W/runs" --label fsdp_comm \
    selection.communication=on selection.kernel=ReduceScatter selection.launch=3 selection.launches=1 \
    ncu.flops=off profile.ncu_stall_timeout_s=45 -- torchrun --nproc_per_node=2 "$Z/fsdp_train.py" --steps 4 \
    >"$R/comm/comm.log" 2>&1
  log "c: exit $? after $(el "$t0") s"
  B=$(run_of "$W/k.db" fsdp_comm)
  [ -n "$B" ] && [ "$B" != None ] && cp "$W/runs/$B/manifest.json" "$R/comm/" && cp -r "$W/runs/$B/logs" "$R/comm/logs"
else
  log "c: skipped ($lim s left)"
fi
keep comm comm
log done
