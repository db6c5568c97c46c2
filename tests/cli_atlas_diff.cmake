# kscope atlas and kscope diff through the binary, on the devset's nsys exports: the atlas of a
# tag's runs as CSV against a golden; diff's exit codes: 0 for a run against a second import of
# its export (--force: the same file again), 3 when a --fail-if threshold trips (with its line
# on stderr), 1 for a missing run; the diff of two selections of runs (--a-..., --b-...) as CSV
# with its warnings against goldens, a selection against itself, and the selections that
# cannot be made, each with its one line.
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

# Two selections: the tiny_cuda runs (1, 2: one export imported twice) against the devset tag
# (1, 3: tiny_cuda and llama); the whole CSV and the warnings against goldens.
function(expect_golden text golden)
  file(WRITE "${WORK}/${golden}" "${text}")
  execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${WORK}/${golden}" "${DATA}/atlas/${golden}"
                  RESULT_VARIABLE same)
  if(NOT same EQUAL 0)
    execute_process(COMMAND diff "${DATA}/atlas/${golden}" "${WORK}/${golden}")
    message(FATAL_ERROR "differs from tests/data/atlas/${golden} (this run's: ${WORK}/${golden})")
  endif()
endfunction()
kscope(0 diff --a-model tiny_cuda --b-tag suite=devset --format csv)
expect_golden("${err}${out}" devset_selections.csv)

# A selection against itself (by tag, and by its run ids): no rows and no threshold tripped; only
# the warnings that each selection mixes two models.
kscope(0 diff --a-tag suite=devset --b-run 1 --b-run 3 --format csv --fail-if "gpu_time_pct>0"
       --fail-if "gpu_time_pct<0" --fail-if "appeared>0" --fail-if "vanished>0" --fail-if "family_gpu_time_pct>0"
       --fail-if "stage_gpu_time_pct>0" --fail-if "class_changes>0" --fail-if "launches_pct>0")
expect_golden("${err}${out}" devset_selections_self.csv)

kscope(3 diff --a-run 1 --b-tag suite=devset --fail-if "appeared>0")
if(NOT err MATCHES "threshold tripped: appeared>0 \\(appeared is [0-9]+\\.0\\)\n$")
  message(FATAL_ERROR "kscope diff --a-run 1 --b-tag suite=devset: unexpected stderr: ${err}")
endif()

# Selections that cannot be made: one line on stderr, exit 1, nothing on stdout.
function(expect_error line)
  kscope(1 ${ARGN})
  if(NOT err STREQUAL "kscope: error: ${line}\n" OR NOT out STREQUAL "")
    message(FATAL_ERROR "kscope ${ARGN}: unexpected output: ${out}${err}")
  endif()
endfunction()
expect_error("selection --b-tag suite=nodevset: matches no run; list the runs and their manifests with: kscope runs"
             diff --a-tag suite=devset --b-tag suite=nodevset)
expect_error("selection --a-tag sweet=devset: no run of the database has the tag 'sweet'; list the runs and their tags with: kscope runs"
             diff --a-tag sweet=devset --b-run 1)
expect_error("run 9: is not in the database; list the runs with: kscope runs" diff --a-run 9 --b-run 1)
expect_error("diff: selection B is missing; give each side at least one option: --a-run, --a-tag, --a-label, --a-model or --a-gpu, and the same with --b-"
             diff --a-tag suite=devset)
expect_error("diff: takes either two runs (A B) or two selections (--a-... and --b-...), not both; select a single run as a side with --a-run ID or --b-run ID"
             diff 1 2 --b-tag suite=devset)
expect_error("diff: needs two runs (A B) or two selections; write kscope diff A B, or e.g. kscope diff --a-tag variant=base --b-tag variant=new"
             diff 1)
expect_error("tag 'suite' is not KEY=VALUE; write --a-tag KEY=VALUE" diff --a-tag suite --b-run 1)
