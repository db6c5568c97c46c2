#!/bin/bash
# Issue 22's "done when" on the GPU machine: the single-GPU zoo workloads (LANE0 on GPU 0 and
# LANE1 on GPU 1, two at a time) profiled with kscope's defaults and reported by
# zoo/run_zoo.sh, then the two-rank jobs MULTI under torchrun, then checked by check_zoo.py. Run from the repository root on the device, with
# .gpu/z5 holding kscope.tar.gz (the static release: kscope/bin/kscope) and the two debs nsys
# needs. Each lane's results (zoo/run_zoo.sh's compressed discovery exports, ncu reports and
# raw pages, reports and manifests, and the run directories' logs; not the store) land in
# $OUT/laneN.tgz as each workload finishes, check.txt at the end.
set -u
RES=${OUT:?}; T=/tmp/v5; rm -rf "$T"; mkdir -p "$RES" "$T/k" "$T/debs"
C=${KDIR:-$PWD/.gpu/z5}; S0=$EPOCHREALTIME
tar -xzf "$C/kscope.tar.gz" -C "$T/k"; K=$T/k/kscope/bin/kscope
for f in "$C"/debs/*.deb; do dpkg -x "$f" "$T/debs"; done
export LD_LIBRARY_PATH="$T/debs/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export KSCOPE_NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys PYTHONUNBUFFERED=1
{ nvidia-smi -L; ncu --version | tail -1; } > "$RES/machine.txt" 2>&1
pack() {  # pack N: lane N's small results (reports, manifests, logs, ncu's raw pages)
  (cd "$T/out$1" && tar -czf "$T/lane$1.tgz" --exclude='zoo.db*' --exclude='runs/*/ncu' --exclude='runs/*/nsys' \
     --exclude='runs/*/tmp' . && cp "$T/lane$1.tgz" "$RES/")
}
lane() {  # lane N MODEL...: one workload after the other on GPU N
  local n=$1; shift
  mkdir -p "$T/out$n"
  for m in "$@"; do
    CUDA_VISIBLE_DEVICES=$n bash zoo/run_zoo.sh "$K" "$T/out$n" "$m" >> "$T/out$n/lane.log" 2>&1
    pack "$n"
  done
}
multi() {  # multi MODEL...: two-rank jobs under torchrun on both GPUs, after the lanes
  local o=$T/out2 m run
  mkdir -p "$o"
  for m in "$@"; do
    "$K" --db "$o/zoo.db" profile "profile.runs_dir=$o/runs" --label "$m" -- torchrun --nproc_per_node=2 \
      "$PWD/zoo/models/$m.py" > "$o/$m.profile.log" 2>&1
    run=$("$K" --db "$o/zoo.db" query "select max(id) from run where label = '$m'" --format csv | tail -1)
    "$K" --db "$o/zoo.db" report "$run" --out "$o/$m" > "$o/$m.report.txt" 2>&1
    cp "$o/runs/$run/manifest.json" "$o/$m/" 2>/dev/null
    pack 2
  done
}
# shellcheck disable=SC2086
lane 0 ${LANE0:-} &
# shellcheck disable=SC2086
lane 1 ${LANE1:-} &
wait
# shellcheck disable=SC2086
multi ${MULTI:-}
for n in 0 1 2; do [ -d "$T/out$n" ] && dirs+=("$T/out$n"); done
python3 docs/gpu/issue22_zoo/check_zoo.py "$K" "${dirs[@]}" > "$RES/check.txt" 2>&1
for n in 0 1 2; do [ -d "$T/out$n" ] && pack "$n"; done
echo "done after $(python3 -c "print(round($EPOCHREALTIME - $S0, 1))") s" >> "$RES/check.txt"
