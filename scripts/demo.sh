#!/usr/bin/env bash
# The main job on the bundled real captures (no GPU needed): import the nsys export and ncu
# pages of a Llama decoder run (H200) and of a small CUDA program, list the runs, print nsys's
# reports and the profiled kernels, show the ncu commands kscope profile would run for the
# Llama decode stage, and end with each run's report (terminal, report.md/.json/.html).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release
cmake --build --preset release --target kscope
kscope=build/release/kscope
out=build/demo
db=$out/kscope.db
mkdir -p "$out"
rm -f "$db" "$db-wal" "$db-shm"
"$kscope" --db "$db" import tests/data/nsys/llama.sqlite tests/data/ncu/llama_deep_raw.csv \
  tests/data/ncu/llama_deep_details.csv --label llama-4L --model llama-4L --dtype bf16 --batch 2 --tokens 288
"$kscope" --db "$db" import tests/data/nsys/tiny_cuda.sqlite tests/data/ncu/tiny_cuda_gemm_full_raw.csv \
  tests/data/ncu/tiny_cuda_gemm_full_details.csv --label tiny_cuda
"$kscope" --db "$db" runs
for report in cuda_gpu_kern_sum cuda_api_sum nvtx_gpu_proj_sum; do
  echo
  "$kscope" --db "$db" stats --report "$report" 1
done
echo
"$kscope" --db "$db" kernels 1
echo
echo "== kscope profile --dry-run: the deep pass it would run on the decode stage of run 1"
"$kscope" --db "$db" profile --dry-run --discovery 1 selection.stage=decode -- python3 llama_workload.py 4 2 128 16
echo
"$kscope" --db "$db" --config examples/llama_devset.yaml report 1 --out "$out/report-llama"
echo
"$kscope" --db "$db" report 2 --out "$out/report-tiny_cuda"
