"""The games registered with OpenSpiel (mancala.openspiel): OpenSpiel's own
conformance test, its C++ and Python algorithms, and the standard game
against pyspiel's `mancala` move for move."""

import os
import subprocess
import sys

import numpy as np
import pytest

if os.environ.get("MANCALA_REQUIRE_OPENSPIEL"):
    import pyspiel  # CI: a missing open_spiel fails instead of skipping
else:
    pyspiel = pytest.importorskip("pyspiel")

import mancala  # noqa: E402
import mancala.openspiel  # noqa: E402
from open_spiel.python.algorithms import mcts, minimax  # noqa: E402

VARIANTS = [
    "mancala_kalah",
    "mancala_kalah(pits=6,seeds=5,empty_capture=true)",
    "mancala_kalah(pits=4,seeds=3,pie=true)",
    "mancala_kalah(pits=3,seeds=2,game_end=delayed,leftover=set_aside)",
    "mancala_kalah(pits=15,seeds=8)",
    "mancala_oware",
    "mancala_oware(grand_slam=illegal,max_plies=200)",
    "mancala_oware(pits=4,seeds=3,grand_slam=capture_all)",
    "mancala_congkak",
    "mancala_congkak(pits=5,seeds=3,empty_capture=true,game_end=immediate)",
    "mancala_congkak(pits=4,seeds=2,rounds=many,max_rounds=3)",
]


@pytest.mark.parametrize("name", VARIANTS)
def test_openspiels_random_simulation_test_passes(name):
    game = pyspiel.load_game(name)
    pyspiel.random_sim_test(game, num_sims=10, serialize=True, verbose=False)


def test_parameters_are_the_game_specs_options():
    game = pyspiel.load_game("mancala_kalah(pits=6,seeds=5,empty_capture=true)")
    assert game.rules == mancala.Game("kalah:seeds=5,empty_capture=true")
    assert game.get_parameters()["seeds"] == 5 and game.get_parameters()["pie"] is False
    assert game.num_distinct_actions() == 7
    assert game.max_game_length() == mancala.Game("kalah:seeds=5").max_game_length()
    assert game.get_type().short_name == "mancala_kalah"
    # A bad value is refused with the game spec's message.
    with pytest.raises(Exception, match="pits"):
        pyspiel.load_game("mancala_kalah(pits=99)")
    # mancala.Game's type is OpenSpiel's own once it is installed.
    assert mancala.Game("oware").get_type() == pyspiel.load_game("mancala_oware").get_type()


def test_states_carry_the_toolkits_state_and_margin():
    game = pyspiel.load_game("mancala_kalah(pits=4,seeds=3)")
    state = game.new_initial_state()
    state.apply_action(1)
    assert isinstance(state.mancala_state, mancala.State)
    assert state.mancala_state.history() == [1]
    copy = state.clone()
    copy.apply_action(copy.legal_actions()[0])
    assert state.mancala_state.history() == [1], "a clone is a copy"
    assert game.deserialize_state(state.serialize()).mancala_state == state.mancala_state
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[-1])
    margin = state.margin()
    assert state.returns() == [float(np.sign(margin)), -float(np.sign(margin))]
    assert state.observation_tensor(0) == list(state.mancala_state.observation_tensor(0))


def test_cpp_mcts_bots_play_whole_games():
    # pyspiel's C++ bots through evaluate_bots. (Calling a C++ bot's step()
    # from Python on a Python game's state crashes pyspiel 1.6 and 2.0,
    # its own python_tic_tac_toe as well: docs/python.md says so.)
    for name in ["mancala_kalah(pits=4,seeds=3)", "mancala_oware(pits=4,seeds=2)", "mancala_congkak(pits=4,seeds=3)"]:
        game = pyspiel.load_game(name)
        evaluator = pyspiel.RandomRolloutEvaluator(1, 7)
        bots = [pyspiel.MCTSBot(game, evaluator, 2.0, 40, 100, False, seed, False) for seed in (1, 2)]
        returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 3)
        assert sum(returns) == 0 and set(returns) <= {-1.0, 0.0, 1.0}, (name, returns)


def margin_value(state):
    """A heuristic for depth-limited alpha-beta: player 0's lead in seeds."""
    return float(state.margin())


@pytest.mark.parametrize("make", [
    lambda: pyspiel.load_game("mancala_kalah(pits=4,seeds=3)"),
    lambda: mancala.Game("kalah:pits=4,seeds=3"),
    lambda: pyspiel.load_game("mancala_congkak(pits=4,seeds=2)"),
    lambda: mancala.Game("oware:pits=4,seeds=2"),
])
def test_pythons_alpha_beta_and_mcts_play_whole_games(make):
    game = make()
    state = game.new_initial_state()
    while not state.is_terminal():
        _, action = minimax.alpha_beta_search(
            game, state=state, value_function=margin_value, maximum_depth=3,
            maximizing_player_id=0)
        state.apply_action(action)
    assert sum(state.returns()) == 0
    bot = mcts.MCTSBot(game, 2.0, 30, mcts.RandomRolloutEvaluator(1, np.random.RandomState(1)),
                       random_state=np.random.RandomState(2))
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(bot.step(state))
    assert sum(state.returns()) == 0


def test_exact_alpha_beta_agrees_with_the_solver():
    # To the end of the game, OpenSpiel's alpha-beta finds the solver's
    # result on a board small enough for it.
    game = pyspiel.load_game("mancala_kalah(pits=2,seeds=2)")
    value, _ = minimax.alpha_beta_search(game, maximum_depth=100, maximizing_player_id=0)
    exact = mancala.solve(mancala.Game("kalah:pits=2,seeds=2").new_initial_state())
    assert value == float(np.sign(exact["value"]))


def test_the_standard_game_is_pyspiels_mancala_move_for_move():
    # pyspiel's board: index 0 is player 1's store, 1-6 player 0's pits,
    # 7 player 0's store, 8-13 player 1's pits; its actions are the board
    # indices of the mover's pits.
    theirs_game = pyspiel.load_game("mancala")
    ours_game = pyspiel.load_game("mancala_kalah")
    rng = np.random.RandomState(12)
    for _ in range(1000):
        theirs = theirs_game.new_initial_state()
        ours = ours_game.new_initial_state()
        while not theirs.is_terminal():
            player = theirs.current_player()
            assert ours.current_player() == player
            offset = 1 if player == 0 else 8
            assert [a - offset for a in theirs.legal_actions()] == ours.legal_actions()
            action = rng.choice(theirs.legal_actions())
            theirs.apply_action(action)
            ours.apply_action(action - offset)
            if not theirs.is_terminal():
                board = theirs.observation_tensor(0)[:14]
                rows = ours.mancala_state.rows()
                stores = ours.mancala_state.scores()
                assert board[1:7] == rows[0] and board[8:14] == rows[1]
                assert [board[7], board[0]] == stores
        assert ours.is_terminal()
        assert ours.returns() == theirs.returns()


def test_without_open_spiel_the_package_imports_and_says_how_to_get_it():
    code = (
        "import sys; sys.modules['pyspiel'] = None\n"
        "import mancala\n"
        "assert mancala.Game('kalah').get_type().short_name == 'mancala_kalah'\n"
        "try:\n"
        "    import mancala.openspiel\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "needs OpenSpiel: pip install open_spiel" in out.stdout, out
