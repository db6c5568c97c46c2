#!/bin/bash
# GPU calls for issues 10 and 11 with the kscope of this commit (release build from the dev
# machine in .carry/bin, the shared libraries Ubuntu 24.04 lacks in .carry/lib, the two
# Debian packages nsys needs in .carry/debs).
#   A: the zoo's first models through zoo/run_zoo.sh (decoder_infer first: its run is the
#      discovery of the targeted profiles), then issue 11's checks: a targeted profile of one
#      kernel chosen by substring and launch index inside decode, a regex with a launch range
#      per kernel outside prefill, ncu.set=full on one kernel, ncu.metrics with the portable
#      list, ncu itself with only the portable list (a user's own capture) imported by kscope,
#      nvidia-smi's nine-field line, and mistakes (an unknown set, section and metric).
#   B, C: the other zoo models (each call fits the device's 10-minute limit).
# Usage: docs/gpu/issue11_zoo.sh A|B|C [MODEL...]   (results under $OUT, packed into at most 8 files)
set -u
part=$1
mkdir -p /tmp/dw && for f in .carry/debs/*.deb; do dpkg -x "$f" /tmp/dw; done
export LD_LIBRARY_PATH=/tmp/dw/usr/lib/x86_64-linux-gnu:$PWD/.carry/lib:${LD_LIBRARY_PATH:-}
export KSCOPE_NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
export PYTHONUNBUFFERED=1
export KSCOPE_VEGA_DIR=$PWD/.carry/vega  # the HTML page until Vega is embedded (issue 13)
K=$PWD/.carry/bin/kscope
W=/tmp/w; mkdir -p $W
Z=$W/zoo
step() {  # step NAME CMD...: run, keep output and exit status and seconds
  local n=$1; shift
  local t0=$EPOCHREALTIME
  "$@" >$W/$n.log 2>&1; local rc=$?
  echo "== $n rc=$rc $(python3 -c "print(round($EPOCHREALTIME - $t0, 1))") s" | tee -a $W/steps.txt
  tail -25 $W/$n.log
}
if [ "$part" = A ]; then
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,compute_cap,power.limit,power.max_limit,persistence_mode \
    --format=csv,noheader >$W/nvidia_smi_query.txt 2>&1
  cat $W/nvidia_smi_query.txt
  $K doctor >$W/doctor.txt 2>&1; echo "doctor rc=$?" >>$W/doctor.txt
  bash zoo/run_zoo.sh $K $Z decoder_infer 2>&1 | tee $W/zoo_a.txt
  DB=$Z/zoo.db
  D=$(python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT max(id) FROM run WHERE label = ?", ("decoder_infer",)).fetchone()[0])' $DB)
  M="python3 zoo/models/decoder_infer.py"
  step targeted_substring $K --db $DB profile --discovery $D profile.runs_dir=$W/runs selection.kernel=splitK \
    selection.launch=3 selection.stage=decode --label targeted -- $M
  step targeted_regex $K --db $DB profile --discovery $D profile.runs_dir=$W/runs "selection.kernel=regex:flash_fprop" \
    selection.launch=2-3 selection.launch_scope=kernel "selection.exclude=[prefill]" --label targeted-regex -- $M
  step set_full $K --db $DB profile --discovery $D profile.runs_dir=$W/runs ncu.set=full selection.kernel=splitK \
    selection.launch=1 selection.stage=decode --label set-full -- $M
  P='[sm__throughput.avg.pct_of_peak_sustained_elapsed, dram__throughput.avg.pct_of_peak_sustained_elapsed, l1tex__t_sector_hit_rate.pct, lts__t_sector_hit_rate.pct, smsp__warp_issue_stalled_barrier_per_warp_active.pct, smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct, smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct, gpu__time_duration.sum]'
  step metrics_portable $K --db $DB profile --discovery $D profile.runs_dir=$W/runs "ncu.metrics=$P" \
    selection.top=5 selection.stage=decode --label metrics-portable -- $M
  for r in targeted targeted-regex set-full metrics-portable; do
    id=$(python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT max(id) FROM run WHERE label = ?", (sys.argv[2],)).fetchone()[0])' $DB $r)
    step kernels_$r $K --db $DB kernels $id
  done
  # A user's own capture with only the portable list, imported.
  PL=$(echo "$P" | tr -d '[] ')
  step ncu_portable ncu --target-processes all --metrics "$PL" --launch-count 40 -o $W/portable -f $M
  ncu --import $W/portable.ncu-rep --page raw --csv >$W/portable_raw.csv 2>/dev/null
  step import_portable $K --db $W/portable.db import $W/portable_raw.csv
  step kernels_portable $K --db $W/portable.db kernels 1
  step bad_set $K --db $DB profile --discovery $D profile.runs_dir=$W/runs ncu.set=fulll selection.kernel=splitK -- $M
  step bad_section $K --db $DB profile --discovery $D profile.runs_dir=$W/runs "ncu.sections=[SpeedOfLite]" -- $M
  step bad_metric $K --db $DB profile --discovery $D profile.runs_dir=$W/runs "ncu.metrics=[lts__t_sector_hitrate.pct]" -- $M
  step bad_kernel $K --db $DB profile --discovery $D profile.runs_dir=$W/runs selection.kernel=splitk_TNT -- $M
  for r in $W/runs/*/; do cp $r/manifest.json $W/manifest_$(basename $r).json 2>/dev/null; done
  cp $W/runs/*/ncu/*_raw.csv $W/ 2>/dev/null
elif [ "$part" = B ]; then
  bash zoo/run_zoo.sh $K $Z encoder_bert vit_infer moe_decoder decoder_train 2>&1 | tee $W/zoo_b.txt
else
  shift
  models=("$@")
  [ ${#models[@]} -eq 0 ] && models=(resnet_train gpt2_compile_train gpt2_infer)
  bash zoo/run_zoo.sh $K $Z "${models[@]}" 2>&1 | tee $W/zoo_c.txt
fi
# Pack: the zoo's small files and store, and this call's logs.
(cd $Z && tar cf - --exclude='*.ncu-rep*' --exclude='runs' .) | xz -T0 -6 >$OUT/zoo_$part.tar.xz
(cd $W && tar cf - --exclude=zoo --exclude=runs --exclude='*.ncu-rep' --exclude='*.db' .) | xz -T0 -6 >$OUT/w_$part.tar.xz
for f in $OUT/*.tar.xz; do
  s=$(stat -c %s $f)
  if [ "$s" -gt 15728640 ]; then split -b 15M -d $f $f.; rm $f; fi
done
ls -la $OUT
