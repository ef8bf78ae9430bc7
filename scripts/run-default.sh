#!/usr/bin/env bash
# The main job on a sensible default: map ResNet-50, trained at minibatch 512,
# onto the 64-chip 8-PFLOP system of DeepSpatialMatrix (asymmetric torus) and
# print the mapping report. Builds first if needed. Extra arguments go to dsm-opt.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/build.sh" --target dsm-opt > /dev/null
exec "$root/build/bin/dsm-opt" \
  --dsm-map-system="system=dsm-8pf-asym mode=train batch=512 report=-" \
  "$root/models/resnet50.mlir" -o /dev/null "$@"
