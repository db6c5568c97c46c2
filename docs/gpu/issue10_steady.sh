#!/bin/bash
# Issue 10 on the GPU machine: the zoo's gpt2_compile_train profiled with kscope's defaults
# once the selection ranks the steady state (the first instance of each repeated top-level
# stage left out of the ranking: torch.compile's first step). kscope is the static release
# binary built from this commit (scripts/release.sh's build, copied to .carry/bin/kscope).
# nsys on this machine lacks libdw1/libelf1: .carry/debs/*.deb are unpacked and put on
# LD_LIBRARY_PATH for the profile only. Results under $OUT (at most 8 files).
# Usage: docs/gpu/issue10_steady.sh [MODEL...]   (default: gpt2_compile_train)
set -u
OUT=${OUT:?set OUT to the results folder}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
T=/tmp/kscope-steady
Z=$T/zoo
mkdir -p "$T/debs" "$Z"
export PYTHONUNBUFFERED=1
unset KSCOPE_VEGA_DIR
K=$PWD/.carry/bin/kscope
for f in .carry/debs/*.deb; do dpkg -x "$f" "$T/debs"; done
models=("$@")
[ ${#models[@]} -eq 0 ] && models=(gpt2_compile_train)
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; "$K" --version; } | tee "$OUT/machine.txt"
for m in "${models[@]}"; do
  t0=$EPOCHREALTIME
  env LD_LIBRARY_PATH="$T/debs/usr/lib/x86_64-linux-gnu" timeout -s INT 500 \
    bash zoo/run_zoo.sh "$K" "$Z" "$m" >"$OUT/zoo_$m.txt" 2>&1
  echo "zoo $m: exit $? after $(python3 -c "print(round($EPOCHREALTIME - $t0, 1))") s" | tee -a "$OUT/zoo_$m.txt"
  cp "$Z/$m.profile.log" "$Z/$m.report.txt" "$OUT/" 2>/dev/null
  python3 zoo/zoo_table.py "$Z" >"$OUT/zoo_table_$m.md" 2>&1
  run=$(python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT max(id) FROM run WHERE label = ?", (sys.argv[2],)).fetchone()[0])' \
    "$Z/zoo.db" "$m")
  mkdir -p "$Z/$m/run_logs" && cp -r "$Z/runs/$run/logs/." "$Z/$m/run_logs/" 2>/dev/null
  tar -C "$Z" -cf - "$m" times.tsv | xz -T0 -6 >"$OUT/zoo_$m.tar.xz"
done
xz -T0 -6 -c "$Z/zoo.db" >"$OUT/zoo.db.xz"
ls -la "$OUT"
