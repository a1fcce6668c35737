"""mancala.engine.serve: a Python function as a protocol engine, driven by
hand and by the toolkit's own engine client."""

import io
import sys
import textwrap

import pytest

import mancala
import mancala.engine


def exchange(lines, choose=lambda state: state.legal_actions()[-1]):
    out = io.StringIO()
    mancala.engine.serve(choose, name="last", author="tests", stdin=io.StringIO("\n".join(lines) + "\n"), stdout=out)
    return out.getvalue().splitlines()


def test_the_handshake_games_positions_and_moves():
    replies = exchange(
        [
            "mancala",
            "setoption name Seed value 3",
            "newgame kalah:pits=4,seeds=3",
            "isready",
            "position startpos moves 4",
            "go movetime 100",
            "position 3,3,3,3/3,3,3,3/0,0/1 moves 1",
            "go wtime 1000 btime 1000 winc 10 binc 10",
            "newgame chess",
            "go movetime 10",
            "quit",
            "isready",
        ]
    )
    assert replies[:3] == ["id name last", "id author tests", "mancalaok"]
    assert replies[3] == "readyok"
    # After pit 4 player 1 moves: its last legal pit is 4.
    assert replies[4] == "bestmove 4"
    assert replies[5] == "bestmove 4"
    assert replies[6].startswith("error unknown game 'chess'")
    assert replies[7].startswith("error no game") or replies[7].startswith("error no position")
    assert len(replies) == 8, "nothing is answered after quit"


def test_bad_positions_and_bad_bots_are_answered_with_error():
    replies = exchange(["newgame kalah", "position startpos moves 9", "go", "position nonsense", "go"])
    assert replies[0].startswith("error position:") and replies[1].startswith("error position:")

    def broken(state):
        raise RuntimeError("the bot fell over")

    replies = exchange(["newgame kalah", "position startpos", "go", "isready"], choose=broken)
    assert replies == ["error RuntimeError: the bot fell over", "readyok"]
    replies = exchange(["newgame kalah", "position startpos moves 3", "go"], choose=lambda s: 2)
    assert replies[0].startswith("error ValueError: choose returned 2")


def test_limits_reach_a_choose_that_asks_for_them():
    seen = []

    def choose(state, limits):
        seen.append(limits)
        return state.legal_actions()[0]

    exchange(["newgame kalah", "position startpos", "go wtime 900 btime 800 winc 5 binc 5 movestogo 7"], choose=choose)
    assert seen == [{"wtime": 900, "btime": 800, "winc": 5, "binc": 5, "movestogo": 7}]


def test_a_served_python_bot_plays_whole_games_through_the_toolkits_engine_client(tmp_path):
    bot = tmp_path / "last_pit.py"
    bot.write_text(
        textwrap.dedent(
            """
            import mancala.engine
            mancala.engine.serve(lambda state: state.legal_actions()[-1], name="last pit")
            """
        )
    )
    engine = mancala.Agent(f"engine:cmd={sys.executable} {bot}")
    opponent = mancala.Agent("random", seed=2)
    for spec in ["kalah", "kalah:pits=4,seeds=3,pie=true", "oware"]:
        state = mancala.Game(spec).new_initial_state()
        engine.new_game()
        while not state.is_terminal():
            if state.current_player() == 0:
                action = engine.choose(state)
                assert action == state.legal_actions()[-1]
            else:
                action = opponent.choose(state)
            state.apply_action(action)
        assert state.is_terminal()
