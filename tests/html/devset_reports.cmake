# Writes the reports of two devset runs with kscope itself, for the browser test: the Llama run
# with the ncu pages of its deep pass (OUT/llama/) and the tiny_cuda run from its nsys export
# alone (OUT/tiny_cuda/: no ncu data). cmake -DKSCOPE=... -DDATA=tests/data
# -DCONFIG=examples/llama_devset.yaml -DOUT=... -P devset_reports.cmake
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
set(db ${OUT}/kscope.db)

function(kscope)
  execute_process(COMMAND ${KSCOPE} --db ${db} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "kscope ${ARGN} failed (${rc}):\n${out}${err}")
  endif()
endfunction()

kscope(import ${DATA}/nsys/llama.sqlite ${DATA}/ncu/llama_deep_raw.csv ${DATA}/ncu/llama_deep_details.csv
  --label llama-4L --model llama-4L --dtype bf16 --batch 2 --tokens 288)
kscope(import ${DATA}/nsys/tiny_cuda.sqlite --label tiny_cuda)
kscope(--config ${CONFIG} report 1 --out ${OUT}/llama --quiet)
kscope(report 2 --out ${OUT}/tiny_cuda --quiet)
