#!/usr/bin/env bash
# Installs missing dependencies, configures (once) and builds dsm-opt into ./build.
# Extra arguments are passed to the build, e.g. `scripts/build.sh --target check-dsm`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DSM_BUILD_DIR:-$root/build}"

"$root/scripts/install-deps.sh"

if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi
cmake --build "$build" "$@"
