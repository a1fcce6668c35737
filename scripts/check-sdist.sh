#!/usr/bin/env bash
# Builds the Python package's source distribution and then a wheel from it
# with no network: pip takes no index and no build isolation (maturin must
# be installed beside pip), and cargo runs offline on the crates it fetched
# once beforehand (`cargo fetch --locked`, the one online step). Then the
# wheel is imported and plays a game. Not run by CI: a release build of the
# whole package takes minutes.
#
# Usage: scripts/check-sdist.sh [PYTHON]   (a Python with maturin and numpy)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
python=${1:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$root" && cargo fetch --locked --quiet)
(cd "$root/crates/python" && "$python" -m maturin sdist --out "$work/sdist" 2>&1 | tail -1)
sdist=$(ls "$work"/sdist/*.tar.gz)
echo "sdist: $(basename "$sdist"), $(tar tzf "$sdist" | wc -l) files"
CARGO_NET_OFFLINE=true "$python" -m pip wheel --quiet --no-index --no-build-isolation --no-deps \
    --wheel-dir "$work/wheel" "$sdist"
wheel=$(ls "$work"/wheel/*.whl)
echo "wheel, built offline: $(basename "$wheel")"
"$python" -m pip install --quiet --no-index --no-deps --target "$work/site" "$wheel"
PYTHONPATH="$work/site" "$python" - <<'PY'
import mancala
state = mancala.Game("kalah").new_initial_state()
agent = mancala.Agent("greedy", seed=1)
while not state.is_terminal():
    state.apply_action(agent.choose(state))
print("the wheel plays:", mancala.__file__, state.returns())
PY
