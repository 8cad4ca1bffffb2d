#!/bin/sh
# Short fuzz run for ctest: seeds are the shared corpus logs, read in place (never
# copied); new inputs go to a scratch directory.  Exit 77 (= skipped) without them.
# usage: run_smoke.sh FUZZER SHARED_DIR WORK_DIR SECONDS
set -eu
fuzzer=$1 shared=$2 work=$3 secs=$4
if [ ! -d "$shared/corpus/logs" ]; then
  echo "SKIP: seed corpus $shared/corpus/logs is absent"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work/new"
# -rss_limit_mb: the reader may legitimately hold a few hundred MiB for a region.
exec "$fuzzer" -max_total_time="$secs" -max_len=131072 -rss_limit_mb=3072 -timeout=30 \
  -print_final_stats=1 -artifact_prefix="$work/" "$work/new" "$shared/corpus/logs"
