#!/usr/bin/env bash
# Run every test: C unit tests (ctest), the same under ASan+UBSan with a short fuzz
# smoke run, then the Python and integration tests (pytest).  Exits non-zero if any
# test or build fails; a failed build is reported and the steps after it still run
# (the tests that need that build then fail or skip, naming it).  Long runs
# (fuzzing, soak, benchmarks) are behind IOLENS_LONG=1 / bench/.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh || { echo "test.sh: scripts/setup.sh failed" >&2; exit 1; }
. .venv/bin/activate
status=0
# build DIR ARGS...: cmake --build, its output shown only when it fails.
build() {
  local dir=$1 log
  log=$(mktemp)
  cmake --build "$@" > "$log" 2>&1 ||
    { grep -B2 -A8 -E "error|FAILED" "$log" | head -60; echo "test.sh: build of $dir failed" >&2; status=1; }
  rm -f "$log"
}

# build/ is the one tree of the wheel, the C tools and the tests (scripts/setup.sh;
# docs/install.md, "One build"); the trees below differ in their definitions
# (sanitizers, another compiler for -Werror), so they compile again.
echo "== ctest (RelWithDebInfo)"
ctest --test-dir build --output-on-failure -j2 || status=1

echo "== ctest under AddressSanitizer + UndefinedBehaviorSanitizer, fuzz smoke"
CC=clang cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DIOLENS_WERROR=ON \
  -DIOLENS_SANITIZE=address,undefined -DIOLENS_FUZZ=ON -DIOLENS_WITH_RUNTIME=OFF >/dev/null || status=1
build build-asan -j2
ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build-asan --output-on-failure -j2 || status=1

echo "== the runtime under clang with -Werror (build/ is gcc's, build-asan has no runtime)"
CC=clang cmake -S . -B build-clang -G Ninja -DIOLENS_WERROR=ON -DBUILD_TESTING=OFF >/dev/null || status=1
build build-clang -j2 --target iolens-runtime iolens-runtime-mpi

echo "== ThreadSanitizer build of the runtime (tests/runtime/test_runtime_tsan.py)"
cmake -S . -B build-tsan -G Ninja -DIOLENS_SANITIZE=thread -DBUILD_TESTING=OFF -DIOLENS_WITH_MPI=OFF >/dev/null || status=1
build build-tsan -j2 --target iolens-runtime
export IOLENS_TSAN_RUNTIME=$PWD/build-tsan/src/runtime/libiolens.so

echo "== pytest"
export IOLENS_BIN=$PWD/build/src/tools/iolens
export IOLENS_RUNTIME=$PWD/build/src/runtime/libiolens.so
export IOLENS_MPI_RUNTIME_OPENMPI=$PWD/build/src/runtime/libiolens-mpi.so
export IOLENS_MPI_RUNTIME_MPICH=$PWD/build/src/runtime/mpich/libiolens-mpi.so
python -m pytest -q -n 2 -rs tests || status=1

exit $status
