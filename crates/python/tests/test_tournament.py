"""mancala.tournament: the toolkit's runner from a file or a dict, with a
Python bot served as an engine among the players."""

import json
import sys
import textwrap

import pytest

import mancala


def last_pit_bot(folder):
    """A script whose bot, written in Python, plays its last legal pit."""
    bot = folder / "last_pit.py"
    bot.write_text(
        textwrap.dedent(
            """
            import mancala.engine
            mancala.engine.serve(lambda state: state.legal_actions()[-1], name="last pit")
            """
        )
    )
    return bot


def small_config(bot, **extra):
    config = {
        "name": "py-small",
        "game": "kalah:pits=4,seeds=3",
        "games_per_pair": 4,
        "seed": 7,
        "agents": [
            {"spec": "random"},
            {"spec": "greedy"},
            {"name": "last-pit", "command": [sys.executable, str(bot)]},
        ],
    }
    config.update(extra)
    return config


def games_in(folder):
    with open(folder / "games.jsonl") as f:
        return [json.loads(line) for line in f if line.strip()]


def test_a_served_python_bot_plays_a_tournament_with_no_forfeit(tmp_path):
    bot = last_pit_bot(tmp_path)
    out = tmp_path / "run"
    result = mancala.tournament(small_config(bot), output=out, threads=2)
    assert result["folder"] == str(out)
    assert result["games_planned"] == result["games_played"] == 12
    assert result["forfeits"] == 0 and result["time_losses"] == 0
    names = {s["name"] for s in result["standings"]}
    assert names == {"random", "greedy", "last-pit"}
    for s in result["standings"]:
        assert s["games"] == 8
        if s["name"] != result["anchor"]:
            lo, hi = s["elo_95_profile"]
            assert lo <= s["elo"] <= hi
    first = result["first_player"]["overall"]["wdl"]
    assert first["wins"] + first["draws"] + first["losses"] == 12
    # Every game is in the log, none forfeited, and the bot's moves are
    # its rule: the last legal pit.
    games = games_in(out)
    assert len(games) == 12 and all(g.get("error") is None for g in games)
    bot_index = 2
    replayed = 0
    for g in games:
        state = mancala.Game(g["game"]).new_initial_state()
        for move in g["opening_moves"].split():
            state.apply_action(int(move) - 1)
        for move in g["moves"].split():
            action = int(move) - 1
            if g["seats"][state.current_player()] == bot_index:
                assert action == state.legal_actions()[-1]
                replayed += 1
            state.apply_action(action)
        assert state.is_terminal()
        assert state.scores() == g["scores"]
    assert replayed > 0
    assert (out / "summary.json").exists() and (out / "ratings.csv").exists()
    assert result["report"] is not None and (out / "report.html").exists()


def test_a_file_and_a_dict_play_the_same_tournament_at_any_thread_count(tmp_path):
    toml = tmp_path / "t.toml"
    toml.write_text(
        textwrap.dedent(
            """
            name = "py-same"
            game = "kalah:pits=4,seeds=3"
            games_per_pair = 6
            seed = 11
            [[agents]]
            spec = "random"
            [[agents]]
            spec = "minimax:depth=2"
            [[agents]]
            spec = "greedy"
            """
        )
    )
    from_file = mancala.tournament(toml, output=tmp_path / "file", threads=1, report=False)
    from_dict = mancala.tournament(
        {
            "name": "py-same",
            "game": "kalah:pits=4,seeds=3",
            "games_per_pair": 6,
            "seed": 11,
            "output": None,
            "agents": [{"spec": "random"}, {"spec": "minimax:depth=2"}, {"spec": "greedy"}],
        },
        output=tmp_path / "dict",
        threads=2,
        report=False,
    )
    assert from_file["report"] is None and not (tmp_path / "file" / "report.html").exists()
    for key in ["standings", "first_player", "crosstable", "pentanomial"]:
        assert from_file[key] == from_dict[key], key
    moves = lambda folder: [g["moves"] for g in sorted(games_in(folder), key=lambda g: g["id"])]
    assert moves(tmp_path / "file") == moves(tmp_path / "dict")


def test_a_rerun_continues_the_folder_and_fresh_starts_over(tmp_path):
    config = {
        "name": "py-rerun",
        "game": "kalah:pits=3,seeds=2",
        "games_per_pair": 2,
        "agents": [{"spec": "random"}, {"spec": "greedy"}],
    }
    out = tmp_path / "rerun"
    first = mancala.tournament(config, output=out, report=False)
    log = (out / "games.jsonl").read_text()
    again = mancala.tournament(config, output=out, resume=True, report=False)
    assert (out / "games.jsonl").read_text() == log, "nothing is replayed"
    assert again["standings"] == first["standings"]
    fresh = mancala.tournament(config, output=out, fresh=True, report=False)
    assert fresh["games_played"] == 2 and fresh["standings"] == first["standings"]
    other = dict(config, seed=5)
    with pytest.raises(ValueError, match="belongs to a different tournament"):
        mancala.tournament(other, output=out, report=False)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"gams_per_pair": 2}, "gams_per_pair"),
        ({"game": "kalah:pits=99"}, "key `game`"),
        ({"agents": [{"spec": "random"}, {"spec": "minimax:depth=-1"}]}, r"agents\[1\]\.spec"),
        ({"agents": [{"spec": "random"}]}, "at least 2 agents"),
        ({"agents": [{"spec": "random"}, {"name": "x", "command": ["/no/such/bot"]}]}, r"agents\[1\]\.command"),
        ({"name": "../escape"}, "plain folder name"),
        ({"games_per_pair": "four"}, "games_per_pair|invalid type"),
    ],
)
def test_bad_configs_raise_value_error_naming_the_key(tmp_path, change, message):
    config = {"name": "py-bad", "game": "kalah", "games_per_pair": 2, "agents": [{"spec": "random"}, {"spec": "greedy"}]}
    config.update(change)
    with pytest.raises(ValueError, match=message):
        mancala.tournament(config, output=tmp_path / "bad")


