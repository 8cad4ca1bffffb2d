#!/bin/bash
# Build upstream Darshan (runtime + util) with its DFS and DAOS modules against our DAOS
# emulation, outside the project, for fidelity checks of our DFS/DAOS modules.  Same steps as
# ../shared/tools/build-upstream, plus --enable-daos-mod --with-daos=EMU_PREFIX.  Upstream's
# configure does not add EMU_PREFIX/include to the compiler's search path, so CPPFLAGS does.
# usage: build-upstream-daos.sh GIT_DIR REV PREFIX [EMU_PREFIX]
#   GIT_DIR:    the snapshot's git directory (from fetching darshan-hpc/darshan)
#   REV:        3.5.0
#   PREFIX:     where to install (e.g. /opt/upstream-3.5.0-daos)
#   EMU_PREFIX: the emulation prefix (default: build/tests/daos_emu/prefix of this checkout,
#               made by `cmake --build build --target iolens_emu_prefix`)
# Needs: autoconf automake libtool, mpicc, zlib, bzip2, libuuid (uuid-dev) headers.
set -euo pipefail
git_dir=$1 rev=$2 prefix=$3
emu=${4:-$(cd "$(dirname "$0")/.." && pwd)/build/tests/daos_emu/prefix}
[[ -f $emu/include/daos_fs.h && -f $emu/lib/libdaos.so ]] ||
    { echo "no DAOS emulation prefix at $emu (build target iolens_emu_prefix)" >&2; exit 1; }
src=$(mktemp -d /tmp/darshan-src.XXXXXX)
trap 'rm -rf "$src"' EXIT
git clone -q "$git_dir" "$src/darshan" && git -C "$src/darshan" checkout -q "$rev"
cd "$src/darshan" && ./prepare.sh >/dev/null
mkdir -p "$src/build-util" "$src/build-rt"
(cd "$src/build-util" && ../darshan/darshan-util/configure --prefix="$prefix" --enable-shared >/dev/null &&
    make -j2 >/dev/null && make install >/dev/null)
(cd "$src/build-rt" && ../darshan/darshan-runtime/configure --prefix="$prefix" \
    --with-log-path-by-env=DARSHAN_LOGPATH --with-jobid-env=NONE \
    --enable-daos-mod --with-daos="$emu" CPPFLAGS="-I$emu/include" CC=mpicc >/dev/null &&
    make -j2 >/dev/null && make install >/dev/null)
echo "upstream $(git -C "$src/darshan" rev-parse --short HEAD) with DFS/DAOS modules installed in $prefix"
