#!/bin/bash
# Compares the emulation's DAOS headers with DAOS's own: abi_probe.c prints type sizes, field
# offsets and constants, compiled once against each; any difference fails.  DAOS's headers come
# from a DAOS git directory (e.g. the fetch tool's daos-stack/daos snapshot), never from the repo.
# usage: check_abi.sh EMU_INCLUDE DAOS_GIT_DIR   (exit 77 without a DAOS git directory)
set -uo pipefail
emu_include=$1 daos_git=${2:-}
[[ -n $daos_git ]] && git -C "$daos_git" rev-parse -q --verify HEAD >/dev/null 2>&1 ||
    { echo "SKIP: no DAOS git directory given (IOLENS_DAOS_GIT_DIR)"; exit 77; }
work=$(mktemp -d /tmp/daos-emu-abi.XXXXXX)
trap 'rm -rf "$work"' EXIT
git -C "$daos_git" archive HEAD src/include | tar -x -C "$work" || { echo "FAIL: git archive"; exit 1; }
inc=$work/src/include
sed 's/@TMPL_[A-Z_]*MAJOR@/2/; s/@TMPL_[A-Z_]*MINOR@/6/; s/@TMPL_[A-Z_]*FIX@/0/' \
    "$inc/daos_version.h.in" >"$inc/daos_version.h"
probe=$(dirname "$0")/abi_probe.c
cc -w -I"$inc" "$probe" -o "$work/real" && cc -w -I"$emu_include" "$probe" -o "$work/emu" ||
    { echo "FAIL: abi_probe does not compile"; exit 1; }
"$work/real" >"$work/real.txt" && "$work/emu" >"$work/emu.txt"
diff "$work/real.txt" "$work/emu.txt" || { echo "FAIL: the emulation's headers differ from DAOS $(git -C "$daos_git" rev-parse --short HEAD)"; exit 1; }
echo "PASS: $(wc -l <"$work/real.txt") sizes, offsets and constants match DAOS $(git -C "$daos_git" rev-parse --short HEAD)"
