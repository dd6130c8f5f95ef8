#!/usr/bin/env bash
# Copies what a GPU machine needs from a local build into .gpu/ (git-ignored,
# one device carry of at most 64 MiB): every test, benchmark and example
# program, stripped, under .gpu/build/{tests,bench,examples}; libsparsegnn.so
# under .gpu/build/lib, where the programs' RPATH ($ORIGIN/../lib) finds it;
# OpenMPI's libraries under .gpu/lib, when the build has MPI (libsparsegnn.so
# loads libmpi, so every program needs them on a machine without OpenMPI:
# gpu-check.sh puts .gpu/lib on LD_LIBRARY_PATH; run a program by hand with
# LD_LIBRARY_PATH=.gpu/lib); and the bundled datasets under .gpu/build/share
# (where the programs look for them).
# On the GPU machine: bash scripts/gpu-check.sh --build .gpu/build
#
#   bash scripts/stage-gpu.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
rm -rf .gpu  # only what this script stages
for folder in tests bench examples; do
  mkdir -p ".gpu/build/$folder"
  [ -d "$build/$folder" ] || continue  # e.g. a build without benchmarks
  find "$build/$folder" -maxdepth 1 -type f -perm -u+x -exec cp {} ".gpu/build/$folder/" \;
done
# The library under the name the programs ask for (its SONAME), as a plain
# file: symbolic links do not travel with a carry.
mkdir -p .gpu/build/lib
soname=$(readelf -d "$build/lib/libsparsegnn.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
cp -L "$build/lib/$soname" ".gpu/build/lib/$soname"
if [ -x .gpu/build/examples/train_gcn_distributed ]; then
  mkdir -p .gpu/lib
  ldd .gpu/build/examples/train_gcn_distributed | awk '$3 ~ /(mpi|open-rte|open-pal|hwloc|event|pmix)/ {print $3}' \
    | xargs -r -I{} cp -L {} .gpu/lib/
fi
find .gpu -type f \( -perm -u+x -o -name '*.so*' \) -exec strip --strip-debug {} \; 2>/dev/null || true
cp -r "$build/share" .gpu/build/share
# Without the processed copies the first loads wrote there (tens of MiB; rebuilt on first use).
rm -rf .gpu/build/share/sparsegnn/datasets/*/processed
du -sh .gpu
megabytes=$(du -sm .gpu | cut -f1)
if [ "$megabytes" -gt 64 ]; then
  echo "stage-gpu: .gpu holds $megabytes MiB, more than one 64 MiB device carry" >&2
  exit 1
fi
