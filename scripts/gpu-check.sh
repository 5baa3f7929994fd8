#!/usr/bin/env bash
# The GPU device check (docs/gpu.md): on a machine with an NVIDIA GPU, with
# a binary built elsewhere (`cargo build --release --features gpu`; the
# machine needs no Rust), in a few minutes on an H100 or H200:
#   1. the GPU and driver;
#   2. N = 16..20 on the GPU alone, each against the published value;
#   3. N = 20 on the GPU beside the host's cores, exact;
#   4. a sample of N = 26 and N = 28 tasks timed on the GPU, a few of them on
#      one CPU thread too (counts compared): GPU-days for the whole plan,
#      the ratio to a core, peak GPU memory, pairs decided a second;
#   5. a few N = 26 tasks with the host's half boards (the first design);
#   6. a few N = 26 tasks matched by the bucket walk (the first matcher,
#      NQUEENS_GPU_MATCHER=buckets), the buckets' cut bits capped at 12
#      (the default) and at 16: fewer pairs decided, more patterns a warp;
#   7. the same tasks with the buckets' keys bit-sliced (the sliced walk,
#      the default), at the same caps;
# and writes gpu-check.md and gpu-check.json (and each step's raw output)
# into DIR.
#
# Usage: scripts/gpu-check.sh [DIR] [BINARY]
#   DIR     where the tables go [default: $OUT, else ./gpu-check]
#   BINARY  the nqueens binary [default: target/release/nqueens]
# Sizes (the defaults fit about 4 minutes on an H200 as measured on
# 2026-12-04, docs/gpu.md; N = 21 to 23 are bound by a round trip a task
# until tasks are batched): GPU_CHECK_ALONE (the N counted on the GPU
# alone, default 16..20), GPU_CHECK_BESIDE (default 20), GPU_CHECK_26 /
# GPU_CHECK_28 (tasks timed, default 12 and 6; 0 skips), GPU_CHECK_CPU_26 / GPU_CHECK_CPU_28 (of those, also
# timed on one CPU thread, default 3 and 1), GPU_CHECK_HOST_26 (tasks of
# N = 26 timed with the host's half boards, default 4), GPU_CHECK_FEEDERS (host
# threads feeding the GPU in steps 2 and 3, default 8; step 3's counting
# threads are the other cores), GPU_CHECK_CUTS (the caps step 6 tries,
# default "12 16"; empty skips), GPU_CHECK_CUTS_TASKS (its tasks, default 8)
# and GPU_CHECK_CUTS_N (their N, default 26), GPU_CHECK_SLICED (the caps
# step 7 tries, on step 6's tasks, default "12 16"; empty skips),
# GPU_CHECK_SEED (the seed of every sample of tasks, default 1),
# GPU_CHECK_CPU_BESIDE (0 skips step 3's count on every core alone, which
# takes minutes from N = 22 on), GPU_CHECK_STEP_SECONDS (each command's time
# limit, default 150: a hang costs one step, not the whole check).
set -uo pipefail

dir=${1:-${OUT:-gpu-check}}
binary=${2:-${CARGO_TARGET_DIR:-target}/release/nqueens}
mkdir -p "$dir"
log="$dir/gpu-check.log"
: >"$log"
say() { echo "$@" | tee -a "$log"; }
started=$SECONDS
step_limit=${GPU_CHECK_STEP_SECONDS:-150}
# shellcheck source=gpu-steps.sh
. "$(dirname "$0")/gpu-steps.sh"

if [ ! -x "$binary" ]; then
    say "no binary at $binary: build it with cargo build --release --features gpu, then carry it"
    exit 1
fi
# NVRTC from the toolkit, where the loader does not know it.
if [ -z "${NQUEENS_NVRTC:-}" ] && ! ldconfig -p 2>/dev/null | grep -q 'libnvrtc\.so'; then
    for candidate in /usr/local/cuda/lib64/libnvrtc.so /usr/local/cuda*/lib64/libnvrtc.so* \
        /usr/local/cuda*/targets/x86_64-linux/lib/libnvrtc.so*; do
        if [ -e "$candidate" ]; then
            export NQUEENS_NVRTC=$candidate
            break
        fi
    done
fi

