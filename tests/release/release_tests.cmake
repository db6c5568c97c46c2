# The release binary needs nothing but glibc, of a version Ubuntu 22.04 (2.35) and newer have
# (tests/release/check_binary.cmake, label "release"). It builds nothing: in the static-release
# tree it checks the kscope built there; elsewhere it checks build/static-release/kscope when
# scripts/release.sh has built it, and is reported skipped when not.
if(KSCOPE_STATIC)
  set(release_binary $<TARGET_FILE:kscope>)
else()
  set(release_binary ${PROJECT_SOURCE_DIR}/build/static-release/kscope)
endif()
find_program(KSCOPE_READELF NAMES readelf REQUIRED)
find_program(KSCOPE_OBJDUMP NAMES objdump REQUIRED)
add_test(NAME release.binary_needs_only_glibc
  COMMAND ${CMAKE_COMMAND} -DBINARY=${release_binary} -DREADELF=${KSCOPE_READELF} -DOBJDUMP=${KSCOPE_OBJDUMP}
    -DMAX_GLIBC=2.35 -P ${CMAKE_CURRENT_LIST_DIR}/check_binary.cmake)
set_tests_properties(release.binary_needs_only_glibc PROPERTIES LABELS release
  SKIP_REGULAR_EXPRESSION "kscope release check skipped")
