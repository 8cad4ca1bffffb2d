# Cross-compiling for s390x with Debian's gcc-s390x-linux-gnu (docs/install.md).
set(IOL_CROSS_TRIPLE s390x-linux-gnu)
set(IOL_CROSS_PROCESSOR s390x)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
