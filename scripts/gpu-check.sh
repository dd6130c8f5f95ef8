#!/usr/bin/env bash
# Runs the GPU test tier and the benchmarks on a GPU machine from a build
# folder made elsewhere (the GPU machine needs only the CUDA 13 runtime
# libraries), and prints a short table last.
#
#   bash scripts/gpu-check.sh [--build DIR] [--data DIR] [--out DIR] [--quick] [--skip-tests] [--only NAME[,NAME]]
#
# --build  build folder with tests/ and bench/ (default: build)
# --data   folder for the generated large graphs (default: data; Cora and
#          Citeseer come from the build's share/sparsegnn/datasets)
# --out    where logs and result files go (default: $OUT, else gpu-check-out)
# --quick  small graphs only (no Reddit-/products-scale cases)
# --only   run only these steps: tests, sparse, dense, hrpb, determinism, graph_io, training, precision,
#          multigpu, multiprocess
set -uo pipefail
cd "$(dirname "$0")/.."

build=build
data=data
out=${OUT:-gpu-check-out}
quick=0
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --only) only=$2; shift 2 ;;
    --skip-tests) only=${only:-sparse,dense,hrpb,determinism,graph_io,training,precision}; shift ;;
    *) echo "gpu-check: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
export SGNN_DATA=$data
# OpenMPI's libraries staged beside the programs (stage-gpu.sh), for machines without them.
[ -d "$build/../lib" ] && export LD_LIBRARY_PATH="$(cd "$build/../lib" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
summary="$out/summary.txt"
: > "$summary"

wanted() { [ -z "$only" ] || [[ ",$only," == *",$1,"* ]]; }

# step NAME COMMAND...: runs a step, logs it to $out/NAME.log, records pass/fail.
step() {
  local name=$1; shift
  local start=$SECONDS
  echo "=== $name: $*"
  "$@" > "$out/$name.log" 2>&1
  local rc=$?
  tail -n 25 "$out/$name.log"
  printf '%-28s %-6s %5ss  %s\n' "$name" "$([ $rc -eq 0 ] && echo ok || echo FAIL:$rc)" \
    "$((SECONDS - start))" "$out/$name.log" >> "$summary"
  return 0
}

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader \
  | tee "$out/device.txt"

if wanted tests; then
  step gpu-tests "$build/tests/test_gpu" --duration=false
  for layer in core ops graph_io training; do
    [ -x "$build/tests/test_$layer" ] && step "cpu-tests-$layer" "$build/tests/test_$layer"
  done
fi

size_flag=()
[ $quick -eq 1 ] && size_flag=(--quick)
if wanted sparse && [ -x "$build/bench/bench_sparse" ]; then
  step bench-sparse "$build/bench/bench_sparse" "${size_flag[@]}" --markdown "$out/bench_sparse.md"
fi
if wanted dense && [ -x "$build/bench/bench_dense" ]; then
  step bench-dense "$build/bench/bench_dense" "${size_flag[@]}" --markdown "$out/bench_dense.md"
fi
if wanted hrpb && [ -x "$build/bench/bench_hrpb" ]; then
  step bench-hrpb "$build/bench/bench_hrpb" "${size_flag[@]}" --markdown "$out/bench_hrpb.md"
fi
if wanted determinism && [ -x "$build/bench/bench_determinism" ]; then
  step bench-determinism "$build/bench/bench_determinism" "${size_flag[@]}" --markdown "$out/bench_determinism.md"
fi
if wanted graph_io && [ -x "$build/bench/bench_graph_io" ]; then
  step bench-graph-io "$build/bench/bench_graph_io" "${size_flag[@]}" --markdown "$out/bench_graph_io.md"
fi
if wanted training && [ -x "$build/examples/train_gcn" ]; then
  step bench-training python3 bench/compare_pyg.py --build "$build" --data "$data" --out "$out" "${size_flag[@]}"
fi
if wanted precision && [ -x "$build/examples/train_gcn" ]; then
  # BF16 against FP32 (issue 22): 10-seed accuracy on Cora/Citeseer, step time and memory on Reddit-scale.
  sets=accuracy,speed; [ $quick -eq 1 ] && sets=accuracy
  step bench-precision python3 bench/mixed_precision.py --build "$build" --data "$data" --out "$out" --sets "$sets"
fi
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
if wanted multigpu && [ -x "$build/bench/bench_multigpu" ] && [ "$gpus" -ge 2 ] && [ $quick -eq 0 ]; then
  # The graphs of issue 4's benchmark; GCN with hidden width 256 on both.
  for graph in reddit-scale products-scale; do
    [ -d "$data/$graph/raw" ] || "$build/examples/sgnn_gen" --out "$data/$graph" --no-gzip --preset "$graph" > /dev/null
    step "bench-multigpu-$graph" "$build/bench/bench_multigpu" --dataset "$data/$graph" --gpus "$gpus" --hidden 256 \
      --markdown "$out/bench_multigpu_$graph.md"
  done
fi

if wanted multiprocess && [ -x "$build/examples/train_gcn_distributed" ] && [ "$gpus" -ge 2 ]; then
  # One process per GPU (launcher-free NCCL) equals one GPU, and a failing rank ends the others.
  step multiprocess-tests bash tests/gpu/multiprocess_nccl_test.sh "$build" "$data"
  if [ $quick -eq 0 ]; then
    counts=1,2; [ "$gpus" -ge 4 ] && counts=1,2,4
    step bench-multiprocess python3 bench/multiprocess_scaling.py --build "$build" --data "$data" --gpus "$counts" \
      --markdown "$out/bench_multiprocess.md"
  fi
fi

echo
echo "=== gpu-check summary ($(head -n 1 "$out/device.txt"))"
cat "$summary"
for table in "$out"/*.md; do
  [ -f "$table" ] && { echo; echo "--- $(basename "$table")"; head -n 40 "$table"; }
done
