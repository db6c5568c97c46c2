#!/usr/bin/env bash
# Builds the release: one kscope binary that needs only glibc (SQLite, yaml-cpp, zstd, libcsv
# and the C++ runtime linked in, fmt header-only, Vega built in), checks it (the ctest labelled
# "release": NEEDED only glibc's libraries, no GLIBC_ symbol version above 2.35, i.e. Ubuntu
# 22.04 and newer), then packs it with CPack as a tarball and a .deb:
#   build/static-release/packages/kscope-VERSION-linux-x86_64.tar.gz
#   build/static-release/packages/kscope_VERSION_amd64.deb
# JOBS sets the build's parallelism (default: all cores).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset static-release
cmake --build --preset static-release -j "${JOBS:-$(nproc)}"
ctest --test-dir build/static-release -L release --output-on-failure
(cd build/static-release && cpack --config CPackConfig.cmake)
ls -l build/static-release/packages/*.tar.gz build/static-release/packages/*.deb
