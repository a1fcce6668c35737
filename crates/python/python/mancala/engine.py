"""Turn a Python function into an engine of the toolkit's engine protocol.

``serve(choose)`` reads the protocol's commands on standard input and
answers on standard output (``docs/engine-protocol.md``), calling
``choose(state)`` for each ``go``, so that a Python bot plays in the
toolkit's matches and tournaments::

    # my_bot.py
    import mancala.engine

    def choose(state):
        return state.legal_actions()[-1]

    mancala.engine.serve(choose, name="last pit")

and in a tournament config::

    [[agents]]
    name = "last-pit"
    command = ["python3", "my_bot.py"]

``choose`` gets a ``mancala.State`` (with the game's moves when the runner
sent them) and returns an action id. If it takes a second parameter, it
also gets the ``go`` command's limits as a dict (``movetime``, ``nodes``,
``depth``, ``wtime``, ``btime``, ``winc``, ``binc``, ``movestogo``, in
milliseconds where they are times; only those sent). An exception in
``choose``, or an action that is not legal, is answered with ``error`` (the
game is forfeited, the engine goes on) and its traceback goes to standard
error, which the toolkit keeps in the tournament's folder.
"""

from __future__ import annotations

import inspect
import sys
import traceback
from typing import Any, Callable, Optional, TextIO

import mancala

#: The integer limits ``go`` may carry.
GO_LIMITS = ("movetime", "nodes", "depth", "wtime", "btime", "winc", "binc", "movestogo")


def serve(
    choose: Callable[..., int],
    name: str = "python engine",
    author: Optional[str] = None,
    stdin: Optional[TextIO] = None,
    stdout: Optional[TextIO] = None,
) -> None:
    """Answers the protocol on ``stdin``/``stdout`` until ``quit`` or the end of input."""
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    takes_limits = _takes_limits(choose)

    def say(line: str) -> None:
        stdout.write(line + "\n")
        stdout.flush()

    game: Optional[mancala.Game] = None
    state: Optional[mancala.State] = None
    broken: Optional[str] = None  # why the last position could not be set up
    for raw in stdin:
        words = raw.split()
        if not words:
            continue
        command, args = words[0], words[1:]
        if command == "mancala":
            say(f"id name {name}")
            if author:
                say(f"id author {author}")
            say("mancalaok")
        elif command == "isready":
            say("readyok")
        elif command == "setoption":
            pass
        elif command == "newgame":
            try:
                game = mancala.Game(" ".join(args) if args else "kalah")
                state, broken = game.new_initial_state(), None
            except ValueError as e:
                game, state = None, None
                say(f"error {e}")
        elif command == "position":
            state, broken = _position(game, args)
        elif command == "go":
            if state is None:
                say(f"error {broken or 'no position: send newgame and position first'}")
                continue
            if state.is_terminal():
                say("error the game is over: there is no move to choose")
                continue
            try:
                limits = _limits(args)
                action = choose(state.clone(), limits) if takes_limits else choose(state.clone())
                action = int(action)
                if action not in state.legal_actions():
                    raise ValueError(f"choose returned {action}, not one of the legal actions {state.legal_actions()}")
            except Exception as e:  # the bot's failure is its game's, not the engine's
                traceback.print_exc(file=sys.stderr)
                say(f"error {type(e).__name__}: {e}".replace("\n", " "))
                continue
            say(f"bestmove {state.action_to_string(action)}")
        elif command == "quit":
            return
        else:
            say(f"error unknown command {command!r}")


def _position(game: Optional[mancala.Game], args: list[str]) -> tuple[Optional[mancala.State], Optional[str]]:
    """The state of a ``position`` command, or ``None`` and why not."""
    if game is None:
        return None, "no game: send newgame before position"
    if not args:
        return None, "position needs startpos or a position"
    try:
        state = game.new_initial_state() if args[0] == "startpos" else game.state_from(args[0])
        rest = args[1:]
        if rest:
            if rest[0] != "moves":
                return None, f"position: expected 'moves', not {rest[0]!r}"
            for move in rest[1:]:
                state.apply_action(state.string_to_action(move))
    except ValueError as e:
        return None, f"position: {e}"
    return state, None


def _limits(args: list[str]) -> dict[str, int]:
    limits: dict[str, int] = {}
    for key, value in zip(args[::2], args[1::2]):
        if key in GO_LIMITS:
            limits[key] = int(value)
    return limits


def _takes_limits(choose: Callable[..., Any]) -> bool:
    try:
        parameters = inspect.signature(choose).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [
        p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
    ]
    return len(positional) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in positional)
