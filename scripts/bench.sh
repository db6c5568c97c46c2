#!/usr/bin/env bash
# Benchmarks kscope on a large nsys export: builds the release tool, scales the Llama test
# export's decode loop up to $KERNELS kernel launches (bench/make_scaled_export), runs
# kscope_bench (Google Benchmark: import, each stats report), then times the CLI end to end.
#
#   scripts/bench.sh                        # build/release, 400,000 kernels
#   BUILD_DIR=build/bench-rel JOBS=1 KERNELS=50000 scripts/bench.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
BUILD_DIR=${BUILD_DIR:-build/release}
JOBS=${JOBS:-$(nproc)}
KERNELS=${KERNELS:-400000}
SOURCE=${SOURCE:-tests/data/nsys/llama.sqlite}
OUT_DIR=${OUT_DIR:-build/bench}
SCALED=$OUT_DIR/scaled-$KERNELS.sqlite
CLI_DB=$OUT_DIR/cli.db

# --- build ------------------------------------------------------------------------------
if [[ $BUILD_DIR == build/release ]]; then
  cmake --preset release >/dev/null
else
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKSCOPE_BUILD_TESTS=OFF >/dev/null
fi
cmake --build "$BUILD_DIR" -j "$JOBS" --target kscope kscope_bench make_scaled_export ncu_rep_bench
KSCOPE=$BUILD_DIR/kscope

# --- the scaled export ------------------------------------------------------------------
mkdir -p "$OUT_DIR"
if [[ ! -f $SCALED ]]; then
  "$BUILD_DIR/bench/make_scaled_export" "$SOURCE" "$SCALED" --kernels "$KERNELS"
fi

# --- Google Benchmark -------------------------------------------------------------------
"$BUILD_DIR/bench/kscope_bench" --export="$SCALED" --db-dir="$OUT_DIR" --benchmark_counters_tabular=true \
  --benchmark_out="$OUT_DIR/kscope_bench.json" --benchmark_out_format=json

# --- the native .ncu-rep reader (the devset's llama_deep report) ---------------------------
NCU_REP=$OUT_DIR/llama_deep.ncu-rep
[[ -f $NCU_REP ]] || zstd -q -d tests/data/ncu/llama_deep.ncu-rep.zst -o "$NCU_REP"
"$BUILD_DIR/bench/ncu_rep_bench" --report="$NCU_REP" --benchmark_counters_tabular=true \
  --benchmark_out="$OUT_DIR/ncu_rep_bench.json" --benchmark_out_format=json

# --- the CLI end to end -----------------------------------------------------------------
# measure NAME CMD...: wall seconds and peak RSS (MiB) of CMD, appended to the summary.
SUMMARY=()
if [[ -x /usr/bin/time ]]; then
  measure() {
    local name=$1 log
    shift
    log=$(mktemp)
    local start end wall rss
    start=$(date +%s.%N)  # time -v prints wall time in 10 ms steps; the reports take less
    /usr/bin/time -v -o "$log" "$@" >/dev/null
    end=$(date +%s.%N)
    wall=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f", b - a}')
    rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2 / 1024}' "$log")
    rm -f "$log"
    SUMMARY+=("$(printf '%-52s %9.3f %12s' "$name" "$wall" "$rss")")
    LAST_WALL=$wall LAST_RSS=$rss
  }
else
  echo "bench.sh: /usr/bin/time is missing (Debian package 'time'); using bash's time, no peak RSS" >&2
  measure() {
    local name=$1 start end
    shift
    start=$(date +%s.%N)
    "$@" >/dev/null
    end=$(date +%s.%N)
    LAST_WALL=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f", b - a}') LAST_RSS=n/a
    SUMMARY+=("$(printf '%-52s %9.3f %12s' "$name" "$LAST_WALL" "$LAST_RSS")")
  }
fi

rm -f "$CLI_DB" "$CLI_DB-wal" "$CLI_DB-shm"
measure "kscope --db X import scaled.sqlite" "$KSCOPE" --db "$CLI_DB" import "$SCALED"
IMPORT_WALL=$LAST_WALL IMPORT_RSS=$LAST_RSS
for r in cuda_gpu_kern_sum nvtx_gpu_proj_sum; do
  measure "kscope --db X stats --report $r 1" "$KSCOPE" --db "$CLI_DB" stats --report "$r" --format csv 1
done
measure "kscope stats --report cuda_gpu_kern_sum scaled.sqlite" \
  "$KSCOPE" stats --report cuda_gpu_kern_sum --format csv "$SCALED"
# The dependency graph, its critical path and one what-if (docs/whatif.md).
measure "kscope --db X whatif 1 kernel:gemm=0.5" "$KSCOPE" --db "$CLI_DB" whatif 1 kernel:gemm=0.5
# .ncu-rep reports read natively: the devset's 8.6 MB and 94 MB reports.
NCU_QUICK=$OUT_DIR/llama_decode_quick.ncu-rep
[[ -f $NCU_QUICK ]] || zstd -q -d tests/data/ncu/llama_decode_quick.ncu-rep.zst -o "$NCU_QUICK"
for rep in "$NCU_REP" "$NCU_QUICK"; do
  rm -f "$CLI_DB.ncu" "$CLI_DB.ncu-wal" "$CLI_DB.ncu-shm"
  measure "kscope --db X import $(basename "$rep")" "$KSCOPE" --db "$CLI_DB.ncu" import "$rep"
done

# --- summary ----------------------------------------------------------------------------
kernels=$("$KSCOPE" --db "$CLI_DB" runs --format csv | awk -F, 'NR == 2 {for (i = 1; i <= NF; i++)
  if (h[i] == "Kernels") print $i} NR == 1 {for (i = 1; i <= NF; i++) h[i] = $i}')
export_mib=$(du -m --apparent-size "$SCALED" | cut -f1)
db_mib=$(du -m --apparent-size "$CLI_DB" | cut -f1)
echo
echo "== kscope bench summary ($(nproc) cores; $SCALED: ${kernels:-?} kernels, $export_mib MiB) =="
printf '%-52s %9s %12s\n' "command" "wall s" "peak RSS MiB"
printf '%s\n' "${SUMMARY[@]}"
if [[ -n $kernels ]]; then
  awk -v k="$kernels" -v w="$IMPORT_WALL" 'BEGIN {printf "CLI import rate: %.0f kernel launches/s (target >= 1,000,000)\n", k / w}'
fi
echo "export on disk: $export_mib MiB; import peak RSS: $IMPORT_RSS MiB; store: $db_mib MiB (one run)"
echo "kscope_bench results: $OUT_DIR/kscope_bench.json"
