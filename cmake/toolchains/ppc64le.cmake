# Cross-compiling for ppc64le with Debian's gcc-powerpc64le-linux-gnu (docs/install.md).
set(IOL_CROSS_TRIPLE powerpc64le-linux-gnu)
set(IOL_CROSS_PROCESSOR ppc64le)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
