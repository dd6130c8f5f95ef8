#!/usr/bin/env bash
# Installs what is missing, builds the library and the programs (not the
# tests, benchmarks or fuzz targets: scripts/test.sh builds those into the
# same ./build), and trains GCN on Cora with the paper's settings: on the GPU
# when the build has the CUDA backend and a GPU is visible, else on the CPU.
# Writes quickstart-gcn.json and quickstart-gcn.svg (loss and accuracy per
# epoch) into ./build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh -DSGNN_BUILD_TESTS=OFF -DSGNN_BUILD_BENCH=OFF
device=cpu
if grep -q '^SGNN_CUDA:BOOL=ON' build/CMakeCache.txt && command -v nvidia-smi >/dev/null \
    && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  device=cuda
fi
echo "quickstart: training GCN on cora ($device)"
build/examples/train_gcn --dataset cora --device "$device" \
  --out build/quickstart-gcn.json --plot build/quickstart-gcn.svg
echo "quickstart: results in build/quickstart-gcn.json, curves in build/quickstart-gcn.svg"
