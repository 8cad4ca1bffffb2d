#!/usr/bin/env bash
# Install everything iolens needs on a fresh Debian machine, then build it.
#  - Debian packages: compilers, CMake, zlib, bzip2, MPI, Python, Chromium;
#  - a virtual environment in .venv with the iolens package (C tools, runtime and
#    Python package, built by scikit-build-core) and the test dependencies;
#    the package is built in build/, which holds the C unit tests too.
# Safe to run again: each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
APT_PACKAGES=(build-essential cmake ninja-build pkg-config zlib1g-dev libbz2-dev
  libdeflate-dev libssl-dev
  python3 python3-dev python3-venv python3-pip git xz-utils
  openmpi-bin libopenmpi-dev mpich libmpich-dev
  clang libclang-rt-14-dev valgrind chromium
  libhdf5-dev libhdf5-openmpi-dev libpnetcdf-dev gfortran time
  prometheus   # tests/live: a real Prometheus scraping `iolens exporter`
  lmod)         # tests/packaging/test_lmod.py: `module load` of packaging/lmod/iolens.lua
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
# pdftotext (poppler-utils): the report tests read the PDF page by page
dpkg -s poppler-utils >/dev/null 2>&1 || missing+=(poppler-utils)
# npm (for the SARIF validator below), unless a Node.js from elsewhere brings its own:
# Debian's npm package conflicts with such a Node.js.
command -v npm >/dev/null 2>&1 || dpkg -s npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
. .venv/bin/activate
python -m pip install -q --upgrade pip
python -m pip install -q -r requirements-test.txt
# The package itself (C tools, runtime, Python extension) and the C tests in ONE
# build tree, build/ (pyproject.toml's build-dir; docs/install.md, "One build"):
# these options stay in its CMake cache, so `cmake --build build`, ctest and the
# pytest variables of scripts/test.sh use the artefacts the wheel installed.
# The MPICH runtime is built there too, beside Open MPI's (src/runtime/mpich/).
python -m pip install -q --no-build-isolation -v \
  --config-settings=cmake.define.BUILD_TESTING=ON \
  --config-settings=cmake.define.IOLENS_WITH_MPI=ON \
  --config-settings=cmake.define.IOLENS_WERROR=ON \
  --config-settings=cmake.define.IOLENS_MPI_EXTRA=mpicc.mpich \
  . > .venv/iolens-build.log 2>&1 || { tail -40 .venv/iolens-build.log; exit 1; }

# Microsoft's SARIF validator, which also ships the official SARIF 2.1.0 schema
# (no PyPI package does): the diagnose tests check our SARIF against both.
SARIF_TOOL=.tools/node_modules/@microsoft/sarif-multitool-linux
if [ ! -f "$SARIF_TOOL/sarif-2.1.0.json" ]; then
  mkdir -p .tools
  npm install --silent --no-audit --no-fund --prefix .tools \
      @microsoft/sarif-multitool-linux@5.7.0 >/dev/null 2>&1 ||
    echo "setup: warning: npm could not install the SARIF validator; its tests will skip"
fi

echo "setup: done (venv: $ROOT/.venv, build tree: $ROOT/build)"
