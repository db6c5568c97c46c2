#!/bin/bash
# Issue 21 on the GPU machine with two H100s (torchrun on PATH, NCCL from torch), with the
# release tarball alone. Copied with the zoo workload into .gpu/ranks/ (the call's carry):
#   .gpu/ranks/kscope-*.tar.gz, .gpu/ranks/debs/*.deb (libdw1, libelf1 for nsys),
#   .gpu/ranks/models/{ddp_train.py,zoo_common.py}, .gpu/ranks/issue21_ranks.sh
# Parts, each under its own timeout, each writing its results under $OUT as it ends:
#   a: kscope profile -- torchrun --nproc_per_node=2 ddp_train.py, the defaults (outside the
#      launcher: nsys records both ranks, ncu profiles rank 0 with --devices), then its report;
#      the discovery export (OS runtime tables dropped, zstd) and ncu's raw page of the report.
#   b: torchrun --nproc_per_node=2 --no-python kscope profile profile.rank=0 -- python3
#      ddp_train.py (the wrapper mode: every rank runs the workload once per pass).
#   c: with a's discovery run, selection.communication=on on the all-reduce: ncu's application
#      replay of a communication kernel under the job's launcher (or the watchdog, if it stalls).
# The GPU machine has no zstd: files are packed with xz there (and recompressed with zstd for
# tests/data/zoo/ddp_train/); at most 8 files come back from a call, so a_logs/ stays behind.
# Usage (from the checkout's root): OUT=... bash .gpu/ranks/issue21_ranks.sh
set -u
OUT=${OUT:?set OUT to the results folder}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
C=$PWD/.gpu/ranks
T=/tmp/kscope-ranks
W=$T/w
mkdir -p "$W" "$OUT/ddp_train"
export PYTHONUNBUFFERED=1
unset KSCOPE_VEGA_DIR
START=$EPOCHREALTIME
el() { python3 -c "print(round($EPOCHREALTIME - $1, 1))"; }
log() { echo "== $* ($(el "$START") s)" | tee -a "$OUT/steps.txt"; }
tar -xzf "$C"/kscope-*.tar.gz -C "$T"
K=$(ls "$T"/kscope-*/bin/kscope)
mkdir -p "$T/debs" && for f in "$C"/debs/*.deb; do dpkg -x "$f" "$T/debs"; done
export LD_LIBRARY_PATH="$T/debs/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export KSCOPE_NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
Z=$C/models
DB=$W/k.db
{ nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id --format=csv,noheader; nproc
  "$K" --version 2>&1; which torchrun; python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.nccl.version())'
} >"$OUT/machine.txt" 2>&1
pack() {  # pack FILE OUT: zstd where installed, else xz (OUT gets .xz for .zst)
  if command -v zstd >/dev/null; then zstd -q -19 --long=27 -f "$1" -o "$2"; else xz -T0 -9 -c "$1" >"${2%.zst}.xz"; fi
}
run_of() { python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT max(id) FROM run WHERE label = ?", (sys.argv[2],)).fetchone()[0])' "$@"; }

# a: outside the launcher, defaults.
log "a: kscope profile -- torchrun --nproc_per_node=2 ddp_train.py"
t0=$EPOCHREALTIME
timeout -s INT 300 "$K" --db "$DB" profile "profile.runs_dir=$W/runs" --label ddp_train \
  -- torchrun --nproc_per_node=2 "$Z/ddp_train.py" >"$OUT/a_profile.log" 2>&1
rc=$?
log "a: exit $rc after $(el "$t0") s"
A=$(run_of "$DB" ddp_train)
if [ -n "$A" ] && [ "$A" != None ]; then
  "$K" --db "$DB" report "$A" --out "$W/a_report" >"$OUT/a_report.txt" 2>&1
  cp "$W/runs/$A/manifest.json" "$OUT/a_manifest.json"
  cp -r "$W/runs/$A/logs" "$OUT/a_logs"
  sq=$W/runs/$A/nsys/discovery.sqlite
  if [ -f "$sq" ]; then
    cp "$sq" "$W/disc.sqlite"
    python3 - "$W/disc.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for t in ("OSRT_API", "OSRT_CALLCHAINS", "SCHED_EVENTS"):
    db.execute(f"DROP TABLE IF EXISTS {t}")
db.commit()
db.execute("VACUUM")
PY
    pack "$W/disc.sqlite" "$OUT/ddp_train/discovery.sqlite.zst"
    # What the export says per process: kernels, NCCL kernels, device; and the rank's env if any.
    python3 - "$W/disc.sqlite" >"$OUT/a_ranks_sql.txt" 2>&1 <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
q = """SELECT k.globalPid >> 24 & 16777215 AS pid, k.deviceId, count(*),
  sum(k.end - k.start), sum(CASE WHEN s.value LIKE 'nccl%' THEN k.end - k.start ELSE 0 END),
  sum(CASE WHEN s.value LIKE 'nccl%' THEN 1 ELSE 0 END)
FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName GROUP BY 1, 2 ORDER BY 1"""
print("pid device kernels kernel_ns nccl_ns nccl_kernels")
for r in db.execute(q):
    print(*r)
PY
  fi
  rep=$W/runs/$A/ncu/pass1.ncu-rep
  if [ -f "$rep" ]; then
    ncu --import "$rep" --page raw --csv >"$W/raw.csv" 2>"$OUT/a_raw_export.log"
    pack "$W/raw.csv" "$OUT/ddp_train/default_profile_raw.csv.zst"
    [ "$(stat -c %s "$rep")" -lt 3000000 ] && pack "$rep" "$OUT/ddp_train/default_profile.ncu-rep.zst"
  fi
fi
ls -la "$OUT/ddp_train" >>"$OUT/steps.txt"

# b: the wrapper mode under torchrun.
log "b: torchrun --nproc_per_node=2 --no-python kscope profile profile.rank=0 -- python3 ddp_train.py"
t0=$EPOCHREALTIME
timeout -s INT 200 torchrun --nproc_per_node=2 --no-python "$K" --db "$W/w.db" profile profile.rank=0 \
  "profile.runs_dir=$W/wruns" --label ddp_wrapper -- python3 "$Z/ddp_train.py" >"$OUT/b_wrapper.log" 2>&1
rc=$?
log "b: exit $rc after $(el "$t0") s"
B=$(run_of "$W/w.db" ddp_wrapper)
[ -n "$B" ] && [ "$B" != None ] && cp "$W/wruns/$B/manifest.json" "$OUT/b_manifest.json" 2>/dev/null

# c: a communication kernel asked for, from a's discovery (application replay, or the watchdog).
left=$(python3 -c "print(int(560 - ($EPOCHREALTIME - $START)))")
if [ -n "$A" ] && [ "$A" != None ] && [ "$left" -gt 90 ]; then
  log "c: --discovery $A selection.communication=on selection.kernel=AllReduce (limit $((left - 20)) s)"
  t0=$EPOCHREALTIME
  timeout -s INT $((left - 20)) "$K" --db "$DB" profile --discovery "$A" "profile.runs_dir=$W/runs" --label ddp_comm \
    selection.communication=on selection.kernel=AllReduce selection.launch=3 selection.launches=1 \
    ncu.flops=off profile.ncu_stall_timeout_s=60 -- torchrun --nproc_per_node=2 "$Z/ddp_train.py" --steps 4 \
    >"$OUT/c_comm.log" 2>&1
  rc=$?
  log "c: exit $rc after $(el "$t0") s"
  C3=$(run_of "$DB" ddp_comm)
  [ -n "$C3" ] && [ "$C3" != None ] && cp "$W/runs/$C3/manifest.json" "$OUT/c_manifest.json" 2>/dev/null
else
  log "c: skipped ($left s left)"
fi
log done
