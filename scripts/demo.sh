#!/usr/bin/env bash
# The main job: set everything up, run a sample program under the iolens runtime,
# show its log as darshan-parser would, and write its HTML report.
# Everything it makes goes to demo-out/ (override with IOLENS_DEMO_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. .venv/bin/activate

OUT=${IOLENS_DEMO_DIR:-$PWD/demo-out}
rm -rf "$OUT" && mkdir -p "$OUT/data" "$OUT/logs"
cc -O2 -o "$OUT/sample_io" examples/sample_io.c

echo "== iolens run -- sample_io"
iolens run --logpath "$OUT/logs" -- "$OUT/sample_io" "$OUT/data"
log=$(find "$OUT/logs" -name '*.darshan' | head -n 1)
[ -n "$log" ] || { echo "demo: no log was written" >&2; exit 1; }

echo "== iolens parse --total --perf $log"
iolens parse --total --perf "$log"

echo "== iolens report"
iolens report "$log" -o "$OUT/report.html" --pdf "$OUT/report.pdf"
echo "demo: log    $log"
echo "demo: report $OUT/report.html (PDF: $OUT/report.pdf)"
