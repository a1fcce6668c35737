#!/usr/bin/env bash
# Runs examples/slurm/ under a real Slurm cluster and checks the result:
# builds the binary, submits a tournament as an array of shards plus a
# dependent merge job (examples/slurm/submit.sh), waits for both, runs the
# same tournament on this machine in one process, and compares the two
# folders (games, ratings, summary; game durations aside). Not part of CI:
# it needs a running Slurm (sinfo must answer) whose nodes see this folder.
#
#   scripts/slurm-example.sh [CONFIG [SHARDS]]     # default configs/quick.toml, 3
#
# Environment: WORK (default results/slurm-example: deleted and rewritten),
# MANCALA (a built binary: skips the build), SBATCH_OPTS (extra sbatch
# options for every job, e.g. "--partition=debug --cpus-per-task=1"),
# TIMEOUT (seconds to wait for the jobs, default 1800), ARRAY (the array's
# task ids, default 1-SHARDS: e.g. ARRAY=10-12 to check that any range works).
set -euo pipefail

cd "$(dirname "$0")/.."
config=$(realpath "${1:-configs/quick.toml}")
shards=${2:-3}
work=$(realpath -m "${WORK:-results/slurm-example}")
timeout=${TIMEOUT:-1800}
read -r -a sbatch_opts <<<"${SBATCH_OPTS:---cpus-per-task=1}"

say() { printf '\n== %s\n' "$*"; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

for tool in sbatch squeue sinfo scontrol; do
    command -v "$tool" >/dev/null || { echo "error: $tool not found: is Slurm installed?" >&2; exit 2; }
done
say "cluster"
sinfo || { echo "error: sinfo cannot reach slurmctld: is Slurm running?" >&2; exit 2; }

if [ -z "${MANCALA:-}" ]; then
    say "build"
    t0=$(now)
    cargo build --release --quiet
    MANCALA=$(realpath "${CARGO_TARGET_DIR:-target}/release/mancala")
    echo "built $MANCALA in $(secs "$t0" "$(now)") s"
fi
MANCALA=$(realpath "$MANCALA")
export MANCALA
"$MANCALA" --version

rm -rf "$work"
mkdir -p "$work"

say "submit: $shards shards of $config"
t_submit=$(now)
line=$(examples/slurm/submit.sh "$config" "$shards" "$work" "${sbatch_opts[@]}")
echo "$line"
array=$(sed -E 's/^array job ([0-9]+).*/\1/' <<<"$line")
merge=$(sed -E 's/.*merge job ([0-9]+).*/\1/' <<<"$line")

say "queue while the jobs run"
deadline=$(( $(date +%s) + timeout ))
last=""
while true; do
    queue=$(squeue -h -j "$array,$merge" -o '%i %j %T %R' 2>/dev/null || true)
    if [ "$queue" != "$last" ] && [ -n "$queue" ]; then
        printf '[%5.1f s]\n%s\n' "$(secs "$t_submit" "$(now)")" "$queue"
        last=$queue
    fi
    [ -z "$queue" ] && break
    if [ "$(date +%s)" -gt "$deadline" ]; then
        echo "error: the jobs did not end within $timeout s; cancel them with: scancel $array $merge" >&2
        exit 1
    fi
    sleep 1
done
t_done=$(now)
echo "all jobs ended $(secs "$t_submit" "$t_done") s after submission"

say "job records"
if sacct -j "$array,$merge" --format=JobID,JobName%16,State,Elapsed,ExitCode 2>/dev/null; then
    :
else
    echo "(sacct has no records: accounting storage is off on this cluster; scontrol keeps finished jobs for MinJobAge)"
    for id in "$array" "$merge"; do
        records=$(scontrol -o show job "$id" 2>/dev/null) || { echo "job $id: no longer known to slurmctld"; continue; }
        while read -r record; do
            grep -oE '(^| )(JobId|ArrayTaskId|JobName|JobState|ExitCode|RunTime|StartTime|EndTime|NodeList)=[^ ]*' <<<"$record" \
                | paste -sd ' ' -
        done <<<"$records"
    done
fi

say "logs"
for f in "$work"/logs/*.out; do
    echo "--- $(basename "$f")"
    cat "$f"
done

[ -f "$work/results/summary.json" ] || { echo "error: the merge job wrote no results (see its log above)" >&2; exit 1; }

say "the same tournament in one process on this machine"
t0=$(now)
"$MANCALA" tournament "$config" --output "$work/single" --quiet >/dev/null
echo "single run: $(secs "$t0" "$(now)") s"

say "compare $work/results (sharded, merged) with $work/single"
status=0
for f in tournament.json summary.json ratings.csv; do
    if cmp -s "$work/single/$f" "$work/results/$f"; then echo "same: $f"; else echo "DIFFERENT: $f"; status=1; fi
done
# Every column but the game's duration.
strip_jsonl() { sed -E 's/"duration_ms":[^,]*,//' "$1"; }
strip_csv() { cut -d, -f1-11,13- "$1"; }
if cmp -s <(strip_jsonl "$work/single/games.jsonl") <(strip_jsonl "$work/results/games.jsonl"); then
    echo "same: games.jsonl ($(wc -l <"$work/results/games.jsonl") games), durations aside"
else
    echo "DIFFERENT: games.jsonl"; status=1
fi
if cmp -s <(strip_csv "$work/single/games.csv") <(strip_csv "$work/results/games.csv"); then
    echo "same: games.csv, durations aside"
else
    echo "DIFFERENT: games.csv"; status=1
fi
[ "$status" = 0 ] && echo "OK: the merged shards are the single run's tournament"
exit "$status"
