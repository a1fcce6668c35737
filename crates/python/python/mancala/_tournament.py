"""``mancala.tournament``: the toolkit's tournament runner from Python, and
``mancala.merge``, which merges a sharded tournament's folders."""

from __future__ import annotations

import json
import os
import warnings
from typing import Any, Dict, Mapping, Optional, Sequence, Union

from ._mancala import _merge, _tournament

__all__ = ["merge", "tournament"]


def _without_none(value: Any) -> Any:
    # TOML has no null: a key set to None means "the default", as if absent.
    if isinstance(value, Mapping):
        return {str(k): _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_without_none(v) for v in value]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value


def tournament(
    config: Union[str, "os.PathLike[str]", Mapping[str, Any]],
    *,
    output: Union[str, "os.PathLike[str]", None] = None,
    threads: Optional[int] = None,
    resume: bool = False,
    fresh: bool = False,
    report: bool = True,
    shard: Optional[str] = None,
) -> Dict[str, Any]:
    """Plays a tournament as ``mancala tournament CONFIG`` does.

    ``config`` is a config file's path, or a dict in the config's shape
    (``{"name": ..., "game": ..., "games_per_pair": ..., "agents": [{"spec":
    ...}, {"name": ..., "command": [...]}]}``; see ``configs/`` and the
    README), checked with the same messages. The games are played in
    parallel on ``threads`` worker threads (default: the config's, else
    every core; results do not depend on it) and logged as each ends into
    ``output`` (default: the config's ``output``, else
    ``results/<name>``). Rerunning the same tournament into the same folder
    continues it; ``fresh=True`` deletes the folder's tournament files
    first; ``resume=True`` requires there is one to continue.

    Returns the tournament's ``summary.json`` as a dict, with ``folder``
    (the output folder) and ``report`` (``report.html``'s path, or None)
    added. Its ``standings`` list each agent's ``elo`` and
    ``elo_95_profile`` interval, ``games``, ``score`` and ``wdl``;
    ``first_player`` holds the first-move statistics; ``forfeits`` counts
    games lost by a failing agent.

    ``shard="K/N"`` plays only shard K of N, one contiguous block of the
    games, into its own folder (default: the tournament's with
    ``-shard-K-of-N`` added), as ``mancala tournament CONFIG --shard K/N``
    does; ``merge`` joins the shards' folders into the tournament's. A
    shard has no ratings: its dict holds only ``folder`` and ``report``
    (None).

    A Python function plays in it as an engine: write it as a script that
    calls ``mancala.engine.serve(choose)`` and give the agent ``command =
    [sys.executable, "bot.py"]``.

    Raises ``ValueError`` for a bad config or agent, or a folder that holds
    another tournament or a damaged log; ``OSError`` for a folder that
    cannot be written or is in use by another run; and ``KeyboardInterrupt`` on Ctrl-C
    after the games in progress end (the log keeps every finished game).
    The GIL is released while the games are played.
    """
    if isinstance(config, Mapping):
        text, is_table = json.dumps(_without_none(config)), True
    elif isinstance(config, (str, os.PathLike)):
        text, is_table = os.fspath(config), False
    else:
        raise TypeError(
            f"config must be a path or a dict, not {type(config).__name__}"
        )
    out = None if output is None else os.fspath(output)
    summary, folder, written, report_error = _tournament(
        text, is_table, out, threads, resume, fresh, report, shard
    )
    if report_error is not None:
        warnings.warn(f"no report written: {report_error}", RuntimeWarning, stacklevel=2)
    result: Dict[str, Any] = {} if summary is None else json.loads(summary)
    result["folder"] = folder
    result["report"] = written
    return result


def merge(
    folders: Sequence[Union[str, "os.PathLike[str]"]],
    output: Union[str, "os.PathLike[str]"],
    *,
    allow_partial: bool = False,
    report: bool = True,
) -> Dict[str, Any]:
    """Merges the folders of a sharded tournament as ``mancala merge DIR...
    --output OUT`` does.

    ``folders`` are the shards' folders, each written by ``mancala
    tournament CONFIG --shard K/N`` on any machine; ``output`` is the merged folder: new, empty, or an earlier
    merge (or run) of the same tournament, whose games are kept. Every game
    is checked by replaying it, written once, and the ratings and summary
    are written as a single run of the tournament writes them.

    Returns the merged ``summary.json`` as a dict (as ``tournament``
    returns it), with ``folder`` and ``report`` (``report.html``'s path, or
    None) added. With ``allow_partial=True`` the games found are written
    even when some are missing; then no ratings are written and the dict
    holds only ``folder``, ``report`` (None), ``games_played``,
    ``games_planned`` and ``missing`` (what is missing, in words).
    Shards or games given twice are read once, with a ``RuntimeWarning``.

    Raises ``ValueError`` for folders that are not shards of one
    tournament, games that differ between folders, a damaged log or
    missing games (without ``allow_partial``); ``OSError`` for a folder
    that cannot be read, written or is in use by a run.
    """
    if isinstance(folders, (str, os.PathLike)):
        raise TypeError("folders must be a list of folders, not one path")
    dirs = [os.fspath(f) for f in folders]
    (
        summary,
        folder,
        written,
        report_error,
        games,
        planned,
        missing,
        notes,
    ) = _merge(dirs, os.fspath(output), allow_partial, report)
    for note in notes:
        warnings.warn(note, RuntimeWarning, stacklevel=2)
    if report_error is not None:
        warnings.warn(f"no report written: {report_error}", RuntimeWarning, stacklevel=2)
    result: Dict[str, Any] = {} if summary is None else json.loads(summary)
    result["folder"] = folder
    result["report"] = written
    result["games_played"] = games
    result["games_planned"] = planned
    if missing is not None:
        result["missing"] = missing
    return result
