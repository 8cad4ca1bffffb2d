#!/bin/bash
# Build IOR with its DFS back end (-a DFS) against our DAOS emulation, outside the project, as a
# real DAOS client for the DFS/DAOS modules.  IOR's configure looks for gurt/common.h, daos.h,
# libgurt (d_hash_murmur64), libuuid, libdaos (daos_init) and libdfs (dfs_mkdir) under
# --with-daos=PREFIX, libraries in PREFIX/lib64, and links -ldaos_common too.
# usage: build-ior.sh IOR_GIT_DIR PREFIX [EMU_PREFIX]
#   IOR_GIT_DIR: a git directory of hpc/ior (the fetch tool's snapshot)
#   PREFIX:      where to install (PREFIX/bin/ior)
#   EMU_PREFIX:  the emulation prefix (default: build/tests/daos_emu/prefix of this checkout)
# Needs: autoconf automake, mpicc.
set -euo pipefail
git_dir=$1 prefix=$2
emu=${3:-$(cd "$(dirname "$0")/../.." && pwd)/build/tests/daos_emu/prefix}
[[ -f $emu/include/daos_fs.h && -f $emu/lib64/libdfs.so ]] ||
    { echo "no DAOS emulation prefix at $emu (build target iolens_emu_prefix)" >&2; exit 1; }
# IOR keeps its own copy of the emulation (PREFIX/daos-emu, found through its run path), so it
# outlives the checkout; LD_LIBRARY_PATH overrides the run path to test another build.
mkdir -p "$prefix"
rm -rf "$prefix/daos-emu" && cp -a "$emu" "$prefix/daos-emu" && emu=$prefix/daos-emu
src=$(mktemp -d /tmp/ior-src.XXXXXX)
trap 'rm -rf "$src"' EXIT
git clone -q "$git_dir" "$src/ior"
cd "$src/ior" && ./bootstrap >/dev/null 2>&1
./configure --prefix="$prefix" --with-daos="$emu" CC=mpicc >configure.out 2>&1 ||
    { tail -20 configure.out >&2; exit 1; }
grep -q '^#define USE_DAOS_AIORI' src/config.h ||
    { echo "IOR's configure did not enable the DFS back end:" >&2; grep -i daos configure.out >&2; exit 1; }
make -j2 >make.out 2>&1 || { grep -B5 -m5 'error' make.out >&2; exit 1; }
make install >/dev/null
echo "IOR $(git -C "$src/ior" rev-parse --short HEAD) with -a DFS installed in $prefix"
