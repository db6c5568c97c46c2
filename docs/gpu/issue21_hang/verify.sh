#!/bin/bash
# Issue 21, multi-rank ncu stalls: kscope profile with the defaults on the three multi-GPU zoo
# workloads under torchrun (two H100s), with this branch's release (.gpu/ncuhang), each run
# timed and reported; then the wrapper mode. Parts start only while the device time allows;
# everything lands in one tarball under $OUT after each part (the device returns few files).
set -u
RES=${OUT:?}; W=/tmp/nh/w; O=/tmp/nh/res; rm -rf "$O" "$W"; mkdir -p "$RES" "$O" "$W" /tmp/nh/debs
C=$PWD/.gpu/ncuhang; Z=$C/models; S0=$EPOCHREALTIME; BUDGET=${BUDGET:-370}
tar -xzf "$C"/kscope-*.tar.gz -C /tmp/nh; K=$(ls /tmp/nh/kscope-*/bin/kscope)
for f in "$C"/debs/*.deb; do dpkg -x "$f" /tmp/nh/debs; done
export LD_LIBRARY_PATH="/tmp/nh/debs/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export KSCOPE_NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys PYTHONUNBUFFERED=1
{ "$K" --version; nvidia-smi -L; which mpirun torchrun; } > "$O/machine.txt" 2>&1
pack() { (cd "$O" && tar -czf /tmp/nh/all.tgz . && cp /tmp/nh/all.tgz "$RES/all.tgz" && cp times.txt "$RES/" 2>/dev/null); }
left() { python3 -c "print(int($BUDGET - ($EPOCHREALTIME - $S0)))"; }
summary() {  # summary NAME RUN: the run's deep pass and each rank's MFU, from the store and report.json
  python3 - "$1" "$W/runs/$2/manifest.json" "$W/r_$1/report.json" >> "$O/summary.txt" 2>&1 <<'PY'
import json, sys
name, man, rep = sys.argv[1:4]
m = json.load(open(man)); r = json.load(open(rep))
sel = m.get("selection", {})
steps = [s for s in m.get("steps", []) if s.get("name", "").startswith("ncu pass")]
prof = sum(s.get("launches_profiled", 0) for s in steps)
planned = sum(len(p) for p in [s.get("profiled_kernel_rows", []) for s in steps if "retry_of" not in s])
stalls = [s.get("stalled_at", "")[:40] for s in steps if s.get("stalled_at")]
print(f"{name}: selection deep {sel.get('deep_pct', 0):.1f}% of rank {sel.get('rank')}'s compute kernel time; "
      f"ncu runs {len(steps)}, launches profiled {prof} (planned {planned}); stalls {stalls}")
for rk in r.get("ranks", []):
    st = [(g["stage"], g.get("mfu_pct"), g.get("mfu_source")) for g in rk.get("gpu_stages", []) if g.get("depth") == 0]
    print(f"  rank {rk['rank']} GPU {rk['device']}: " + "; ".join(
        f"{s} MFU {'-' if v is None else f'{v:.2f}%'} ({src})" for s, v, src in st))
for st in r.get("stages", []):
    mfu = st.get("mfu") or {}
    if st.get("depth") == 0 and mfu:
        print(f"  stage {st.get('name')}: measured FLOPs cover {mfu.get('coverage_pct', 0):.1f}% of its kernel time")
PY
}
part() {  # part NAME LIMIT EXPECTED -- WORKLOAD...
  local name=$1 lim=$2 exp=$3; shift 4
  local l; l=$(left)
  if [ "$l" -lt "$exp" ]; then echo "$name: not started ($l s of device time left)" >> "$O/times.txt"; return; fi
  [ "$l" -lt "$lim" ] && lim=$l
  local t0=$EPOCHREALTIME
  timeout -s INT "$lim" "$K" --db "$W/k.db" profile "profile.runs_dir=$W/runs" --label "$name" -- "$@" \
    > "$O/${name}_profile.log" 2>&1
  local rc=$?
  echo "$name: exit $rc after $(python3 -c "print(round($EPOCHREALTIME - $t0, 1))") s" >> "$O/times.txt"
  local A; A=$("$K" --db "$W/k.db" query "select max(id) from run where label = '$name'" --format csv 2>/dev/null | tail -1)
  "$K" --db "$W/k.db" report "$A" --out "$W/r_$name" > "$O/${name}_report.txt" 2>&1
  cp "$W/runs/$A/logs"/ncu_pass*.log "$O/" 2>/dev/null; for f in "$O"/ncu_pass*.log; do [ -e "$f" ] && mv "$f" "$O/${name}_$(basename "$f")"; done
  summary "$name" "$A"; pack
}
part tp_infer_1 290 70 -- torchrun --nproc_per_node=2 "$Z/tp_infer.py"
part fsdp_train_1 290 130 -- torchrun --nproc_per_node=2 "$Z/fsdp_train.py"
part ddp_train_1 290 130 -- torchrun --nproc_per_node=2 "$Z/ddp_train.py"
part tp_infer_2 290 70 -- torchrun --nproc_per_node=2 "$Z/tp_infer.py"
echo "done after $(python3 -c "print(round($EPOCHREALTIME - $S0, 1))") s" >> "$O/times.txt"; pack
