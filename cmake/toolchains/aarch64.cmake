# Cross-compiling for aarch64 with Debian's cross toolchain (gcc-aarch64-linux-gnu).
# Libraries come from Debian multiarch packages unpacked into a prefix
# or, with -DIOLENS_CROSS_PREFIX=DIR, from a prefix built for this target first
# (scripts/cross-test.sh does that for s390x's zlib and bzip2).  See docs/install.md.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu ${IOLENS_CROSS_PREFIX})
# Programs (python, mpicc) are the build machine's; libraries and headers only the target's,
# found under the roots above (never the build machine's: its OpenSSL would be taken).
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/aarch64-linux-gnu)
