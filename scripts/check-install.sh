#!/usr/bin/env bash
# Installs the build (./build) into a scratch prefix and builds and runs the
# downstream project test/Downstream against it: find_package(DSM) and a pass
# run from another project's driver (docs/integration.md). CI runs it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DSM_BUILD_DIR:-$root/build}"
prefix="$build/install-check/prefix"
downstream="$build/install-check/downstream"
rm -rf "$build/install-check"
"$root/scripts/build.sh" > /dev/null
cmake --install "$build" --prefix "$prefix" > /dev/null
cmake -S "$root/test/Downstream" -B "$downstream" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$downstream" > /dev/null
report=$("$downstream/map-model" "$root/models/resnet50.mlir" \
  "system=dsm-8pf-asym mode=infer batch=64")
grep -q "^total: .* utilization" <<< "$report" || {
  echo "check-install: the downstream driver printed no mapping report"; exit 1; }
# A C program on DSM::CAPI alone gets the report as a string. (Outputs are
# captured whole before grep -q reads them: piped, grep would stop reading at
# the first match and, under pipefail, the writer's broken pipe would fail
# the check.)
c_report=$("$downstream/map-model-c" "$root/models/alexnet.mlir" \
  "system=dsm-8pf-asym mode=infer batch=64 report=- report-format=json")
grep -q '"utilization"' <<< "$c_report" || {
  echo "check-install: the C program on DSM::CAPI printed no report"; exit 1; }
# The Python package, with Debian's python3, from the prefix.
PYTHONPATH="$prefix/lib/python3/dist-packages" /usr/bin/python3 -c '
import sys, dsm
r = dsm.map_model(sys.argv[1], system="dsm-8pf-asym", mode="infer", batch=64)
assert r["totals"]["utilization"] > 0, r["totals"]' "$root/models/alexnet.mlir" || {
  echo "check-install: the installed Python package dsm did not map AlexNet"; exit 1; }
# The installed tools and the plugin work from the prefix too.
"$prefix/bin/dsm-opt" --dsm-map-system="system=dsm-8pf-asym mode=infer batch=64" \
  "$root/models/resnet50.mlir" -o "$build/install-check/dsm-opt.mlir"
/usr/lib/llvm-22/bin/mlir-opt --load-dialect-plugin="$prefix/lib/DsmPlugin.so" \
  --load-pass-plugin="$prefix/lib/DsmPlugin.so" \
  --pass-pipeline="builtin.module(dsm-map-system{system=dsm-8pf-asym mode=infer batch=64})" \
  "$root/models/resnet50.mlir" -o "$build/install-check/plugin.mlir"
cmp "$build/install-check/dsm-opt.mlir" "$build/install-check/plugin.mlir"
# The installed dsm-opt loads the installed learner module (placement=pg).
if [ -e "$prefix/lib/DsmMemoryLearning.so" ]; then
  "$prefix/bin/dsm-opt" "$root/test/Memory/learner-module.mlir" \
    --dsm-place-memory="system=$root/test/Memory/Inputs/small.yaml placement=pg iterations=30" |
    grep "dsm.memory = #dsm.memory<" > /dev/null || {
    echo "check-install: the installed dsm-opt placed no memory with placement=pg"; exit 1; }
fi
echo "check-install: find_package(DSM) from test/Downstream maps ResNet-50:" \
  "$(echo "$report" | tail -1)"
