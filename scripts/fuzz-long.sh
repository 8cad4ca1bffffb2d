#!/usr/bin/env bash
# Long fuzz run of the log reader (libFuzzer, ASan+UBSan).  Builds build-fuzz if
# needed, seeds from ../shared/corpus/logs (read in place, never copied) and runs
# for ${IOLENS_FUZZ_SECONDS:-1800} seconds on ${IOLENS_FUZZ_JOBS:-1} process(es).
# New inputs go to build-fuzz/fuzz-corpus, crashes to build-fuzz/fuzz-artifacts/.
# Exit status: 0 = no finding, non-zero = libFuzzer found a crash (see the log).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${IOLENS_FUZZ_SECONDS:-1800}
jobs=${IOLENS_FUZZ_JOBS:-1}
seeds=$(cd .. && pwd)/shared/corpus/logs
build=${IOLENS_FUZZ_BUILD:-build-fuzz}

if [ ! -d "$seeds" ]; then
  echo "no seed corpus at $seeds (../shared is absent)" >&2
  exit 2
fi
if [ ! -x "$build/tests/fuzz/fuzz_reader" ]; then
  CC=clang cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DIOLENS_SANITIZE=address,undefined -DIOLENS_FUZZ=ON -DIOLENS_WITH_RUNTIME=OFF \
    -DIOLENS_PYTHON=OFF >/dev/null
  cmake --build "$build" -j2 --target fuzz_reader
fi
mkdir -p "$build/fuzz-corpus" "$build/fuzz-artifacts"
echo "fuzzing for ${secs}s with ${jobs} job(s); started $(date -u +%FT%TZ)"
status=0
par=()
if [ "$jobs" -gt 1 ]; then par=(-jobs="$jobs" -workers="$jobs"); fi
"$build/tests/fuzz/fuzz_reader" -max_total_time="$secs" -max_len=131072 \
  -rss_limit_mb=3072 -timeout=30 -print_final_stats=1 \
  "${par[@]}" \
  -artifact_prefix="$build/fuzz-artifacts/" "$build/fuzz-corpus" "$seeds" || status=$?
echo "finished $(date -u +%FT%TZ), status $status, findings: $(ls "$build/fuzz-artifacts" | wc -l)"
exit $status