say "== 1. the GPU (at $((SECONDS - started)) s)"
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1 | tee -a "$log" "$dir/nvidia-smi.csv"
fi
say "NQUEENS_NVRTC=${NQUEENS_NVRTC:-unset, found by the loader}"
lscpu 2>/dev/null | grep -E '^(Model name|CPU\(s\)):' | tee -a "$log"

feeders=${GPU_CHECK_FEEDERS:-8}
cores=$(nproc)
threads=$((cores > feeders ? cores - feeders : 1))
say "== 2. N = ${GPU_CHECK_ALONE:-16..20} on the GPU alone, fed by $feeders host threads (at $((SECONDS - started)) s)"
limited "$binary" count "${GPU_CHECK_ALONE:-16..20}" --gpu --gpu-only --gpu-feeders "$feeders" --format csv --progress never \
    >"$dir/alone.csv" 2>>"$log"
alone_status=$?
cat "$dir/alone.csv" | tee -a "$log"

say "== 3. N = ${GPU_CHECK_BESIDE:-20} on the GPU ($feeders feeders) beside $threads CPU threads (at $((SECONDS - started)) s)"
limited "$binary" count "${GPU_CHECK_BESIDE:-20}" --gpu --gpu-feeders "$feeders" -j "$threads" --format csv --progress never \
    >"$dir/beside.csv" 2>>"$log"
beside_status=$?
cat "$dir/beside.csv" | tee -a "$log"
# The same N on every core alone, for the ratio.
if [ "${GPU_CHECK_CPU_BESIDE:-1}" != 0 ]; then
    limited "$binary" count "${GPU_CHECK_BESIDE:-20}" -j "$cores" --format csv --progress never \
        >"$dir/cpu.csv" 2>>"$log"
    cat "$dir/cpu.csv" | tee -a "$log"
fi

timing_status=0
seed=${GPU_CHECK_SEED:-1}
for n in 26 28; do
    if [ "$n" = 26 ]; then tasks=${GPU_CHECK_26:-12}; cpu=${GPU_CHECK_CPU_26:-3}; else tasks=${GPU_CHECK_28:-6}; cpu=${GPU_CHECK_CPU_28:-1}; fi
    [ "$tasks" -gt 0 ] || continue
    say "== 4. $tasks tasks of N = $n timed on the GPU, $cpu on one CPU thread (at $((SECONDS - started)) s)"
    limited "$binary" gpu "$n" --tasks "$tasks" --cpu-tasks "$cpu" --seed "$seed" --format json \
        >"$dir/time-$n.json" 2>>"$log" || timing_status=$?
    head -c 400 "$dir/time-$n.json" | tee -a "$log"
    echo | tee -a "$log"
done
# The first design (the host's half boards) on a few of the same tasks,
# to compare: GPU_CHECK_HOST_26 tasks (default 4; 0 skips).
host_tasks=${GPU_CHECK_HOST_26:-4}
if [ "$host_tasks" -gt 0 ]; then
    say "== 5. $host_tasks tasks of N = 26 with the host's half boards (at $((SECONDS - started)) s)"
    NQUEENS_GPU_BOARDS=host limited "$binary" gpu 26 --tasks "$host_tasks" --cpu-tasks 0 --seed "$seed" --format json \
        >"$dir/time-26-host.json" 2>>"$log" || timing_status=$?
fi
# The buckets' cut bits (NQUEENS_GPU_CUTS): the same tasks at each cap.
cut_tasks=${GPU_CHECK_CUTS_TASKS:-8}
cut_n=${GPU_CHECK_CUTS_N:-26}
for cuts in ${GPU_CHECK_CUTS-12 16}; do
    [ "$cut_tasks" -gt 0 ] || break
    say "== 6. $cut_tasks tasks of N = $cut_n with at most $cuts cut bits (at $((SECONDS - started)) s)"
    NQUEENS_GPU_MATCHER=buckets NQUEENS_GPU_CUTS=$cuts limited "$binary" gpu "$cut_n" --tasks "$cut_tasks" --cpu-tasks 0 --seed "$seed" --format json \
        >"$dir/time-cuts-$cuts.json" 2>>"$log" || timing_status=$?
