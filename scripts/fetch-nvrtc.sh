#!/usr/bin/env bash
# Fetches NVIDIA's NVRTC (the CUDA runtime compiler, a PyPI wheel of about
# 90 MB) into DIR (default target/nvrtc) and prints the library's path, for
# the test that compiles the GPU kernel with a real NVRTC on a machine with
# no GPU (tests/suite/gpu/tooling.rs, `NQUEENS_TEST_NVRTC`). Needs python3 with pip.
set -euo pipefail
dir=${1:-target/nvrtc}
version=12.9.86
library="$dir/nvidia/cuda_nvrtc/lib/libnvrtc.so.12"
if [ ! -f "$library" ]; then
    mkdir -p "$dir"
    python3 -m pip download --quiet --no-deps --only-binary=:all: \
        --platform manylinux2014_x86_64 --python-version 3.11 \
        "nvidia-cuda-nvrtc-cu12==$version" -d "$dir" >&2
    python3 -m zipfile -e "$dir"/nvidia_cuda_nvrtc_cu12-"$version"-*.whl "$dir"
fi
echo "$library"
