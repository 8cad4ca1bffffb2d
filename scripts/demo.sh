#!/usr/bin/env bash
# The main job: set everything up, run a small serial program under `iolens run`
# and show its log, then run a sample MPI program (4 processes, Open MPI) with the
# iolens runtime preloaded and DXT tracing on, show its log as darshan-parser
# would and the first lines of its trace, and write its HTML and PDF report.  Everything goes to demo-out/ (or IOLENS_DEMO_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. .venv/bin/activate

OUT=${IOLENS_DEMO_DIR:-$PWD/demo-out}
rm -rf "$OUT" && mkdir -p "$OUT/data" "$OUT/logs" "$OUT/logs-serial"
cc -O2 -o "$OUT/sample_io" examples/sample_io.c
mpicc -O2 -o "$OUT/sample_mpi" examples/sample_mpi.c

echo "== iolens run -- sample_io (a program without MPI)"
iolens run --logpath "$OUT/logs-serial" -- "$OUT/sample_io" "$OUT/data"
slog=$(find "$OUT/logs-serial" -name '*.darshan' | head -n 1)
[ -n "$slog" ] || { echo "demo: iolens run wrote no log" >&2; exit 1; }
iolens parse "$slog"

RUNTIME=$VIRTUAL_ENV/lib/libiolens-mpi.so
[ -f "$RUNTIME" ] || RUNTIME=$PWD/build/src/runtime/libiolens-mpi.so
if [ "$(id -u)" = 0 ]; then   # Open MPI refuses to run as root unless told
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

echo "== mpiexec -n 4 sample_mpi (runtime: $RUNTIME, DXT tracing on)"
mpiexec --oversubscribe -n 4 -x LD_PRELOAD="$RUNTIME" -x DARSHAN_LOGPATH="$OUT/logs" \
  -x DXT_ENABLE_IO_TRACE=1 "$OUT/sample_mpi" "$OUT/data"
log=$(find "$OUT/logs" -name '*.darshan' | head -n 1)
[ -n "$log" ] || { echo "demo: no log was written" >&2; exit 1; }

echo "== iolens parse --total --perf $log"
iolens parse --total --perf "$log"

echo "== iolens dxt $log (first 40 lines of the trace)"
iolens dxt "$log" > "$OUT/trace.txt"
awk '/DXT_POSIX module data/ { on = 1 } on && n < 40 { print; n++ }' "$OUT/trace.txt"
echo "(the whole trace: $OUT/trace.txt)"

echo "== iolens report"
iolens report "$log" -o "$OUT/report.html" --pdf "$OUT/report.pdf"
echo "demo: log    $log"
echo "demo: report $OUT/report.html (PDF: $OUT/report.pdf)"
