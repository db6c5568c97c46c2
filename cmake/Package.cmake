# The release packages of the static binary (KSCOPE_STATIC; scripts/release.sh): a tarball
# kscope-VERSION-linux-ARCH.tar.gz holding kscope-VERSION-linux-ARCH/bin/kscope and the
# README, and a .deb installing /usr/bin/kscope whose only dependency is libc6.
install(TARGETS kscope RUNTIME DESTINATION bin)
install(FILES README.md DESTINATION share/doc/kscope)
string(TOLOWER "${CMAKE_SYSTEM_NAME}-${CMAKE_SYSTEM_PROCESSOR}" platform)
set(CPACK_PACKAGE_NAME kscope)
set(CPACK_PACKAGE_VENDOR kscope)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "GPU profiling reports from Nsight Systems and Nsight Compute")
set(CPACK_PACKAGE_FILE_NAME kscope-${PROJECT_VERSION}-${platform})
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_GENERATOR TGZ DEB)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "kscope developers")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # dpkg-shlibdeps: libc6 (>= the highest version used)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # kscope_VERSION_amd64.deb
include(CPack)
