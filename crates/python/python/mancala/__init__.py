"""Kalah (every board and rule variant), Oware and Congkak for AI research.

The engine, agents and exact solver of the mancala toolkit, from Python::

    import mancala

    game = mancala.Game("kalah:pits=6,seeds=4")
    state = game.new_initial_state()
    bot = mancala.Agent("minimax:depth=8", seed=1)
    while not state.is_terminal():
        state.apply_action(bot.choose(state))
    print(state, state.returns())

- ``Game`` and ``State`` follow OpenSpiel's ``pyspiel.Game`` and
  ``pyspiel.State``; actions are integers, ``0 .. pits-1`` for the pits
  (pit 1 is 0) and ``pits`` for the pie rule's swap.
- ``Agent`` builds any agent spec of the command line.
- ``solve`` gives a position's exact value, every move's value and a
  principal variation; ``exact_positions`` a perfect-play dataset.
- ``tournament`` runs a tournament config (a file or a dict) and returns
  its standings, ratings with intervals and first-move statistics;
  ``merge`` merges the folders of a tournament played in shards.
- ``VectorGame`` steps many games at once in Rust, for training loops,
  against an opponent played in Rust if asked.
- ``EvalNet`` reads, builds and saves the value networks of
  ``minimax:eval=net:PATH``, and ``net_inputs`` encodes positions as they
  read them: a network trained in NumPy or PyTorch plays by its path.
- ``mancala.pettingzoo`` and ``mancala.gym`` are PettingZoo and Gymnasium
  environments (``pip install './crates/python[rl]'``).
- ``mancala.openspiel`` registers the games with OpenSpiel
  (``pip install './crates/python[openspiel]'``), and ``Game`` and ``State``
  answer OpenSpiel's methods without it.
- ``mancala.engine.serve(choose)`` makes a Python function an engine of the
  toolkit's engine protocol, to play in its tournaments.
"""

from ._mancala import (
    TERMINAL,
    Agent,
    EvalNet,
    Game,
    State,
    VectorGame,
    __version__,
    _restore_state,
    clear_solver,
    exact_positions,
    net_inputs,
    solve,
)
from ._tournament import merge, tournament

__all__ = [
    "TERMINAL",
    "Agent",
    "EvalNet",
    "Game",
    "State",
    "VectorGame",
    "__version__",
    "clear_solver",
    "exact_positions",
    "net_inputs",
    "solve",
    "merge",
    "tournament",
]
