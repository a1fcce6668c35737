#!/usr/bin/env bash
# Plays configs/kalah-adjudicated.toml with and without exact adjudication
# and compares the two runs game by game: wall time, mean plies, and how
# many results differ (a played-out game's result differs from its
# adjudicated one only where an agent blundered after the adjudicated ply).
#
# Usage: scripts/adjudication.sh [CONFIG] [THREADS]   (a release build: cargo build --release)
set -euo pipefail
config=${1:-configs/kalah-adjudicated.toml}
threads=${2:-2}
bin=${MANCALA:-target/release/mancala}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
sed '/^\[adjudication\]/,/^$/d' "$config" > "$out/off.toml"
if cmp -s "$config" "$out/off.toml"; then
    echo "$config has no [adjudication] table" >&2
    exit 2
fi
run() {
    local name=$1 cfg=$2
    local t0 t1
    t0=$(date +%s.%N)
    "$bin" tournament "$cfg" --output "$out/$name" --threads "$threads" --quiet --no-report > "$out/$name.txt"
    t1=$(date +%s.%N)
    echo "$name: $(echo "$t1 - $t0" | bc) s" | tee -a "$out/times"
}
run adjudicated "$config"
run played "$out/off.toml"
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
def games(name):
    with open(f"{out}/{name}/games.jsonl") as f:
        return {g["id"]: g for g in map(json.loads, f)}
cut, full = games("adjudicated"), games("played")
assert cut.keys() == full.keys()
adjudicated = [i for i, g in cut.items() if g["end"] == "adjudicated"]
differ = [i for i in adjudicated if cut[i]["winner"] != full[i]["winner"]]
prefix = all(full[i]["moves"].split()[: len(cut[i]["moves"].split())] == cut[i]["moves"].split() for i in cut)
mean = lambda gs: sum(g["plies"] for g in gs.values()) / len(gs)
print(f"games: {len(cut)}, adjudicated: {len(adjudicated)}")
print(f"mean plies: {mean(cut):.1f} adjudicated, {mean(full):.1f} played out")
print(f"identical moves up to the adjudicated ply: {prefix}")
print(f"results that differ: {len(differ)} (a blunder after the adjudicated ply)")
by = {}
for i in differ:
    g = full[i]
    by.setdefault(" vs ".join(g["players"]), []).append(i)
for pair, ids in sorted(by.items()):
    print(f"  {pair}: {len(ids)}")
PY
for name in adjudicated played; do
    echo "== $name"; cat "$out/$name.txt"
done
