#!/usr/bin/env bash
# The main job on a sensible default: ResNet-50 at minibatch 512 on the 64-chip
# 8-PFLOP system of 000 (asymmetric torus). Builds first if needed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/build.sh" --target dsm-opt > /dev/null
exec "$root/build/bin/dsm-opt" \
  --dsm-attach-system="system=dsm-8pf-asym" \
  --dsm-set-batch="batch=512" \
  --dsm-workload-report \
  "$root/models/resnet50.mlir" -o /dev/null "$@"
