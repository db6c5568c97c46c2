# kscope report when report.html cannot be made (KSCOPE_VEGA_DIR names a folder without Vega):
# report.json and report.md are written all the same, stdout says so, stderr holds one line
# naming report.html and why, and the exit status is 1.
# cmake -DKSCOPE=... -DINPUT=tiny_cuda.sqlite -DWORK=... -P cli_report_files.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/no_vega)
execute_process(COMMAND ${KSCOPE} --db ${WORK}/kscope.db import ${INPUT} RESULT_VARIABLE rc OUTPUT_QUIET
  ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kscope import failed (${rc}): ${err}")
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env KSCOPE_VEGA_DIR=${WORK}/no_vega
    ${KSCOPE} --db ${WORK}/kscope.db report 1 --out ${WORK}/out --quiet
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(expected_err "kscope: error: ${WORK}/out/report.html: not written: ${WORK}/no_vega/vega-util.min.js: Vega's \
JavaScript module vega-util is missing or unreadable; KSCOPE_VEGA_DIR points at this folder: unset it to use the \
Vega built into kscope, or point it at a folder with Vega 5's vega-*.min.js modules\n")
set(expected_out "\nwrote ${WORK}/out/report.json, ${WORK}/out/report.md\n")
if(NOT rc EQUAL 1 OR NOT err STREQUAL expected_err OR NOT out STREQUAL expected_out)
  message(FATAL_ERROR "kscope report: exit ${rc}\nstdout:\n${out}\nstderr:\n${err}\nexpected exit 1\nstdout:\n"
    "${expected_out}\nstderr:\n${expected_err}")
endif()
file(GLOB written RELATIVE ${WORK}/out ${WORK}/out/*)
list(SORT written)
if(NOT written STREQUAL "report.json;report.md")
  message(FATAL_ERROR "the report folder holds ${written}, expected report.json;report.md")
endif()
