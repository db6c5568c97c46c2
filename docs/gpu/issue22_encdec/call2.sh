#!/bin/bash
# Issue 22 item 5, the measurement after the change: kscope profile with the defaults on the
# encoder-decoder (one H100), timed, then kscope report; first, what ncu 2025.3.1's --kernel-id
# invocation expressions match (a two-kernel program); last, the no-NVTX inference script under
# nsys with GPU metrics (item 6's test data). Results under $OUT as each part ends.
set -u
OUT=${OUT:?}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
C=$PWD/.gpu/encdec; T=/tmp/ke2; W=$T/w; mkdir -p "$W" "$T/debs"
Z=$C/models; export PYTHONUNBUFFERED=1 CUDA_VISIBLE_DEVICES=0
tar -xzf "$C"/kscope-*.tar.gz -C "$T"; K=$(ls "$T"/kscope-*/bin/kscope)
for f in "$C"/debs/*.deb; do dpkg -x "$f" "$T/debs"; done
export LD_LIBRARY_PATH="$T/debs/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export KSCOPE_NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
NSYS=$KSCOPE_NSYS
stamp() { python3 -u -c 'import sys,time
t0=float(sys.argv[1])
for l in sys.stdin: print(f"{time.time()-t0:8.2f} {l}", end="", flush=True)' "$1"; }
# A. --kernel-id invocation expressions (ka: grids 1..10, kb: grids 101..110, alternately)
nvcc -o "$T/kid" "$C/kid.cu" > /dev/null 2>&1
kid() { local tag=$1; shift
  { echo "## $tag: $*"; ncu --section LaunchStats "$@" "$T/kid" 2>&1 | grep -E "^\s+k[ab]\(|==ERROR" ; } >> "$OUT/kernel_id.txt"; }
kid plain_1 --kernel-id ::ka:1
kid anchored --kernel-id '::ka:^(1|3)$'
kid two_anchored --kernel-name-base mangled --kernel-id '::regex:^(_Z2kaPii|_Z2kbPii)$:^(2|5)$'
GR=kernel-id
sed -n '/## anchored/,/## two/p' "$OUT/kernel_id.txt" | grep -q "(3, 1, 1)" || GR=windows
echo "selection.growing_run=$GR" | tee "$OUT/times.txt"
# B. kscope profile with the defaults, each output line stamped with seconds since the start
{ "$K" --version; nvidia-smi -L; ncu --version | tail -1; } >> "$OUT/times.txt" 2>&1
t0=$EPOCHREALTIME
timeout -s INT 300 "$K" --db "$W/k.db" profile "profile.runs_dir=$W/runs" "selection.growing_run=$GR" \
  --label encdec_infer -- python3 "$Z/encdec_infer.py" 2>&1 | stamp "$t0" > "$OUT/encdec_infer_profile.log"
echo "encdec_infer: exit ${PIPESTATUS[0]} after $(python3 -c "print(round($EPOCHREALTIME - $t0, 1))") s" | tee -a "$OUT/times.txt"
A=$("$K" --db "$W/k.db" query "select max(id) from run" --format csv 2>/dev/null | tail -1)
"$K" --db "$W/k.db" report "$A" --out "$W/r" > "$OUT/encdec_infer_report.txt" 2>&1
R=$(ls -d "$W"/runs/*/ | head -1)
for f in "$R"/ncu/pass*.ncu-rep; do
  echo "## $f" >> "$OUT/ncu_grids.csv"
  ncu --import "$f" --page raw --csv --metrics launch__grid_size,launch__func_cache_config >> "$OUT/ncu_grids.csv" 2>&1
done
tar -czf "$OUT/run.tgz" -C "$R" manifest.json logs 2>/dev/null; cp "$W/r/report.json" "$OUT/encdec_infer_report.json"
# C. the no-NVTX inference script under nsys with GPU metrics (20 kHz on GPU 0)
t0=$EPOCHREALTIME
"$NSYS" profile --trace=cuda,nvtx,osrt --sample=none --cuda-graph-trace=node --gpu-metrics-devices=0 \
  --gpu-metrics-frequency=20000 -o "$W/no_nvtx_infer" --force-overwrite=true python3 "$Z/no_nvtx_infer.py" > "$W/nsys.log" 2>&1
"$NSYS" export --type sqlite -o "$W/no_nvtx_infer.sqlite" --force-overwrite=true "$W/no_nvtx_infer.nsys-rep" >> "$W/nsys.log" 2>&1
python3 "$C/trim_export.py" "$W/no_nvtx_infer.sqlite" "$OUT/no_nvtx_infer.sqlite.xz" >> "$OUT/times.txt" 2>&1
echo "no_nvtx_infer nsys+export+trim: $(python3 -c "print(round($EPOCHREALTIME - $t0, 1))") s" >> "$OUT/times.txt"
