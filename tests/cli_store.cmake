# The shared start of the CLI scripts that run kscope on a store of their own (included by
# cli_atlas_diff.cmake and cli_query.cmake): a fresh ${WORK} folder, ${db} in it, and
# kscope(EXPECTED_RC ARGS...), which runs `kscope --db ${db} ARGS...`, fails the test on any
# other exit status and leaves its stdout and stderr in ${out} and ${err}.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(db "${WORK}/kscope.db")

function(kscope expect_rc)
  execute_process(COMMAND "${KSCOPE}" --db "${db}" ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL expect_rc)
    message(FATAL_ERROR "kscope ${ARGN} exited with ${rc}, not ${expect_rc}: ${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()
