#!/usr/bin/env bash
# The wrapper mode under Slurm's srun, on a single-node Slurm (Debian 12's slurm-wlm and munge)
# on the development machine: `srun -n 2 kscope profile profile.rank=0 -- python3 rendezvous.py`,
# the CPU workload whose ranks meet over TCP in every run (tests/helpers/rendezvous.py), with the
# same stand-in nsys/ncu/nvidia-smi as tests/unit/rank_wrapper_test.cc (they print and write what
# the real tools did on the GPU machine and run the workload for real). Prints each rank's passes
# and the run kscope stored. Run from the repository root after building (build/debug/kscope);
# docs/slurm/README.md has the Slurm set-up and a recorded log.
set -euo pipefail
root=$(pwd)
kscope=${KSCOPE:-$root/build/debug/kscope}
run=$root/tests/data/capture/llama_h100
catalog=$root/tests/data/capture/ncu_catalog_h100
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/data" "$work/bin"
for f in nsys_version.log ncu_version.log nvidia_smi.log nsys_profile.log nsys_export.log ncu_pass1.log; do
  cp "$run/$f" "$work/data/"
done
zstd -dcq "$run/discovery.sqlite.zst" >"$work/data/discovery.sqlite"
zstd -dcq "$run/pass1_raw.csv.zst" >"$work/data/pass1_raw.csv"
zstd -dcq "$run/pass1_details.csv.zst" >"$work/data/pass1_details.csv"
cp "$catalog/list_sets.txt" "$catalog/list_sections.txt" "$work/data/"
zstd -dcq "$catalog/query_metrics.txt.zst" >"$work/data/query_metrics.txt"
for tool in nsys ncu nvidia-smi; do ln -s "$root/tests/helpers/standin_profiler.py" "$work/bin/$tool"; done

echo "\$ srun --version; sinfo"
srun --version
sinfo
echo
echo "\$ srun -n 2 kscope profile profile.rank=0 ... -- python3 tests/helpers/rendezvous.py passes.log"
PATH=$work/bin:$PATH KSCOPE_NSYS=$work/bin/nsys KSCOPE_NCU=$work/bin/ncu KSCOPE_STANDIN_DATA=$work/data \
  MASTER_PORT=${MASTER_PORT:-29611} \
  srun -n 2 --kill-on-bad-exit=1 "$kscope" --db "$work/kscope.db" profile profile.rank=0 selection.top=20 \
  selection.warmup=2 selection.launches=3 selection.budget_s=0 ncu.flops=off ncu.import=export \
  "profile.runs_dir=$work/runs" "profile.cache_dir=$work/cache" \
  -- python3 "$root/tests/helpers/rendezvous.py" "$work/passes.log"
echo "srun exit status: $?"
echo
echo "\$ sort passes.log   # one line per rank and pass: its rendezvous port and the profiler that ran it"
sort "$work/passes.log"
echo
echo "\$ kscope runs"
"$kscope" --db "$work/kscope.db" runs
