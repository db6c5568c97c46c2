#!/usr/bin/env bash
# The main job on the bundled real captures (no GPU needed): import the nsys exports of a
# Llama decoder run and a small CUDA program, list the runs, and print nsys's reports.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release
cmake --build --preset release
kscope=build/release/kscope
db=build/demo/kscope.db
rm -f "$db" "$db-wal" "$db-shm"
"$kscope" --db "$db" import tests/data/nsys/llama.sqlite --label llama-4L --model llama-4L --dtype bf16 --batch 2
"$kscope" --db "$db" import tests/data/nsys/tiny_cuda.sqlite --label tiny_cuda
"$kscope" --db "$db" runs
for report in cuda_gpu_kern_sum cuda_api_sum cuda_gpu_mem_time_sum cuda_gpu_mem_size_sum nvtx_sum nvtx_gpu_proj_sum; do
  echo
  "$kscope" --db "$db" stats --report "$report" 1
done
