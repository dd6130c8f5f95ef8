#!/usr/bin/env bash
# CPU tier: installs this build into a temporary prefix (checked to name no
# CUDA toolkit path, and read-only from then on: loading its bundled datasets
# writes nothing there), builds
# examples/external_project against it with find_package(sparsegnn), and runs
# it (a few epochs of GCN on the Cora the install bundles), linked against
# libsparsegnn.so and against the static libraries, and once more against
# libsparsegnn.so with CMake seeing neither CUDA nor MPI; then its own model
# (skip-gcn, docs/extending.md) is trained, checkpointed, and predicted again
# by this build's sgnn_predict through the plugin, bit for bit; and a model
# of its own for mini-batch training trains on sampled neighbourhoods.
#   external_project_test.sh <build dir> <source dir>
set -euo pipefail
build="$1"
source_dir="$2"
work="$(mktemp -d)"
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
fail() { echo "external_project_test: $*" >&2; exit 1; }
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
# The exported targets name no path of the machine that built them (the CUDA toolkit's, for Thrust).
if grep -rn "/usr/local/cuda" "$work/prefix/lib/cmake/sparsegnn" >"$work/cuda-paths"; then
  fail "the package names the CUDA toolkit's path: $(cat "$work/cuda-paths")"
fi
# The prefix is read-only from here on (and never written into: a bundled dataset's processed file goes to
# the user cache folder, even for root, whom permissions do not stop).
chmod -R a-w "$work/prefix"
# What the prefix holds now, each entry with its modification time and size: compared after the runs below.
# (Not `find -newer install.log`: cmake writes its last log line before it installs the last file, so the
# folder holding that file can be a few microseconds newer than the log without anything written later.)
prefix_listing() { (cd "$work/prefix" && find . -printf '%p %T@ %s\n' | LC_ALL=C sort); }
prefix_listing >"$work/prefix-before"
export XDG_CACHE_HOME="$work/cache" XDG_DATA_HOME="$work/data"
unset SGNN_DATA
cmake -S "$source_dir/examples/external_project" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" -j2 >"$work/build.log" || { cat "$work/build.log"; exit 1; }
cora="$work/prefix/share/sparsegnn/datasets/cora"
[ -f "$cora/raw/edge.csv.gz" ] || { echo "the install has no bundled Cora at $cora"; exit 1; }
"$work/build/train_cora" "$cora" 20 | tee "$work/run.log"
grep -q "GCN on .*cora: test accuracy" "$work/run.log"
(cd "$work" && "$work/build/train_cora" cora 2 >"$work/by-name.log") || fail "train_cora cora: $(cat "$work/by-name.log")"
prefix_listing >"$work/prefix-after"
written="$(diff "$work/prefix-before" "$work/prefix-after" || true)"
[ -z "$written" ] || fail "loading the bundled datasets wrote into the install prefix: $written"
ls "$work/cache/sparsegnn/"processed-*.sgnn >/dev/null 2>&1 || fail "no processed dataset in the user cache folder"
# Both targets of the package: the shared library and the static ones give the same run.
ldd "$work/build/train_cora" | grep "libsparsegnn.so" > /dev/null || { echo "train_cora does not load libsparsegnn.so"; exit 1; }
if ldd "$work/build/train_cora_static" | grep "libsparsegnn.so" > /dev/null; then
  echo "train_cora_static loads libsparsegnn.so"
  exit 1
fi
"$work/build/train_cora_static" "$cora" 20 >"$work/static.log"
cmp "$work/run.log" "$work/static.log" || { echo "the static build ran differently:"; cat "$work/static.log"; exit 1; }

# A CPU-only package is found and used without the CUDA toolkit or MPI installed (both hidden from CMake here):
# libsparsegnn.so carries what it needs.
if grep -q "set(SPARSEGNN_WITH_CUDA OFF)" "$work/prefix/lib/cmake/sparsegnn/sparsegnnConfig.cmake"; then
  cmake -S "$source_dir/examples/external_project" -B "$work/bare" -DCMAKE_PREFIX_PATH="$work/prefix" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON \
    -DSPARSEGNN_EXAMPLE_STATIC=OFF >"$work/bare.log" 2>&1 || fail "find_package without CUDA and MPI: $(cat "$work/bare.log")"
  cmake --build "$work/bare" -j2 --target train_cora >>"$work/bare.log" 2>&1 || fail "build without CUDA and MPI: $(tail -n 20 "$work/bare.log")"
  "$work/bare/train_cora" "$cora" 2 >/dev/null || fail "train_cora built without CUDA and MPI did not run"
