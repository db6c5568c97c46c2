#!/usr/bin/env bash
# Installs what kscope needs to build, test and benchmark, from Debian 12's packages.
# Runs as root or through sudo; safe to run again.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git time
  libsqlite3-dev sqlite3 libzstd-dev zstd libxxhash-dev libfmt-dev libcli11-dev nlohmann-json3-dev
  libcsv-dev libyaml-cpp-dev rapidjson-dev zlib1g-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev lld llvm clang-format clang-tidy
  libjs-vega chromium python3 strace
  openmpi-bin libopenmpi-dev
)

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo_cmd=(sudo)
  else
    echo "install-deps: run as root or install sudo" >&2
    exit 1
  fi
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
