#!/usr/bin/env bash
# The main job on bundled real captures (no GPU needed). A GPT-2 inference workload of the zoo
# (zoo/models/gpt2_infer.py: prefill and 24 decode steps, batch 8), profiled on an H100 by
# `kscope profile` with its defaults: its nsys export and the ncu report of its deep pass
# (91% of the steady kernel time with deep metrics and FLOP counters; tests/data/zoo/README.md).
# Imports both as one run, lists it, prints nsys's reports, the profiled kernels and one
# kernel's evidence (and, from the devset's Llama run, a kernel's warp-stall breakdown), shows
# the ncu command kscope profile would run for the decode stage, and ends with the run's report
# (terminal, report.md/.json/.html in build/demo/report-gpt2_infer/), MFU per stage from the
# model description zoo/models/gpt2_infer.yaml.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release
cmake --build --preset release --target kscope
kscope=build/release/kscope
out=build/demo
db=$out/kscope.db
zoo=tests/data/zoo/gpt2_infer
mkdir -p "$out"
rm -f "$db" "$db-wal" "$db-shm"
for f in discovery.sqlite default_profile.ncu-rep; do
  zstd -q -d -f "$zoo/$f.zst" -o "$out/gpt2_infer_$f"
done
"$kscope" --db "$db" import "$out/gpt2_infer_discovery.sqlite" "$out/gpt2_infer_default_profile.ncu-rep" \
  --label gpt2_infer --model gpt2-6L --dtype fp16 --batch 8
"$kscope" --db "$db" runs
for report in cuda_gpu_kern_sum nvtx_gpu_proj_sum; do
  echo
  "$kscope" --db "$db" stats --report "$report" 1
done
echo
"$kscope" --db "$db" kernels 1
echo
"$kscope" --db "$db" kernel 1 0
# The devset's Llama decoder (H200) with an ncu deep pass that measured the warp stalls
# (WarpStateStats): its largest profiled kernel's evidence and whole stall breakdown.
"$kscope" --db "$db" import tests/data/nsys/llama.sqlite tests/data/ncu/llama_deep_raw.csv \
  tests/data/ncu/llama_deep_details.csv --label llama-4L --model llama-4L --dtype bf16 --batch 2 --tokens 288
echo
"$kscope" --db "$db" kernel 2 0
echo
echo "== kscope profile --dry-run: the deep pass it would run on the decode stage of run 1"
"$kscope" --db "$db" profile --dry-run --discovery 1 selection.stage=decode -- python3 zoo/models/gpt2_infer.py
echo
"$kscope" --db "$db" --config zoo/models/gpt2_infer.yaml report 1 --out "$out/report-gpt2_infer"
