#!/usr/bin/env bash
# Cross-build iolens for aarch64, ppc64le and s390x with Debian's cross toolchains and
# test the result under qemu-user (issue #32; docs/install.md "Portability"):
#  - aarch64 and s390x (big-endian: the format library's byte swapping for real): the
#    format library's C tests, and `iolens parse` / `iolens dxt` of every corpus log
#    byte-identical to the x86_64 build's output;
#  - all three: the runtime's processor-specific pieces (tests/runtime/test_arch.c);
#  - aarch64 and ppc64le: a runtime smoke test: tests/cross/smoke.c under the
#    cross-built preloaded runtime, its log read back on x86_64 and equal to the
#    native run's log in every non-timing counter (shared/tools/compare-logs).
# Needs the native build tree build/ (scripts/setup.sh).  Installs what it needs and
# skips what is present: the cross compilers and qemu-user (apt), and each target's
# zlib and bzip2 in build-cross/prefix-ARCH: Debian's multiarch packages for arm64
# and ppc64el (downloaded and unpacked, not installed: the host's own multiarch
# versions are out of step with the archive), and for s390x built from Debian's
# source packages (apt-get source).  apt's state for these lives in build-cross/,
# so the machine's package lists are left alone.
# IOLENS_CROSS_ARCHES="aarch64 s390x" limits the run to those targets.
# Exits non-zero when any part fails; a part whose tool is missing says SKIP and why.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CROSS=$ROOT/build-cross
SHARED=$ROOT/../shared
status=0 npass=0 nfail=0 nskip=0
fail() { echo "cross-test: FAIL: $*"; status=1; nfail=$((nfail + 1)); }
skip() { echo "cross-test: SKIP: $*"; nskip=$((nskip + 1)); }
pass() { echo "cross-test: ok: $*"; npass=$((npass + 1)); }
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"

# ---------------------------------------------------------------- packages
missing=()
for p in gcc-aarch64-linux-gnu gcc-powerpc64le-linux-gnu gcc-s390x-linux-gnu qemu-user dpkg-dev; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "cross-test: installing ${missing[*]}"
  $SUDO apt-get update -qq || true
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null ||
    echo "cross-test: apt-get install failed"
fi

# apt with its own lists and cache under build-cross/apt-NAME: `apt_private NAME ARCH CMD...`.
# Its sources are the machine's, as deb (ARCH's binaries) or deb-src (NAME = src).
apt_private() {
  local name=$1 arch=$2; shift 2
  local d=$CROSS/apt-$name
  mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/sources"
  touch "$d/status"
  if [ "$name" = src ]; then
    for f in /etc/apt/sources.list.d/*.sources; do
      [ -f "$f" ] && sed 's/^Types: deb$/Types: deb-src/' "$f" > "$d/sources/$(basename "$f")"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
      [ -f "$f" ] && sed -n 's/^deb /deb-src /p' "$f" > "$d/sources/$(basename "$f").list"
    done
  else
    cp /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list "$d/sources/" 2>/dev/null
    [ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$d/sources/sources.list.list"
  fi
  apt-get -q -o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" \
    -o Dir::State::status="$d/status" -o Dir::Etc::SourceList=/dev/null \
    -o Dir::Etc::SourceParts="$d/sources" -o APT::Architecture="$arch" \
    -o APT::Architectures::="$arch" -o APT::Sandbox::User=root "$@"
}

# Debian's multiarch zlib and bzip2 of ARCH (Debian's name), unpacked into DIR: the
# packages' absolute symbolic links re-pointed into DIR, the shared objects of
# DIR/lib/TRIPLE beside the link-time files in DIR/usr/lib/TRIPLE (the build's rpath).
deb_libs() {
  local arch=$1 triple=$2 dir=$3
  [ -f "$dir/.done" ] && return 0
  apt_private "$arch" "$arch" update >/dev/null 2>&1      # a failed index is retried below
  mkdir -p "$dir/debs"
  (cd "$dir/debs" && apt_private "$arch" "$arch" download zlib1g:"$arch" zlib1g-dev:"$arch" \
      libbz2-1.0:"$arch" libbz2-dev:"$arch" >/dev/null 2>&1) || return 1
  for deb in "$dir"/debs/*.deb; do dpkg-deb -x "$deb" "$dir" || return 1; done
  find "$dir" -type l -lname '/*' | while IFS= read -r l; do
    ln -sfn "$dir$(readlink "$l")" "$l"
  done
  cp -a "$dir/lib/$triple/." "$dir/usr/lib/$triple/" || return 1
  touch "$dir/.done"
}

# zlib and bzip2 for s390x from Debian's source packages, built into DIR.
src_libs() {
  local triple=$1 dir=$2
  [ -f "$dir/.done" ] && return 0
  local src=$CROSS/src-$triple
  rm -rf "$src" && mkdir -p "$src" "$dir/lib" "$dir/include"
  apt_private src amd64 update >/dev/null 2>&1
  (cd "$src" && apt_private src amd64 source --download-only zlib bzip2 >/dev/null 2>&1 &&
     for d in *.dsc; do     # apt checked the files against the signed index
       dpkg-source -x "$d" > "$d.log" 2>&1 || { cat "$d.log"; exit 1; }
     done) || return 1
  (cd "$src"/zlib-*/ && CC=$triple-gcc CFLAGS="-O2 -fPIC" ./configure --prefix="$dir" >/dev/null &&
     make -j2 >/dev/null && make install >/dev/null) || return 1
  (cd "$src"/bzip2-*/ && make -j2 CC=$triple-gcc CFLAGS="-O2 -fPIC -D_FILE_OFFSET_BITS=64" \
     libbz2.a >/dev/null && cp libbz2.a "$dir/lib/" && cp bzlib.h "$dir/include/") || return 1
  touch "$dir/.done"
}

