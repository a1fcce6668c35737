#!/usr/bin/env bash
# Submits a sharded tournament: an array of SHARDS tasks (tournament-array.sh)
# and a merge job that runs when all of them have ended.
#
#   examples/slurm/submit.sh CONFIG SHARDS WORK_DIR [extra sbatch options...]
#
# writes WORK_DIR/shards/task-* (one folder per task) and WORK_DIR/results
# (the merged tournament: games, ratings, summary), and prints the two job
# ids. The merge depends on the array with `afterany`, not `afterok`: if a
# task failed, the merge still runs and names the missing shard and games
# (and exits non-zero) instead of waiting for ever. To finish, rerun the
# failed shard with its shard given explicitly, then the merge:
#
#   sbatch --wrap "mancala tournament CONFIG --shard 2/4 --output WORK_DIR/shards/task-2"
#   sbatch --dependency=afterok:<that job> --wrap "mancala merge WORK_DIR/shards/task-* --output WORK_DIR/results"
#
# (not `sbatch --array=2 tournament-array.sh ...`: a one-task array is
# shard 1/1, which the folder of shard 2/4 refuses).
#
# The extra sbatch options go to both jobs (a partition, an account...).
# The array's task ids are 1-SHARDS; set ARRAY to use others (ARRAY=0-7,
# ARRAY=100-107): `--shard auto` numbers the shards from the lowest id.
# Do not pass --array among the extra options: the merge job would become
# an array too.
set -euo pipefail

config=${1:?usage: submit.sh CONFIG SHARDS WORK_DIR [sbatch options...]}
count=${2:?usage: submit.sh CONFIG SHARDS WORK_DIR [sbatch options...]}
work=${3:?usage: submit.sh CONFIG SHARDS WORK_DIR [sbatch options...]}
shift 3
here=$(cd "$(dirname "$0")" && pwd)
mancala=${MANCALA:-mancala}

mkdir -p "$work/logs"
array=$(sbatch --parsable --array="${ARRAY:-1-$count}" --output="$work/logs/shard-%A_%a.out" "$@" \
    "$here/tournament-array.sh" "$config" "$work/shards")
array=${array%%;*}   # --parsable prints "id;cluster" on multi-cluster setups
merge=$(sbatch --parsable --dependency="afterany:$array" --job-name=mancala-merge \
    --output="$work/logs/merge-%j.out" "$@" \
    --wrap "$(printf '%q ' "$mancala" merge)$(printf '%q' "$work/shards")/task-* --output $(printf '%q' "$work/results")")
merge=${merge%%;*}
echo "array job $array ($count shards), merge job $merge -> $work/results"
