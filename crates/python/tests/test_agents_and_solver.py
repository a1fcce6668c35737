"""Agents from the registry, the solver against plain search, perfect-play
datasets, and Ctrl-C during long calls."""

import os
import signal
import sys
import threading
import time

import numpy as np
import pytest

import mancala
from conftest import ROOT, move_value, negamax

SMALL = "kalah:pits=3,seeds=2"


@pytest.mark.parametrize(
    "spec", ["random", "greedy", "minimax:depth=4", "mcts:sims=50", "perfect", "perfect:time=1s,fallback=greedy"]
)
def test_every_agent_family_plays_whole_games_of_every_game(spec):
    for game_spec in ["kalah:pits=4,seeds=3", "kalah:pits=4,seeds=2,pie=true", "congkak:pits=4,seeds=2", "oware:pits=3,seeds=2"]:
        if spec.startswith("perfect") and game_spec.startswith("oware"):
            continue
        game = mancala.Game(game_spec)
        agent = mancala.Agent(spec, seed=3)
        state = game.new_initial_state()
        while not state.is_terminal():
            action = agent.choose(state)
            assert action in state.legal_actions()
            state.apply_action(action)


def play(agents, game, seed):
    state = game.new_initial_state()
    for a in agents:
        a.new_game(seed)
    while not state.is_terminal():
        state.apply_action(agents[state.current_player()].choose(state))
    return state.history()


def test_the_same_seed_gives_the_same_games():
    game = mancala.Game("kalah:pits=5,seeds=3")
    make = lambda: [mancala.Agent("mcts:sims=60", seed=5), mancala.Agent("random", seed=9)]  # noqa: E731
    first = [play(make(), game, s) for s in range(3)]
    again = [play(make(), game, s) for s in range(3)]
    assert first == again
    assert len({tuple(g) for g in first}) > 1


def test_an_agent_follows_its_games_and_reports_its_search():
    agent = mancala.Agent("minimax:depth=5", seed=1)
    assert agent.name == "minimax:depth=5" and "minimax" in repr(agent)
    state = mancala.Game("kalah:pits=4,seeds=3").new_initial_state()
    action = agent.choose(state)
    info = agent.info()
    assert info["kind"] == "alphabeta" and info["depth"] == 5 and info["nodes"] > 0
    assert info["pv"][0] == action and isinstance(info["value"], float)
    # Another game's state: the agent is rebuilt for it.
    other = mancala.Game("oware").new_initial_state()
    assert agent.choose(other) in other.legal_actions()
    assert mancala.Agent("random").info()["kind"] is None


def test_bad_agent_specs_and_unplayable_games_raise_value_error():
    with pytest.raises(ValueError, match="unknown agent 'minmax'"):
        mancala.Agent("minmax:depth=3")
    with pytest.raises(ValueError, match="depth"):
        mancala.Agent("minimax:depth=lots")
    with pytest.raises(ValueError, match="model x.ot: .*No such file"):
        mancala.Agent("neural:model=x.ot")
    rounds = mancala.Game("congkak:pits=4,seeds=3,rounds=many").new_initial_state()
    with pytest.raises(ValueError, match="round"):
        mancala.Agent("perfect").choose(rounds)
    missing = mancala.Game("kalah").new_initial_state()
    with pytest.raises(ValueError, match="not found"):
        mancala.Agent("engine:cmd=./no-such-engine").choose(missing)
    over = mancala.Game("kalah").state_from("0,0,0,0,0,0/0,0,0,0,0,0/25,23/-")
    with pytest.raises(ValueError, match="game is over"):
        mancala.Agent("random").choose(over)


def test_a_value_network_file_plays_by_its_path_and_a_bad_one_is_refused(tmp_path):
    net = ROOT / "results" / "reference" / "kalah-6-4-evalnet.safetensors"
    agent = mancala.Agent(f"minimax:depth=4,eval=net:{net}", seed=1)
    state = mancala.Game("kalah").new_initial_state()
    action = agent.choose(state)
    assert action in state.legal_actions()
    assert agent.info()["kind"] == "alphabeta"
    # The network reads Kalah's six pits a row, not Oware's.
    with pytest.raises(ValueError, match="the network is for kalah"):
        agent.choose(mancala.Game("oware").new_initial_state())
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"not a network")
    with pytest.raises(ValueError, match="not a safetensors file"):
        mancala.Agent(f"minimax:eval=net:{bad}")


def test_an_external_engine_plays_through_the_protocol():
    engine = ROOT / "examples" / "engines" / "greedy_kalah.py"
    agent = mancala.Agent(f"engine:cmd={sys.executable} {engine}")
    state = mancala.Game("kalah").new_initial_state()
    for _ in range(6):
        if state.is_terminal():
            break
        action = agent.choose(state)
        assert action in state.legal_actions()
        state.apply_action(action)