def test_bad_requests_raise_clear_errors(tmp_path):
    config = {"name": "py-req", "game": "kalah:pits=3,seeds=2", "games_per_pair": 2, "agents": [{"spec": "random"}, {"spec": "greedy"}]}
    with pytest.raises(ValueError, match="holds no tournament"):
        mancala.tournament(config, output=tmp_path / "none", resume=True)
    with pytest.raises(ValueError, match="threads"):
        mancala.tournament(config, output=tmp_path / "t", threads=0)
    with pytest.raises(TypeError, match="path or a dict"):
        mancala.tournament(42)
    with pytest.raises(ValueError, match="cannot read|No such file"):
        mancala.tournament(tmp_path / "missing.toml")
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(OSError, match="not a folder"):
        mancala.tournament(config, output=blocker)


def test_exact_adjudication_from_a_dict(tmp_path):
    config = {
        "name": "py-adjudicated",
        "game": "kalah:pits=4,seeds=3",
        "games_per_pair": 6,
        "adjudication": {"exact": True},
        "agents": [{"spec": "greedy"}, {"spec": "minimax:depth=2"}],
    }
    result = mancala.tournament(config, output=tmp_path / "adj", report=False)
    games = games_in(tmp_path / "adj")
    ended = [g for g in games if g["end"] == "adjudicated"]
    assert result["games_played"] == 6 and ended
    for g in ended:
        assert sum(g["scores"]) == 24 and g["margin"] == g["scores"][0] - g["scores"][1]
    with pytest.raises(ValueError, match="Oware"):
        mancala.tournament(dict(config, game="oware"), output=tmp_path / "oware")


def test_shards_merged_are_the_tournament_played_whole(tmp_path):
    config = {
        "name": "py-shards",
        "game": "kalah:pits=4,seeds=3",
        "games_per_pair": 6,
        "seed": 5,
        "agents": [{"spec": "random"}, {"spec": "minimax:depth=2"}, {"spec": "greedy"}],
    }
    whole = mancala.tournament(config, output=tmp_path / "whole", threads=2, report=False)
    shards = []
    for k in (1, 2):
        folder = tmp_path / f"shard{k}"
        played = mancala.tournament(
            config, output=folder, threads=1, report=False, shard=f"{k}/2"
        )
        assert played == {"folder": str(folder), "report": None}
        shards.append(folder)

    merged = mancala.merge(shards, tmp_path / "merged", report=False)
    assert (merged["games_played"], merged["games_planned"]) == (18, 18)
    assert merged["folder"] == str(tmp_path / "merged") and merged["report"] is None
    for key in ["standings", "first_player", "crosstable", "pentanomial"]:
        assert merged[key] == whole[key], key
    moves = lambda folder: [g["moves"] for g in sorted(games_in(folder), key=lambda g: g["id"])]
    assert moves(tmp_path / "merged") == moves(tmp_path / "whole")

    # One shard alone is refused, and leaves no folder; allowed partial, it
    # writes the games found and no ratings.
    with pytest.raises(ValueError, match="missing"):
        mancala.merge(shards[:1], tmp_path / "part")
    assert not (tmp_path / "part").exists()
    part = mancala.merge(shards[:1], tmp_path / "part", allow_partial=True, report=False)
    assert "standings" not in part and "missing" in part
    assert (part["games_played"], part["games_planned"]) == (9, 18)
    assert len(games_in(tmp_path / "part")) == 9

    # A folder given twice is read once, with a warning; merging into a
    # shard's own folder, or shards of another tournament, is refused.
    with pytest.warns(RuntimeWarning, match="given twice"):
        again = mancala.merge(shards + shards[:1], tmp_path / "again", report=False)
    assert again["standings"] == whole["standings"]
    with pytest.raises(ValueError, match="one of the shard folders"):
        mancala.merge(shards, shards[0])
    other = dict(config, seed=6)
    mancala.tournament(other, output=tmp_path / "other", threads=1, report=False, shard="2/2")
    with pytest.raises(ValueError, match="different tournament"):
        mancala.merge([shards[0], tmp_path / "other"], tmp_path / "mixed")
    with pytest.raises(TypeError):
        mancala.merge(tmp_path / "whole", tmp_path / "x")
    with pytest.raises(ValueError, match="shard"):
        mancala.tournament(config, output=tmp_path / "bad", shard="3/2")
