#!/bin/sh
# Cost of `iolens run`'s merge for a Python pool: 32 fork workers stat 1,000 files
# each (64 tasks), so the job has 33 logs of ~1,100 records.  Prints the median
# of 5 `iolens merge` runs over the per-process logs, for this build and, when
# given, a baseline `iolens` (e.g. main's) timed interleaved with it.
#
#   bench/run_job/bench_merge.sh [BASELINE_IOLENS]     (docs/performance.md)
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
IOLENS=${IOLENS_BIN:-$ROOT/build/src/tools/iolens}
export IOLENS_RUNTIME=${IOLENS_RUNTIME:-$ROOT/build/src/runtime/libiolens.so}
BASE=${1:-}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkdir "$W/f" "$W/logs"
i=0
while [ $i -lt 1000 ]; do : > "$W/f/x$i"; i=$((i + 1)); done
cat > "$W/w.py" <<PY
import os, multiprocessing as mp
def work(k):
    for i in range(1000):
        os.stat(f"$W/f/x{(i * 7919 + k * 31) % 1000}")
    return k
if __name__ == "__main__":
    with mp.get_context("fork").Pool(32) as p:
        assert sorted(p.map(work, range(64), chunksize=2)) == list(range(64))
PY
PY=$([ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)
timeout 300 "$IOLENS" run --logpath "$W/logs" --keep-process-logs -- "$PY" "$W/w.py" 2>&1 | head -2
ms() { s=$(date +%s%N); rm -f "$W/m.darshan"; "$1" merge -o "$W/m.darshan" "$W"/logs/*_1.darshan >/dev/null 2>&1; e=$(date +%s%N); echo $(((e - s) / 1000000)); }
median() { sort -n | sed -n 3p; }
: > "$W/new"; : > "$W/base"
for k in 1 2 3 4 5; do
    ms "$IOLENS" >> "$W/new"
    [ -n "$BASE" ] && ms "$BASE" >> "$W/base"
done
echo "merge of $(ls "$W"/logs/*_1.darshan | wc -l) logs: $(median < "$W/new") ms (median of 5)"
[ -n "$BASE" ] && echo "baseline $BASE: $(median < "$W/base") ms (median of 5)"
exit 0
