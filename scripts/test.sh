#!/usr/bin/env bash
# Builds kscope with sanitizers (clang, ASan, UBSan; the libFuzzer targets from the same
# libraries) and runs the whole test suite: unit, import, fidelity against nsys's and ncu's own
# outputs, end-to-end CLI diffs, bad input, report.html in headless Chromium; then a bounded
# libFuzzer run of each importer and parser (FUZZ_SECONDS each, default 30), and the
# formatting check. The tests run side by side, one per core (ctest -j):
# each gtest suite is one process with its own TMPDIR (tests/gtest_suites.cmake), and the few
# tests that cannot share the build folder say RUN_SERIAL.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset debug
cmake --build --preset debug
ctest --preset debug -j "$(nproc)"
scripts/fuzz.sh
scripts/lint.sh --format-only
