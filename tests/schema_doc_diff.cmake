# Regenerates the schema document and compares it with the checked-in docs/schema.md.
execute_process(COMMAND "${KSCOPE}" schema OUTPUT_FILE "${OUT}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kscope schema exited with ${rc}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${OUT}" "${EXPECTED}" RESULT_VARIABLE same)
if(NOT same EQUAL 0)
  message(FATAL_ERROR "docs/schema.md is stale: regenerate it with: build/release/kscope schema > docs/schema.md")
endif()