@pytest.mark.parametrize("spec", [SMALL, "kalah:pits=3,seeds=3", "kalah:pits=3,seeds=2,pie=true", "congkak:pits=3,seeds=2"])
def test_solve_agrees_with_plain_search_on_every_move(spec):
    game = mancala.Game(spec)
    rng = np.random.default_rng(4)
    for _ in range(6):
        state = game.new_initial_state()
        for _ in range(int(rng.integers(0, 4))):
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))
        if state.is_terminal():
            continue
        solved = mancala.solve(state, db_cache=False, threads=2)
        mover = state.current_player()
        assert solved["player"] == mover
        assert solved["value"] == negamax(state)
        memo = {}
        for a in state.legal_actions():
            child = state.clone()
            child.apply_action(a)
            assert solved["moves"][a] == move_value(child, mover, memo), (state.to_notation(), a)
        assert solved["best"] == [a for a, v in solved["moves"].items() if v == solved["value"]]
        # The principal variation is legal and ends the game with the value.
        line = state.clone()
        for a in solved["pv"]:
            line.apply_action(a)
        assert line.is_terminal()
        assert line.margin() * (1 if mover == 0 else -1) == solved["value"]


def test_perfect_plays_a_best_move():
    state = mancala.Game("kalah:pits=4,seeds=3").new_initial_state()
    state.apply_action(1)
    best = mancala.solve(state, db_cache=False)["best"]
    assert mancala.Agent("perfect").choose(state) in best


def test_a_bare_perfect_has_a_time_budget_and_a_fallback():
    # A bare `perfect` would wait minutes for a full board's database.
    assert mancala.Agent("perfect").name == "perfect:time=5s,fallback=minimax:time=1s"
    long = mancala.Agent("perfect:time=1h,fallback=greedy")
    assert long.name == "perfect:time=3600s,fallback=greedy"


def test_solve_refuses_what_it_cannot_do():
    over = mancala.Game("kalah").state_from("0,0,0,0,0,0/0,0,0,0,0,0/25,23/-")
    with pytest.raises(ValueError, match="nothing to solve"):
        mancala.solve(over)
    rounds = mancala.Game("congkak:pits=4,seeds=3,rounds=many").new_initial_state()
    with pytest.raises(ValueError, match="round"):
        mancala.solve(rounds)
    oware = mancala.Game("oware:pits=2,seeds=2").new_initial_state()
    with pytest.raises(ValueError, match="no endgame database"):
        mancala.solve(oware, db_seeds=3)
    assert mancala.solve(oware)["player"] == 0
    with pytest.raises(ValueError, match="threads"):
        mancala.solve(mancala.Game(SMALL).new_initial_state(), threads=0)
    with pytest.raises(ValueError, match="timeout"):
        mancala.solve(mancala.Game(SMALL).new_initial_state(), timeout=-1)


def test_a_solve_longer_than_its_timeout_raises_timeout_error():
    state = mancala.Game("kalah:pits=6,seeds=6").new_initial_state()
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        mancala.solve(state, db_seeds=0, tt=16, timeout=0.2, threads=1)
    assert time.monotonic() - started < 5
    mancala.clear_solver()


def test_a_timeout_also_ends_the_wait_for_another_build():
    # Another thread builds a database of seconds (13 seeds on six pits,
    # kept in memory only); a solve with a short timeout meanwhile waits for
    # that build (one at a time) only until its timeout.
    big = mancala.Game("kalah:pits=6,seeds=3").new_initial_state()
    errors = []

    def build():
        try:
            mancala.solve(big, db_seeds=13, db_cache=False, tt=16, timeout=0.05, threads=1)
        except TimeoutError:
            pass
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    builder = threading.Thread(target=build)
    builder.start()
    time.sleep(0.3)
    small = mancala.Game("kalah:pits=3,seeds=2").new_initial_state()
    started = time.monotonic()
    try:
        with pytest.raises(TimeoutError):
            mancala.solve(small, tt=16, timeout=0.2)
        waited = time.monotonic() - started
        assert builder.is_alive(), "the build ended before the wait could be tested"
        assert waited < 1.0, waited
    finally:
        builder.join()
        mancala.clear_solver()
    assert not errors, errors


def test_the_database_cache_folder_is_used(tmp_path):
    state = mancala.Game("kalah:pits=4,seeds=3").new_initial_state()
    first = mancala.solve(state, db_dir=str(tmp_path), db_seeds=6)
    assert any(tmp_path.iterdir()), "the database was saved"
    mancala.clear_solver()
    again = mancala.solve(state, db_dir=str(tmp_path), db_seeds=6)
    assert (again["value"], again["moves"]) == (first["value"], first["moves"])


def interrupt_after(seconds):
    timer = threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    return timer


