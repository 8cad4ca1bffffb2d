#!/bin/sh
# Shutdown time and log size of the MPI runtime at 4 processes (Open MPI).
# usage: bench/mpi/run.sh [RUNTIME.so]   (default build-mpi/src/runtime/libiolens-mpi.so)
# Prints: case, median shutdown time without and with the runtime (3 runs each),
# log bytes, records in the log, bytes per record.
set -e
REPO=$(cd "$(dirname "$0")/../.." && pwd)
RT=${1:-$REPO/build-mpi/src/runtime/libiolens-mpi.so}
TOOL=$(dirname "$RT")/../tools/iolens
W=$(mktemp -d /tmp/iolens-mpibench.XXXXXX)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# room for 10,000 files per process (as for upstream's figures: MAX_RECORDS raised)
printf 'MAX_RECORDS 16384 POSIX\n' > "$W/config"
export DARSHAN_CONFIG_PATH="$W/config" DARSHAN_MODMEM=64 DARSHAN_NAMEMEM=16
mpicc -O2 -o "$W/shutdown" "$REPO/bench/mpi/shutdown.c"
run() {   # per shared preload -> median seconds
    for i in 1 2 3; do
        rm -rf "$W/d" "$W/logs"; mkdir -p "$W/d" "$W/logs"
        if [ "$3" = 1 ]; then
            mpiexec --oversubscribe -n 4 -x LD_PRELOAD="$RT" -x DARSHAN_LOGPATH="$W/logs" \
                -x DARSHAN_CONFIG_PATH -x DARSHAN_MODMEM -x DARSHAN_NAMEMEM \
                "$W/shutdown" "$W/d" "$1" "$2"
        else
            mpiexec --oversubscribe -n 4 "$W/shutdown" "$W/d" "$1" "$2"
        fi
    done | sort -n | sed -n 2p
}
printf "%-22s %10s %10s %10s %8s %10s\n" case plain_s iolens_s log_bytes records bytes/rec
for c in ${CASES:-1,0 100,0 1000,0 10000,0 0,1 0,1024}; do
    c=$(echo "$c" | tr , " ")
    set -- $c
    plain=$(run "$1" "$2" 0)
    with=$(run "$1" "$2" 1)
    log=$(find "$W/logs" -name '*.darshan' | head -1)
    size=$(stat -c %s "$log")
    recs=$("$TOOL" parse "$log" | awk '$1=="POSIX" {print $3" "$2}' | sort -u | wc -l)
    printf "%-22s %10s %10s %10s %8s %10.1f\n" "per=$1 shared=$2" "$plain" "$with" "$size" "$recs" \
        "$(echo "$size / $recs" | bc -l)"
done
