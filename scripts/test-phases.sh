#!/usr/bin/env bash
# Measures scripts/test.sh's phases on a clean clone, each under /usr/bin/time -v (CPU and wall),
# with the load average sampled every 20 s, for docs/testing.md. No ccache.
#   scripts/test-phases.sh SOURCE_REPO CLONE_DIR OUT_DIR [BRANCH]
# OUT_DIR gets phases.txt (start and end of each), time_<phase>.txt, log_<phase>.txt, load.txt and
# the build's ninja logs (each step's wall time).
set -uo pipefail
src=$1
dir=$2
out=$3
branch=${4:-main}
rm -rf "$dir"
mkdir -p "$out"
git clone -q -b "$branch" "$src" "$dir"
cd "$dir" || exit 1
unset CMAKE_CXX_COMPILER_LAUNCHER CCACHE_DIR
(while true; do
  echo "$(date -u +%T) $(cut -d' ' -f1-3 /proc/loadavg)"
  sleep 20
done) >"$out/load.txt" &
loadpid=$!
trap 'kill $loadpid' EXIT
phase() {
  local name=$1
  shift
  echo "$(date -u +%T) start $name" >>"$out/phases.txt"
  /usr/bin/time -v -o "$out/time_$name.txt" "$@" >"$out/log_$name.txt" 2>&1
  local rc=$?
  echo "$(date -u +%T) end $name rc=$rc" >>"$out/phases.txt"
}
start=$(date +%s)
phase configure cmake --preset debug
phase build cmake --build --preset debug
cp build/debug/.ninja_log "$out/ninja_log_debug.txt"
phase ctest ctest --preset debug -j "$(nproc)"
# fuzz.sh builds the fuzzers first where the debug build has not (the `fuzz` preset, before issue 23).
phase fuzz scripts/fuzz.sh
[ -f build/fuzz/.ninja_log ] && cp build/fuzz/.ninja_log "$out/ninja_log_fuzz.txt"
phase lint scripts/lint.sh --format-only
echo "total wall $(($(date +%s) - start)) s" >>"$out/phases.txt"
