#!/bin/sh
# Builds bench/cuda/cupti_dram (CUDA; never part of the meson build, which needs no CUDA).
# Usage: bench/cuda/build.sh BUILD_DIR OUT_DIR  (BUILD_DIR holds src/libperfq.so)
set -eu
build=${1:-build} out=${2:-$build/bench/cuda}
mkdir -p "$out"
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
rel=$(realpath --relative-to="$out" "$build/src")
"$nvcc" -O2 -arch=sm_90 -Iinclude -o "$out/cupti-dram" bench/cuda/cupti_dram.cu \
    -L"$build/src" -lperfq -Xlinker -rpath -Xlinker "\$ORIGIN/$rel"
