# kscope atlas and kscope diff through the binary, on the devset's nsys exports: the atlas of a
# tag's runs as CSV against a golden; diff's exit codes: 0 for a run against a second import of
# its export (--force: the same file again), 3 when a --fail-if threshold trips (with its line
# on stderr), 1 for a missing run.
include("${CMAKE_CURRENT_LIST_DIR}/cli_store.cmake")

kscope(0 import --model tiny_cuda --tag suite=devset "${DATA}/nsys/tiny_cuda.sqlite")
kscope(0 import --force --model tiny_cuda "${DATA}/nsys/tiny_cuda.sqlite")  # the same export again, on purpose
kscope(0 import --model llama --tag suite=devset "${DATA}/nsys/llama.sqlite")

kscope(0 atlas --tag suite=devset --format csv)
file(WRITE "${WORK}/atlas.csv" "${out}")
execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${WORK}/atlas.csv" "${EXPECTED}" RESULT_VARIABLE same)
if(NOT same EQUAL 0)
  execute_process(COMMAND diff "${EXPECTED}" "${WORK}/atlas.csv")
  message(FATAL_ERROR "kscope atlas differs from ${EXPECTED} (this run's: ${WORK}/atlas.csv)")
endif()

# One view alone: the same table as in the whole output.
set(all "${out}")
kscope(0 atlas --tag suite=devset --view signals --format csv)
string(FIND "${all}" "${out}" at)
if(at EQUAL -1 OR NOT out MATCHES "^Signal,State,")
  message(FATAL_ERROR "kscope atlas --view signals is not the signals part of the whole output: ${out}")
endif()

kscope(0 diff 1 2 --fail-if "gpu_time_pct>0" --fail-if "appeared>0" --fail-if "vanished>0")
if(NOT err STREQUAL "")
  message(FATAL_ERROR "kscope diff 1 2 printed on stderr: ${err}")
endif()
kscope(3 diff 1 3 --fail-if "appeared>0" --fail-if "gpu_time_pct<0")
if(NOT err MATCHES "^kscope: threshold tripped: appeared>0 \\(appeared is [0-9]+\\.0\\)\n$")
  message(FATAL_ERROR "kscope diff 1 3: unexpected stderr: ${err}")
endif()
kscope(1 diff 1 9)
if(NOT err STREQUAL "kscope: error: ${db}: no run 9 in this database; list the runs with: kscope runs\n")
  message(FATAL_ERROR "kscope diff 1 9: unexpected stderr: ${err}")
endif()
