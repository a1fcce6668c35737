"""Shared helpers of the package's tests: the repository's reference data."""

import json
from pathlib import Path

import pytest

#: The repository root (tests run from a checkout: they read its reference data).
ROOT = Path(__file__).resolve().parents[3]
TRACES = ROOT / "crates" / "core" / "tests" / "data" / "openspiel"


def traces(name):
    """The games of an OpenSpiel trace file, one dict each."""
    with open(TRACES / name) as f:
        return [json.loads(line) for line in f if line.strip()]


def perft_counts():
    """(game, depth, count) from the engine's perft reference."""
    rows = []
    for line in (ROOT / "crates" / "core" / "tests" / "data" / "perft.txt").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        game, depth, count = line.split()
        rows.append((game, int(depth), int(count)))
    return rows


def negamax(state, memo=None):
    """The final margin for the mover with perfect play, by plain search:
    an implementation independent of the solver, for small boards."""
    if memo is None:
        memo = {}
    if state.is_terminal():
        return None
    key = state.to_notation()
    if key in memo:
        return memo[key]
    mover = state.current_player()
    best = None
    for a in state.legal_actions():
        child = state.clone()
        child.apply_action(a)
        value = move_value(child, mover, memo)
        best = value if best is None else max(best, value)
    memo[key] = best
    return best


def move_value(child, mover, memo):
    """The mover's final margin after a move that led to `child`."""
    if child.is_terminal():
        margin = child.margin()
        return margin if mover == 0 else -margin
    v = negamax(child, memo)
    return v if child.current_player() == mover else -v


@pytest.fixture
def kalah():
    import mancala

    return mancala.Game("kalah")


@pytest.fixture
def sigint_raises():
    """Ctrl-C raises KeyboardInterrupt during the test, however the test run
    was started: a shell starts a background job with SIGINT ignored, and
    Python then leaves it ignored."""
    import signal

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)
