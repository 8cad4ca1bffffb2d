#!/usr/bin/env bash
# Run every test: C unit tests (ctest), the same under ASan+UBSan with a short fuzz
# smoke run, then the Python and integration tests (pytest).  Exits non-zero if any
# test fails.  Long runs (fuzzing, soak, benchmarks) are behind IOLENS_LONG=1 / bench/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. .venv/bin/activate
status=0

echo "== ctest (RelWithDebInfo)"
ctest --test-dir build --output-on-failure -j2 || status=1

echo "== ctest under AddressSanitizer + UndefinedBehaviorSanitizer, fuzz smoke"
CC=clang cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DIOLENS_SANITIZE=address,undefined -DIOLENS_FUZZ=ON -DIOLENS_WITH_RUNTIME=OFF >/dev/null
cmake --build build-asan -j2 >/dev/null
ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build-asan --output-on-failure -j2 || status=1

echo "== pytest"
python -m pytest -q -n 2 -rs tests || status=1

exit $status
