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


def test_games_answer_openspiels_game_questions():
    game = mancala.Game("kalah:pits=4,seeds=3,pie=true")
    assert (game.max_utility(), game.min_utility(), game.utility_sum()) == (1.0, -1.0, 0.0)
    # S + (S + 1) * S * (pits - 1), and one move more for the swap.
    assert game.max_game_length() == 24 + 25 * 24 * 3 + 1
    assert mancala.Game("oware:max_plies=300").max_game_length() == 300
    assert game.max_chance_outcomes() == 0
    assert game.observation_tensor_shape() == [11]
    assert game.observation_tensor_size() == 11
    assert game.get_parameters() == {
        "pits": 4,
        "seeds": 3,
        "empty_capture": False,
        "game_end": "immediate",
        "leftover": "owner",
        "pie": True,
    }
    assert mancala.Game("congkak:rounds=many,max_rounds=5").get_parameters()["max_rounds"] == 5
    kind = game.get_type()
    assert kind.short_name == "mancala_kalah"
    assert kind.max_num_players == kind.min_num_players == 2
    assert kind.provides_observation_tensor and not kind.provides_information_state_tensor


def test_states_answer_openspiels_state_questions(kalah):
    state = kalah.new_initial_state()
    assert not state.is_chance_node() and not state.is_simultaneous_node()
    assert state.is_player_node()
    assert state.legal_actions(0) == state.legal_actions() == [0, 1, 2, 3, 4, 5]
    assert state.legal_actions(1) == []
    assert not state.legal_actions_mask(1).any()
    assert state.action_to_string(0, 2) == state.action_to_string(2) == "3"
    with pytest.raises(ValueError, match="player 2 does not exist"):
        state.legal_actions(2)
    child = state.child(2)
    assert state.move_number() == 0 and child.move_number() == 1
    assert child.history() == [2] and child.history_str() == "2"
    assert child.current_player() == 0  # pit 3 of 4 seeds ends in the store
    assert state.rewards() == [0.0, 0.0] and state.player_return(1) == 0.0
    assert child.observation_string(1) == child.observation_string(0) == child.to_notation()
    assert child.information_state_string(0) == "2"
    assert (child.num_distinct_actions(), child.num_players()) == (7, 2)


def test_a_finished_game_rewards_its_result_once(kalah):
    state = kalah.state_from("0,0,0,0,0,1/1,0,0,0,0,0/20,26/0")
    state.apply_action(5)
    assert state.is_terminal() and not state.is_player_node()
    assert state.rewards() == state.returns() == [-1.0, 1.0]
    assert state.player_return(1) == 1.0 and state.player_reward(0) == -1.0


def test_undo_takes_back_exactly_the_last_action(kalah):
    state = kalah.new_initial_state()
    for a in [2, 0, 5]:
        state.apply_action(a)
    before = state.clone()
    mover = state.current_player()
    state.apply_action(state.legal_actions()[0])
    last = state.history()[-1]
    with pytest.raises(ValueError, match="the last action is"):
        state.undo_action(mover, last + 1 if last < 5 else last - 1)
    state.undo_action(mover, last)
    assert state == before and state.history() == before.history()
    assert str(state) == str(before)  # the last move drawn is the one before
    fresh = kalah.new_initial_state()
    with pytest.raises(ValueError, match="no action"):
        fresh.undo_action(0, 0)
    # From a position read, undo goes back to it and no further.
    read = kalah.state_from("4,4,4,4,4,4/4,4,4,4,4,4/0,0/1")
    read.apply_action(0)
    read.undo_action(1, 0)
    assert read.to_notation() == "4,4,4,4,4,4/4,4,4,4,4,4/0,0/1" and read.history() == []


def test_serialized_states_read_back_with_their_history(kalah):
    state = kalah.new_initial_state()
    for a in [2, 0, 5, 1]:
        state.apply_action(a)
    text = state.serialize()
    assert text == "2\n0\n5\n1\n"
    back = kalah.deserialize_state(text)
    assert back == state and back.history() == state.history()
    read = kalah.state_from("4,4,4,4,4,4/4,4,4,4,4,4/0,0/1")
    read.apply_action(3)
    assert kalah.deserialize_state(read.serialize()) == read
    assert kalah.deserialize_state("") == kalah.new_initial_state()
    with pytest.raises(ValueError, match="not an action"):
        kalah.deserialize_state("2\nthree\n")
    with pytest.raises(ValueError, match="action 9 does not exist"):
        kalah.deserialize_state("9\n")


def test_the_openspiel_parameter_defaults_are_the_rules_defaults():
    # mancala._spiel lists every option with its standard value (OpenSpiel
    # needs them); each, written out, must give the standard game.
    from mancala import _spiel

    for name, options in _spiel.PARAMETERS.items():
        standard = mancala.Game(name)
        assert standard.get_parameters() == options
        for key, value in options.items():
            text = str(value).lower() if isinstance(value, bool) else str(value)
            if key == "max_rounds":  # only with rounds=many
                written = mancala.Game(f"{name}:rounds=many,{key}={text}")
                assert written == mancala.Game(f"{name}:rounds=many"), key
                continue
            assert mancala.Game(f"{name}:{key}={text}") == standard, (name, key)
