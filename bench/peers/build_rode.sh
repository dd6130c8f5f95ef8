#!/usr/bin/env bash
# Builds rode_driver (bench/peers/rode_driver.cu, ours) with RoDe's SpMM and
# SDDMM kernels and its matrix utilities, compiled from a RoDe source folder
# outside this repository (https://github.com/CRAFT-THU/RoDe; no RoDe code is
# part of this project), for the H100/H200 (sm_90), with RoDe's own flags
# (-O3 --use_fast_math). RoDe's matrix utilities name Abseil and glog only to
# make random test matrices and to check arguments: bench/peers/rode_compat
# stands in for both, so the build needs nothing but the CUDA toolkit. The
# program is linked against the static CUDA runtime and libstdc++, so a GPU
# machine needs only the driver.
#
#   bash bench/peers/build_rode.sh RODE_SOURCE_DIR OUT_DIR    (nvcc on PATH, or NVCC=...)
#
# Writes OUT_DIR/rode_driver (the objects go to a temporary folder).
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: build_rode.sh RODE_SOURCE_DIR OUT_DIR" >&2
  exit 2
fi
rode=$(cd "$1" && pwd)
out=$2
here=$(cd "$(dirname "$0")" && pwd)
nvcc=${NVCC:-nvcc}
for source in RoDe_SpMM/RoDeSpmm.cu RoDe_SDDMM/RoDeSddmm.cu utils/matrix_utils.cu; do
  [ -f "$rode/$source" ] || { echo "build_rode: $rode has no $source (not a RoDe checkout?)" >&2; exit 1; }
done
mkdir -p "$out"
objects=$(mktemp -d)
trap 'wait; rm -rf "$objects"' EXIT  # after any compile still running
flags=(-O3 -std=c++17 --use_fast_math -gencode arch=compute_90,code=sm_90
       -isystem "$here/rode_compat" -isystem "$rode/utils" -isystem "$rode/RoDe_SpMM" -isystem "$rode/RoDe_SDDMM")
# RoDe's files with RoDe's -w (its CMakeLists); ours with warnings on (RoDe's headers are
# system headers there). Two at a time; a failed compile stops the script (wait PID).
compile() { "$nvcc" "${flags[@]}" "$@"; }
compile -w -c "$rode/RoDe_SpMM/RoDeSpmm.cu" -o "$objects/RoDeSpmm.o" & spmm=$!
compile -w -c "$rode/RoDe_SDDMM/RoDeSddmm.cu" -o "$objects/RoDeSddmm.o" & sddmm=$!
wait "$spmm"; wait "$sddmm"
compile -w -c "$rode/utils/matrix_utils.cu" -o "$objects/matrix_utils.o" & utilities=$!
compile -Xcompiler=-Wall,-Wextra -c "$here/rode_driver.cu" -o "$objects/rode_driver.o" & driver=$!
wait "$utilities"; wait "$driver"
"$nvcc" -gencode arch=compute_90,code=sm_90 -cudart static -Xcompiler=-static-libstdc++,-static-libgcc \
  -o "$out/rode_driver" "$objects/rode_driver.o" "$objects/RoDeSpmm.o" "$objects/RoDeSddmm.o" \
  "$objects/matrix_utils.o"
strip "$out/rode_driver"
ls -l "$out/rode_driver"