# ---------------------------------------------------------------- cross builds
# build ARCH: configure and build build-cross/ARCH with cmake/toolchains/ARCH.cmake.
# The DAOS emulation (tests only) links libuuid, which the cross prefixes lack; the
# DAOS tests run natively.
build() {
  local arch=$1 prefix=$2 b=$CROSS/$1
  cmake -S . -B "$b" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/toolchains/$arch.cmake" \
    -DIOLENS_CROSS_PREFIX="$prefix" -DCMAKE_PREFIX_PATH="$prefix;$prefix/usr" \
    -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON -DIOLENS_WITH_MPI=OFF -DIOLENS_WITH_LIBDEFLATE=OFF \
    -DIOLENS_DAOS_EMU=OFF -DIOLENS_WERROR=ON > "$b.configure.log" 2>&1 || { tail -20 "$b.configure.log"; return 1; }
  grep -q "OpenSSL ........... OFF" "$b.configure.log" &&
    echo "cross-test: $arch: built without OpenSSL (as the configure summary says)"
  cmake --build "$b" -j2 > "$b.build.log" 2>&1 || { grep -B2 -A8 "error" "$b.build.log" | head -40; return 1; }
}

have_qemu() { command -v "qemu-$1" >/dev/null 2>&1; }

# The format library's C tests under qemu (the toolchain file's emulator).
format_tests() {
  local arch=$1
  ctest --test-dir "$CROSS/$arch" -R '^c_test_' --output-on-failure -j2 &&
    pass "$arch: format library C tests" || fail "$arch: format library C tests"
}

# The runtime's processor-specific pieces (core/arch.h: tests/runtime/test_arch.c).
arch_test() {
  local arch=$1
  ctest --test-dir "$CROSS/$arch" -R '^runtime_arch$' --output-on-failure &&
    pass "$arch: core/arch.h test" || fail "$arch: core/arch.h test"
}

# `iolens parse` and `iolens dxt` of every corpus log: byte-identical to x86_64's.
corpus_outputs() {
  local arch=$1 triple=$2 native=$ROOT/build/src/tools/iolens
  if [ ! -d "$SHARED/corpus/logs" ]; then
    skip "$arch: corpus outputs: $SHARED/corpus/logs is absent"; return
  fi
  local n=0 bad=0 log verb
  while IFS= read -r log; do
    for verb in parse dxt; do
      n=$((n + 1))
      "$native" "$verb" "$log" > "$CROSS/native.out" 2>&1; local rn=$?
      "qemu-$arch" -L "/usr/$triple" "$CROSS/$arch/src/tools/iolens" "$verb" "$log" \
        > "$CROSS/$arch.out" 2>&1; local rc=$?
      if [ $rn != $rc ] || ! cmp -s "$CROSS/native.out" "$CROSS/$arch.out"; then
        bad=$((bad + 1)); echo "cross-test: $arch: iolens $verb $log differs (exit $rc, x86_64 $rn)"
      fi
    done
  done < <(find "$SHARED/corpus/logs" -name '*.darshan' | sort)
  [ $bad = 0 ] && pass "$arch: $n corpus outputs byte-identical to x86_64's" ||
    fail "$arch: $bad of $n corpus outputs differ from x86_64"
  # Built without OpenSSL: --anonymize must say so and write nothing.
  if grep -q "OpenSSL ........... OFF" "$CROSS/$arch.configure.log"; then
    local key=$CROSS/key.hex out=$CROSS/anon.darshan one
    one=$(find "$SHARED/corpus/logs" -name '*.darshan' | sort | head -1)
    printf '%064d\n' 0 > "$key"; rm -f "$out"
    if "qemu-$arch" -L "/usr/$triple" "$CROSS/$arch/src/tools/iolens" convert --anonymize "$key" \
         "$one" "$out" 2> "$CROSS/anon.err" || [ -e "$out" ] || ! grep -q "without OpenSSL" "$CROSS/anon.err"; then
      fail "$arch: convert --anonymize without OpenSSL did not refuse with its message"
    else
      pass "$arch: convert --anonymize without OpenSSL refuses, saying why"
    fi
  fi
}

