#!/usr/bin/env bash
# Profiles every zoo workload with kscope's defaults on a GPU machine and keeps what the tests
# and the docs need. Usage:
#   zoo/run_zoo.sh KSCOPE OUT [MODEL...]
# KSCOPE: the kscope binary; OUT: a folder for the results (made if missing); MODEL: names of
# zoo/models/*.py (default: all). For each model: `kscope profile --config zoo/models/M.yaml`
# (its model description for the model-FLOPs lines, where the model has one; the profile
# itself runs with the defaults), `kscope report`, and ncu's own raw page of the deep pass's report (the reference
# the native .ncu-rep reader is tested against). Into OUT/M/: the discovery export (OS
# runtime tables dropped), the ncu report and its raw page, manifest.json and report.json,
# compressed with zstd where zstd is installed (else xz); OUT/zoo.db is the store and
# OUT/times.tsv the wall time of each step. nsys must be able to write reports
# (kscope doctor says); set KSCOPE_NSYS / KSCOPE_NCU where kscope should not search.
set -u
K=$1
OUT=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
models=("$@")
[ ${#models[@]} -eq 0 ] && models=(decoder_infer encoder_bert vit_infer moe_decoder decoder_train resnet_train
  gpt2_compile_train gpt2_infer encdec_infer graph_replay no_nvtx_infer no_nvtx_train)
mkdir -p "$OUT"
DB=$OUT/zoo.db
RUNS=$OUT/runs
NCU=${KSCOPE_NCU:-$(command -v ncu)}
pack() {  # pack FILE: FILE.zst (or .xz), the original removed
  if command -v zstd >/dev/null; then zstd -q -19 --long=27 -f --rm "$1"; else xz -9 -f "$1"; fi
}
now() { date +%s.%N; }
secs() { python3 -c 'import sys; print(f"{float(sys.argv[2]) - float(sys.argv[1]):.1f}")' "$1" "$2"; }
for m in "${models[@]}"; do
  config=()
  [ -f "$here/models/$m.yaml" ] && config=(--config "$here/models/$m.yaml")
  t0=$(now)
  "$K" --db "$DB" profile "${config[@]}" "profile.runs_dir=$RUNS" --label "$m" --tag zoo=1 \
    -- python3 "$here/models/$m.py" >"$OUT/$m.profile.log" 2>&1
  rc=$?
  t1=$(now)
  run=$(python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT max(id) FROM run WHERE label = ?", (sys.argv[2],)).fetchone()[0])' \
    "$DB" "$m")
  "$K" --db "$DB" "${config[@]}" report "$run" --out "$OUT/$m" >"$OUT/$m.report.txt" 2>&1
  t2=$(now)
  dir=$RUNS/$run
  mkdir -p "$OUT/$m"
  cp "$dir/manifest.json" "$OUT/$m/" 2>/dev/null
  if [ -f "$dir/nsys/discovery.sqlite" ]; then
    cp "$dir/nsys/discovery.sqlite" "$OUT/$m/discovery.sqlite"
    python3 - "$OUT/$m/discovery.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for t in ("OSRT_API", "OSRT_CALLCHAINS", "SCHED_EVENTS"):
    db.execute(f"DROP TABLE IF EXISTS {t}")
db.commit()
db.execute("VACUUM")
PY
    pack "$OUT/$m/discovery.sqlite"
  fi
  for rep in "$dir"/ncu/pass*.ncu-rep; do
    [ -f "$rep" ] || continue
    b=$(basename "$rep" .ncu-rep)
    "$NCU" --import "$rep" --page raw --csv >"$OUT/$m/${b}_raw.csv" 2>/dev/null
    cp "$rep" "$OUT/$m/$b.ncu-rep"
    pack "$OUT/$m/${b}_raw.csv"
    pack "$OUT/$m/$b.ncu-rep"
  done
  rm -f "$OUT/$m/report.html"  # the page is rebuilt from report.json by any kscope
  printf '%s\t%s\t%s\t%s\n' "$m" "$rc" "$(secs "$t0" "$t1")" "$(secs "$t1" "$t2")" >>"$OUT/times.tsv"
  echo "== $m: exit $rc, run $run, profile $(secs "$t0" "$t1") s, report $(secs "$t1" "$t2") s"
  tail -3 "$OUT/$m.profile.log"
done
