#!/bin/bash
# Issue 21 with the rank gate: kscope profile with the defaults on the multi-GPU zoo workloads
# (PARTS), each timed and reported, then the wrapper mode under torchrun and mpirun, and the gate
# under mpirun. Everything lands in one tarball under $OUT after each part.
set -u
RES=${OUT:?}; T=/tmp/v4; W=$T/w; O=$T/res; rm -rf "$T"; mkdir -p "$RES" "$O" "$W" "$T/debs" "$T/k"
C=$PWD/.gpu/lead; Z=$PWD/zoo/models; S0=$EPOCHREALTIME; BUDGET=${BUDGET:-540}
tar -xzf "$C"/kscope-gate.tar.gz -C "$T/k"; K=$T/k/kscope-gate/bin/kscope
for f in "$C"/debs/*.deb; do dpkg -x "$f" "$T/debs"; done
export LD_LIBRARY_PATH="$T/debs/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export KSCOPE_NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys PYTHONUNBUFFERED=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ "$K" --version; nvidia-smi -L; which mpirun torchrun; mpirun --version | head -1; } > "$O/machine.txt" 2>&1
pack() { (cd "$O" && tar -czf "$T/all.tgz" . && cp "$T/all.tgz" "$RES/all.tgz" && cp times.txt "$RES/" 2>/dev/null); }
left() { python3 -c "print(int($BUDGET - ($EPOCHREALTIME - $S0)))"; }
summary() {  # summary NAME MANIFEST REPORT_JSON
  python3 - "$@" >> "$O/summary.txt" 2>&1 <<'PY'
import json, sys
name, man, rep = sys.argv[1:4]
m = json.load(open(man)); r = json.load(open(rep))
sel = m.get("selection", {})
steps = [s for s in m.get("steps", []) if s.get("name", "").startswith("ncu pass")]
prof = sum(s.get("launches_profiled", 0) for s in steps)
planned = sum(len(s.get("profiled_kernel_rows", [])) for s in steps if "retry_of" not in s)
gated = sum(1 for s in steps if "rank_gate" in s)
stalls = [s.get("stalled_at", "")[:40] for s in steps if s.get("stalled_at")]
print(f"{name}: deep {sel.get('deep_pct', 0):.1f}% of rank {sel.get('rank')}'s compute kernel time; ncu runs {len(steps)} "
      f"({gated} through the rank gate), launches profiled {prof} (planned {planned}); stalls {stalls}; notes {len(m.get('notes', []))}")
for n in m.get("notes", []):
    print("  note:", n[:300])
for rk in r.get("ranks", []):
    st = [(g["stage"], g.get("mfu_pct"), g.get("mfu_source")) for g in rk.get("gpu_stages", []) if g.get("depth") == 0]
    print(f"  rank {rk['rank']} GPU {rk['device']}: " + "; ".join(
        f"{s} MFU {'-' if v is None else f'{v:.4f}%'} ({src})" for s, v, src in st))
PY
}
part() {  # part NAME LIMIT EXPECTED -- COMMAND... (kscope's profile command line, or a launcher around it)
  local name=$1 lim=$2 exp=$3; shift 4
  local l; l=$(left)
  if [ "$l" -lt "$exp" ]; then echo "$name: not started ($l s of device time left)" >> "$O/times.txt"; return; fi
  [ "$l" -lt "$lim" ] && lim=$l
  local t0=$EPOCHREALTIME
  timeout -s INT "$lim" "$@" > "$O/${name}_profile.log" 2>&1
  local rc=$?
  echo "$name: exit $rc after $(python3 -c "print(round($EPOCHREALTIME - $t0, 1))") s" >> "$O/times.txt"
  local A; A=$("$K" --db "$W/k.db" query "select max(id) from run where label = '$name'" --format csv 2>/dev/null | tail -1)
  if [ -n "$A" ]; then
    "$K" --db "$W/k.db" report "$A" --out "$W/r_$name" > "$O/${name}_report.txt" 2>&1
    local man; man=$(ls -d "$W"/runs*/"$A"/manifest.json 2>/dev/null | head -1)
    for f in "$(dirname "$man")"/logs/ncu_pass*.log; do [ -e "$f" ] && cp "$f" "$O/${name}_$(basename "$f")"; done
    [ -n "$man" ] && cp "$man" "$O/${name}_manifest.json" && summary "$name" "$man" "$W/r_$name/report.json"
  fi
  pack
}
printf '#!/bin/bash\nexec "%s" --db "%s" profile "profile.runs_dir=%s" --label "$@"\n' "$K" "$W/k.db" "$W/runs" > "$T/P"
chmod +x "$T/P"; P=$T/P
for part in ${PARTS:-tp ddp fsdp}; do
  case $part in
    tp) part tp_infer 290 90 -- "$P" tp_infer -- torchrun --nproc_per_node=2 "$Z/tp_infer.py" ;;
    ddp) part ddp_train 290 110 -- "$P" ddp_train -- torchrun --nproc_per_node=2 "$Z/ddp_train.py" ;;
    fsdp) part fsdp_train 290 120 -- "$P" fsdp_train -- torchrun --nproc_per_node=2 "$Z/fsdp_train.py" ;;
    encdec) part encdec_infer 200 150 -- env CUDA_VISIBLE_DEVICES=0 "$P" encdec_infer -- python3 "$Z/encdec_infer.py" ;;
    mpi) part ddp_mpirun 290 110 -- "$P" ddp_mpirun -- mpirun -np 2 "$(command -v python3)" "$Z/ddp_train.py"
         cp "$W"/runs/*/logs/nsys_profile.log "$O/ddp_mpirun_nsys.log" 2>/dev/null; pack ;;
    wrap) part ddp_wrap_torchrun 200 80 -- torchrun --nproc_per_node=2 --no-python "$K" --db "$W/k.db" profile \
            "profile.runs_dir=$W/runs_w" --label ddp_wrap_torchrun profile.rank=0 -- python3 "$Z/ddp_train.py" ;;
    wrapmpi) part ddp_wrap_mpirun 200 80 -- mpirun -np 2 -x MASTER_ADDR=127.0.0.1 -x MASTER_PORT=29540 "$K" --db "$W/k.db" \
            profile "profile.runs_dir=$W/runs_m" --label ddp_wrap_mpirun profile.rank=0 -- python3 "$Z/ddp_train.py" ;;
  esac
done
echo "done after $(python3 -c "print(round($EPOCHREALTIME - $S0, 1))") s" >> "$O/times.txt"; pack