def test_ctrl_c_stops_a_long_search_with_keyboard_interrupt(sigint_raises):
    state = mancala.Game("kalah").new_initial_state()
    # Bounded (30 s) even if the interrupt were lost: the test fails, never hangs.
    agent = mancala.Agent("mcts:time=30s")
    started = time.monotonic()
    timer = interrupt_after(0.3)
    try:
        with pytest.raises(KeyboardInterrupt):
            agent.choose(state)
    finally:
        timer.cancel()
    assert time.monotonic() - started < 5
    # The agent still plays afterwards.
    assert mancala.Agent("greedy").choose(state) in state.legal_actions()


def test_ctrl_c_stops_a_long_solve_with_keyboard_interrupt(sigint_raises):
    state = mancala.Game("kalah:pits=6,seeds=6").new_initial_state()
    started = time.monotonic()
    timer = interrupt_after(0.3)
    try:
        with pytest.raises(KeyboardInterrupt):
            # The timeout bounds the test if the interrupt were lost.
            mancala.solve(state, db_seeds=0, tt=16, threads=1, timeout=60)
    finally:
        timer.cancel()
    assert time.monotonic() - started < 5
    mancala.clear_solver()


def test_exact_positions_are_arrays_of_real_games_with_exact_values():
    game = mancala.Game("kalah:pits=4,seeds=3")
    data = mancala.exact_positions(game, 12, seed=3, threads=2, db_cache=False)
    n = len(data["positions"])
    assert n == 12
    assert data["observations"].shape == (n, 11) and data["observations"].dtype == np.float32
    for key in ["legal", "move_values", "best"]:
        assert data[key].shape == (n, 5)
    for i, notation in enumerate(data["positions"]):
        state = game.state_from(notation)
        np.testing.assert_array_equal(data["observations"][i], state.observation_tensor())
        np.testing.assert_array_equal(data["legal"][i], state.legal_actions_mask())
        assert data["players"][i] == state.current_player()
        solved = mancala.solve(state, db_cache=False)
        assert data["values"][i] == solved["value"]
        for a, v in solved["moves"].items():
            assert data["move_values"][i, a] == v
        assert sorted(np.flatnonzero(data["best"][i])) == solved["best"]
        assert not data["move_values"][i][~data["legal"][i]].any()
    # The same seed, another thread count: the same arrays.
    again = mancala.exact_positions("kalah:pits=4,seeds=3", 12, seed=3, threads=1, db_cache=False)
    assert again["positions"] == data["positions"]
    np.testing.assert_array_equal(again["move_values"], data["move_values"])
    with pytest.raises(ValueError, match="Kalah only"):
        mancala.exact_positions("oware", 3)
    with pytest.raises(ValueError, match="minmax"):
        mancala.exact_positions(game, 3, agents=["minmax"])


def test_exact_positions_can_be_distinct_and_say_when_they_cannot_be_made():
    # Greedy against itself from the start plays one game over and over:
    # its positions repeat, unless the set asks for distinct ones.
    same = dict(agents=["greedy"], opening_plies=0, threads=2, db_cache=False)
    game = "kalah:pits=3,seeds=2"
    repeated = mancala.exact_positions(game, 12, seed=5, **same)["positions"]
    assert len(repeated) == 12 and len(set(repeated)) < 12
    distinct = mancala.exact_positions(game, 4, seed=5, distinct=True, **same)["positions"]
    assert len(distinct) == 4 and len(set(distinct)) == 4
    again = mancala.exact_positions(game, 4, seed=5, distinct=True, **dict(same, threads=1))
    assert again["positions"] == distinct
    # One game holds only so many positions: the set cannot be made.
    with pytest.raises(ValueError, match=r"only \d+ distinct positions in 400 games"):
        mancala.exact_positions(game, 40, seed=5, distinct=True, **same)
    # Games that end within their opening give no position at all.
    with pytest.raises(ValueError, match="no game of 5 lasted past its opening of 1000000"):
        mancala.exact_positions(game, 5, opening_plies=10**6, threads=2, db_cache=False)


def test_a_database_folder_that_cannot_be_one_is_said(tmp_path):
    state = mancala.Game("kalah:pits=3,seeds=2").new_initial_state()
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder")
    with pytest.raises(ValueError, match="is not a folder"):
        mancala.solve(state, db_dir=a_file)
    with pytest.raises(ValueError, match="is not a folder"):
        mancala.exact_positions(mancala.Game("kalah:pits=3,seeds=2"), 2, db_dir=a_file)
    # A folder that cannot be made: solved all the same, with a warning.
    mancala.clear_solver()
    with pytest.warns(UserWarning, match="endgame database was not saved"):
        solution = mancala.solve(state, db_dir=a_file / "inside")
    assert solution["value"] == mancala.solve(state, db_cache=False)["value"]
