#!/bin/bash
# Issue 3 on the GPU machine: .ncu-rep import through the real ncu, and the CSV import
# against ncu's own CSV export of the same report, in one run.
export LD_LIBRARY_PATH=$PWD/.carry/lib
K=$PWD/.carry/bin/kscope
NCU=/usr/local/cuda/bin/ncu
$NCU --version | tail -1
nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd .carry/ncu && [ -f llama_decode_quick.ncu-rep ] || xz -dk llama_decode_quick.ncu-rep.xz
echo "== timing (3 rounds, alternating)"
for i in 1 2 3; do
  /usr/bin/time -f "ncu --import --page raw --csv (llama_decode_quick): %e s, %M KB" $NCU --import llama_decode_quick.ncu-rep --page raw --csv > /tmp/q.csv
  rm -f /tmp/k$i.db; /usr/bin/time -f "kscope import llama_decode_quick_raw.csv: %e s, %M KB" $K --db /tmp/k$i.db import llama_decode_quick_raw.csv > /dev/null
done
cmp /tmp/q.csv llama_decode_quick_raw.csv && echo "ncu's CSV export equals the devset CSV"
echo "== .ncu-rep through the real ncu"
rm -f /tmp/rep.db
for r in llama_deep tiny_cuda_gemm_full llama_decode_quick; do
  /usr/bin/time -f "kscope import $r.ncu-rep: %e s, %M KB" $K --db /tmp/rep.db import $r.ncu-rep
done
$K --db /tmp/rep.db runs
$K --db /tmp/rep.db kernels 1
$K --db /tmp/rep.db kernel 1 0
$K --db /tmp/rep.db kernels 2
$K --db /tmp/rep.db kernels 3 --format csv
echo "== same analysis from the CSV pages"
rm -f /tmp/csv.db; $K --db /tmp/csv.db import ../../tests/data/ncu/llama_deep_raw.csv ../../tests/data/ncu/llama_deep_details.csv > /dev/null
$K --db /tmp/csv.db kernels 1 --format csv > /tmp/a.csv; $K --db /tmp/rep.db kernels 1 --format csv > /tmp/b.csv
cmp /tmp/a.csv /tmp/b.csv && echo "kernels from .ncu-rep == kernels from the devset CSV pages"
echo "== precision of a ratio on the raw page with --print-fp"
$NCU --import llama_deep.ncu-rep --page raw --csv --print-fp | python3 -c "
import csv,sys; r=list(csv.reader(sys.stdin)); i=r[0].index('smsp__thread_inst_executed_per_inst_executed.ratio'); print([x[i] for x in r[2:]])"
echo "== no ncu: the error line"
KSCOPE_NCU=/nonexistent $K --db /tmp/x.db import llama_deep.ncu-rep; echo "exit $?"
