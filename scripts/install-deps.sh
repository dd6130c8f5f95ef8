#!/usr/bin/env bash
# Installs the Debian packages sparsegnn builds with (idempotent: installs
# only what is missing). Needs root or sudo. The CUDA toolkit is not
# installed here: with it present the CUDA backend is built, without it a
# CPU-only library.
set -euo pipefail

packages=(
  build-essential cmake ccache pkg-config
  doctest-dev          # tests
  libboost-graph-dev   # reordering, components (header-only parts)
  libcli11-dev         # command-line flags of the programs
  python3              # end-to-end test of the example programs, result scripts
  python3-numpy        # sgnn_predict test: loads the .npy outputs as a NumPy user does
  zlib1g-dev           # gzip-compressed datasets
  libcurl4-openssl-dev # sgnn_data: dataset downloads over HTTPS
  libarchive-dev       # sgnn_data: unpacking OGB's zip archives
  libssl-dev           # sgnn_data: SHA-256 of downloads (libcrypto)
  libthrust-dev        # Thrust for the CPU-only build without a CUDA toolkit
  clang libclang-rt-14-dev  # libFuzzer targets and sanitizers
  libomp-dev           # OpenMP for the clang (fuzzing) build
  libopenmpi-dev openmpi-bin  # multi-process training (mpirun), its CPU-tier tests
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

run_as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  run_as_root=(sudo)
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${run_as_root[@]}" apt-get update -qq
"${run_as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
