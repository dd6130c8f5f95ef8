#!/usr/bin/env bash
# Copies what a GPU machine needs from a local build into .gpu/ (git-ignored,
# small enough to ship): the stripped test, benchmark and example programs
# under .gpu/build/{tests,bench,examples}, and the bundled datasets under
# .gpu/build/share (where those programs look for them). On the GPU machine:
# bash scripts/gpu-check.sh --build .gpu/build
#
#   bash scripts/stage-gpu.sh [--multigpu] [BUILD_DIR]   (default: build)
# --multigpu stages what `gpu-check.sh --only tests,multigpu` runs instead
# (test_gpu, sgnn_gen, train_gcn_multigpu, bench_multigpu): all programs
# together exceed the 64 MiB carry limit.
set -euo pipefail
cd "$(dirname "$0")/.."
multigpu=0
if [ "${1:-}" = "--multigpu" ]; then multigpu=1; shift; fi
build=${1:-build}
rm -rf .gpu  # only what this script stages: the carry limit is 64 MiB
for folder in tests bench examples; do
  mkdir -p ".gpu/build/$folder"
  find "$build/$folder" -maxdepth 1 -type f -perm -u+x -exec cp {} ".gpu/build/$folder/" \;
done
# The CPU-tier programs stay behind: the device tool carries at most 64 MiB.
rm -f .gpu/build/tests/test_{core,ops,graph_io,training,distributed} .gpu/build/tests/sgnn_section_writer \
  .gpu/build/examples/{custom_dataset,sgnn_describe,walkthrough}
if [ "$multigpu" = 1 ]; then
  find .gpu/build/bench .gpu/build/examples -type f ! -name '*multigpu' ! -name sgnn_gen -delete
else
  rm -f .gpu/build/examples/train_gcn_multigpu .gpu/build/bench/bench_multigpu
fi
find .gpu/build -type f -perm -u+x -exec strip --strip-debug {} \; 2>/dev/null || true
cp -r "$build/share" .gpu/build/share
du -sh .gpu
