#!/usr/bin/env bash
# Installs what is missing, builds everything (the tests and benchmarks too,
# also in a ./build that scripts/quickstart.sh configured without them), and
# runs the whole test suite: the CPU tier everywhere, the GPU tier where a GPU
# is visible (reported as skipped elsewhere).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# -USGNN_CUDA: the CUDA backend as build.sh decides it (on where a toolkit is
# found), also after a quickstart that built the CPU backend alone.
bash scripts/build.sh -USGNN_CUDA -DSGNN_BUILD_TESTS=ON -DSGNN_BUILD_BENCH=ON "$@"
ctest --test-dir build --output-on-failure -j"$(nproc)"
