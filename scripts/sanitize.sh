#!/usr/bin/env bash
# The CPU test tier under AddressSanitizer + UndefinedBehaviorSanitizer
# (CMake preset `sanitize`, CPU-only build in build-sanitize/).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset sanitize
cmake --build --preset sanitize -j"$(nproc)"
ctest --preset sanitize -j"$(nproc)"
