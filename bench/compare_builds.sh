#!/usr/bin/env bash
# Before/after timing of the HRPB SpMM kernels of two builds on one GPU, in
# one call: bench_hrpb of each build runs alternately, ROUNDS times each (so
# that clocks, temperature and neighbours weigh on both alike), and a table
# gives per case (graph, width) the median over rounds of each build's
# median time, for TF32, BF16 and BF16 by 16-byte copies, with after ÷
# before; a case slower by more than --tolerance (default 2 %) is marked.
#
#   bash bench/compare_builds.sh BEFORE AFTER [--rounds N] [--tolerance PERCENT] [--out DIR] [-- BENCH_HRPB_ARGS...]
#
# BEFORE and AFTER are build folders as scripts/stage-gpu.sh stages them
# (bench/bench_hrpb and lib/ inside; OpenMPI's libraries, when staged, in
# ../lib beside them), e.g. two stagings renamed .gpu-before and .gpu-after:
#   bash bench/compare_builds.sh .gpu-before/build .gpu-after/build -- --quick
# Arguments after -- go to both bench_hrpb runs (--quick, --graph, --width,
# --runs, --dataset). The raw tables stay in --out (default $OUT, else
# compare-builds-out). Exit status 1 when a case is slower than the tolerance.
set -uo pipefail

if [ $# -lt 2 ]; then
  sed -n '2,18p' "$0" >&2
  exit 2
fi
before=$1
after=$2
shift 2
rounds=3
tolerance=2
out=${OUT:-compare-builds-out}
bench_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --tolerance) tolerance=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; bench_args=("$@"); break ;;
    *) echo "compare_builds: unknown argument $1" >&2; exit 2 ;;
  esac
done
for build in "$before" "$after"; do
  if [ ! -x "$build/bench/bench_hrpb" ]; then
    echo "compare_builds: $build/bench/bench_hrpb is not there (stage the build with scripts/stage-gpu.sh)" >&2
    exit 2
  fi
done
mkdir -p "$out"

# One run of one build's bench_hrpb, its table in $out/<label>-<round>.md.
run() {
  local build=$1 label=$2 round=$3
  local libraries=$build/lib
  [ -d "$build/../lib" ] && libraries=$libraries:$build/../lib
  echo "compare_builds: round $round, $label ($build)" >&2
  if ! LD_LIBRARY_PATH="$libraries${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
      "$build/bench/bench_hrpb" "${bench_args[@]}" --markdown "$out/$label-$round.md" > "$out/$label-$round.log" 2>&1; then
    echo "compare_builds: bench_hrpb of $label failed (round $round); its output:" >&2
    tail -20 "$out/$label-$round.log" >&2
    exit 1
  fi
}

for round in $(seq 1 "$rounds"); do
  # Alternate which build goes first, so that neither always runs on a cold or a warm GPU.
  if [ $((round % 2)) -eq 1 ]; then
    run "$before" before "$round"
    run "$after" after "$round"
  else
    run "$after" after "$round"
    run "$before" before "$round"
  fi
done

python3 - "$out" "$rounds" "$tolerance" <<'PYTHON'
import statistics
import sys

out, rounds, tolerance = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
KERNELS = ["HRPB TF32 ms", "HRPB BF16 ms", "HRPB BF16 copies ms"]


def read_table(path):
    """{(graph, width): {kernel: ms}} from bench_hrpb's markdown tables."""
    cases, header = {}, None
    for line in open(path):
        if not line.startswith("|"):
            header = None if not line.strip() else header
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if cells[0] == "graph":
            header = cells
            continue
        if header is None or set(cells[0]) <= set("-"):
            continue
        row = dict(zip(header, cells))
        times = {}
        for kernel in KERNELS:
            try:
                times[kernel] = float(row[kernel])
            except (KeyError, ValueError):  # "—": no second staging at this width
                pass
        cases[(row["graph"], int(row["width"]))] = times
    return cases


runs = {label: [read_table(f"{out}/{label}-{r}.md") for r in range(1, rounds + 1)] for label in ("before", "after")}
keys = [key for key in runs["before"][0] if all(key in table for tables in runs.values() for table in tables)]
slower = 0
print(f"median over {rounds} rounds of each build's median (ms); after / before; '<<' marks > {tolerance:g} % slower\n")
print("| graph | width | " + " | ".join(f"{k[:-3]} before | after | ratio" for k in KERNELS) + " |")
print("|---|---|" + "---|---|---|" * len(KERNELS))
for key in keys:
    cells = []
    for kernel in KERNELS:
        values = {label: [t[key][kernel] for t in runs[label] if kernel in t[key]] for label in runs}
        if not values["before"] or not values["after"]:
            cells.append("— | — | —")
            continue
        b, a = statistics.median(values["before"]), statistics.median(values["after"])
        ratio = a / b
        mark = " <<" if ratio > 1 + tolerance / 100 else ""
        slower += bool(mark)
        cells.append(f"{b:.4f} | {a:.4f} | {ratio:.3f}{mark}")
    print(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")
print(f"\n{slower} kernel timings slower by more than {tolerance:g} %")
sys.exit(1 if slower else 0)
PYTHON
