#!/usr/bin/env bash
# End-to-end checks of sgnn_gen (CPU tier), run by ctest:
#   gen_test.sh <build/examples>
# A small R-MAT dataset is written and read back by sgnn_describe with the
# asked node count; an unknown --preset and a --preset mixed with a shape
# option are refused with a message naming the problem and write nothing.
set -euo pipefail
gen="$1/sgnn_gen"
describe="$1/sgnn_describe"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "gen_test: $*" >&2; exit 1; }

expect_error() {  # expect_error <pattern> <args...>
  local pattern="$1"; shift
  if "$gen" "$@" >"$work/out" 2>&1; then fail "'$*' succeeded, expected an error"; fi
  grep -q -- "$pattern" "$work/out" || fail "'$*' printed $(cat "$work/out"), expected '$pattern'"
  [ ! -e "$work/refused" ] || fail "'$*' was refused but wrote $work/refused"
}
expect_error "reddit-scale" --out "$work/refused" --preset reddit
expect_error "excludes" --out "$work/refused" --preset reddit-scale --nodes 100

"$gen" --out "$work/small" --kind rmat --nodes 500 --edges 4000 --symmetric --features 8 --classes 3 --seed 4 \
  > "$work/gen.json"
grep -q '"nodes": 500' "$work/gen.json" || fail "sgnn_gen printed $(cat "$work/gen.json")"
"$describe" "$work/small" > "$work/describe.txt"
grep -q '^nodes: 500$' "$work/describe.txt" || fail "sgnn_describe read back $(cat "$work/describe.txt")"
grep -q '^symmetric: yes$' "$work/describe.txt" || fail "the --symmetric graph is not symmetric"
echo "gen_test: ok"
