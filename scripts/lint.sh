#!/usr/bin/env bash
# clang-format (no changes allowed) and clang-tidy (no warnings allowed) over the sources.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cc' '*.h')
clang-format --dry-run -Werror "${files[@]}"
echo "lint: clang-format clean (${#files[@]} files)"
[ "${1:-}" = "--format-only" ] && exit 0
cmake --preset release >/dev/null
mapfile -t sources < <(git ls-files 'src/*.cc')
out=$(clang-tidy -p build/release --quiet "${sources[@]}" 2>/dev/null | grep -E "(warning|error):" || true)
if [ -n "$out" ]; then
  echo "$out"
  echo "lint: clang-tidy found problems" >&2
  exit 1
fi
echo "lint: clang-tidy clean (${#sources[@]} files)"
