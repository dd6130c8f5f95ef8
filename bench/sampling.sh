#!/usr/bin/env bash
# The mini-batch benchmarks of issue 48 on a GPU machine: generates the
# products-scale and papers100M-scale presets once (into DATA), then runs
# bench_sampling (bandwidths, gathers, sampling, epoch times) and writes
# OUT/bench_sampling.md.
#
#   bench/sampling.sh --build BUILD --data DATA --out OUT [--quick] [--no-papers] [--feature-cache GIB]
#
# Times on one H200 with 16 cores (expected): products-scale generation
# about 1-2 min (R-MAT, CSV, then its first load writes the processed file),
# papers100M-scale generation a few minutes (about 42 GB written; it needs
# about 43 GB of host memory), bench_sampling about 3-5 min. Measured on the
# H200 (5823f4e): 17 s, 165 s and 175 s. The table becomes the `sampling`
# section of bench/RESULTS.md (and OUT/sampling.section.md).
set -euo pipefail
command_line="bash bench/sampling.sh $*"  # before the arguments are consumed
build=build
data=data
out=bench-out
quick=()
cache=()
papers=1
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --quick) quick=(--quick); shift ;;
    --no-papers) papers=0; shift ;;
    --feature-cache) cache=(--feature-cache "$2"); shift 2 ;;
    *) echo "bench/sampling.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$data" "$out"
if [ ! -d "$data/products-scale/raw" ]; then
  /usr/bin/time -f "generated products-scale in %e s (peak %M KB)" \
    "$build/examples/sgnn_gen" --out "$data/products-scale" --no-gzip --preset products-scale
fi
arguments=(--dataset "$data/products-scale" --markdown "$out/bench_sampling.md" "${quick[@]}" "${cache[@]}")
if [ $papers -eq 1 ]; then
  if [ ! -f "$data/papers100m-scale/processed/dataset.sgnn" ]; then
    df -h "$data" | tail -n 1
    /usr/bin/time -f "generated papers100m-scale in %e s (peak %M KB)" \
      "$build/examples/sgnn_gen" --out "$data/papers100m-scale" --preset papers100m-scale
  fi
  arguments+=(--papers "$data/papers100m-scale")
fi
/usr/bin/time -f "bench_sampling: %e s, peak host memory %M KB" "$build/bench/bench_sampling" "${arguments[@]}"
here=$(cd "$(dirname "$0")" && pwd)
body="$out/sampling-body.md"
{
  sed -n '/^|/,$p' "$out/bench_sampling.md" | grep -v '^| bandwidth '  # the baseline column holds them
  echo
  echo "GraphSAGE, 3 layers, hidden 256, fanout 15,10,5, batch 1024, the median of the epochs after the first;" \
    "products-scale trains ogbn-products' 196,615 seeds, papers100M-scale the preset's 1.2M (random labels)." \
    "No PyG figure: NeighborLoader needs pyg-lib or torch-sparse, which the GPU machine lacks." \
    "Host gathers: the GPU reads its share of the sorted ids over unified addressing, host threads copy the rest" \
    "into pinned staging carried by DMA (staging for the whole gather, or a ring of 48 MiB that stays in the CPU's" \
    "cache); the share is balanced per gather, and who reads (the GPU alone, both, the host threads alone into" \
    "either staging) is a timed choice whose trials the notes give (docs/sampling.md)." \
    "\"GPU alone\" and \"ids' order\": the GPU alone" \
    "in ascending id order and in the ids' order, same run."
} > "$body"
device=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1 | sed 's/, / (driver /; s/$/)/')
python3 "$here/support/results_section.py" --name sampling --title "Mini-batch training: sampling, gathers and epochs" \
  --command "$command_line" --out "$out" --body "$body" ${device:+--machine "$device"} \
  --baseline "cudaMemcpy host-to-device and device-to-device bandwidth measured by the same program (bench_sampling) in the same run"
