#!/usr/bin/env bash
# Issue 22 items 2, 5, 6, first look (GPU machine; run from the repository root with the
# files of .gpu/capture): the encoder-decoder workload under nsys with GPU metrics sampling,
# exported to SQLite (the discovery export the selection's growing-shapes sampling is tested
# on), and ncu's replay passes per launch for kscope's quick sections with and without
# WarpStateStats on a small torch program.
set -u
G=${G:-.gpu/capture}
mkdir -p /tmp/dw && for f in /work/shared/gpu/debs/*.deb "$G"/debs/*.deb; do [ -f "$f" ] && dpkg -x "$f" /tmp/dw; done
export LD_LIBRARY_PATH=/tmp/dw/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
export CUDA_VISIBLE_DEVICES=0
NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
O=${OUT:-/tmp/out}
mkdir -p "$O"
now() { date +%s.%N; }
t0=$(now)
$NSYS profile --trace=cuda,nvtx,osrt --sample=none --cuda-graph-trace=node --gpu-metrics-devices=0 \
  -o "$O/encdec" --force-overwrite=true python3 "$G/encdec_infer.py" >"$O/encdec_nsys.log" 2>&1
echo "nsys encdec+gpu-metrics rc=$? $(python3 -c "print(round($(now)-$t0,1))") s" | tee -a "$O/times.txt"
t0=$(now)
$NSYS export --type sqlite -o "$O/encdec.sqlite" --force-overwrite=true "$O/encdec.nsys-rep" >>"$O/encdec_nsys.log" 2>&1
echo "export rc=$? $(python3 -c "print(round($(now)-$t0,1))") s" | tee -a "$O/times.txt"
python3 - "$O/encdec.sqlite" <<'PY' | tee "$O/gpu_metrics_tables.txt"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type='table' AND (name LIKE '%GPU_METRIC%' OR name LIKE 'TARGET_INFO_GPU_METRICS%')"):
    print(t, db.execute(f"SELECT count(*) FROM {t}").fetchone()[0])
    print(db.execute(f"SELECT sql FROM sqlite_master WHERE name=?", (t,)).fetchone()[0])
    for row in db.execute(f"SELECT * FROM {t} LIMIT 40"):
        print(row)
for t in ("OSRT_API", "OSRT_CALLCHAINS", "SCHED_EVENTS"):
    db.execute(f"DROP TABLE IF EXISTS {t}")
db.commit(); db.execute("VACUUM")
PY
zstd -q -19 -f --rm "$O/encdec.sqlite" 2>/dev/null || xz -9 -f "$O/encdec.sqlite"
rm -f "$O/encdec.nsys-rep"
P='import torch; a=torch.randn(4096,4096,device="cuda",dtype=torch.bfloat16); b=a@a; c=a*2; torch.cuda.synchronize()'
Q=(--section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy)
t0=$(now)
ncu --target-processes all "${Q[@]}" python3 -c "$P" >"$O/ncu_quick.log" 2>&1
echo "ncu quick rc=$? $(python3 -c "print(round($(now)-$t0,1))") s" | tee -a "$O/times.txt"
t0=$(now)
ncu --target-processes all "${Q[@]}" --section WarpStateStats python3 -c "$P" >"$O/ncu_quick_stalls.log" 2>&1
echo "ncu quick+WarpStateStats rc=$? $(python3 -c "print(round($(now)-$t0,1))") s" | tee -a "$O/times.txt"
grep -h "passes" "$O"/ncu_*.log | tee -a "$O/times.txt"
# Can ncu profile chosen invocations of one kernel (a few sizes of a growing shape)? The same
# elementwise kernel at 8 sizes; --kernel-id with an invocation regex, then ncu's view of which.
ncu --help >"$O/ncu_help.txt" 2>&1
G8='import torch
for n in range(1, 9):
    x = torch.ones(n * 65536, device="cuda"); y = x * 2
torch.cuda.synchronize()'
ncu --target-processes all --kernel-id '::regex:elementwise:regex:^(2|5|8)$' --section LaunchStats \
  -o "$O/kid" -f python3 -c "$G8" >"$O/ncu_kernel_id.log" 2>&1
echo "ncu kernel-id rc=$?" | tee -a "$O/times.txt"
ncu --import "$O/kid.ncu-rep" --page raw --csv --metrics launch__grid_size >"$O/ncu_kernel_id_raw.csv" 2>&1
ncu --target-processes all --kernel-name-base mangled --kernel-id '::regex:elementwise:3' --section LaunchStats \
  python3 -c "$G8" >"$O/ncu_kernel_id_plain.log" 2>&1
echo "ncu kernel-id plain rc=$?" | tee -a "$O/times.txt"
