#!/usr/bin/env bash
# Long fuzz run of the log reader (libFuzzer, ASan+UBSan).  Builds build-fuzz if
# needed and runs ${IOLENS_FUZZ_TARGET:-fuzz_reader} for ${IOLENS_FUZZ_SECONDS:-1800}
# seconds on ${IOLENS_FUZZ_JOBS:-1} process(es).
#   fuzz_reader  whole logs, seeded from ../shared/corpus/logs (read in place)
#   fuzz_decode  module payloads, seeded from those logs' decompressed regions
#   fuzz_dxt_store  runtime DXT store images (what `iolens recover` reads), seeded
#                   by make_dxt_seeds
# The grown corpus stays in build-fuzz/<target>-corpus, crashes go to
# build-fuzz/fuzz-artifacts/.  Exit status 0 = no finding.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${IOLENS_FUZZ_SECONDS:-1800}
jobs=${IOLENS_FUZZ_JOBS:-1}
target=${IOLENS_FUZZ_TARGET:-fuzz_reader}
seeds=$(cd .. && pwd)/shared/corpus/logs
build=${IOLENS_FUZZ_BUILD:-build-fuzz}

if [ ! -d "$seeds" ]; then
  echo "no seed corpus at $seeds (../shared is absent)" >&2
  exit 2
fi
if [ ! -x "$build/tests/fuzz/$target" ] || [ ! -x "$build/tests/fuzz/make_decode_seeds" ] ||
   [ ! -x "$build/tests/fuzz/make_dxt_seeds" ]; then
  CC=clang cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DIOLENS_SANITIZE=address,undefined -DIOLENS_FUZZ=ON -DIOLENS_WITH_RUNTIME=OFF \
    -DIOLENS_PYTHON=OFF >/dev/null
  cmake --build "$build" -j2 --target fuzz_reader fuzz_decode fuzz_dxt_store make_decode_seeds \
    make_dxt_seeds
fi
corpus="$build/$target-corpus"
mkdir -p "$corpus" "$build/fuzz-artifacts"
inputs=("$corpus" "$seeds")
if [ "$target" = fuzz_decode ]; then
  find "$seeds" -name '*.darshan' -exec "$build/tests/fuzz/make_decode_seeds" "$corpus" {} +
  inputs=("$corpus")
elif [ "$target" = fuzz_dxt_store ]; then
  "$build/tests/fuzz/make_dxt_seeds" "$corpus"
  inputs=("$corpus")
fi
par=()
if [ "$jobs" -gt 1 ]; then par=(-jobs="$jobs" -workers="$jobs"); fi
echo "$target for ${secs}s with ${jobs} job(s); started $(date -u +%FT%TZ)"
status=0
"$build/tests/fuzz/$target" -max_total_time="$secs" -max_len=131072 \
  -rss_limit_mb=3072 -timeout=30 -print_final_stats=1 "${par[@]}" \
  -artifact_prefix="$build/fuzz-artifacts/" "${inputs[@]}" || status=$?
echo "finished $(date -u +%FT%TZ), status $status, findings: $(ls "$build/fuzz-artifacts" | wc -l)"
exit $status
