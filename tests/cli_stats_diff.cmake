# Runs `kscope stats --format csv` on an export and compares its output with nsys's file.
get_filename_component(out_dir "${OUT}" DIRECTORY)
file(MAKE_DIRECTORY "${out_dir}")
execute_process(
  COMMAND "${KSCOPE}" stats --report "${REPORT}" --format csv "${INPUT}"
  OUTPUT_FILE "${OUT}"
  ERROR_VARIABLE err
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kscope exited with ${rc}: ${err}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${OUT}" "${EXPECTED}" RESULT_VARIABLE same)
if(NOT same EQUAL 0)
  execute_process(COMMAND diff "${EXPECTED}" "${OUT}")
  message(FATAL_ERROR "kscope's ${REPORT} differs from nsys's (${EXPECTED} vs ${OUT})")
endif()
