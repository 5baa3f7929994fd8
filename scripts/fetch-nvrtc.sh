#!/usr/bin/env bash
# Fetches one of NVIDIA's CUDA tools from its PyPI wheel into DIR (default
# target/nvrtc) and prints its path, for the tests that check the GPU
# kernel on a machine with no GPU (tests/suite/gpu/tooling.rs):
#   nvrtc (the default): the runtime compiler, about 90 MB, which compiles
#     the kernel (`NQUEENS_TEST_NVRTC`);
#   nvdisasm: the disassembler, about 5 MB, which reads the machine code
#     it makes (scripts/gpu-sass.py, `NQUEENS_TEST_NVDISASM`).
# Needs python3 with pip.
#
# Usage: scripts/fetch-nvrtc.sh [DIR] [nvrtc|nvdisasm]
set -euo pipefail
dir=${1:-target/nvrtc}
case ${2:-nvrtc} in
    nvrtc) wheel=nvidia_cuda_nvrtc_cu12 package=nvidia-cuda-nvrtc-cu12 version=12.9.86
        tool="$dir/nvidia/cuda_nvrtc/lib/libnvrtc.so.12" ;;
    nvdisasm) wheel=nvidia_cuda_nvdisasm package=nvidia-cuda-nvdisasm version=13.5.37
        tool="$dir/nvidia/cu13/bin/nvdisasm" ;;
    *) echo "usage: $0 [DIR] [nvrtc|nvdisasm]" >&2; exit 2 ;;
esac
if [ ! -f "$tool" ]; then
    mkdir -p "$dir"
    python3 -m pip download --quiet --no-deps --only-binary=:all: \
        --platform manylinux2014_x86_64 --python-version 3.11 \
        "$package==$version" -d "$dir" >&2
    python3 -m zipfile -e "$dir/$wheel-$version"-*.whl "$dir"
fi
# The wheel's zip keeps no file modes.
[ "${2:-nvrtc}" = nvrtc ] || chmod +x "$tool"
echo "$tool"
