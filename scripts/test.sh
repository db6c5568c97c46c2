#!/usr/bin/env bash
# Builds kscope with sanitizers and runs the whole test suite: unit, import, fidelity
# against nsys's own CSVs, robustness, and a bounded fuzzing run of each importer.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset debug
cmake --build --preset debug
ctest --preset debug
