#!/usr/bin/env python3
"""The GPU kernels' machine code, read where no GPU is.

Compiles the kernel source as the program does (the settings' defines,
then the .cuh files device.rs's KERNEL_SOURCE joins, in its order) with a
real NVRTC for one architecture, disassembles the cubin with nvdisasm, and
prints for each matcher kernel its registers, its local-memory accesses
(spills), and each loop that counts bits: instructions and loads a block of
32 keys (a POPC is one block). The instructions a block bound what a GPU can
reach (docs/gpu.md, "The ceiling of this kernel's work").

    scripts/fetch-nvrtc.sh; scripts/fetch-nvrtc.sh target/nvrtc nvdisasm
    scripts/gpu-sass.py                     # sm_90, the default settings
    scripts/gpu-sass.py --arch sm_100 --define NQ_SLICED_UNROLL=4 --json

Defaults: NVRTC and nvdisasm where the fetch scripts put them (or
NQUEENS_NVRTC / NQUEENS_NVDISASM), the defines of the program's defaults
(NQUEENS_GPU_SLICED_BLOCKS=4, NQUEENS_GPU_SLICED_UNROLL=2, the warp walk).
"""
import argparse
import ctypes
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GPU_DIR = os.path.join(ROOT, "src/search/join/gpu")
KERNELS = ["nq_sliced_grid", "nq_tiled_grid"]
DEFAULT_DEFINES = ["NQ_SLICED_MIN_BLOCKS=4", "NQ_SLICED_UNROLL=2"]


def kernel_files():
    """The kernel's files in the order device.rs joins them (KERNEL_SOURCE)."""
    device = open(os.path.join(GPU_DIR, "device.rs")).read()
    start = device.index("KERNEL_SOURCE")
    files = re.findall(r'include_str!\("([^"]+)"\)', device[start:device.index(");", start)])
    if not files:
        sys.exit("error: no include_str! files in device.rs's KERNEL_SOURCE")
    return files


def compile_cubin(nvrtc_path, source, arch):
    nvrtc = ctypes.CDLL(nvrtc_path)
    program = ctypes.c_void_p()
    if nvrtc.nvrtcCreateProgram(ctypes.byref(program), source.encode(), b"nqueens.cu", 0, None, None):
        sys.exit("error: nvrtcCreateProgram failed")
    options = [b"--gpu-architecture=" + arch.encode(), b"--std=c++17", b"--ptxas-options=-v"]
    result = nvrtc.nvrtcCompileProgram(program, len(options), (ctypes.c_char_p * len(options))(*options))
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetProgramLogSize(program, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetProgramLog(program, log)
    log = log.value.decode()
    if result:
        sys.exit("error: NVRTC did not compile the kernels:\n" + log)
    nvrtc.nvrtcGetCUBINSize(program, ctypes.byref(size))
    cubin = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetCUBIN(program, cubin)
    registers = {}
    kernel = None
    for line in log.splitlines():
        if "Compiling entry function" in line:
            kernel = line.split("'")[1]
        found = re.search(r"Used (\d+) registers", line)
        if found and kernel:
            registers[kernel] = int(found.group(1))
            kernel = None
    return cubin.raw, registers


def kernel_lines(sass, kernel):
    lines = sass.split("\n")
    start = next((i for i, line in enumerate(lines) if line.startswith(".text." + kernel + ":")), None)
    if start is None:
        sys.exit(f"error: no kernel {kernel} in the disassembly")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith(".text.")), len(lines))
    return lines[start:end]


def is_instruction(line):
    return re.match(r"^\s*/\*[0-9a-f]{4,}\*/", line) is not None


def loops_of(body):
    """Each loop (a branch back to a label above it) that counts bits."""
    labels = {}
    for at, line in enumerate(body):
        found = re.match(r"^(\.L_x_\d+):", line)
        if found:
            labels[found.group(1)] = at
    spans = []
    for at, line in enumerate(body):
        found = re.search(r"BRA `\((\.L_x_\d+)\)", line)
        if found and labels.get(found.group(1), at) < at:
            spans.append((labels[found.group(1)], at))
    # Innermost loops only: a bucket's loop holds every block loop.
    inner = [(start, end) for start, end in spans
             if not any(start <= a and b <= end and (a, b) != (start, end) for a, b in spans)]
    loops = []
    for start, end in inner:
        code = [x for x in body[start:end + 1] if is_instruction(x)]
        popcounts = sum(" POPC " in x for x in code)
        if popcounts == 0:
            continue
        loads = sum(re.search(r"\bLDG\b", x) is not None for x in code)
        loops.append({
            "instructions": len(code),
            "loads": loads,
            "blocks": popcounts,
            "instructions_a_block": len(code) / popcounts,
            "loads_a_block": loads / popcounts,
        })
    return loops


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--define", action="append", default=None, metavar="NAME=VALUE",
                        help="a define before the source (replaces the defaults)")
    parser.add_argument("--nvrtc", default=os.environ.get(
        "NQUEENS_NVRTC", os.path.join(ROOT, "target/nvrtc/nvidia/cuda_nvrtc/lib/libnvrtc.so.12")))
    parser.add_argument("--nvdisasm", default=os.environ.get(
        "NQUEENS_NVDISASM", os.path.join(ROOT, "target/nvrtc/nvidia/cu13/bin/nvdisasm")))
    parser.add_argument("--json", action="store_true", help="print JSON, not a table")
    args = parser.parse_args()
    for path, fetch in [(args.nvrtc, "fetch-nvrtc.sh"), (args.nvdisasm, "fetch-nvrtc.sh target/nvrtc nvdisasm")]:
        if not os.path.exists(path):
            sys.exit(f"error: {path} does not exist (scripts/{fetch} fetches it)")
    defines = args.define if args.define is not None else DEFAULT_DEFINES
    source = "".join(f"#define {d.replace('=', ' ', 1)}\n" for d in defines)
    source += "".join(open(os.path.join(GPU_DIR, name)).read() for name in kernel_files())
    cubin, registers = compile_cubin(args.nvrtc, source, args.arch)
    with tempfile.NamedTemporaryFile(suffix=".cubin") as image:
        image.write(cubin)
        image.flush()
        done = subprocess.run([args.nvdisasm, "-c", image.name], capture_output=True, text=True)
    if done.returncode:
        sys.exit("error: nvdisasm failed: " + done.stderr.strip())
    report = {"arch": args.arch, "defines": defines, "kernels": {}}
    for kernel in KERNELS:
        body = kernel_lines(done.stdout, kernel)
        report["kernels"][kernel] = {
            "registers": registers.get(kernel),
            "local_accesses": sum(re.search(r"\b(LDL|STL)\b", x) is not None for x in body),
            "loops": loops_of(body),
        }
    if args.json:
        print(json.dumps(report, indent=1))
        return
    print(f"# {args.arch}, defines {' '.join(defines) or '(none)'}")
    for kernel, seen in report["kernels"].items():
        print(f"\n{kernel}: {seen['registers']} registers, {seen['local_accesses']} local-memory accesses")
        print("| loads a block | instructions a block | loop instructions | blocks a pass |")
        print("| --- | --- | --- | --- |")
        rows = sorted({(loop["loads_a_block"], loop["instructions_a_block"], loop["instructions"],
                        loop["blocks"]) for loop in seen["loops"]})
        for loads, instructions, loop_instructions, blocks in rows:
            print(f"| {loads:.1f} | {instructions:.1f} | {loop_instructions} | {blocks} |")


if __name__ == "__main__":
    main()
