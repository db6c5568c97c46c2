#!/bin/bash
# Turns what docs/gpu/issue26_stats.sh recorded (stats.tar.zst, unpacked into STATS_DIR) into
# the tests' expected files under tests/data/nsys/expected/<export>/, taking nsys's bytes as
# they are: `nsys stats --format csv --output -` prints "Processing [FILE] with [REPORT.py]... ",
# then the CSV that `--output PREFIX` writes to its file, then an empty line; a skipped report
# prints its "SKIPPED: FILE does not contain ..." line instead (and writes an empty file).
#   R.csv (R.csv.zst above 64 KiB): the CSV, the framing lines removed
#   R.skipped: the SKIPPED line, byte for byte (the same in csv, json and table format)
# Usage: docs/gpu/issue26_expected.sh STATS_DIR   (from the repository root)
set -euo pipefail
STATS=$1
REPORTS="cuda_gpu_kern_sum cuda_api_sum cuda_gpu_mem_time_sum cuda_gpu_mem_size_sum nvtx_sum nvtx_kern_sum nvtx_gpu_proj_sum cuda_gpu_trace cuda_api_trace nvtx_pushpop_trace"
for e in llama tiny_cuda no_nvtx cuda_only kernels_only nvtx_only; do
  out=tests/data/nsys/expected/$e
  mkdir -p "$out"
  for r in $REPORTS; do
    f=$STATS/$e/$r.csv
    [ "$(cat "$f.rc")" = 0 ] && [ ! -s "$f.stderr" ] || { echo "$f: exit $(cat "$f.rc"), stderr not empty" >&2; exit 1; }
    head -n 1 "$f.stdout" | grep -q '^Processing \[' || { echo "$f: no Processing line" >&2; exit 1; }
    [ -z "$(tail -n 1 "$f.stdout")" ] || { echo "$f: no closing empty line" >&2; exit 1; }
    rm -f "$out/$r.csv" "$out/$r.csv.zst" "$out/$r.skipped"
    if sed -n 2p "$f.stdout" | grep -q '^SKIPPED: '; then
      for fmt in json table; do cmp -s "$f.stdout" "$STATS/$e/$r.$fmt.stdout" || { echo "$f: $fmt differs" >&2; exit 1; }; done
      sed -n 2p "$f.stdout" > "$out/$r.skipped"
    else
      sed '1d;$d' "$f.stdout" > "$out/$r.csv"
      if [ "$(stat -c %s "$out/$r.csv")" -gt 65536 ]; then zstd -q -19 --rm -f "$out/$r.csv"; fi
    fi
  done
done
