# ctest layers.includes (tests/layers/CMakeLists.txt): builds every layer probe in one call and
# checks that each downward probe built and each upward or sideways probe failed, for the one
# reason that the other layer's header is not on its include path (as gcc or clang says it).
#   BUILD_DIR: the build folder; ALLOWED: probe targets; REFUSED: target:header pairs
set(targets ${ALLOWED})
foreach(pair ${REFUSED})
  string(REPLACE ":" ";" parts "${pair}")
  list(GET parts 0 target)
  list(APPEND targets ${target})
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${targets} -- -k 0
                OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)

# ninja prints one block per failed command, from "FAILED: <object>" to the next block.
string(REPLACE "FAILED: " ";FAILED: " blocks "${out}")
set(problems "")
foreach(target ${ALLOWED})
  if(out MATCHES "FAILED: [^\n]*/${target}\\.dir/")
    string(APPEND problems "${target}: a layer's include of a layer below it did not build\n")
  endif()
endforeach()
foreach(pair ${REFUSED})
  string(REPLACE ":" ";" parts "${pair}")
  list(GET parts 0 target)
  list(GET parts 1 header)
  set(refused FALSE)
  foreach(block ${blocks})
    # gcc: "HEADER: No such file or directory"; clang: "'HEADER' file not found".
    if(block MATCHES "^FAILED: [^\n]*/${target}\\.dir/"
       AND block MATCHES "(${header}: No such file or directory|'${header}' file not found)")
      set(refused TRUE)
    endif()
  endforeach()
  if(NOT refused)
    string(APPEND problems "${target}: the include of ${header} was not refused as a missing header\n")
  endif()
endforeach()
list(LENGTH ALLOWED n_allowed)
list(LENGTH REFUSED n_refused)
if(problems)
  message(FATAL_ERROR "${problems}\n${out}")
endif()
message(STATUS "${n_allowed} layers include the layers below them; ${n_refused} includes up or sideways are refused")
