#!/usr/bin/env bash
# Installs what dsm-opt needs on a fresh Debian 12 machine. Idempotent: apt-get
# runs only when a package is missing, so a second call costs a few dpkg queries.
set -euo pipefail

packages=(
  cmake ninja-build g++ python3          # build driver, compiler, lit's interpreter
  llvm-22-dev llvm-22-tools               # LLVM 22: libLLVM, FileCheck, lit, not, count
  libmlir-22-dev mlir-22-tools            # MLIR 22: libMLIR, headers, mlir-tblgen
  libgtest-dev libbenchmark-dev           # unit tests and benchmarks
  libgoogle-perftools-dev                 # tcmalloc for the executables (DSM_ALLOCATOR, docs/scaling.md)
  libprotobuf-dev protobuf-compiler       # ONNX model import (onnx.proto is compiled in the build)
  libglpk-dev                             # exact memory placement (placement=ilp, DSM_ENABLE_GLPK)
  libtorch-dev libopenblas0-serial        # learned memory placement (placement=egrl, pg, DSM_ENABLE_TORCH); libtorch's BLAS
  chromium                                # the HTML report's screenshot test
  python3-jsonschema                      # the reports checked against docs/schemas (test/Reports)
  python3-numpy                           # the linalg importer's reductions against brute force (test/Import/linalg)
)

# The hardening build (scripts/build-sanitized.sh, scripts/fuzz.sh) also
# needs Clang and its libFuzzer/sanitizer runtimes.
if [ "${DSM_WITH_CLANG:-0}" = 1 ]; then
  packages+=(clang-22 libclang-rt-22-dev)
fi

# The papers' figures from the studies (tools/dsm-bench/plot_studies.py);
# the build never needs it, and its lit test is UNSUPPORTED without it.
if [ "${DSM_WITH_PLOTS:-0}" = 1 ]; then
  packages+=(python3-matplotlib)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
