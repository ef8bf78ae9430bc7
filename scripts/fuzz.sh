#!/usr/bin/env bash
# Runs every libFuzzer target for the given number of seconds each (default
# 60), one after the other, on a seed corpus built from the repository's own
# models, systems and ONNX files. New inputs the fuzzers find stay in
# build-sanitized/fuzz-corpus/<target>; a crash leaves its input in
# build-sanitized/fuzz-artifacts/ and fails the script. See docs/hardening.md.
#
#   scripts/fuzz.sh 1800     # the 30-minute campaign per target
#   scripts/fuzz.sh 15       # the smoke run CI does
#   scripts/fuzz.sh 1800 onnx model   # only these targets (one instance per
#                                     # core runs a campaign in parallel)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-60}"
shift || true
all="system model onnx pass-options strategy device-graph paleo upgrade-mlir"
targets="${*:-$all}"
for target in $targets; do
  case "$target" in
    system|model|onnx|pass-options|strategy|device-graph|paleo|upgrade-mlir) ;;
    *) echo "fuzz.sh: unknown target '$target' (${all// /, })" >&2
       exit 2 ;;
  esac
done
build="${DSM_SANITIZED_BUILD_DIR:-$root/build-sanitized}"
# Only the targets asked for: the device-graph, Paleo and upgrade fuzzers
# need a fraction of the tree.
"$root/scripts/build-sanitized.sh" --target $(printf 'dsm-fuzz-%s ' $targets) > /dev/null

corpus="$build/fuzz-corpus"
artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"
seed() { # seed <target> <files...>: copy seeds in (never into the repository)
  local dir="$corpus/$1"; shift
  mkdir -p "$dir"
  for f in "$@"; do [ -f "$f" ] && cp -n "$f" "$dir/$(echo "$f" | tr / _)"; done
  return 0
}
seed system "$root"/systems/*.yaml "$root"/test/System/Inputs/* \
  "$root"/test/Spatial/Inputs/*.yaml
seed model "$root"/models/*.mlir "$root"/test/Dialect/*.mlir \
  "$root"/test/Import/Inputs/external/*.mlir "$root"/test/Import/linalg/*.mlir \
  "$root"/test/Import/tosa/*.mlir
seed onnx "$root"/test/Import/Inputs/onnx/*.onnx
seed device-graph "$root"/systems/malvik.yaml "$root"/systems/luke01.yaml \
  "$root"/test/Devices/Inputs/*.yaml "$root"/test/Devices/Inputs/*.json \
  "$root"/test/Devices/Inputs/exprimo/malvik.json
seed paleo "$root"/test/Import/paleo/Inputs/*.json \
  "$root"/test/Devices/Inputs/exprimo/alex_v2.json \
  "$root"/test/Devices/Inputs/exprimo/resnet50.json
seed upgrade-mlir "$root"/test/Import/Inputs/old-mlir/*.mlir \
  "$root"/test/Import/upgrade-mlir-invalid.mlir
mkdir -p "$corpus/pass-options"
for options in "system=dsm-8pf-asym" "system=tiny mode=infer" \
    "system=dsm-128tf mode=train batch=4 search=exhaustive" \
    "system=dsm-8pf-sym parallelism=model report=-" \
    "system=dsm-8pf-asym batch=2 parallelism=data_x_model_y report=-" \
    "system=nnp-i" "system=malvik batch=0"; do
  printf '%s' "$options" > "$corpus/pass-options/$(printf '%s' "$options" | md5sum | cut -c1-12)"
done

mkdir -p "$corpus/strategy"
for strategy in "stages: 2\nmicrobatches: 4\n" \
    "stages: 1\nmicrobatches: 2\nrecompute: full\n" \
    "stages: 4\nstage-layers: [1, 1, 1, 1]\nschedule: gpipe\n" \
    "tensor: 8\ndata: 8\nzero: 2\n" "recompute: selective\nsequence-parallel: true\n"; do
  printf "$strategy" > "$corpus/strategy/$(printf '%s' "$strategy" | md5sum | cut -c1-12)"
done

export ASAN_OPTIONS="allow_user_poisoning=0:detect_leaks=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# Fuzzers run in a scratch directory: a fuzzed option naming a report file
# must not litter the repository.
work="$build/fuzz-work"
mkdir -p "$work"
cd "$work"
status=0
for target in $targets; do
  echo "== dsm-fuzz-$target: ${seconds}s"
  if ! "$build/bin/dsm-fuzz-$target" "$corpus/$target" \
      -max_total_time="$seconds" -timeout=25 -rss_limit_mb=4096 \
      -max_len=262144 -artifact_prefix="$artifacts/$target-" \
      -print_final_stats=1 > /dev/null 2> "$build/fuzz-$target.log"; then
    status=1
    tail -40 "$build/fuzz-$target.log"
  fi
  grep -aE "^stat::number_of_executed_units|^stat::peak_rss_mb|DONE" \
    "$build/fuzz-$target.log" | tail -3
done
exit $status
