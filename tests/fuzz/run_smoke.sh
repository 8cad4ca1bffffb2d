#!/bin/sh
# Short fuzz run for ctest: fuzz_reader seeded with the shared corpus logs (read in
# place, never copied), then fuzz_decode seeded with their decompressed regions
# (written to the scratch directory), then fuzz_dxt_store seeded with generated
# store images for half the time, then fuzz_lov (the runtime's Lustre layout
# parser) and fuzz_lustre_store (the LUSTRE store decoder) from nothing for a
# third of it each.  Exit 77 (= skipped) without the corpus.
# usage: run_smoke.sh BINDIR SHARED_DIR WORK_DIR SECONDS_EACH
set -eu
bin=$1 shared=$2 work=$3 secs=$4
seeds="$shared/corpus/logs"
if [ ! -d "$seeds" ]; then
  echo "SKIP: seed corpus $seeds is absent"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work/reader" "$work/decode" "$work/dxt" "$work/lov" "$work/lustre"
# -rss_limit_mb: the reader may legitimately hold a few hundred MiB for a region.
opts="-max_total_time=$secs -max_len=131072 -rss_limit_mb=3072 -timeout=30 -print_final_stats=1"
"$bin/fuzz_reader" $opts -artifact_prefix="$work/reader-" "$work/reader" "$seeds"
find "$seeds" -name '*.darshan' -exec "$bin/make_decode_seeds" "$work/decode" {} +
"$bin/fuzz_decode" $opts -artifact_prefix="$work/decode-" "$work/decode"
"$bin/make_dxt_seeds" "$work/dxt"
"$bin/fuzz_dxt_store" -max_total_time=$((secs / 2)) -max_len=131072 -rss_limit_mb=3072 -timeout=30 \
  -print_final_stats=1 -artifact_prefix="$work/dxt-" "$work/dxt"
"$bin/fuzz_lov" -max_total_time=$((secs / 3)) -max_len=65537 -rss_limit_mb=3072 -timeout=30 \
  -print_final_stats=1 -artifact_prefix="$work/lov-" "$work/lov"
"$bin/fuzz_lustre_store" -max_total_time=$((secs / 3)) -max_len=65536 -rss_limit_mb=3072 \
  -timeout=30 -print_final_stats=1 -artifact_prefix="$work/lustre-" "$work/lustre"
