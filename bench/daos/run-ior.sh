#!/bin/bash
# A small IOR DFS write+read (-a DFS) against the DAOS emulation, checked on the host: the
# shared file and the file-per-process files must appear under the emulation root with the sizes
# IOR wrote, and IOR's own read-back check (-W -R) must pass.  Then, when IOR's mdtest is beside
# it, an mdtest -a DFS run (mkdir, create, stat, read, rename, remove) must leave an empty tree.
# usage: run-ior.sh IOR_BIN [NPROCS] [PRELOAD]
#   PRELOAD: a runtime to preload into IOR (ours or upstream's), for fidelity runs
# Exit: 0 pass, 1 fail, 77 when IOR_BIN is missing (so ctest reports a skip).
set -uo pipefail
ior=$1 np=${2:-2} preload=${3:-}
[[ -x $ior ]] || { echo "SKIP: no IOR with the DFS back end at '$ior' (bench/daos/build-ior.sh)"; exit 77; }
# IOR built against a sanitizer build of the emulation cannot start without the sanitizer first.
ldd "$ior" | grep -q 'lib[at]san' && { echo "SKIP: the emulation IOR links is a sanitizer build"; exit 77; }
root=$(mktemp -d /tmp/daos-emu-ior.XXXXXX)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/pool0"
export IOLENS_DAOS_EMU_ROOT=$root OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
env_args=(-x IOLENS_DAOS_EMU_ROOT)
[[ -n $preload ]] && { export LD_PRELOAD=$preload; env_args+=(-x LD_PRELOAD); }
run() {
    timeout 120 mpirun --oversubscribe -np "$np" "${env_args[@]}" "$ior" -a DFS --dfs.pool pool0 \
        --dfs.cont cont0 -w -r -W -R -k -t 64k -b 1m "$@" >"$root/ior.out" 2>&1 ||
        { cat "$root/ior.out"; echo "FAIL: ior $*"; exit 1; }
}
expect_size() {
    local size
    size=$(stat -c %s "$1" 2>/dev/null) || { echo "FAIL: $1 missing"; exit 1; }
    [[ $size == "$2" ]] || { echo "FAIL: $1 is $size bytes, expected $2"; exit 1; }
}
run -o /shared
expect_size "$root/pool0/cont0/dfs/shared" $((np * 1048576))
run -F -o /fpp
for ((r = 0; r < np; r++)); do
    expect_size "$root/pool0/cont0/dfs/$(printf 'fpp.%08d' "$r")" 1048576
done
mdtest=$(dirname "$ior")/mdtest md_note=
if [[ -x $mdtest ]]; then
    timeout 120 mpirun --oversubscribe -np "$np" "${env_args[@]}" "$mdtest" -a DFS --dfs.pool pool0 \
        --dfs.cont cont0 -n 20 -d /mdtest -w 100 -e 100 >"$root/mdtest.out" 2>&1 ||
        { cat "$root/mdtest.out"; echo "FAIL: mdtest"; exit 1; }
    [[ -z $(ls -A "$root/pool0/cont0/dfs/mdtest" 2>/dev/null) ]] ||
        { echo "FAIL: mdtest left entries behind"; exit 1; }
    md_note=", mdtest -a DFS ran"
fi
echo "PASS: IOR -a DFS wrote and read back $np MiB shared and $np x 1 MiB file-per-process$md_note"
