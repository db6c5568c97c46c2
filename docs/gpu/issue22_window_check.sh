#!/usr/bin/env bash
# Issue 22 item 5 on the GPU machine: does ncu profile the launches a growing-shape window
# plans? The selection of tests/unit/growing_shapes_test.cc (the encoder-decoder's recorded
# discovery, selection.stage=decode, defaults) printed each window's skip, count, filter and
# the planned launches' grid x (docs/gpu/issue22_runs/windows.txt); this runs ncu with the
# middle window's arguments, as kscope profile would, on the same workload, and prints the
# grid of every launch ncu profiled, to compare with the plan.
set -u
G=${G:-.gpu/capture}
O=${OUT:-/tmp/out}
mkdir -p "$O"
export CUDA_VISIBLE_DEVICES=0
W="$G/windows.txt"
line=$(grep '^window' "$W" | sed -n 2p)
filter=$(grep '^filter' "$W" | sed -n 2p | cut -d' ' -f2-)
skip=$(echo "$line" | awk '{print $3}')
count=$(echo "$line" | awk '{print $5}')
echo "planned: $line" | tee "$O/window_check.txt"
ncu --target-processes all --kernel-name-base mangled --kernel-name "$filter" --filter-mode global \
  --launch-skip "$skip" --launch-count "$count" --nvtx --nvtx-include decode/ --section LaunchStats \
  -o "$O/window" -f python3 "$G/encdec_infer.py" >"$O/window_ncu.log" 2>&1
echo "ncu rc=$?" | tee -a "$O/window_check.txt"
ncu --import "$O/window.ncu-rep" --page raw --csv --metrics launch__grid_size,launch__block_size \
  >"$O/window_raw.csv" 2>&1
python3 - "$O/window_raw.csv" <<'PY' | tee -a "$O/window_check.txt"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head = rows[0]
g = head.index("Grid Size") if "Grid Size" in head else None
k = head.index("Kernel Name")
print("profiled grid:", " ".join(r[g].split(",")[0].strip("( ") if g is not None else "?" for r in rows[2:]))
print("profiled kernels:", " | ".join(r[k][:40] for r in rows[2:]))
PY
rm -f "$O/window.ncu-rep"
