# kscope query through the binary, on the devset's tiny_cuda run (its nsys export and the ncu
# raw page of its GEMM): CSV and JSON outputs compared whole; an INSERT exits 1 with one line
# on stderr and leaves the database file byte for byte as it was.
include("${CMAKE_CURRENT_LIST_DIR}/cli_store.cmake")

function(expect_equal what actual expected)
  if(NOT actual STREQUAL expected)
    message(FATAL_ERROR "${what}:\n--- expected\n${expected}\n--- actual\n${actual}")
  endif()
endfunction()

kscope(0 import --model tiny_cuda "${DATA}/nsys/tiny_cuda.sqlite")
kscope(0 import --run 1 "${DATA}/ncu/tiny_cuda_gemm_full_raw.csv")

# nsys's own cuda_gpu_kern_sum for this export has these instances and totals.
kscope(0 query --format csv "SELECT kernel_name, launches, total_ns FROM v_kernels ORDER BY total_ns DESC")
expect_equal("v_kernels" "${out}" "kernel_name,launches,total_ns
\"saxpy(int, float, const float *, float *)\",8,506297
\"void tiled_gemm<(int)16>(int, const float *, const float *, float *)\",1,276028
")
# The raw page's "us 364.480000" for the one launch ncu profiled.
kscope(0 query -f json "SELECT launch_id, metric_name, value, unit FROM v_ncu_metrics WHERE metric_name = 'gpu__time_duration.sum'")
expect_equal("v_ncu_metrics" "${out}" "{
  \"report\": \"query\",
  \"rows\": [
    {
      \"launch_id\": 0,
      \"metric_name\": \"gpu__time_duration.sum\",
      \"value\": 364480.0,
      \"unit\": \"ns\"
    }
  ]
}
")

file(SHA256 "${db}" before)
kscope(1 query "INSERT INTO run(imported_at) VALUES ('now')")
expect_equal("INSERT's stderr" "${err}" "kscope: error: ${db}: query: kscope query only reads, and this statement would change the database; ask with SELECT (the views are in docs/query.md)
")
file(SHA256 "${db}" after)
expect_equal("the database after an INSERT" "${after}" "${before}")
kscope(0 query -f csv "SELECT count(*) AS runs FROM v_runs")
expect_equal("v_runs after the INSERT" "${out}" "runs
1
")

# kscope --version names the release (the project's version) and the store schema it writes,
# the schema_version recorded in the store it just created.
kscope(0 query -f csv "SELECT value FROM kscope_meta WHERE key = 'schema_version'")
string(REGEX REPLACE "^value\n([0-9]+)\n$" "\\1" schema "${out}")
kscope(0 --version)
expect_equal("kscope --version" "${out}" "kscope ${VERSION} (store schema ${schema})
")
