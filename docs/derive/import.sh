#!/usr/bin/env bash
# Imports every devset and zoo run (the cases of /work/typedreport-baseline/import.sh, plus ncu
# results added to an existing run with --run) with kscope $1 into store $2, then sets every
# run's imported_at to one fixed time (the one column that must differ between two imports).
# Writes cases.txt: NAME RUN CONFIG, and times.txt: seconds per import.
set -euo pipefail
K=$(realpath "$1"); DB=$2; ROOT=/work/derive-baseline; SRC=/work/main
D=$SRC/tests/data; Z=$ROOT/unpacked
rm -f "$DB" "$DB-wal" "$DB-shm"; mkdir -p "$Z"; : > "$DB.cases"; : > "$DB.times"
run=0
imp() { local t0=$(date +%s.%N); "$K" --db "$DB" import "$@" >/dev/null; local t1=$(date +%s.%N)
        [ "$1" = --run ] || run=$((run+1)); echo "$run $(echo "$t1 - $t0" | bc) $*" >> "$DB.times"; }
case_() { echo "$1 $run $2" >> "$DB.cases"; }
unz() { [ -f "$2" ] || zstd -q -d -f "$1" -o "$2"; }
imp $D/nsys/llama.sqlite $D/ncu/llama_deep_raw.csv $D/ncu/llama_deep_details.csv --label llama-4L --model llama-4L --dtype bf16 --batch 2 --tokens 288
case_ llama_cfg $SRC/examples/llama_devset.yaml; case_ llama_plain -
imp $D/nsys/tiny_cuda.sqlite $D/ncu/tiny_cuda_gemm_full_raw.csv $D/ncu/tiny_cuda_gemm_full_details.csv --label tiny_cuda
case_ tiny_gemm -
imp $D/nsys/tiny_cuda.sqlite --label tiny_cuda --force; case_ tiny_nsys -
for rep in llama_deep llama_decode_quick; do
  unz $D/ncu/$rep.ncu-rep.zst $Z/$rep.ncu-rep
  imp $D/nsys/llama.sqlite $Z/$rep.ncu-rep --label llama-$rep --force; case_ llama_$rep $SRC/examples/llama_devset.yaml
done
for rep in tiny_cuda_basic tiny_cuda_gemm_full; do
  unz $D/ncu/$rep.ncu-rep.zst $Z/$rep.ncu-rep
  imp $D/nsys/tiny_cuda.sqlite $Z/$rep.ncu-rep --force; case_ $rep -
done
unz $D/capture/llama_h100/discovery.sqlite.zst $Z/h100_discovery.sqlite
unz $D/capture/llama_h100/pass1_raw.csv.zst $Z/h100_pass1_raw.csv
unz $D/capture/llama_h100/pass1_details.csv.zst $Z/h100_pass1_details.csv
imp $Z/h100_discovery.sqlite $Z/h100_pass1_raw.csv $Z/h100_pass1_details.csv --force; case_ llama_h100 -
for m in $(ls $D/zoo); do
  [ -d $D/zoo/$m ] || continue
  unz $D/zoo/$m/discovery.sqlite.zst $Z/${m}_discovery.sqlite
  cfg=-; [ -f $SRC/zoo/models/$m.yaml ] && cfg=$SRC/zoo/models/$m.yaml
  imp $Z/${m}_discovery.sqlite --label $m --force; case_ ${m} -; [ $cfg != - ] && case_ ${m}_cfg $cfg
  nsys_run=$run
  for f in $D/zoo/$m/*.csv.zst $D/zoo/$m/*.ncu-rep.zst; do
    [ -f $f ] || continue
    b=$(basename $f .zst); unz $f $Z/${m}_$b
    imp $Z/${m}_discovery.sqlite $Z/${m}_$b --label $m-$b --force; case_ ${m}_${b%%.*} -
    [ $cfg != - ] && case_ ${m}_${b%%.*}_cfg $cfg
  done
  # ncu results added to the model's nsys run (kscope import --run): the last file of the model.
  if [ -n "${b:-}" ]; then imp --run $nsys_run $Z/${m}_$b --force; echo "${m}_into_run $nsys_run -" >> "$DB.cases"; b=; fi
done
cp $D/nsys/tiny_cuda.sqlite $Z/odd.sqlite
python3 - "$Z/odd.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE StringIds SET value = CAST(? AS TEXT) WHERE id = 58", (b"sax\xe9py\x00\n\x07",))
db.execute("UPDATE NVTX_EVENTS SET text = CAST(? AS TEXT) WHERE text = 'prefill'", (b"pre\xe9fill\t\x1b[31m",))
db.commit()
PY
imp $Z/odd.sqlite --label "$(printf 'lab\xe9l\nx')" --tag "$(printf 'k\x01ey=v\xe9al')" --model "$(printf 'm\x07')" --force
case_ odd -
imp $Z/odd.sqlite $D/ncu/tiny_cuda_gemm_full_raw.csv $D/ncu/tiny_cuda_gemm_full_details.csv --label "$(printf 'odd\x1b')" --force
case_ odd_gemm -
imp --run-per-file $D/nsys/tiny_cuda.sqlite $D/ncu/tiny_cuda_gemm_full_raw.csv --force; case_ per_file_nsys -
python3 - "$DB" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE run SET imported_at = '2026-11-27T00:00:00Z'")
db.commit()
PY
wc -l "$DB.cases"
