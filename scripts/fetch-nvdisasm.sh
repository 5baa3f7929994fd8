#!/usr/bin/env bash
# Fetches NVIDIA's nvdisasm (the SASS disassembler, a PyPI wheel of about
# 5 MB) into DIR (default target/nvrtc) and prints its path, for
# scripts/gpu-sass.py and the test that reads the kernel's machine code on
# a machine with no GPU (tests/suite/gpu/tooling.rs, `NQUEENS_TEST_NVDISASM`).
# Needs python3 with pip.
set -euo pipefail
dir=${1:-target/nvrtc}
version=13.5.37
tool="$dir/nvidia/cu13/bin/nvdisasm"
if [ ! -f "$tool" ]; then
    mkdir -p "$dir"
    python3 -m pip download --quiet --no-deps --only-binary=:all: \
        --platform manylinux2014_x86_64 --python-version 3.11 \
        "nvidia-cuda-nvdisasm==$version" -d "$dir" >&2
    python3 -m zipfile -e "$dir"/nvidia_cuda_nvdisasm-"$version"-*.whl "$dir"
fi
chmod +x "$tool"
echo "$tool"
