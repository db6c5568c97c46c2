#!/usr/bin/env bash
# On a machine with nsys: time `nsys stats` and kscope on the same export in one run, and
# check that their CSVs are identical. Prints one line per measurement:
#   what  report  wall_s  peak_rss_MiB  [same|DIFFERENT]
#   scripts/compare-nsys.sh NSYS KSCOPE EXPORT.sqlite WORKDIR [REPEATS]
set -euo pipefail
nsys=$1 kscope=$2 export_file=$3 work=$4 repeats=${5:-3}
reports=(cuda_gpu_kern_sum cuda_api_sum cuda_gpu_mem_time_sum cuda_gpu_mem_size_sum nvtx_sum nvtx_kern_sum
  nvtx_gpu_proj_sum)
mkdir -p "$work"
rm -f "$work/kscope.db" "$work/kscope.db-wal" "$work/kscope.db-shm"

# timed OUT CMD...: runs CMD with stdout to OUT; prints "wall_s peak_rss_MiB".
timed() {
  python3 -c '
import resource, subprocess, sys, time
with open(sys.argv[1], "w") as out:
    t = time.perf_counter()
    rc = subprocess.call(sys.argv[2:], stdout=out, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
if rc != 0:
    sys.exit(f"{sys.argv[2]} exited with {rc}")
print(f"{wall:.3f} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.1f}")
' "$@"
}
# best WHAT REPORT OUT CMD...: the fastest of $repeats runs.
best() {
  local what=$1 report=$2 out=$3 result fastest=""
  shift 3
  for _ in $(seq "$repeats"); do
    result=$(timed "$out" "$@")
    if [[ -z $fastest ]] || awk -v a="${result% *}" -v b="${fastest% *}" 'BEGIN {exit !(a < b)}'; then
      fastest=$result
    fi
  done
  echo "$what $report $fastest"
}

echo "export $(basename "$export_file") $(stat -c %s "$export_file") bytes"
echo "import - $(timed "$work/import.txt" "$kscope" --db "$work/kscope.db" import "$export_file")"
echo "database - $(stat -c %s "$work/kscope.db") bytes"
for r in "${reports[@]}"; do
  best nsys_stats "$r" "$work/nsys_log.txt" "$nsys" stats --report "$r" --format csv --force-export false \
    --force-overwrite true --output "$work/nsys" "$export_file"
  best kscope_stats_run "$r" "$work/kscope_run_$r.csv" "$kscope" --db "$work/kscope.db" stats --report "$r" \
    --format csv 1
  best kscope_stats_file "$r" "$work/kscope_file_$r.csv" "$kscope" stats --report "$r" --format csv "$export_file"
  for f in run file; do
    if cmp -s "$work/nsys_$r.csv" "$work/kscope_${f}_$r.csv"; then echo "csv_$f $r same"; else echo "csv_$f $r DIFFERENT"; fi
  done
done