done
# The sliced walk on the same tasks, at each cap.
for cuts in ${GPU_CHECK_SLICED-12 16}; do
    [ "$cut_tasks" -gt 0 ] || break
    say "== 7. $cut_tasks tasks of N = $cut_n sliced, at most $cuts cut bits (at $((SECONDS - started)) s)"
    NQUEENS_GPU_MATCHER=sliced NQUEENS_GPU_CUTS=$cuts limited "$binary" gpu "$cut_n" --tasks "$cut_tasks" \
        --cpu-tasks 0 --seed "$seed" --format json >"$dir/time-sliced-$cuts.json" 2>>"$log" || timing_status=$?
done

say "== tables (at $((SECONDS - started)) s)"
GPU_CHECK_SEED=$seed python3 - "$dir" <<'PY' 2>&1 | tee -a "$log"
import csv, json, os, sys
dir = sys.argv[1]
def rows(name):
    path = os.path.join(dir, name)
    try:
        with open(path) as f:
            return list(csv.DictReader(f))
    except OSError:
        return []
def load(name):
    try:
        with open(os.path.join(dir, name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None
summary = {"alone": [], "beside": None, "cpu": None, "timing": {},
           "seed": int(os.environ["GPU_CHECK_SEED"])}
for row in rows("alone.csv"):
    summary["alone"].append({
        "n": int(row["n"]), "solutions": int(row["solutions"]),
        "seconds": float(row["seconds"]),
        "exact": row["matches_published"] == "true",
        "solutions_per_second": int(row["solutions"]) / max(float(row["seconds"]), 1e-9),
    })
for key, name in (("beside", "beside.csv"), ("cpu", "cpu.csv")):
    for row in rows(name):
        summary[key] = {"n": int(row["n"]), "solutions": int(row["solutions"]),
                        "seconds": float(row["seconds"]), "threads": int(row["threads"]),
                        "exact": row["matches_published"] == "true"}
q = {26: 22317699616364044, 27: 234907967154122528, 28: 2.5e18}
for n in (26, 28):
    t = load(f"time-{n}.json")
    if not t:
        continue
    days = t["gpu_seconds"] / 86400
    per_sol = q[n] / max(t["gpu_seconds"], 1e-9)
    summary["timing"][n] = {
        "device": t["device"], "tasks_timed": len(t["timed"]), "tasks_in_plan": t["tasks_in_plan"],
        "gpu_days": days, "gpu_days_interval": [x / 86400 for x in t["gpu_interval"]],
        "solutions_per_second": per_sol,
        "core_days_one_cpu_thread": (t["cpu_seconds"] or 0) / 86400,
        "gpu_per_cpu_thread": t["gpu_per_cpu_thread"],
        "peak_gpu_bytes": t["peak_gpu_bytes"], "pairs_per_second": t["pairs_per_second"],
        "decided_share": t.get("decided_share"),
        "feeder_cpu_threads": t.get("feeder_cpu_threads"),
        "host_seconds": {k: t.get(k + "_seconds") for k in ("boards", "layout", "device")},
        "board_kernels": t.get("boards"),
    }
t = load("time-26-host.json")
if t:
    summary["host_boards_26"] = {"tasks_timed": len(t["timed"]), "gpu_days": t["gpu_seconds"] / 86400,
                                 "feeder_cpu_threads": t.get("feeder_cpu_threads")}
summary["cuts"] = {}
summary["sliced"] = {}
for name in sorted(os.listdir(dir)):
    for key in ("cuts", "sliced"):
        prefix = f"time-{key}-"
        if name.startswith(prefix) and name.endswith(".json"):
            t = load(name)
            if t:
                summary[key][name[len(prefix):-len(".json")]] = {
                    "n": t["n"], "tasks_timed": len(t["timed"]), "gpu_days": t["gpu_seconds"] / 86400,
                    "pairs_per_second": t["pairs_per_second"], "decided_share": t.get("decided_share")}
with open(os.path.join(dir, "gpu-check.json"), "w") as f:
    json.dump(summary, f, indent=1)
lines = ["# GPU check", ""]
device = next((t["device"] for t in summary["timing"].values()), "(see gpu-check.log)")
lines += [f"GPU: {device}", "", "| N | on | seconds | solutions/s | exact |", "|---|---|---|---|---|"]
for r in summary["alone"]:
    lines.append(f"| {r['n']} | GPU alone | {r['seconds']:.3f} | {r['solutions_per_second']:.3e} | {r['exact']} |")
for key, label in (("beside", "GPU + CPU threads"), ("cpu", "CPU threads alone")):
    r = summary[key]
    if r:
        lines.append(f"| {r['n']} | {label} ({r['threads']}) | {r['seconds']:.3f} | {r['solutions']/max(r['seconds'],1e-9):.3e} | {r['exact']} |")
lines += ["", "| N | tasks timed | GPU-days (95%) | solutions/s | one GPU = CPU threads | one feeder at most, CPU threads | peak GPU memory | pairs decided/s | share of pairs decided | host: boards / layout / driver |", "|---|---|---|---|---|---|---|---|---|---|"]
for n, t in summary["timing"].items():
    lo, hi = t["gpu_days_interval"]
    ratio = t["gpu_per_cpu_thread"]
    share = "-" if t["decided_share"] is None else f"{100 * t['decided_share']:.1f}%"
    feeder = t["feeder_cpu_threads"]
    host = t["host_seconds"]
    wall = sum(v or 0 for v in host.values()) or 1e-9
    split = " / ".join(f"{100 * (host[k] or 0) / wall:.0f}%" for k in ("boards", "layout", "device"))
    lines.append(f"| {n} | {t['tasks_timed']} of {t['tasks_in_plan']} | {t['gpu_days']:.1f} ({lo:.1f} to {hi:.1f}) | {t['solutions_per_second']:.3e} | {ratio if ratio is None else round(ratio, 2)} | {feeder if feeder is None else round(feeder, 2)} | {t['peak_gpu_bytes'] / 2**20:.0f} MiB | {t['pairs_per_second']:.3e} | {share} | {split} |")
lines += ["", "Half boards made by the board kernels alone against one CPU thread's glue, on the tasks the CPU timed:", "", "| N | half boards | GPU, boards/s | one CPU thread, boards/s | GPU / CPU thread | checked |", "|---|---|---|---|---|---|"]
for n, t in summary["timing"].items():
    b = t["board_kernels"]
    if b:
        gpu_rate = b["boards"] / max(b["gpu_seconds"], 1e-9)
        cpu_rate = b["boards"] / max(b["cpu_seconds"], 1e-9)
        lines.append(f"| {n} | {b['boards']} | {gpu_rate:.3e} | {cpu_rate:.3e} | {gpu_rate / max(cpu_rate, 1e-9):.1f} | {'keys' if b['keys_compared'] else 'counts'} |")
h = summary.get("host_boards_26")
if h:
    lines += ["", f"N = 26 with the host's half boards (the first design, `NQUEENS_GPU_BOARDS=host`): {h['gpu_days']:.1f} GPU-days for the plan from {h['tasks_timed']} tasks."]
if summary["cuts"] or summary["sliced"]:
    lines += ["", "The matchers (`NQUEENS_GPU_MATCHER`: the bucket walk, or its keys bit-sliced) with the cut bits capped (`NQUEENS_GPU_CUTS`), the same tasks each way:", "",
              "| N | matcher | cut bits at most | tasks | GPU-days for the plan | pairs decided/s | share of pairs decided |", "|---|---|---|---|---|---|---|"]
    for key, matcher in (("cuts", "buckets"), ("sliced", "sliced")):
        for cuts, t in sorted(summary[key].items(), key=lambda item: int(item[0])):
            share = "-" if t["decided_share"] is None else f"{100 * t['decided_share']:.2f}%"
            lines.append(f"| {t['n']} | {matcher} | {cuts} | {t['tasks_timed']} | {t['gpu_days']:.2f} | {t['pairs_per_second']:.3e} | {share} |")
with open(os.path.join(dir, "gpu-check.md"), "w") as f:
    f.write("\n".join(lines) + "\n")
print("\n".join(lines))
PY

say "== done in $((SECONDS - started)) s"
if [ "$alone_status" != 0 ] || [ "$beside_status" != 0 ] || [ "$timing_status" != 0 ]; then
    say "FAILED: alone $alone_status, beside $beside_status, timing $timing_status"
    exit 1
fi