fi

# The model defined and registered outside the library (docs/extending.md):
# trained and checkpointed by its own program, rebuilt from the checkpoint by
# the library's sgnn_predict through the plugin, the predictions bit for bit.
plugin="$work/build/libskip_gcn.so"
[ -f "$plugin" ] || fail "no plugin at $plugin"
"$work/build/train_skip_gcn" "$cora" 15 "$work/skip.ckpt" "$work/trained.csv" >"$work/skip.log" \
  || fail "train_skip_gcn failed: $(cat "$work/skip.log")"
grep -q "skip-gcn on cora: test accuracy" "$work/skip.log" || fail "train_skip_gcn printed $(cat "$work/skip.log")"
cmp "$work/trained.csv" "$work/trained.csv.again.csv" || fail "run_prediction in the program predicted differently"
"$build/examples/sgnn_predict" --plugin "$plugin" --checkpoint "$work/skip.ckpt" --dataset "$cora" \
  --predictions "$work/predicted.csv" --embeddings "$work/embeddings.npy" >"$work/predict.log" \
  || fail "sgnn_predict --plugin failed: $(cat "$work/predict.log")"
cmp "$work/trained.csv" "$work/predicted.csv" || fail "sgnn_predict --plugin predicted differently from training"
grep -q "^skip-gcn 1433 -> 7 (hidden 32), row-normalize features, fp32" "$work/predict.log" \
  || fail "sgnn_predict described $(head -n1 "$work/predict.log")"
# sgnn_train lists and trains it from the plugin, its flags from the entry.
"$build/examples/sgnn_train" --plugin "$plugin" --list-models >"$work/models.txt"
grep -q "^skip-gcn  GCN with a root weight" "$work/models.txt" || fail "--list-models: $(cat "$work/models.txt")"
"$build/examples/sgnn_train" --plugin "$plugin" --model skip-gcn --dataset "$cora" --epochs 3 --hidden 8 --quiet \
  --print-json | tail -n1 | grep -q '"model":"skip-gcn"' || fail "sgnn_train --plugin did not train skip-gcn"
# A model of its own for mini-batch training (docs/extending.md, section 7), trained on sampled
# neighbourhoods through the library's mini-batch experiment.
"$work/build/train_max_block" "$cora" 3 >"$work/max-block.log" || fail "train_max_block failed: $(cat "$work/max-block.log")"
grep -q "max-block (mini-batch) on cora: test accuracy" "$work/max-block.log" \
  || fail "train_max_block printed $(cat "$work/max-block.log")"
# Refusals, each with its reason.
refused() {  # refused <pattern> <program> <args...>
  local pattern="$1"; shift
  if "$@" >"$work/refusal" 2>&1; then fail "'$*' succeeded, expected a refusal"; fi
  grep -q -- "$pattern" "$work/refusal" || fail "'$*' printed $(cat "$work/refusal"), expected '$pattern'"
}
refused 'unknown model "skip-gcn".*--plugin' "$build/examples/sgnn_predict" --checkpoint "$work/skip.ckpt" \
  --dataset "$cora" --predictions "$work/x.csv"
# Loaded a second time, the plugin registers nothing more.
refused "registers no model" "$build/examples/sgnn_predict" --plugin "$plugin" --plugin "$plugin" \
  --checkpoint "$work/skip.ckpt" --dataset "$cora" --predictions "$work/x.csv"
refused "cannot be loaded" "$build/examples/sgnn_predict" --plugin "$work/install.log" --checkpoint "$work/skip.ckpt" \
  --dataset "$cora" --predictions "$work/x.csv"
refused "cannot be loaded" "$build/examples/sgnn_train" --plugin "$work/missing.so" --model skip-gcn --dataset "$cora"
[ ! -e "$work/x.csv" ] || fail "a refused sgnn_predict left an output file"
echo "external_project_test: all passed"
