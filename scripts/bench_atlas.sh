#!/usr/bin/env bash
# Benchmarks the many-run views (issue 12) on this machine with the release tool:
#   1. a base store of the zoo's real runs: each model's discovery export and its ncu raw page
#      (tests/data/zoo/*), imported as one run per model; its size per run is the real figure;
#   2. bench/make_atlas_store copies those runs into a store of $RUNS runs (default 1,000) with
#      about $FAMILIES kernel families (default 2,000) over 16 variants of each model (see the
#      tool's header for how); its size per run is that of the summaries alone;
#   3. kscope atlas (every view; popularity and performance alone; by family and by kernel) over
#      all of its runs;
#   4. kscope diff of two 400,000-launch runs (bench/make_scaled_export's export, imported twice).
# Each command is timed end to end (wall seconds, peak RSS), best of $REPEAT.
#   scripts/bench_atlas.sh                      # build/release, 1,000 runs, 2,000 families
#   RUNS=10000 FAMILIES=20000 scripts/bench_atlas.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
BUILD_DIR=${BUILD_DIR:-build/release}
JOBS=${JOBS:-$(nproc)}
RUNS=${RUNS:-1000}
FAMILIES=${FAMILIES:-2000}
REPEAT=${REPEAT:-3}
OUT_DIR=${OUT_DIR:-build/bench}
KERNELS=400000

if [[ $BUILD_DIR == build/release ]]; then
  cmake --preset release >/dev/null
else
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKSCOPE_BUILD_TESTS=OFF >/dev/null
fi
cmake --build "$BUILD_DIR" -j "$JOBS" --target kscope make_atlas_store make_scaled_export
K=$BUILD_DIR/kscope
mkdir -p "$OUT_DIR"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# --- 1. the real runs -------------------------------------------------------------------
BASE=$OUT_DIR/atlas-base.db
rm -f "$BASE" "$BASE"-wal "$BASE"-shm
for d in tests/data/zoo/*/; do
  m=$(basename "$d")
  [[ -f $d/discovery.sqlite.zst && -f $d/flops_all_raw.csv.zst ]] || continue
  zstd -q -d -f "$d/discovery.sqlite.zst" -o "$W/$m.sqlite"
  zstd -q -d -f "$d/flops_all_raw.csv.zst" -o "$W/${m}_raw.csv"
  "$K" --db "$BASE" import "$W/$m.sqlite" "$W/${m}_raw.csv" --model "$m" --tag suite=zoo >/dev/null
  rm -f "$W/$m.sqlite" "$W/${m}_raw.csv"
done
base_runs=$("$K" --db "$BASE" query "SELECT count(*) FROM v_runs" --format csv | tail -1)
base_mib=$(du -m --apparent-size "$BASE" | cut -f1)

# --- 2. the many-run store --------------------------------------------------------------
STORE=$OUT_DIR/atlas-$RUNS.db
rm -f "$STORE" "$STORE"-wal "$STORE"-shm
"$BUILD_DIR/bench/make_atlas_store" "$BASE" "$STORE" --runs "$RUNS" --families "$FAMILIES"
store_mib=$(du -m --apparent-size "$STORE" | cut -f1)
families=$("$K" --db "$STORE" atlas --view popularity --format csv | tail -n +2 | wc -l)
kernels=$("$K" --db "$STORE" atlas --by kernel --view popularity --format csv | tail -n +2 | wc -l)

# --- 4. two 400,000-launch runs ---------------------------------------------------------
SCALED=$OUT_DIR/scaled-$KERNELS.sqlite
[[ -f $SCALED ]] || "$BUILD_DIR/bench/make_scaled_export" tests/data/nsys/llama.sqlite "$SCALED" --kernels "$KERNELS"
DIFF_DB=$OUT_DIR/diff-$KERNELS.db
rm -f "$DIFF_DB" "$DIFF_DB"-wal "$DIFF_DB"-shm
"$K" --db "$DIFF_DB" import "$SCALED" >/dev/null
"$K" --db "$DIFF_DB" import --force "$SCALED" >/dev/null

# --- timing -----------------------------------------------------------------------------
SUMMARY=()
measure() {  # measure NAME CMD...: best wall seconds of $REPEAT, peak RSS MiB
  local name=$1 best=999999 rss=n/a
  shift
  for _ in $(seq "$REPEAT"); do
    local log start end wall
    log=$(mktemp)
    start=$(date +%s.%N)
    if [[ -x /usr/bin/time ]]; then /usr/bin/time -v -o "$log" "$@" >/dev/null; else "$@" >/dev/null; fi
    end=$(date +%s.%N)
    wall=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f", b - a}')
    best=$(awk -v a="$best" -v b="$wall" 'BEGIN {print (b < a) ? b : a}')
    [[ -x /usr/bin/time ]] && rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2 / 1024}' "$log")
    rm -f "$log"
  done
  SUMMARY+=("$(printf '%-58s %8.3f %12s' "$name" "$best" "$rss")")
}
measure "kscope atlas (every view, by family, table)" "$K" --db "$STORE" atlas
measure "kscope atlas --view popularity --view performance" "$K" --db "$STORE" atlas --view popularity --view performance
measure "kscope atlas --format json (every view)" "$K" --db "$STORE" atlas --format json
measure "kscope atlas --by kernel --format json" "$K" --db "$STORE" atlas --by kernel --format json
measure "kscope diff 1 2 (two $KERNELS-launch runs)" "$K" --db "$DIFF_DB" diff 1 2
measure "kscope diff 1 2 --format json" "$K" --db "$DIFF_DB" diff 1 2 --format json

echo
echo "== kscope atlas bench ($(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)) =="
echo "base store: $base_runs real zoo runs, $base_mib MiB ($(awk -v a="$base_mib" -v b="$base_runs" 'BEGIN {printf "%.1f", a / b}') MiB per run, event streams included)"
echo "atlas store: $RUNS runs, $families families, $kernels kernel names, $store_mib MiB ($(awk -v a="$store_mib" -v b="$RUNS" 'BEGIN {printf "%.2f", a / b}') MiB per run; copies hold summaries and ncu results, no event streams)"
printf '%-58s %8s %12s\n' "command" "wall s" "peak RSS MiB"
printf '%s\n' "${SUMMARY[@]}"
