#!/usr/bin/env bash
# Games under clocks, as bot authors play them: built-in agents managing a
# clock (`time=auto`) at a fast and a slower time control, and an external
# engine (this binary serving `minimax:time=auto` over the protocol, as
# `served`) at
# 2+0.02. Prints each tournament's result, losses on time and forfeits, and
# the per-agent move figures of its records (the report's Moves table);
# exits 1 if any game was lost on time or forfeited.
#
# Usage: scripts/time-controls.sh [GAMES] [THREADS] [WHICH...]
#   GAMES per time control (default 200), THREADS (default 2), WHICH any
#   of fast slow engine (default all three).
#
# Run it on an otherwise idle machine: a clock counts wall time, so other
# work on the same cores takes time from the agents. On 2 cores, 200 games
# take about 4 minutes at 1+0.01, 7 at 2+0.02 and 35 at 10+0.1 (each game
# spends up to 20 s of the two clocks).
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-200}
threads=${2:-2}
shift $(($# < 2 ? $# : 2))
which=("$@")
[ ${#which[@]} -gt 0 ] || which=(fast slow engine)
cargo build --release --quiet
bin=$(pwd)/target/release/mancala
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0

config() {
    printf 'name = "%s"\ngame = "kalah"\ngames_per_pair = %s\nseed = 1\n' "$1" "$games"
    printf 'time_control = "%s"\n\n[openings]\nplies = 2\n' "$2"
    for agent in "$3" "$4"; do
        if [ "$agent" = served ]; then
            # This binary as an external engine: it gets the clocks in `go`.
            printf '\n[[agents]]\nname = "served"\ncommand = ["%s", "engine", "minimax:time=auto"]\n' "$bin"
        else
            printf '\n[[agents]]\nspec = "%s"\n' "$agent"
        fi
    done
}

summary() {
    python3 - "$@" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
tc, took = sys.argv[2], sys.argv[3]
print(f"{s['name']} at {tc}: {s['games_played']} games in {took} s, "
      f"{s['time_losses']} lost on time, {s['forfeits']} forfeited")
for a in s["standings"]:
    print(f"  {a['spec']}: score {a['score']:.3f}, lost on time {a['time_losses']}")
sys.exit(1 if s["time_losses"] or s["forfeits"] else 0)
PY
}

play() {
    local label=$1 tc=$2
    config "$label" "$tc" "$3" "$4" > "$out/$label.toml"
    local started=$SECONDS
    "$bin" tournament "$out/$label.toml" --output "$out/$label" --threads "$threads" --quiet
    local took=$((SECONDS - started))
    "$bin" report "$out/$label" --format md --out "$out/$label.md" --quiet
    summary "$out/$label/summary.json" "$tc" "$took" || status=1
    sed -n '/^## Moves/,/^## /p' "$out/$label.md" | sed '$d'
}

for w in "${which[@]}"; do
    case $w in
    fast) play fast 1+0.01 minimax:time=auto mcts:time=auto ;;
    slow) play slow 10+0.1 minimax:time=auto mcts:time=auto ;;
    engine) play engine 2+0.02 served mcts:time=auto ;;
    *) echo "unknown time control set '$w' (fast, slow or engine)" >&2; exit 2 ;;
    esac
done
exit $status
