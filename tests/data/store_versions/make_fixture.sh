#!/usr/bin/env bash
# Makes the store fixture of one earlier kscope release: builds kscope at COMMIT (in a git
# worktree, no tests), imports the repository's nsys exports and ncu pages with it, and records
# what that kscope printed (runs, every stats report, kernels, report.json, atlas), for
# tests/unit/store_upgrade_test.cc. Run from the repository root:
#   tests/data/store_versions/make_fixture.sh v3 0fd61d3
set -euo pipefail
name=$1 commit=$2
root=$(pwd)
out=$root/tests/data/store_versions/$name
work=$(mktemp -d)
bin=${KSCOPE_BIN:-}  # a kscope already built at COMMIT, to skip the build
if [ -z "$bin" ]; then
  git worktree add -q --detach "$work/src" "$commit"
  cmake -S "$work/src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 \
    -DKSCOPE_BUILD_TESTS=OFF -DKSCOPE_BUILD_BENCH=OFF >/dev/null
  ninja -C "$work/build" kscope >/dev/null
  bin=$work/build/kscope
fi
ks() { "$bin" --db "$work/store.db" "$@"; }
has() { "$bin" --help | grep -q "^  $1 "; }

ks import tests/data/nsys/llama.sqlite --label llama-4L --model llama-4L --dtype bf16 --batch 2 \
  --tag seed=1 --tag suite=llm >/dev/null
ks import tests/data/nsys/tiny_cuda.sqlite --label tiny --tag suite=micro >/dev/null
if ks import --help | grep -q -- '--run '; then
  ks import --run 1 tests/data/ncu/llama_deep_raw.csv tests/data/ncu/llama_deep_details.csv >/dev/null
  ks import --run 2 tests/data/ncu/tiny_cuda_gemm_full_raw.csv tests/data/ncu/tiny_cuda_gemm_full_details.csv >/dev/null
fi

rm -rf "$out" && mkdir -p "$out/expected"
ks runs >"$out/expected/runs.txt"
reports=$(ks stats --help | grep -o '[a-z_]*_sum' | sort -u)
for run in 1 2; do
  for r in $reports; do
    ks stats --report "$r" --format csv "$run" >"$out/expected/stats_${r}_run$run.csv" 2>/dev/null || rm -f "$out/expected/stats_${r}_run$run.csv"
  done
  if has kernels; then ks kernels "$run" >"$out/expected/kernels_run$run.txt"; fi
  if has report; then ks report "$run" --out "$work/report$run" >/dev/null && cp "$work/report$run/report.json" "$out/expected/report_run$run.json"; fi
done
if has atlas; then ks atlas >"$out/expected/atlas.txt"; fi
sqlite3 "$work/store.db" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
zstd -q -19 "$work/store.db" -o "$out/store.db.zst"
echo "kscope $commit (schema $(sqlite3 "$work/store.db" "SELECT value FROM kscope_meta WHERE key = 'schema_version'"))" >"$out/MADE_BY"
[ -d "$work/src" ] && git worktree remove --force "$work/src"
rm -rf "$work"
ls -la "$out" "$out/expected"
