# Writes the atlas of two devset runs with kscope itself, for the browser test: the Llama run
# with the ncu pages of its deep pass and the tiny_cuda run from its nsys export alone, as
# OUT/atlas.html and the same atlas as OUT/atlas.json (by kernel: OUT/atlas_by_kernel.*).
# cmake -DKSCOPE=... -DDATA=tests/data -DOUT=... -P devset_atlas.cmake
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
set(db ${OUT}/kscope.db)

function(kscope)
  execute_process(COMMAND ${KSCOPE} --db ${db} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "kscope ${ARGN} failed (${rc}):\n${out}${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

kscope(import ${DATA}/nsys/llama.sqlite ${DATA}/ncu/llama_deep_raw.csv ${DATA}/ncu/llama_deep_details.csv
  --model llama-4L)
kscope(import ${DATA}/nsys/tiny_cuda.sqlite --model tiny_cuda)
kscope(atlas --format json --html ${OUT}/atlas.html)
file(WRITE ${OUT}/atlas.json "${out}")
kscope(atlas --by kernel --format json --html ${OUT}/atlas_by_kernel.html)
file(WRITE ${OUT}/atlas_by_kernel.json "${out}")
