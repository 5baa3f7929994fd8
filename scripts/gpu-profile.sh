#!/usr/bin/env bash
# What bounds the GPU join (docs/gpu.md), on a machine with an NVIDIA GPU
# and a binary built elsewhere (`cargo build --release --features gpu`), in
# about 6 minutes:
#   1. the matchers and their settings on the same N = 28 tasks (by
#      default the sliced walk, the tiled matcher, NQUEENS_GPU_MATCHER=tiles,
#      at two bucket sizes and 16 cut bits, and the first design's walk);
#   2. every kernel launch of one N = 26 task timed by Nsight Compute (ncu),
#      to split a task's GPU time between the kernels;
#   3. the matching kernel of one N = 28 task under ncu's sections (speed of
#      light, memory, occupancy, warp states, divergence);
#   4. N = 4..15 and 19..21 on the GPU alone, against the published values
#      (gpu-check.sh counts 16..21; this finishes the range where it ran out).
# Each step runs under a time limit (PROFILE_STEP_SECONDS, default 120) and
# the whole under PROFILE_SECONDS (default 460); the raw outputs and a
# summary go into DIR. PROFILE_SETTINGS lists step 1's settings (each
# "default" or VAR=VALUE[,VAR=VALUE...]; PROFILE_BINARY=PATH among them
# runs that binary instead, to time two builds on the same tasks),
# PROFILE_N and PROFILE_TASKS its sample; PROFILE_NCU_SETTING is the setting steps 2 and 3 run under
# (default none), PROFILE_NCU=0 skips them; PROFILE_ALONE lists step 4's
# ranges (counted with -m join), the last given whatever time is left,
# fed by PROFILE_FEEDERS host threads (default 4).
#
# Usage: scripts/gpu-profile.sh [DIR] [BINARY]
set -uo pipefail

dir=${1:-${OUT:-gpu-profile}}
binary=${2:-${CARGO_TARGET_DIR:-target}/release/nqueens}
mkdir -p "$dir"
log="$dir/profile.log"
: >"$log"
say() { echo "$@" | tee -a "$log"; }
started=$SECONDS
budget=${PROFILE_SECONDS:-460}
step_limit=${PROFILE_STEP_SECONDS:-120}
# shellcheck source=gpu-steps.sh
. "$(dirname "$0")/gpu-steps.sh"
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)

say "== 0. the machine (at $((SECONDS - started)) s)"
uname -r | tee -a "$log"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv 2>&1 | tee -a "$log"
say "ncu: ${ncu:-none}"

profile_n=${PROFILE_N:-28}
profile_tasks=${PROFILE_TASKS:-3}
say "== 1. the matcher's settings, $profile_tasks tasks of N = $profile_n (at $((SECONDS - started)) s)"
for setting in ${PROFILE_SETTINGS:-default NQUEENS_GPU_MATCHER=tiles NQUEENS_GPU_MATCHER=tiles,NQUEENS_GPU_SLICED_KEYS=512 NQUEENS_GPU_MATCHER=tiles,NQUEENS_GPU_CUTS=16 NQUEENS_GPU_SLICED_WALK=thread}; do
    name=${setting//[^A-Za-z0-9]/_}
    words=${setting/#default/NQUEENS_PROFILE_SETTING=default}
    # PROFILE_BINARY=PATH among a setting's words times another build on
    # the same tasks (an earlier commit's, carried beside this one).
    run_binary=$(tr ',' '\n' <<<"$words" | sed -n 's/^PROFILE_BINARY=//p' | tail -1)
    run_binary=${run_binary:-$binary}
    # shellcheck disable=SC2086 # the setting's words are separate variables
    limited env ${words//,/ } "$run_binary" gpu "$profile_n" --tasks "$profile_tasks" --cpu-tasks 0 --seed 1 --format json \
        >"$dir/setting-$name.json" 2>>"$log"
    python3 - "$dir/setting-$name.json" "$setting" <<'PY' 2>&1 | tee -a "$log"
import json, sys
try:
    t = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    print(sys.argv[2], "no result")
    sys.exit()
seconds = sum(r["gpu_seconds"] for r in t["timed"])
solutions = sum(r["solutions"] for r in t["timed"])
print(f"{sys.argv[2]}: {seconds:.3f} s, {solutions / seconds:.3e} solutions/s, "
      f"{t['gpu_seconds'] / 86400:.0f} GPU-days for the plan, decided {t.get('decided_share')}")
PY
done

ncu_setting=${PROFILE_NCU_SETTING:-NQUEENS_PROFILE_SETTING=default}
if [ -n "$ncu" ] && [ "${PROFILE_NCU:-1}" != 0 ]; then
    say "== 2. every kernel of one N = 26 task under ncu (at $((SECONDS - started)) s)"
    # shellcheck disable=SC2086
    limited env ${ncu_setting//,/ } "$ncu" --clock-control none --metrics gpu__time_duration.sum --csv --print-units base \
        "$binary" gpu 26 --tasks 1 --cpu-tasks 0 --seed 1 >"$dir/ncu-26-kernels.csv" 2>>"$log"
    python3 - "$dir/ncu-26-kernels.csv" <<'PY' 2>&1 | tee -a "$log"
import csv, sys, collections
total = collections.Counter()
launches = collections.Counter()
with open(sys.argv[1]) as f:
    lines = [l for l in f if l.startswith('"')]
for row in csv.DictReader(lines):
    if row.get("Metric Name") == "gpu__time_duration.sum":
        name = row["Kernel Name"]
        total[name] += float(row["Metric Value"].replace(",", ""))
        launches[name] += 1
all_ns = sum(total.values()) or 1
for name, ns in total.most_common():
    print(f"{name}: {launches[name]} launches, {ns / 1e6:.3f} ms, {100 * ns / all_ns:.1f}%")
PY
    say "== 3. the matching kernel of one N = 28 task under ncu (at $((SECONDS - started)) s)"
    # shellcheck disable=SC2086
    limited env ${ncu_setting//,/ } "$ncu" --clock-control none -k regex:nq_sliced_grid --launch-count 2 \
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
        --section LaunchStats --section WarpStateStats --section SchedulerStats \
        --metrics smsp__thread_inst_executed_per_inst_executed.ratio,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,lts__t_sector_hit_rate.pct,smsp__inst_executed.sum,sm__inst_executed_pipe_lsu.sum,dram__bytes_read.sum \
        "$binary" gpu 28 --tasks 1 --cpu-tasks 0 --seed 1 >"$dir/ncu-28-grid.txt" 2>>"$log"
    grep -v '^==PROF==' "$dir/ncu-28-grid.txt" | head -150 | tee -a "$log"
fi

alone=(${PROFILE_ALONE:-4..15 19..21})
say "== 4. N = ${alone[*]} on the GPU alone (at $((SECONDS - started)) s)"
for i in "${!alone[@]}"; do
    range=${alone[$i]}
    # The last range takes whatever time is left.
    if [ "$i" = $((${#alone[@]} - 1)) ]; then last_step=$budget; else last_step=$step_limit; fi
    step_limit=$last_step limited "$binary" count "$range" -m join --gpu --gpu-only --gpu-feeders "${PROFILE_FEEDERS:-4}" \
        --format csv --progress never >"$dir/alone-$range.csv" 2>>"$log"
    tee -a "$log" <"$dir/alone-$range.csv"
done
say "== done in $((SECONDS - started)) s"
