# Writes the report of one zoo run with kscope itself, for the browser test: its discovery
# export with its FLOP-counter ncu page (unpacked with zstd). cmake -DKSCOPE=... -DZSTD=zstd
# -DZOO=tests/data/zoo/MODEL -DOUT=... -P zoo_report.cmake
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
set(db ${OUT}/kscope.db)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGN} failed (${rc}):\n${out}${err}")
  endif()
endfunction()

run(${ZSTD} -q -d -f ${ZOO}/discovery.sqlite.zst -o ${OUT}/discovery.sqlite)
run(${ZSTD} -q -d -f ${ZOO}/flops_all_raw.csv.zst -o ${OUT}/flops_all_raw.csv)
run(${KSCOPE} --db ${db} import ${OUT}/discovery.sqlite ${OUT}/flops_all_raw.csv)
run(${KSCOPE} --db ${db} report 1 --out ${OUT} --quiet)
