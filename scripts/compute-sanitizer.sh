#!/usr/bin/env bash
# The GPU test tier under compute-sanitizer (memcheck, racecheck, initcheck),
# on a GPU machine, from a build made elsewhere. Logs go to $OUT (or
# ./compute-sanitizer-out); a short summary per tool is printed last.
# SANITIZER_TIMEOUT=SECONDS bounds each tool (exit 124 when it runs out).
#   bash scripts/compute-sanitizer.sh [TEST_GPU_BINARY] [DOCTEST FILTERS...]
set -uo pipefail
cd "$(dirname "$0")/.."
binary=${1:-build/tests/test_gpu}
shift || true
out=${OUT:-compute-sanitizer-out}
mkdir -p "$out"
for tool in memcheck racecheck initcheck; do
  timeout "${SANITIZER_TIMEOUT:-0}" compute-sanitizer --tool "$tool" --error-exitcode 99 "$binary" "$@" > "$out/$tool.log" 2>&1
  echo "$tool: exit $? | $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/$tool.log" | tail -n 1) | $(grep -E 'test cases:' "$out/$tool.log" | tail -n 1)"
done
