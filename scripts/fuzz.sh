#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan, UBSan) and runs each for a bounded time on its
# seed corpus in fuzz/corpus/<target>/. Fails on the first crash, leak, sanitizer report,
# timeout or out-of-memory; the input that did it is kept under
# build/<preset>/runs/<target>/artifacts/ (copy it to tests/robustness/data/ once fixed).
# The fuzzers come from the test build (`debug` preset, which builds them from the same
# libraries as the tests) when it is configured, else from a build of their own (`fuzz`).
#   FUZZ_SECONDS: seconds per target (default 30)
#   FUZZ_PRESET: debug or fuzz (default: debug when build/debug builds the fuzzers)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-30}
if [ -z "${FUZZ_PRESET:-}" ]; then
  FUZZ_PRESET=fuzz
  grep -qs '^KSCOPE_BUILD_FUZZ:BOOL=ON' build/debug/CMakeCache.txt && FUZZ_PRESET=debug
fi
build=build/$FUZZ_PRESET
[ "$FUZZ_PRESET" = fuzz ] && cmake --preset fuzz >/dev/null
cmake --build --preset "$FUZZ_PRESET" --target nsys_import_fuzzer column_codec_fuzzer ncu_csv_fuzzer ncu_rep_fuzzer \
  kernel_name_fuzzer kineto_trace_fuzzer

# target:max_len. Exports: above the largest seed (72 KiB); column blobs: a few chunks' worth;
# kernel names: well above the longest in the devset (1.1 KiB); reports: above the first-launch seed (93 KiB);
# traces: above the largest seed (a 24 KiB slice of a real trace).
# One fuzzer per core at a time (each still gets its full FUZZ_SECONDS), each writing its own log;
# a failing target's log is printed and the script fails once all have ended.
jobs=$(nproc)
pids=()
names=()
run_one() {  # run_one TARGET MAX_LEN
  local target=$1 max_len=$2
  # New inputs go to a scratch corpus under build/; the committed seeds stay as they are.
  local runs=$build/runs/$target
  mkdir -p "$runs/corpus" "$runs/artifacts"
  "$build/$target" -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$runs/artifacts/" "$runs/corpus" "fuzz/corpus/$target" >"$runs/log" 2>&1
}
for spec in nsys_import_fuzzer:81920 column_codec_fuzzer:4096 ncu_csv_fuzzer:16384 ncu_rep_fuzzer:131072 \
  kernel_name_fuzzer:4096 kineto_trace_fuzzer:32768; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  echo "fuzzing ${spec%%:*} for ${seconds} s"
  run_one "${spec%%:*}" "${spec##*:}" &
  pids+=($!)
  names+=("${spec%%:*}")
done
failed=0
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then
    failed=1
    echo "fuzzer ${names[$i]} failed; its log ($build/runs/${names[$i]}/log):"
    cat "$build/runs/${names[$i]}/log"
  else
    grep -E "^stat::number_of_executed_units" "$build/runs/${names[$i]}/log" | sed "s/^/${names[$i]}: /"
  fi
done
exit "$failed"
