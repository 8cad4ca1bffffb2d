# What a C user links against, installed (docs/install.md, "CMake and pkg-config"):
# the format library's public headers, libiolens-log (shared and static), the
# pkg-config file iolens-log.pc and the CMake package iolens (find_package(iolens)).
# The runtime libraries, the static-link archives and their option files are
# installed by src/runtime/CMakeLists.txt.
#
# `cmake --install` puts them under CMAKE_INSTALL_PREFIX; the wheel (scikit-build)
# puts them in its data directory, which pip installs into the environment's prefix
# (a venv: <venv>/lib, <venv>/include), beside the runtime.  Both files find the
# prefix relative to themselves, so a moved install still works.
if(SKBUILD)   # the wheel's install prefix is its data dir (pyproject.toml wheel.install-dir)
  set(IOL_DEST_LIB lib)
  set(IOL_DEST_INCLUDE include)
  set(IOL_LIBDIR_NAME lib)
  set(IOL_INCLUDEDIR_NAME include)
  set(IOL_BINDIR_NAME bin)         # the wheel's scripts directory, seen from its data
else()
  set(IOL_DEST_LIB ${CMAKE_INSTALL_LIBDIR})
  set(IOL_DEST_INCLUDE ${CMAKE_INSTALL_INCLUDEDIR})
  set(IOL_LIBDIR_NAME ${CMAKE_INSTALL_LIBDIR})
  set(IOL_INCLUDEDIR_NAME ${CMAKE_INSTALL_INCLUDEDIR})
  set(IOL_BINDIR_NAME ${CMAKE_INSTALL_BINDIR})
endif()
set(IOL_DEST_PKGCONFIG ${IOL_DEST_LIB}/pkgconfig)
set(IOL_DEST_CMAKE ${IOL_DEST_LIB}/cmake/iolens)

# ---------------------------------------------------------------- headers
# The public API (log.h and what it includes): every header of include/iolens but
# annotate.h (the runtime's, installed with it), the counter tables counters.h and
# the generated counter_enums.h include (#include "x.def", found beside them), and
# counter_enums.h.  module_tables.h is modules.c's alone.
file(GLOB IOL_PUBLIC_HEADERS ${PROJECT_SOURCE_DIR}/include/iolens/*.h)
list(REMOVE_ITEM IOL_PUBLIC_HEADERS ${PROJECT_SOURCE_DIR}/include/iolens/annotate.h)
file(GLOB IOL_COUNTER_TABLES ${PROJECT_SOURCE_DIR}/src/format/counters/*.def)
install(FILES ${IOL_PUBLIC_HEADERS} ${IOL_COUNTER_TABLES}
              ${PROJECT_BINARY_DIR}/src/format/generated/iolens/counter_enums.h
        DESTINATION ${IOL_DEST_INCLUDE}/iolens)

# ---------------------------------------------------------------- libraries
install(TARGETS iolens-log iolens-log-shared
        ARCHIVE DESTINATION ${IOL_DEST_LIB}
        LIBRARY DESTINATION ${IOL_DEST_LIB})

# ---------------------------------------------------------------- relative paths
# From the directory of each file to the prefix, and the prefix's lib/include names.
file(RELATIVE_PATH IOL_PC_TO_PREFIX /p/${IOL_LIBDIR_NAME}/pkgconfig /p)
file(RELATIVE_PATH IOL_CMAKE_TO_PREFIX /p/${IOL_LIBDIR_NAME}/cmake/iolens /p)
string(REGEX REPLACE "/$" "" IOL_PC_TO_PREFIX "${IOL_PC_TO_PREFIX}")
string(REGEX REPLACE "/$" "" IOL_CMAKE_TO_PREFIX "${IOL_CMAKE_TO_PREFIX}")

# ---------------------------------------------------------------- pkg-config
# The codecs libiolens-log.a needs (Requires.private where the codec ships a .pc
# file, Libs.private where it does not: Debian's bzip2 has none), so that
# `pkg-config --static --libs iolens-log` gives a complete static link line.
find_package(PkgConfig QUIET)
set(IOL_PC_REQUIRES_PRIVATE "")
set(IOL_PC_LIBS_PRIVATE "")
# iol_pc_dep(PC_NAME LIB_FLAG): the codec as a pkg-config module or a -l flag.
function(iol_pc_dep pc_name lib_flag)
  set(found OFF)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(_iol_pc_${pc_name} QUIET ${pc_name})
    set(found ${_iol_pc_${pc_name}_FOUND})
  endif()
  if(found)
    set(IOL_PC_REQUIRES_PRIVATE "${IOL_PC_REQUIRES_PRIVATE} ${pc_name}" PARENT_SCOPE)
  else()
    set(IOL_PC_LIBS_PRIVATE "${IOL_PC_LIBS_PRIVATE} ${lib_flag}" PARENT_SCOPE)
  endif()
endfunction()
iol_pc_dep(zlib -lz)
if(IOLENS_WITH_BZIP2)
  iol_pc_dep(bzip2 -lbz2)
endif()
if(IOLENS_WITH_LIBDEFLATE)
  iol_pc_dep(libdeflate -ldeflate)
endif()
string(STRIP "${IOL_PC_REQUIRES_PRIVATE}" IOL_PC_REQUIRES_PRIVATE)
string(STRIP "${IOL_PC_LIBS_PRIVATE} -lm" IOL_PC_LIBS_PRIVATE)
configure_file(${CMAKE_CURRENT_LIST_DIR}/iolens-log.pc.in
               ${PROJECT_BINARY_DIR}/install/iolens-log.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/install/iolens-log.pc DESTINATION ${IOL_DEST_PKGCONFIG})

# ---------------------------------------------------------------- CMake package
include(CMakePackageConfigHelpers)
# The shared library's file and soname (unversioned in the wheel: src/format).
get_target_property(IOL_LOG_SOVERSION iolens-log-shared SOVERSION)
if(IOL_LOG_SOVERSION)
  set(IOL_LOG_SHARED_FILE libiolens-log.so.${PROJECT_VERSION})
  set(IOL_LOG_SONAME libiolens-log.so.${IOL_LOG_SOVERSION})
else()
  set(IOL_LOG_SHARED_FILE libiolens-log.so)
  set(IOL_LOG_SONAME libiolens-log.so)
endif()
set(IOL_LIBDEFLATE_DIR "")
if(IOLENS_WITH_LIBDEFLATE)
  get_filename_component(IOL_LIBDEFLATE_DIR ${IOLENS_LIBDEFLATE_LIBRARY} DIRECTORY)
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/iolensConfig.cmake.in
               ${PROJECT_BINARY_DIR}/install/iolensConfig.cmake @ONLY)
# 0.x: a minor version may change the API, so only the same minor version matches.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/install/iolensConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/install/iolensConfig.cmake
              ${PROJECT_BINARY_DIR}/install/iolensConfigVersion.cmake
        DESTINATION ${IOL_DEST_CMAKE})
