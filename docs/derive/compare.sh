#!/usr/bin/env bash
# Compares out-after with out-before file by file (every report file, kernels and atlas output).
B=${1:-/work/derive-baseline/out-before}; A=${2:-/work/derive-baseline/out-after}
n=0; bad=0; missing=0
while IFS= read -r f; do
  n=$((n+1))
  if [ ! -f "$A/$f" ]; then missing=$((missing+1)); continue; fi
  if ! cmp -s "$B/$f" "$A/$f"; then echo "DIFFERS: $f"; bad=$((bad+1)); fi
done < <(cd "$B" && find . -type f | sort)
echo "$n files in before, $((n-missing)) compared, $bad differ, $missing not in after (yet)"
