#!/usr/bin/env bash
# Regenerates the seed corpora in fuzz/corpus/ from the real test exports. Needs the sqlite3
# shell and a built kscope binary (for the encoded columns): fuzz/make_corpus.sh build/robust/kscope
set -euo pipefail
cd "$(dirname "$0")/.."
kscope=${1:?usage: fuzz/make_corpus.sh PATH/TO/kscope}
src=tests/data/nsys/tiny_cuda.sqlite
out=fuzz/corpus/nsys_import_fuzzer
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Rows the importer never reads go; what it reads stays as nsys wrote it. Strings are
# trimmed to those rows use. 512-byte pages keep the files small for the fuzzer.
trim_sql="
DELETE FROM SCHED_EVENTS; DELETE FROM SAMPLING_CALLCHAINS; DELETE FROM COMPOSITE_EVENTS;
DELETE FROM PROCESSES; DELETE FROM ThreadNames; DELETE FROM PROFILER_OVERHEAD; DELETE FROM DIAGNOSTIC_EVENT;
DELETE FROM ENUM_NSYS_EVENT_TYPE; DELETE FROM ENUM_NSYS_EVENT_CLASS; DELETE FROM ENUM_SCHEDULING_THREAD_BLOCK;
DELETE FROM TARGET_INFO_SYSTEM_ENV WHERE name NOT IN ('NvDriverVersion', 'CudaDriverVersion');
DELETE FROM META_DATA_CAPTURE WHERE name != 'PROCESS_0:COMMAND' AND name NOT GLOB 'PROCESS_0:ARGUMENT_[0-9]*';
DELETE FROM StringIds WHERE id NOT IN (
  SELECT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL UNION SELECT shortName FROM CUPTI_ACTIVITY_KIND_KERNEL
  UNION SELECT mangledName FROM CUPTI_ACTIVITY_KIND_KERNEL UNION SELECT nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME
  UNION SELECT textId FROM NVTX_EVENTS WHERE textId IS NOT NULL);
"
# 1. Every table of the export, most rows removed.
cp "$src" "$tmp/trimmed.sqlite"
sqlite3 "$tmp/trimmed.sqlite" "$trim_sql PRAGMA page_size=512; VACUUM;"
cp "$tmp/trimmed.sqlite" "$out/tiny_cuda_trimmed.sqlite"

# 2. Only the tables the importer reads, three kernels and three API calls.
cp "$tmp/trimmed.sqlite" "$tmp/minimal.sqlite"
keep="'META_DATA_EXPORT','StringIds','CUPTI_ACTIVITY_KIND_KERNEL','CUPTI_ACTIVITY_KIND_RUNTIME',
      'CUPTI_ACTIVITY_KIND_MEMSET','NVTX_EVENTS','ENUM_CUDA_MEMCPY_OPER','TARGET_INFO_GPU',
      'TARGET_INFO_SYSTEM_ENV','META_DATA_CAPTURE'"
drops=$(sqlite3 "$tmp/minimal.sqlite" \
  "SELECT 'DROP TABLE \"' || name || '\";' FROM sqlite_master WHERE type = 'table' AND name NOT IN ($keep)")
sqlite3 "$tmp/minimal.sqlite" "$drops
DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid NOT IN (1, 4, 9);
DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE rowid > 3;
DELETE FROM META_DATA_EXPORT WHERE name NOT IN ('EXPORT_SCHEMA_VERSION', 'EXPORT_PRODUCT_VERSION');
DELETE FROM StringIds WHERE id NOT IN (
  SELECT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL UNION SELECT shortName FROM CUPTI_ACTIVITY_KIND_KERNEL
  UNION SELECT mangledName FROM CUPTI_ACTIVITY_KIND_KERNEL UNION SELECT nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME
  UNION SELECT textId FROM NVTX_EVENTS WHERE textId IS NOT NULL);
PRAGMA page_size=512; VACUUM;"
cp "$tmp/minimal.sqlite" "$out/tiny_cuda_minimal.sqlite"

# Encoded columns as kscope stores them, from an import of the export. Each input is one
# mode byte (0: decode), the row count as 8 little-endian bytes, then the blob.
out=fuzz/corpus/column_codec_fuzzer
KSCOPE_DB="$tmp/store.db" "$kscope" import "$src" >/dev/null
for col in start correlation name grid_x; do
  rows=$(sqlite3 "$tmp/store.db" "SELECT rows FROM event_chunk WHERE stream = 'kernel' AND col = '$col'")
  {
    printf '\x00'
    printf '%016x' "$rows" | sed 's/../& /g' | awk '{for (i = NF; i >= 1; --i) printf "\\x%s", $i}' | xargs -0 printf
    sqlite3 "$tmp/store.db" "SELECT hex(data) FROM event_chunk WHERE stream = 'kernel' AND col = '$col'" | xxd -r -p
  } >"$out/kernel_$col"
done
# A round trip (mode 1) of values around NULL and the extremes.
printf '\x01\x00\x00\x00\x00\x00\x00\x00\x80\xff\xff\xff\xff\xff\xff\xff\x7f\x2a\x00\x00\x00\x00\x00\x00\x00' \
  >"$out/round_trip_extremes"
ls -l fuzz/corpus/*/
python3 fuzz/make_kineto_corpus.py  # kineto_trace_fuzzer: slices of a real trace
