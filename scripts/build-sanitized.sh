#!/usr/bin/env bash
# Configures (once) and builds the hardening build in ./build-sanitized:
# Clang 22 with AddressSanitizer + UndefinedBehaviorSanitizer on the project's
# own code, and the libFuzzer targets. Extra arguments go to the build, e.g.
# `scripts/build-sanitized.sh --target check-dsm` runs every test sanitized.
# See docs/hardening.md. Without libtorch (DSM_ENABLE_TORCH=OFF): it is not
# instrumented, its one translation unit takes minutes to compile again, and
# the plain build runs egrl/pg's tests; here placement=egrl|pg's error is
# tested instead.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DSM_SANITIZED_BUILD_DIR:-$root/build-sanitized}"

DSM_WITH_CLANG=1 "$root/scripts/install-deps.sh"

if [ ! -f "$build/build.ninja" ]; then
  CC=clang-22 CXX=clang++-22 cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DDSM_SANITIZE=address,undefined \
    -DDSM_FUZZERS=ON \
    -DDSM_ENABLE_TORCH=OFF \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi
cmake --build "$build" "$@"
