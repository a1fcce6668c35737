#!/usr/bin/env bash
# One shard of a tournament per Slurm array task. Each task plays its
# slice of the planned games into its own folder; a job that depends on
# the array then merges the folders (see below, or submit.sh next to this
# file, which submits both).
#
#   sbatch --array=1-4 examples/slurm/tournament-array.sh CONFIG SHARDS_DIR
#   sbatch --dependency=afterany:<array job id> \
#          --wrap "mancala merge SHARDS_DIR/task-* --output RESULTS_DIR"
#
# The array size is the number of shards: `--shard auto` reads this task's
# shard from SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN and
# SLURM_ARRAY_TASK_COUNT, so any evenly spaced range works (1-4, 0-3,
# 100-103); the lowest task plays shard 1. SHARDS_DIR must be on a file
# system that every node and the merge job can see.
#
# A task that is killed or requeued continues where it stopped when it
# runs again (its folder holds its log). `mancala` must be on the PATH of
# the nodes, or set MANCALA to the binary.
#
#SBATCH --job-name=mancala-shard
#SBATCH --array=1-4
#SBATCH --cpus-per-task=2
#SBATCH --time=02:00:00
#SBATCH --output=slurm-%A_%a.out
set -euo pipefail

config=${1:?usage: sbatch --array=1-N tournament-array.sh CONFIG SHARDS_DIR}
shards=${2:?usage: sbatch --array=1-N tournament-array.sh CONFIG SHARDS_DIR}
mancala=${MANCALA:-mancala}

mkdir -p "$shards"
# The folder is named after the task; the shard it holds (K/N) is recorded
# inside it, and `mancala merge` checks it.
exec "$mancala" tournament "$config" \
    --shard auto \
    --threads "${SLURM_CPUS_PER_TASK:-1}" \
    --quiet \
    --output "$shards/task-$SLURM_ARRAY_TASK_ID"
