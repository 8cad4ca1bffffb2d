# The common part of the toolchain files beside this one (aarch64.cmake, ...), which
# set IOL_CROSS_TRIPLE (Debian's GNU triplet) and IOL_CROSS_PROCESSOR first.
# Libraries come from Debian multiarch packages unpacked into a prefix, or from a
# prefix built for this target (scripts/cross-test.sh builds s390x's zlib and bzip2
# so): pass it as -DIOLENS_CROSS_PREFIX=DIR.  See docs/install.md "Portability".
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${IOL_CROSS_PROCESSOR})
set(CMAKE_C_COMPILER ${IOL_CROSS_TRIPLE}-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE ${IOL_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH /usr/${IOL_CROSS_TRIPLE} ${IOLENS_CROSS_PREFIX})
# Programs (python, mpicc) are the build machine's; libraries and headers only the
# target's, found under the roots above (never the build machine's: its OpenSSL
# would be taken).
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# ctest runs the target's tests under qemu-user.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-${IOL_CROSS_PROCESSOR} -L /usr/${IOL_CROSS_TRIPLE})
