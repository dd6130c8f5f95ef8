#!/usr/bin/env bash
# CPU tier: installs this build into a temporary prefix, builds
# examples/external_project against it with find_package(sparsegnn), and runs
# it (a few epochs of GCN on the Cora the install bundles), linked against
# libsparsegnn.so and against the static libraries.
#   external_project_test.sh <build dir> <source dir>
set -euo pipefail
build="$1"
source_dir="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
cmake -S "$source_dir/examples/external_project" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" -j2 >"$work/build.log" || { cat "$work/build.log"; exit 1; }
cora="$work/prefix/share/sparsegnn/datasets/cora"
[ -f "$cora/raw/edge.csv.gz" ] || { echo "the install has no bundled Cora at $cora"; exit 1; }
"$work/build/train_cora" "$cora" 20 | tee "$work/run.log"
grep -q "GCN on .*cora: test accuracy" "$work/run.log"
# Both targets of the package: the shared library and the static ones give the same run.
ldd "$work/build/train_cora" | grep "libsparsegnn.so" > /dev/null || { echo "train_cora does not load libsparsegnn.so"; exit 1; }
if ldd "$work/build/train_cora_static" | grep "libsparsegnn.so" > /dev/null; then
  echo "train_cora_static loads libsparsegnn.so"
  exit 1
fi
"$work/build/train_cora_static" "$cora" 20 >"$work/static.log"
cmp "$work/run.log" "$work/static.log" || { echo "the static build ran differently:"; cat "$work/static.log"; exit 1; }
