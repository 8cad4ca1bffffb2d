#!/bin/bash
# Runs emu_client under upstream Darshan 3.5.0 built with its DFS/DAOS modules against the
# emulation (scripts/build-upstream-daos.sh) and checks that upstream's modules counted the
# client's calls: the emulation is complete enough for upstream's wrappers to work.
# usage: check_upstream.sh CLIENT [UPSTREAM_PREFIX]   (exit 77: no such upstream build)
set -uo pipefail
client=$1 upstream=${2:-${IOLENS_UPSTREAM_DAOS:-/opt/upstream-3.5.0-daos}}
[[ -f $upstream/lib/libdarshan.so && -x $upstream/bin/darshan-parser ]] ||
    { echo "SKIP: no upstream build with DAOS modules in '$upstream' (scripts/build-upstream-daos.sh)"; exit 77; }
# A sanitizer build instruments the emulation; a preloaded runtime then cannot come first.
ldd "$client" | grep -q 'lib[at]san' && { echo "SKIP: sanitizer build (the preloaded runtime must load first)"; exit 77; }
work=$(mktemp -d /tmp/daos-emu-upstream.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/root/pool0" "$work/logs"
IOLENS_DAOS_EMU_ROOT=$work/root DARSHAN_ENABLE_NONMPI=1 DARSHAN_LOGPATH=$work/logs \
    LD_PRELOAD=$upstream/lib/libdarshan.so "$client" || { echo "FAIL: client under upstream"; exit 1; }
log=$(ls "$work"/logs/*.darshan 2>/dev/null | head -1)
[[ -n $log ]] || { echo "FAIL: upstream wrote no log"; exit 1; }
"$upstream/bin/darshan-parser" "$log" >"$work/parsed" || { echo "FAIL: darshan-parser"; exit 1; }
fails=0
# expect MODULE COUNTER VALUE NAME: the counter of the record named NAME
expect() {
    local got
    got=$(awk -v m="$1" -v c="$2" -v n="$4" '$1 == m && $4 == c && $6 == n { print $5 }' "$work/parsed")
    [[ $got == "$3" ]] || { echo "FAIL: $1 $2 of $4 is '${got}', expected $3"; fails=$((fails + 1)); }
}
expect DFS DFS_WRITES 4 /file
expect DFS DFS_WRITEXS 1 /file
expect DFS DFS_READS 1 /file
expect DFS DFS_READXS 1 /file
expect DFS DFS_BYTES_WRITTEN 20480 /file
expect DFS DFS_BYTES_READ 8192 /file
expect DFS DFS_GET_SIZES 1 /file
expect DFS DFS_PUNCHES 1 /file
expect DFS DFS_LOOKUPS 1 /file
expect DFS DFS_DUPS 1 /file
expect DFS DFS_CHUNK_SIZE 1048576 /file
expect DFS DFS_REMOVES 1 /gone
kv=$(awk '$1 == "DAOS" && $4 == "DAOS_KV_PUTS" && $5 > 0 { print $6 }' "$work/parsed")
expect DAOS DAOS_KV_PUTS 2 "$kv"
expect DAOS DAOS_KV_GETS 1 "$kv"
expect DAOS DAOS_KV_LISTS 1 "$kv"
expect DAOS DAOS_KV_REMOVES 1 "$kv"
expect DAOS DAOS_BYTES_WRITTEN 110 "$kv"
arr=$(awk '$1 == "DAOS" && $4 == "DAOS_ARRAY_WRITES" && $5 > 0 { print $6 }' "$work/parsed")
expect DAOS DAOS_ARRAY_READS 1 "$arr"
expect DAOS DAOS_ARRAY_GET_SIZES 1 "$arr"
expect DAOS DAOS_ARRAY_SET_SIZES 1 "$arr"
expect DAOS DAOS_ARRAY_PUNCHES 1 "$arr"
expect DAOS DAOS_ARRAY_CHUNK_SIZE 1048576 "$arr"
obj=$(awk '$1 == "DAOS" && $4 == "DAOS_OBJ_UPDATES" && $5 > 0 { print $6 }' "$work/parsed")
expect DAOS DAOS_OBJ_FETCHES 1 "$obj"
expect DAOS DAOS_BYTES_READ 512 "$obj"
((fails == 0)) || exit 1
echo "PASS: upstream's DFS and DAOS modules counted the client's calls through the emulation"
