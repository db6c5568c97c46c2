#!/usr/bin/env bash
# Every case of cases.txt reported with kscope $1 from store $2 into $3/NAME/ (report.json,
# report.md, report.html, terminal.txt), kscope kernels of every run (table, json, --all csv)
# into $3/kernels/, and the atlas (as /work/typedreport-baseline/atlas.sh) into $3/atlas/.
set -uo pipefail
K=$(realpath "$1"); DB=$(realpath "$2"); OUT=$(realpath -m "$3"); ROOT=/work/derive-baseline
rm -rf "$OUT"; mkdir -p "$OUT/kernels" "$OUT/atlas"
while read -r name run cfg; do
  mkdir -p "$OUT/$name"
  args=(); [ "$cfg" != - ] && args=(--config "$cfg")
  ( cd "$OUT/$name" && "$K" --db "$DB" "${args[@]}" report "$run" --out . > terminal.txt 2> stderr.txt; echo "exit $?" >> terminal.txt )
done < "$DB.cases"
runs=$(python3 -c "import sqlite3,sys; print(' '.join(str(r[0]) for r in sqlite3.connect(sys.argv[1]).execute('SELECT id FROM run ORDER BY id')))" "$DB")
for r in $runs; do
  "$K" --db "$DB" kernels $r > "$OUT/kernels/$r.txt" 2>&1; echo "exit $?" >> "$OUT/kernels/$r.txt"
  "$K" --db "$DB" kernels $r --format json > "$OUT/kernels/$r.json" 2>&1
  "$K" --db "$DB" kernels $r --all --format csv > "$OUT/kernels/$r.all.csv" 2>&1
done
for by in family kernel; do
  "$K" --db "$DB" atlas --by $by --format json --html "$OUT/atlas/all_$by.html" > "$OUT/atlas/all_$by.json" 2> "$OUT/atlas/all_$by.err"
  echo "exit $?" >> "$OUT/atlas/all_$by.err"
  "$K" --db "$DB" atlas --by $by > "$OUT/atlas/all_$by.txt" 2>&1
  "$K" --db "$DB" atlas --by $by --model llama-4L --html "$OUT/atlas/one_$by.html" > "$OUT/atlas/one_$by.txt" 2>&1
  echo "exit $?" >> "$OUT/atlas/one_$by.txt"
done
