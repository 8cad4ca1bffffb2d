#!/bin/sh
# Log bytes per record, iolens against upstream Darshan, side by side (issue: logs
# no bigger than upstream's).  4 Open MPI processes run bench/mpi/shutdown.c; the
# two runtimes alternate, RUNS times per case, and the median is printed.
# usage: bench/mpi/logsize.sh IOLENS_MPI_RUNTIME.so [UPSTREAM_LIBDARSHAN.so] [RUNS]
#   (upstream: build it outside the project with ../shared/tools/build-upstream)
# Records = POSIX records in the log (a shared file counts once); bytes per record
# = log size / records (the log also holds the job record, names and heat maps).
set -e
REPO=$(cd "$(dirname "$0")/../.." && pwd)
RT=$1 UP=${2:-} RUNS=${3:-5}
TOOL=$(dirname "$RT")/../tools/iolens
W=$(mktemp -d /tmp/iolens-logsize.XXXXXX)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
printf 'MAX_RECORDS 16384 POSIX\n' > "$W/config"
export DARSHAN_CONFIG_PATH="$W/config" DARSHAN_MODMEM=64 DARSHAN_NAMEMEM=16
mpicc -O2 -o "$W/shutdown" "$REPO/bench/mpi/shutdown.c"
one() {   # lib per shared -> "bytes records"
    rm -rf "$W/d" "$W/logs"; mkdir -p "$W/d" "$W/logs"
    mpiexec --oversubscribe -n 4 -x LD_PRELOAD="$1" -x DARSHAN_LOGPATH="$W/logs" \
        -x DARSHAN_CONFIG_PATH -x DARSHAN_MODMEM -x DARSHAN_NAMEMEM \
        "$W/shutdown" "$W/d" "$2" "$3" >/dev/null 2>&1
    log=$(find "$W/logs" -name '*.darshan' | head -1)
    recs=$("$TOOL" parse "$log" | awk '$1=="POSIX" {print $3" "$2}' | sort -u | wc -l)
    echo "$(stat -c %s "$log") $recs"
}
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
printf "| case | runtime | log bytes (median of %s) | POSIX records | bytes / record |\n|---|---|---:|---:|---:|\n" "$RUNS"
for c in ${CASES:-1000,0 10000,0 0,1024}; do
    set -- $(echo "$c" | tr , " ")
    : > "$W/iolens"; : > "$W/upstream"
    for i in $(seq "$RUNS"); do
        one "$RT" "$1" "$2" >> "$W/iolens"
        [ -n "$UP" ] && one "$UP" "$1" "$2" >> "$W/upstream"
    done
    for who in upstream iolens; do
        [ -s "$W/$who" ] || continue
        b=$(cut -d' ' -f1 "$W/$who" | median); r=$(head -1 "$W/$who" | cut -d' ' -f2)
        printf "| %s files per process, %s shared | %s | %s | %s | %.1f |\n" "$1" "$2" "$who" "$b" "$r" \
            "$(echo "$b / $r" | bc -l)"
    done
done
