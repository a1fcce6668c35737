"""``mancala.tournament``: the toolkit's tournament runner from Python."""

from __future__ import annotations

import json
import os
import warnings
from typing import Any, Dict, Mapping, Optional, Union

from ._mancala import _tournament

__all__ = ["tournament"]


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
        text, is_table, out, threads, resume, fresh, report
    )
    if report_error is not None:
        warnings.warn(f"no report written: {report_error}", RuntimeWarning, stacklevel=2)
    result: Dict[str, Any] = json.loads(summary)
    result["folder"] = folder
    result["report"] = written
    return result
