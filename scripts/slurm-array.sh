#!/usr/bin/env bash
# Count N on a Slurm cluster as a job array of shards with checkpoints, then
# merge (and, for a count to be trusted, compare with a second run).
# Submit from the repository after `cargo build --release`:
#
#   sbatch scripts/slurm-array.sh                 # the array: one shard per task
#   scripts/slurm-array.sh progress               # while it runs: shards done,
#                                                 # files checked, time to go
#   scripts/slurm-array.sh merge                  # when all are done: the total
#   RUN=b sbatch scripts/slurm-array.sh           # a second, independent run
#   COMPARE=b scripts/slurm-array.sh merge        # the total, and run b compared
#                                                 # with run a task by task
#
# Each array task counts the plan's tasks whose id mod K equals its index
# (K and the index from SLURM_ARRAY_TASK_COUNT / SLURM_ARRAY_TASK_ID), with a
# checkpoint, so a task preempted (Slurm sends SIGTERM: nqueens saves and
# stops within 2 s) and requeued resumes where it stopped, and writes its
# partial sums to RUN/results/. Every task must use the same N, method and
# split depth: merge refuses shards of different plans.
#
# Settings (environment): N (20), METHOD (auto), RUN (a: the directory of
# this run), NQUEENS (target/release/nqueens), THREADS (SLURM_CPUS_PER_TASK,
# else 1), GPU (unset: the CPU alone; a GPU index or auto: each array task
# counts join tasks on that GPU beside its threads, from a binary built
# with --features gpu: submit with `GPU=0 sbatch --gres=gpu:1 ...`, and
# Slurm's CUDA_VISIBLE_DEVICES makes each task's GPU its 0).
#
#SBATCH --job-name=nqueens
#SBATCH --array=0-15
#SBATCH --cpus-per-task=32
#SBATCH --time=04:00:00
#SBATCH --requeue
#SBATCH --signal=TERM@60
#SBATCH --output=nqueens-%A-%a.log
set -euo pipefail
N=${N:-20}
METHOD=${METHOD:-auto}
RUN=${RUN:-a}
NQUEENS=${NQUEENS:-target/release/nqueens}
THREADS=${THREADS:-${SLURM_CPUS_PER_TASK:-1}}

if [ "${1:-}" = progress ]; then
    # Every result file so far checked (a damaged one named while its
    # shard can be run again), what they hold and the shards missing.
    exec "$NQUEENS" merge --partial "$RUN"/results/nqueens-"$N"-shard-*.json
fi

if [ "${1:-}" = merge ]; then
    # The total, checked against the published table (exit 3 if wrong).
    "$NQUEENS" merge "$RUN"/results/nqueens-"$N"-shard-*.json
    if [ -n "${COMPARE:-}" ]; then
        # Every shard both runs hold must agree (the task digests in their
        # result files), then every task (the journals; exit 3 names any
        # that do not).
        status=0
        "$NQUEENS" compare "$RUN"/results/nqueens-"$N"-shard-*.json \
            --with "$COMPARE"/results/nqueens-"$N"-shard-*.json || status=$?
        "$NQUEENS" compare "$RUN"/checkpoints/nqueens-"$N"-*.ckpt \
            --with "$COMPARE"/checkpoints/nqueens-"$N"-*.ckpt || status=$?
        exit "$status"
    fi
    exit 0
fi

: "${SLURM_ARRAY_TASK_ID:?run this as a Slurm array task (or set SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT)}"
: "${SLURM_ARRAY_TASK_COUNT:?run this as a Slurm array task}"
mkdir -p "$RUN/results" "$RUN/checkpoints"
gpu=()
if [ -n "${GPU:-}" ]; then
    gpu=(--gpu "$GPU")
fi
exec "$NQUEENS" count "$N" "${gpu[@]}" \
    --method "$METHOD" \
    --threads "$THREADS" \
    --checkpoint "$RUN/checkpoints/nqueens-$N-$SLURM_ARRAY_TASK_ID.ckpt" \
    --out "$RUN/results/nqueens-$N-shard-$SLURM_ARRAY_TASK_ID.json" \
    --progress never
