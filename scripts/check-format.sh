#!/usr/bin/env bash
# Checks that every C++ file the repository tracks obeys .clang-format
# (clang-format 14, Debian's default; the style is LLVM's). With --fix,
# reformats them instead.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
command -v clang-format > /dev/null || {
  echo "check-format: installing clang-format"
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq clang-format > /dev/null
}
files=$(git ls-files '*.cpp' '*.h' | grep -v '^importers/onnx/onnx.proto')
if [ "${1:-}" = "--fix" ]; then
  echo "$files" | xargs clang-format -i
  exit 0
fi
bad=$(for f in $files; do clang-format --dry-run -Werror "$f" > /dev/null 2>&1 || echo "$f"; done)
if [ -n "$bad" ]; then
  echo "check-format: not clang-format clean (run scripts/check-format.sh --fix):"
  echo "$bad"
  exit 1
fi
echo "check-format: $(echo "$files" | wc -l) files clean"
