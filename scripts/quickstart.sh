#!/usr/bin/env bash
# Installs what is missing, builds the library and the programs (not the
# tests, benchmarks or fuzz targets: scripts/test.sh builds those into the
# same ./build; without a visible GPU, not the CUDA backend either), and trains GCN on Cora with the paper's settings: on the GPU
# when the build has the CUDA backend and a GPU is visible, else on the CPU.
# Writes quickstart-gcn.json and quickstart-gcn.svg (loss and accuracy per
# epoch) into ./build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# Without a visible GPU the CUDA backend could not run here, and it is 40 % of
# the build on 2 cores: build the CPU backend only (scripts/test.sh and
# scripts/build.sh build the CUDA backend again wherever a toolkit is found).
backend=()
if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  gpu=yes
else
  gpu=no
  backend=(-DSGNN_CUDA=OFF)
  echo "quickstart: no GPU visible, building the CPU backend only"
fi
bash scripts/build.sh -DSGNN_BUILD_TESTS=OFF -DSGNN_BUILD_BENCH=OFF "${backend[@]}"
device=cpu
if [ "$gpu" = yes ] && grep -q '^SGNN_CUDA:BOOL=ON' build/CMakeCache.txt; then
  device=cuda
fi
echo "quickstart: training GCN on cora ($device)"
build/examples/train_gcn --dataset cora --device "$device" \
  --out build/quickstart-gcn.json --plot build/quickstart-gcn.svg
echo "quickstart: results in build/quickstart-gcn.json, curves in build/quickstart-gcn.svg"
