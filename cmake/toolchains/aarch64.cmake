# Cross-compiling for aarch64 with Debian's gcc-aarch64-linux-gnu (docs/install.md).
set(IOL_CROSS_TRIPLE aarch64-linux-gnu)
set(IOL_CROSS_PROCESSOR aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
