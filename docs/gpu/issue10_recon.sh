#!/bin/bash
# Issue 10, first GPU-machine call: record what the zoo's workloads do before writing the code
# that reads them. Part A (nsys): each zoo workload under nsys with kscope's discovery flags,
# exported to SQLite, and one training workload again with --pytorch=autograd-nvtx; ncu's sets,
# sections and metrics (issue 11); Nsight Compute's report format files (issue 14).
# Part B (ncu): each workload under ncu with the FLOP counters only, every launch configuration
# once (the names ncu spells, the FLOPs per precision, the passes those counters cost), and one
# capture with the common portable metric list (issue 11).
# Usage: docs/gpu/issue10_recon.sh A | B1 | B2   (outputs under $OUT; B1 and B2 each take half the models)
set -u
part=$1
mkdir -p /tmp/dw && for f in .carry/debs/*.deb; do dpkg -x "$f" /tmp/dw; done
export LD_LIBRARY_PATH=/tmp/dw/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
NCU=$(command -v ncu)
W=/tmp/zoo; mkdir -p $W
MODELS="decoder_infer encoder_bert vit_infer moe_decoder decoder_train resnet_train gpt2_compile_train gpt2_infer"
cd zoo/models
step() {  # step NAME LIMIT CMD...: run with a time limit, keep output, exit status and seconds
  local n=$1 lim=$2; shift 2
  local t0=$EPOCHREALTIME
  timeout -s INT "$lim" "$@" >$W/$n.log 2>&1; local rc=$?
  echo "== $n rc=$rc $(python3 -c "print(round($EPOCHREALTIME - $t0, 1))") s" | tee -a $W/steps.txt
}
pack() {  # pack NAME 'GLOBS': tar.xz of those files of $W into $OUT, split into 15 MiB parts when larger
  (cd $W && tar cf - $2) | xz -9 -T0 >$OUT/$1.tar.xz
  local size=$(stat -c %s $OUT/$1.tar.xz)
  if [ "$size" -gt 15728640 ]; then split -b 15M -d $OUT/$1.tar.xz $OUT/$1.tar.xz.; rm $OUT/$1.tar.xz; fi
  ls -la $OUT
}
if [ "$part" = A ]; then
  { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit --format=csv
    $NCU --version; $NSYS --version; nproc
    python3 -c 'import torch, transformers, torchvision, triton; print(torch.__version__, transformers.__version__, torchvision.__version__, triton.__version__)'
  } >$W/env.txt 2>&1
  cat $W/env.txt
  $NCU --list-sets >$W/ncu_list_sets.txt 2>&1
  $NCU --list-sections >$W/ncu_list_sections.txt 2>&1
  $NCU --query-metrics >$W/ncu_query_metrics.txt 2>&1
  $NCU --query-metrics --chip gh100 >$W/ncu_query_metrics_gh100.txt 2>&1
  $NSYS profile --help >$W/nsys_profile_help.txt 2>&1
  for m in $MODELS; do
    step nsys_$m 150 $NSYS profile --trace=cuda,nvtx,osrt --sample=none --cuda-graph-trace=node -o $W/$m --force-overwrite=true python3 $m.py
    step export_$m 60 $NSYS export --type sqlite -o $W/$m.sqlite --force-overwrite=true $W/$m.nsys-rep
  done
  step nsys_decoder_train_autograd 150 $NSYS profile --trace=cuda,nvtx,osrt --sample=none --cuda-graph-trace=node --pytorch=autograd-nvtx -o $W/decoder_train_autograd --force-overwrite=true python3 decoder_train.py --steps 4
  step export_decoder_train_autograd 60 $NSYS export --type sqlite -o $W/decoder_train_autograd.sqlite --force-overwrite=true $W/decoder_train_autograd.nsys-rep
  for m in $MODELS; do python3 $m.py --write-config $W/config_$m >/dev/null 2>&1; done
  F=/opt/nvidia/nsight-compute/2025.3.1/extras
  tar cf $W/ncu_extras.tar -C $F FileFormat python 2>/dev/null
  ls -la $W
  pack nsys_a '*.sqlite'
  pack misc_a '*.txt *.log config_* ncu_extras.tar'
else
  # The counters behind FLOPs per precision (roofline sections' instruction and tensor-path
  # counts), DRAM bytes and time; asked for only where this ncu and GPU have them.
  python3 - "$NCU" >$W/flop_metrics.txt <<'PY'
import subprocess, sys
out = subprocess.run([sys.argv[1], "--query-metrics"], capture_output=True, text=True).stdout
have = {line.split()[0] for line in out.splitlines() if line.strip() and "__" in line.split()[0]}
want = []
for op in ["dadd", "dmul", "dfma", "fadd", "fmul", "ffma", "hadd", "hmul", "hfma"]:
    want += [f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum", f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum.per_cycle_elapsed"]
for op in ["dfma", "ffma", "hfma"]:
    want.append(f"sm__sass_thread_inst_executed_op_{op}_pred_on.sum.peak_sustained")
for p in ["src_bf16_dst_fp32", "src_fp16", "src_tf32_dst_fp32", "src_fp8_sparsity_off", "src_int8",
          "op_hgmma_src_bf16_dst_fp32_sparsity_off", "op_hmma_src_bf16_dst_fp32_sparsity_off",
          "op_hgmma_src_fp16_sparsity_off", "op_hmma_src_fp16_dst_fp32_sparsity_off",
          "op_hmma_src_fp16_dst_fp16_sparsity_off", "op_hgmma_src_tf32_dst_fp32_sparsity_off",
          "op_hmma_src_tf32_dst_fp32_sparsity_off"]:
    want += [f"sm__ops_path_tensor_{p}.sum", f"sm__ops_path_tensor_{p}.sum.per_cycle_elapsed", f"sm__ops_path_tensor_{p}.sum.peak_sustained"]
want += ["sm__inst_executed_pipe_tensor.sum", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
         "smsp__cycles_elapsed.avg.per_second", "sm__cycles_elapsed.avg.per_second", "dram__bytes.sum",
         "dram__bytes.sum.per_second", "dram__bytes.sum.peak_sustained", "dram__cycles_elapsed.avg.per_second",
         "gpu__time_duration.sum", "launch__grid_size", "launch__block_size", "launch__registers_per_thread"]
kept = [m for m in want if m.split(".")[0] in have]
print(",".join(kept))
print("missing:", " ".join(m for m in want if m.split(".")[0] not in have), file=sys.stderr)
PY
  M=$(head -1 $W/flop_metrics.txt)
  echo "metrics: $M"
  [ "$part" = B1 ] && MODELS="decoder_infer encoder_bert vit_infer moe_decoder"
  [ "$part" = B2 ] && MODELS="decoder_train resnet_train gpt2_compile_train gpt2_infer"
  for m in $MODELS; do
    step ncu_$m 170 $NCU --target-processes all --filter-mode per-launch-config --launch-count 1 --metrics "$M" --replay-mode kernel --clock-control base --cache-control all -o $W/flops_$m -f python3 $m.py
    step raw_$m 60 sh -c "$NCU --import $W/flops_$m.ncu-rep --page raw --csv > $W/flops_${m}_raw.csv"
  done
  if [ "$part" = B2 ]; then
  P=sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,gpu__time_duration.sum
  step ncu_portable 120 $NCU --target-processes all --filter-mode per-launch-config --launch-count 1 --metrics "$P" -o $W/portable_encoder_bert -f python3 encoder_bert.py --steps 3
  step raw_portable 60 sh -c "$NCU --import $W/portable_encoder_bert.ncu-rep --page raw --csv > $W/portable_encoder_bert_raw.csv"
  fi
  grep -h "passes" $W/ncu_*.log | sed 's/.*- \([0-9]* passes\).*/\1/' | sort | uniq -c >$W/passes.txt
  ls -la $W
  pack ncu_$part 'flops_*.ncu-rep portable_*.ncu-rep'
  pack misc_$part '*.csv *.txt ncu_*.log raw_*.log'
fi
