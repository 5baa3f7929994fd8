#!/usr/bin/env bash
# Example: count N = 20 on a Slurm cluster as a job array of 16 shards, then
# merge. Submit from the repository after `cargo build --release`:
#
#   sbatch scripts/slurm-array.sh            # the array: one shard per task
#   # when all tasks are done:
#   target/release/nqueens merge results/nqueens-20-*.json
#
# Each array task counts the plan's tasks whose id mod 16 equals its index
# (taken from SLURM_ARRAY_TASK_ID / SLURM_ARRAY_TASK_COUNT), with a checkpoint
# so a preempted or requeued task resumes where it stopped, and writes its
# partial sums to results/. Every task must use the same N, method and split
# depth: merge refuses shards of different plans.
#
#SBATCH --job-name=nqueens-20
#SBATCH --array=0-15
#SBATCH --cpus-per-task=32
#SBATCH --time=04:00:00
#SBATCH --requeue
#SBATCH --output=results/%x-%a.log
set -euo pipefail
N=${N:-20}
mkdir -p results checkpoints
exec target/release/nqueens count "$N" \
    --threads "${SLURM_CPUS_PER_TASK:-1}" \
    --checkpoint "checkpoints/nqueens-$N-$SLURM_ARRAY_TASK_ID.ckpt" \
    --out "results/nqueens-$N-shard-$SLURM_ARRAY_TASK_ID.json" \
    --progress never