# The runtime smoke test: tests/cross/smoke.c natively and under qemu, each under its
# own build of the runtime; the logs agree in every non-timing counter.
runtime_smoke() {
  local arch=$1 triple=$2 w=$CROSS/smoke-$1
  if ! "$ROOT/.venv/bin/python" -c 'import darshan' 2>/dev/null || [ ! -x "$SHARED/tools/compare-logs" ]; then
    skip "$arch: runtime smoke: shared/tools/compare-logs or PyDarshan (.venv) is absent"; return
  fi
  rm -rf "$w" && mkdir -p "$w/native" "$w/cross" "$w/log-native" "$w/log-cross"
  cc -O2 -o "$w/smoke" tests/cross/smoke.c && "$triple-gcc" -O2 -o "$w/smoke-$arch" tests/cross/smoke.c ||
    { fail "$arch: smoke program does not build"; return; }
  LD_PRELOAD=$ROOT/build/src/runtime/libiolens.so DARSHAN_ENABLE_NONMPI=1 \
    DARSHAN_LOGPATH=$w/log-native "$w/smoke" "$w/native" || fail "$arch: native smoke run"
  "qemu-$arch" -L "/usr/$triple" -E LD_PRELOAD="$CROSS/$arch/src/runtime/libiolens.so" \
    -E DARSHAN_ENABLE_NONMPI=1 -E DARSHAN_LOGPATH="$w/log-cross" "$w/smoke-$arch" "$w/cross" ||
    fail "$arch: smoke run under qemu"
  local native cross
  native=$(find "$w/log-native" -name '*.darshan' | head -1)
  cross=$(find "$w/log-cross" -name '*.darshan' | head -1)
  if [ -n "$native" ] && [ -n "$cross" ]; then
    "$ROOT/.venv/bin/python" "$SHARED/tools/compare-logs" "$cross" "$native" \
      --dir-a "$w/cross" --dir-b "$w/native" > "$w/compare.txt" 2>&1 &&
      pass "$arch: runtime smoke log equal to x86_64's: $(tail -1 "$w/compare.txt")" ||
      { cat "$w/compare.txt"; fail "$arch: runtime smoke log differs from x86_64's"; }
  else
    fail "$arch: runtime smoke run left no log"
  fi
}

if [ ! -x build/src/tools/iolens ]; then
  fail "no native build (build/src/tools/iolens): run scripts/setup.sh"; exit 1
fi
mkdir -p "$CROSS"
# arch triple debian-arch: what runs (format tests + corpus, runtime smoke).
for spec in "aarch64 aarch64-linux-gnu arm64 format,runtime" \
            "ppc64le powerpc64le-linux-gnu ppc64el runtime" \
            "s390x s390x-linux-gnu - format"; do
  read -r arch triple debarch parts <<< "$spec"
  case " ${IOLENS_CROSS_ARCHES:-aarch64 ppc64le s390x} " in *" $arch "*) ;; *) continue ;; esac
  echo "== cross: $arch"
  if ! command -v "$triple-gcc" >/dev/null 2>&1; then
    skip "$arch: no $triple-gcc"; continue
  fi
  prefix=$CROSS/prefix-$arch
  if [ "$debarch" = - ]; then
    src_libs "$triple" "$prefix" || { fail "$arch: zlib/bzip2 from Debian's sources"; continue; }
  else
    deb_libs "$debarch" "$triple" "$prefix" || { fail "$arch: Debian's $debarch zlib/bzip2"; continue; }
  fi
  build "$arch" "$prefix" || { fail "$arch: cross build"; continue; }
  if ! have_qemu "$arch"; then
    skip "$arch: no qemu-$arch to run the tests"; continue
  fi
  arch_test "$arch"
  case $parts in *format*) format_tests "$arch"; corpus_outputs "$arch" "$triple" ;; esac
  case $parts in *runtime*) runtime_smoke "$arch" "$triple" ;; esac
done
echo "cross-test: $npass passed, $nfail failed, $nskip skipped"
exit $status
