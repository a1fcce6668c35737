"""Games and states: the rules through Python, against OpenSpiel's traces
and the engine's perft counts, and every error a user can make."""

import copy
import pickle

import numpy as np
import pytest

import mancala
from conftest import perft_counts, traces


def test_specs_parse_to_their_canonical_form():
    assert str(mancala.Game("kalah:pits=6,seeds=4")) == "kalah"
    assert str(mancala.Game("kalah:pie=true")) == "kalah:pie=true"
    assert mancala.Game("abapa") == mancala.Game("oware")
    assert mancala.Game("congkak").pits == 7
    assert hash(mancala.Game("kalah")) == hash(mancala.Game("kalah:seeds=4"))
    game = mancala.Game("kalah:pits=4,seeds=3")
    assert (game.name, game.pits, game.total_seeds) == ("kalah", 4, 24)
    assert game.num_distinct_actions() == 5
    assert game.observation_shape() == (11,)
    assert game.num_players() == 2
    assert mancala.Game("congkak:rounds=many,pits=5,seeds=5").observation_shape() == (23,)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("kalah:pits=99", "bad value '99' for 'pits': expected a whole number from 1 to 15"),
        ("chess", "unknown game 'chess'"),
        ("kalah:colour=red", "colour"),
        ("", "malformed spec"),
    ],
)
def test_a_bad_spec_raises_value_error_with_the_command_lines_message(spec, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        mancala.Game(spec)


def test_actions_sow_pits_and_an_extra_turn_keeps_the_mover(kalah):
    state = kalah.new_initial_state()
    assert state.current_player() == 0
    assert state.legal_actions() == [0, 1, 2, 3, 4, 5]
    mask = state.legal_actions_mask()
    assert mask.dtype == np.bool_ and mask.tolist() == [True] * 6 + [False]
    state.apply_action(2)  # pit 3 holds 4 seeds: the last lands in the store
    assert state.current_player() == 0
    assert state.to_notation() == "4,4,0,5,5,5/4,4,4,4,4,4/1,0/0"
    state.apply_action(5)
    assert state.current_player() == 1
    assert state.history() == [2, 5]
    assert state.action_to_string(2) == "3" and state.string_to_action("6") == 5


def test_the_pie_swap_is_the_last_action():
    game = mancala.Game("kalah:pie=true")
    state = game.new_initial_state()
    state.apply_action(0)
    assert state.current_player() == 1
    assert state.legal_actions()[-1] == game.pits
    assert state.legal_actions_mask()[game.pits]
    assert state.action_to_string(game.pits) == "swap"
    before = state.to_notation()
    state.apply_action(game.pits)
    assert state.history() == [0, 6]
    assert state.to_notation() != before
    # Offered once only.
    assert game.pits not in state.legal_actions()


def test_an_illegal_action_raises_and_leaves_the_state_as_it_was(kalah):
    state = kalah.new_initial_state()
    state.apply_action(0)
    state.apply_action(0)  # player 1's pit 1
    before = state.to_notation()
    with pytest.raises(ValueError, match="illegal move 1: legal moves are 2 3 4 5 6"):
        state.apply_action(0)
    with pytest.raises(ValueError, match="action 7 does not exist"):
        state.apply_action(7)
    with pytest.raises(ValueError, match="action -1 does not exist"):
        state.apply_action(-1)
    with pytest.raises(ValueError, match="illegal move swap"):
        state.apply_action(6)
    assert state.to_notation() == before and state.history() == [0, 0]


def test_positions_are_read_and_checked_as_on_the_command_line(kalah):
    state = kalah.state_from("0,0,0,0,0,1/1,0,0,0,0,0/23,23/0")
    assert state.legal_actions() == [5]
    with pytest.raises(ValueError, match="seeds"):
        kalah.state_from("0,0,0,0,0,1/1,0,0,0,0,0/23,22/0")
    with pytest.raises(ValueError):
        kalah.state_from("not a position")
    with pytest.raises(ValueError):
        kalah.state_from("4,4,4/4,4,4/0,0/0")


def test_a_finished_game_has_returns_margin_and_no_moves(kalah):
    state = kalah.state_from("0,0,0,0,0,1/1,0,0,0,0,0/23,23/0")
    state.apply_action(5)
    assert state.is_terminal()
    assert state.current_player() == mancala.TERMINAL == -4
    assert state.legal_actions() == []
    assert not state.legal_actions_mask().any()
    # 24 against 24: the last seed reached the store, player 1 keeps theirs.
    assert state.scores() == [24, 24] and state.margin() == 0
    assert state.returns() == [0.0, 0.0]


def test_observation_tensor_is_the_movers_view_or_the_named_players(kalah):
    state = kalah.state_from("1,2,3,4,5,6/0,1,0,1,0,1/11,13/1")
    total = 48.0
    mover = state.observation_tensor()
    assert mover.dtype == np.float32 and mover.shape == kalah.observation_shape()
    np.testing.assert_allclose(mover[:6] * total, [0, 1, 0, 1, 0, 1])
    np.testing.assert_allclose(mover[6:12] * total, [1, 2, 3, 4, 5, 6])
    np.testing.assert_allclose(mover[12:14] * total, [13, 11])
    np.testing.assert_array_equal(state.observation_tensor(1), mover)
    other = state.observation_tensor(0)
    np.testing.assert_allclose(other[:6] * total, [1, 2, 3, 4, 5, 6])
    np.testing.assert_allclose(other[12:14] * total, [11, 13])
    with pytest.raises(ValueError, match="players are 0 and 1"):
        state.observation_tensor(2)


def test_states_copy_compare_hash_and_pickle(kalah):
    state = kalah.new_initial_state()
    for a in [2, 5, 1]:
        state.apply_action(a)
    twin = state.clone()
    assert twin == state and hash(twin) == hash(state)
    twin.apply_action(twin.legal_actions()[0])
    assert twin != state and state.history() == [2, 5, 1]
    assert copy.deepcopy(state) == state
    back = pickle.loads(pickle.dumps(state))
    assert back == state and back.history() == state.history()
    read = kalah.state_from(state.to_notation())
    read.apply_action(0)
    again = pickle.loads(pickle.dumps(read))
    assert again == read and again.history() == [0]
    assert pickle.loads(pickle.dumps(kalah)) == kalah


def test_str_draws_the_board_with_the_last_move(kalah):
    state = kalah.new_initial_state()
    state.apply_action(2)
    text = str(state)
    assert "<- player 1" in text and "<- player 0" in text
    assert "[0]" in text
    assert "last move: player 0 played 3" in text
    assert "mancala.State" in repr(state)


@pytest.mark.parametrize("name, spec", [("kalah_6x4_random.jsonl", "kalah"), ("oware_6x4_random.jsonl", "oware")])
def test_every_position_of_openspiels_games_agrees(name, spec):
    game = mancala.Game(spec)
    for record in traces(name):
        state = game.new_initial_state()
        for k, move in enumerate(record["moves"]):
            assert state.current_player() == record["players"][k]
            legal = sum(1 << a for a in state.legal_actions())
            assert legal == record["legal"][k], (record["index"], k)
            state.apply_action(move)
            to_move = record["to_move"][k]
            assert state.current_player() == (mancala.TERMINAL if to_move == -1 else to_move)
            if not state.is_terminal():
                rows = state.rows()
                board = rows[0] + rows[1] + state.scores()
                assert board == record["boards"][k], (record["index"], k)
        assert state.is_terminal()
        assert state.scores() == record["final_scores"], record["index"]
        assert state.returns() == [float(r) for r in record["returns"]]


def perft(state, depth):
    if depth == 0:
        return 1
    total = 0
    for a in state.legal_actions():
        child = state.clone()
        child.apply_action(a)
        total += perft(child, depth - 1)
    return total


@pytest.mark.parametrize("spec, depth, count", [r for r in perft_counts() if r[1] <= 5])
def test_perft_counts_agree_with_the_engines(spec, depth, count):
    assert perft(mancala.Game(spec).new_initial_state(), depth) == count
