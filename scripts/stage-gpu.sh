#!/usr/bin/env bash
# Copies what a GPU machine needs from a local build into .gpu/ (git-ignored,
# small enough to ship): the stripped test, benchmark and example programs
# under .gpu/build/{tests,bench,examples}, and the citation datasets under
# data/. On the GPU machine: bash scripts/gpu-check.sh --build .gpu/build
#
#   bash scripts/stage-gpu.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
rm -rf .gpu/build
for folder in tests bench examples; do
  mkdir -p ".gpu/build/$folder"
  find "$build/$folder" -maxdepth 1 -type f -perm -u+x -exec cp {} ".gpu/build/$folder/" \;
done
find .gpu/build -type f -perm -u+x -exec strip --strip-debug {} \; 2>/dev/null || true
mkdir -p data
for name in cora citeseer; do
  [ -d "data/$name" ] || { [ -d "../shared/data/$name" ] && cp -r "../shared/data/$name" data/; } || true
done
du -sh .gpu data
