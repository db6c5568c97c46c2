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
# The suites that ran longest in a clean clone's ctest -j2 (seconds of wall time, clang build,
# load 4.4; docs/testing.md): ctest starts them first, as it would with the times of an
# earlier run (Testing/Temporary/CTestCostData.txt), which a clean clone has not, so that
# the short suites fill the other core at the end instead of waiting on one long one.
set(cost_Zoo/RanksZooModels 239)
set(cost_RunTravel 173)
set(cost_Releases/StoreUpgrade 111)
set(cost_AtlasDiffSelectionsZoo 80)
set(cost_Zoo/ProfileNativeReplay 59)
set(cost_JobImport 59)
set(cost_RanksReport 56)
set(cost_Captures/ZooAutograd 48)
set(cost_Recorded/PerfettoTrace 65)
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
    if(DEFINED cost_${suite})
      string(APPEND content "set_tests_properties([=[${suite}]=] PROPERTIES COST ${cost_${suite}})\n")
    endif()
  endif()
endforeach()
file(WRITE ${CTEST_FILE} "${content}")
