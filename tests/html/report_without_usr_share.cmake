# kscope report as on a machine without libjs-vega: KSCOPE_VEGA_DIR unset, the process traced
# by strace. It must open nothing under /usr/share/javascript, and its report.html must hold
# each Vega module of Debian's package (as it was when kscope was built) byte for byte.
# (LeakSanitizer cannot run under ptrace: the sanitized build runs without it here.)
# cmake -DKSCOPE=... -DSTRACE=... -DINPUT=tiny_cuda.sqlite -DVEGA=/usr/share/javascript/vega
#   -DMODULES=vega-util;... -DOUT=... -P report_without_usr_share.cmake
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
set(db ${OUT}/kscope.db)
execute_process(COMMAND ${KSCOPE} --db ${db} import ${INPUT} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kscope import failed (${rc}): ${err}")
endif()
execute_process(
  COMMAND ${STRACE} -f -qq -e trace=%file -o ${OUT}/strace.txt
    ${CMAKE_COMMAND} -E env --unset=KSCOPE_VEGA_DIR ASAN_OPTIONS=detect_leaks=0 ${KSCOPE} --db ${db} report 1 --out ${OUT}/report --quiet
  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kscope report under strace failed (${rc}): ${err}")
endif()
file(STRINGS ${OUT}/strace.txt opened REGEX "/usr/share/javascript")
if(opened)
  message(FATAL_ERROR "kscope report touched /usr/share/javascript:\n${opened}")
endif()
file(STRINGS ${OUT}/strace.txt kscope_exec REGEX "execve\\(\"${KSCOPE}\"")
if(NOT kscope_exec)
  message(FATAL_ERROR "the trace ${OUT}/strace.txt does not show kscope starting: strace did not follow it")
endif()
file(READ ${OUT}/report/report.html page)
foreach(module IN LISTS MODULES)
  file(READ ${VEGA}/${module}.min.js source)
  string(FIND "${page}" "kscopeVegaModule('${module}', function (exports, module, require) {\n${source}\n});"
    at)
  if(at EQUAL -1)
    message(FATAL_ERROR "report.html does not hold ${VEGA}/${module}.min.js as it is")
  endif()
endforeach()
