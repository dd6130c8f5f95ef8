#!/usr/bin/env bash
# Configures and builds sparsegnn into ./build (CUDA backend when a CUDA
# toolkit is found). Extra arguments go to CMake, e.g. -DSGNN_CUDA=OFF.
set -euo pipefail
cd "$(dirname "$0")/.."
# nvcc finds no toolkit on PATH on a fresh machine; the toolkit's usual place.
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build -j"$(nproc)"
