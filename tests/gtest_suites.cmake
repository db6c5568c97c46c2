# Run after kscope_tests is built (tests/CMakeLists.txt): lists its tests and writes a ctest
# file with one test per suite, `SUITE` running `kscope_tests --gtest_filter=SUITE.*` in one
# process. A suite's tests share what it builds once per process (the zoo's stores, the
# atlas, the imported devset), which one process per test built again for every test.
# Each suite gets a TMPDIR of its own (WORKING_DIRECTORY/tmp/SUITE), so suites that ctest -j
# runs side by side never meet in their scratch files.
#   TEST_EXECUTABLE: kscope_tests; CTEST_FILE: the file to write; WORKING_DIRECTORY
execute_process(COMMAND ${TEST_EXECUTABLE} --gtest_list_tests OUTPUT_VARIABLE listing RESULT_VARIABLE rc
                TIMEOUT 60)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${TEST_EXECUTABLE} --gtest_list_tests failed (${rc}):\n${listing}")
endif()
string(REPLACE "\n" ";" lines "${listing}")
set(content "")
foreach(line ${lines})
  # A suite line starts in the first column and ends with '.' (a typed or parameterised
  # suite adds a comment after it); test lines are indented.
  if(line MATCHES "^([A-Za-z0-9_/]+)\\.")
    set(suite ${CMAKE_MATCH_1})
    string(REPLACE "/" "_" tmp ${suite})
    set(tmp ${WORKING_DIRECTORY}/tmp/${tmp})
    file(MAKE_DIRECTORY ${tmp})
    string(APPEND content "add_test([=[${suite}]=] [==[${TEST_EXECUTABLE}]==] [==[--gtest_filter=${suite}.*]==])\n"
           "set_tests_properties([=[${suite}]=] PROPERTIES WORKING_DIRECTORY [==[${WORKING_DIRECTORY}]==] "
           "ENVIRONMENT [==[TMPDIR=${tmp}]==] LABELS gtest)\n")
  endif()
endforeach()
file(WRITE ${CTEST_FILE} "${content}")
