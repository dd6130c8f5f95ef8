#!/usr/bin/env bash
# The GPU test tier under compute-sanitizer (memcheck, racecheck, initcheck),
# on a GPU machine, from a build made elsewhere. Logs go to $OUT (or
# ./compute-sanitizer-out); a short summary per tool is printed last.
# SANITIZER_TIMEOUT=SECONDS bounds each tool (exit 124 when it runs out).
#   bash scripts/compute-sanitizer.sh [OPTIONS] [TEST_GPU_BINARY] [DOCTEST FILTERS...]
#
# Groups, for tools too slow for the whole tier at once (racecheck): each
# tool then runs once per group, each run bounded by --group-timeout, with one
# summary line per group, so the tier can be covered in chunks of a few
# minutes of GPU time:
#   --tool NAME          run only this tool (repeatable; default: all three)
#   --by-file            one group per tests/gpu source file (doctest -sf)
#   --file NAME          a group of the tests of tests/gpu/NAME.cpp (repeatable)
#   --test-case PATTERN  a group of the test cases matching a doctest -tc
#                        pattern, e.g. '*HRPB*' (repeatable)
#   --group-timeout S    seconds per group run (default: SANITIZER_TIMEOUT or none)
#   --jobs N             run N (tool, group) runs at once (default 1): the
#                        sanitizers are bound by host-side instrumentation,
#                        so several share one GPU well; tests use their own
#                        temporary folders
#   --list               print the groups and their test cases, run nothing
# e.g. bash scripts/compute-sanitizer.sh --tool racecheck --group-timeout 120 \
#        --file hrpb_spmm_test --file sparse_ops_test
set -uo pipefail
cd "$(dirname "$0")/.."
# The graph_io tests' 1M-edge graphs take over 8 minutes per test case under
# memcheck; a smaller hub-row graph stands in (tests/graph_io/random_graphs.hpp).
export SGNN_TEST_GRAPHS=${SGNN_TEST_GRAPHS:-small}

tools=()
groups=()  # doctest filter arguments, one group each
by_file=0
list=0
group_timeout=${SANITIZER_TIMEOUT:-0}
jobs=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --tool) tools+=("$2"); shift 2 ;;
    --by-file) by_file=1; shift ;;
    --file) groups+=("-sf=*/$2.c*"); shift 2 ;;
    --test-case) groups+=("-tc=$2"); shift 2 ;;
    --group-timeout) group_timeout=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --list) list=1; shift ;;
    --help|-h) sed -n '2,24p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "compute-sanitizer.sh: --jobs needs a positive whole number, got '$jobs'" >&2; exit 2; }
[[ ${#tools[@]} -gt 0 ]] || tools=(memcheck racecheck initcheck)
for tool in "${tools[@]}"; do
  case "$tool" in memcheck|racecheck|initcheck|synccheck) ;; *) echo "unknown tool: $tool" >&2; exit 2 ;; esac
done
if [[ $by_file -eq 1 ]]; then
  for source in tests/gpu/*.cpp tests/gpu/*.cu; do
    [[ -e $source ]] || continue
    name=$(basename "$source")
    groups+=("-sf=*/${name%.*}.c*")
  done
fi
binary=${1:-build/tests/test_gpu}
shift || true
# The script's own options come before the binary; after it they would
# reach doctest, which ignores what it does not know, and the run would
# silently become the whole tier under every tool.
for argument in "$@"; do
  case "$argument" in
    --tool|--by-file|--file|--test-case|--group-timeout|--jobs|--list)
      echo "compute-sanitizer.sh: $argument comes after the test binary ($binary); put this script's options first:" \
        "bash scripts/compute-sanitizer.sh [OPTIONS] [TEST_GPU_BINARY] [DOCTEST FILTERS...]" >&2
      exit 2 ;;
  esac
done
out=${OUT:-compute-sanitizer-out}
mkdir -p "$out"

summary_of() {  # log file -> "sanitizer summary | doctest counts"
  echo "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$1" | tail -n 1) | $(grep -E 'test cases:' "$1" | tail -n 1)"
}

if [[ ${#groups[@]} -eq 0 ]]; then  # the whole tier per tool, as always
  for tool in "${tools[@]}"; do
    timeout "${SANITIZER_TIMEOUT:-0}" compute-sanitizer --tool "$tool" --error-exitcode 99 "$binary" "$@" > "$out/$tool.log" 2>&1
    echo "$tool: exit $? | $(summary_of "$out/$tool.log")"
  done
  exit 0
fi

if [[ $list -eq 1 ]]; then
  for group in "${groups[@]}"; do
    echo "== $group"
    "$binary" "$group" "$@" --list-test-cases 2>&1 | grep -vE '^\[doctest\]|^=+$|^$'
  done
  exit 0
fi

label_of() { printf '%s-%s' "$1" "$(printf '%s' "${2#-??=}" | tr -c 'A-Za-z0-9_.-' '_')"; }

run_group() {  # tool group: one sanitizer run; its exit status and seconds go to $out/LABEL.status
  local label log start
  label=$(label_of "$1" "$2")
  log="$out/$label.log"
  start=$SECONDS
  timeout "$group_timeout" compute-sanitizer --tool "$1" --error-exitcode 99 "$binary" "$2" "${doctest_args[@]}" \
    > "$log" 2>&1
  echo "$? $((SECONDS - start))" > "$out/$label.status"
}

doctest_args=("$@")
for tool in "${tools[@]}"; do
  for group in "${groups[@]}"; do
    while [[ $(jobs -rp | wc -l) -ge $jobs ]]; do wait -n; done
    run_group "$tool" "$group" &
  done
done
wait

clean=0 failed=0 timed_out=0
for tool in "${tools[@]}"; do
  for group in "${groups[@]}"; do
    label=$(label_of "$tool" "$group")
    read -r status seconds < "$out/$label.status"
    if [[ $status -eq 124 ]]; then
      timed_out=$((timed_out + 1))
      echo "$tool $group: TIMED OUT after ${seconds}s (limit ${group_timeout}s) | $(summary_of "$out/$label.log")"
    else
      if [[ $status -eq 0 ]]; then clean=$((clean + 1)); else failed=$((failed + 1)); fi
      echo "$tool $group: exit $status in ${seconds}s | $(summary_of "$out/$label.log")"
    fi
  done
done
echo "groups: $clean clean, $failed failed, $timed_out timed out (logs in $out)"
[[ $failed -eq 0 && $timed_out -eq 0 ]]
