#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite: the CPU
# tier everywhere, the GPU tier where a GPU is visible (reported as skipped
# elsewhere).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh "$@"
ctest --test-dir build --output-on-failure -j"$(nproc)"
