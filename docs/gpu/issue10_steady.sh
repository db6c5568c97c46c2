#!/bin/bash
# Issue 10 on the GPU machine: zoo workloads profiled with kscope's defaults once the selection
# ranks the steady state (the first instance of each repeated top-level stage left out of the
# ranking: torch.compile's first step). kscope is the static release binary built from this
# commit (the static-release preset that scripts/release.sh builds, copied to .carry/bin/kscope).
# nsys on this machine lacks libdw1/libelf1: .carry/debs/*.deb are unpacked and put on
# LD_LIBRARY_PATH for the profiles only. Results under $OUT: summary.txt (the zoo tables of the
# models so far, the profile logs' selection lines) and one zoo_MODEL.tar.xz per model (what
# zoo/run_zoo.sh kept, the run's logs, the profile log and the report's text).
# Usage: docs/gpu/issue10_steady.sh MODEL[:SECONDS]...   (SECONDS bounds the model's profile and
# report, default 500). MODEL+shapes profiles MODEL with nsys.pytorch=autograd-shapes-nvtx
# instead (PyTorch's per-op NVTX ranges with input shapes), labelled MODEL_shapes, and keeps its
# discovery export, ncu report and ncu's raw page of it.
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
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nsys --version; ncu --version | tail -1; } >"$T/machine.txt" 2>&1
for spec in "$@"; do
  m=${spec%%:*}
  limit=500
  [ "$m" != "$spec" ] && limit=${spec#*:}
  t0=$EPOCHREALTIME
  if [ "${m%+shapes}" != "$m" ]; then
    base=${m%+shapes}
    m=${base}_shapes
    mkdir -p "$Z/$m"
    env LD_LIBRARY_PATH="$T/debs/usr/lib/x86_64-linux-gnu" timeout -s INT "$limit" \
      "$K" --db "$Z/zoo.db" profile --config "zoo/models/$base.yaml" "profile.runs_dir=$Z/runs" \
      nsys.pytorch=autograd-shapes-nvtx --label "$m" -- python3 "zoo/models/$base.py" >"$Z/$m.profile.log" 2>&1
    echo "zoo $m: exit $? after $(python3 -c "print(round($EPOCHREALTIME - $t0, 1))") s" | tee "$Z/zoo_$m.txt"
    run=$(python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT max(id) FROM run WHERE label = ?", (sys.argv[2],)).fetchone()[0])' \
      "$Z/zoo.db" "$m")
    cp "$Z/runs/$run/nsys/discovery.sqlite" "$Z/runs/$run/manifest.json" "$Z/$m/"
    for rep in "$Z/runs/$run"/ncu/pass*.ncu-rep; do
      cp "$rep" "$Z/$m/"
      ncu --import "$rep" --page raw --csv >"$Z/$m/$(basename "$rep" .ncu-rep)_raw.csv" 2>/dev/null
    done
  else
    env LD_LIBRARY_PATH="$T/debs/usr/lib/x86_64-linux-gnu" timeout -s INT "$limit" \
      bash zoo/run_zoo.sh "$K" "$Z" "$m" >"$Z/zoo_$m.txt" 2>&1
    echo "zoo $m: exit $? after $(python3 -c "print(round($EPOCHREALTIME - $t0, 1))") s" | tee -a "$Z/zoo_$m.txt"
  fi
  run=$(python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT max(id) FROM run WHERE label = ?", (sys.argv[2],)).fetchone()[0])' \
    "$Z/zoo.db" "$m")
  mkdir -p "$Z/$m/run_logs" && cp -r "$Z/runs/$run/logs/." "$Z/$m/run_logs/" 2>/dev/null
  cp "$Z/zoo_$m.txt" "$Z/$m.profile.log" "$Z/$m.report.txt" "$Z/$m/" 2>/dev/null
  tar -C "$Z" -cf - "$m" | xz -T0 -6 >"$OUT/zoo_$m.tar.xz"
  { cat "$T/machine.txt"; echo; cat "$Z/times.tsv"; echo; python3 zoo/zoo_table.py "$Z"; echo
    for f in "$Z"/*.profile.log; do echo "-- $f"; grep -E "^selection|ranked on|estimated ncu|ncu profiled|linked|note" "$f"; done
  } >"$OUT/summary.txt" 2>&1
done
cat "$OUT/summary.txt"
ls -la "$OUT"
