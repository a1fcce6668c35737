"""The toolkit's games as OpenSpiel games.

Importing this module registers Kalah, Oware and Congkak with OpenSpiel
(``pip install open_spiel``, or the package's extra:
``pip install './crates/python[openspiel]'``), under the names
``mancala_kalah``, ``mancala_oware`` and ``mancala_congkak``, each with
every rule option of its game spec as a parameter::

    import pyspiel
    import mancala.openspiel

    game = pyspiel.load_game("mancala_kalah(pits=6,seeds=5,empty_capture=true)")
    state = game.new_initial_state()

OpenSpiel's C++ and Python algorithms then take them as any game of
OpenSpiel's own (``pyspiel.random_sim_test``, ``pyspiel.MCTSBot``,
``evaluate_bots``, ``alpha_beta_search``, ``mcts.MCTSBot``). Actions are the
toolkit's: ``0 .. pits-1`` sow the mover's pits 1 to ``pits``, ``pits`` is
the pie rule's swap. Returns are +1, 0 and -1; ``state.margin()`` gives the
margin in seeds, and ``state.mancala_state`` the ``mancala.State`` to hand
to the toolkit's agents and solver.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

try:
    import pyspiel
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError(
        "mancala.openspiel needs OpenSpiel: pip install open_spiel (or install this "
        "package with its extra from a clone: pip install './crates/python[openspiel]')"
    ) from error

from . import _spiel
from ._mancala import Game, State

__all__ = ["register", "game_type", "MancalaGame", "MancalaState"]

_TYPES: dict[str, Any] = {}


def game_type(name: str) -> "pyspiel.GameType":
    """The ``pyspiel.GameType`` of ``kalah``, ``oware`` or ``congkak``."""
    if name not in _TYPES:
        _TYPES[name] = pyspiel.GameType(
            short_name=_spiel.SHORT_NAMES[name],
            long_name=_spiel.LONG_NAMES[name],
            dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
            chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
            information=pyspiel.GameType.Information.PERFECT_INFORMATION,
            utility=pyspiel.GameType.Utility.ZERO_SUM,
            reward_model=pyspiel.GameType.RewardModel.TERMINAL,
            max_num_players=2,
            min_num_players=2,
            provides_information_state_string=True,
            provides_information_state_tensor=False,
            provides_observation_string=True,
            provides_observation_tensor=True,
            parameter_specification=dict(_spiel.PARAMETERS[name]),
        )
    return _TYPES[name]


class MancalaGame(pyspiel.Game):
    """One of the toolkit's games with the rules ``params`` give (missing
    ones standard), as an OpenSpiel game."""

    NAME = ""

    def __init__(self, params: Optional[dict[str, Any]] = None):
        values = dict(_spiel.PARAMETERS[self.NAME])
        values.update(params or {})
        # A bad parameter is refused here with the game spec's message.
        self.rules = Game(_spiel.spec_of(self.NAME, values))
        info = pyspiel.GameInfo(
            num_distinct_actions=self.rules.num_distinct_actions(),
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.rules.max_game_length(),
        )
        super().__init__(game_type(self.NAME), info, values)

    def new_initial_state(self, *_: Any) -> "MancalaState":
        """The starting position."""
        return MancalaState(self, self.rules.new_initial_state())

    def state_from(self, notation: str) -> "MancalaState":
        """A position in the toolkit's notation (``mancala.Game.state_from``)."""
        return MancalaState(self, self.rules.state_from(notation))

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        """The board for observations, the whole history for information
        states (perfect recall)."""
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            return _HistoryObserver()
        return _BoardObserver(self.rules.observation_tensor_size())


class MancalaState(pyspiel.State):
    """A ``mancala.State`` as an OpenSpiel state."""

    def __init__(self, game: MancalaGame, state: State):
        super().__init__(game)
        self._state = state

    @property
    def mancala_state(self) -> State:
        """The toolkit's state (for ``mancala.Agent.choose``, ``mancala.solve``)."""
        return self._state

    def current_player(self) -> int:
        return self._state.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        return self._state.legal_actions(player)

    def _apply_action(self, action: int) -> None:
        self._state.apply_action(action)

    def _action_to_string(self, player: int, action: int) -> str:
        return self._state.action_to_string(player, action)

    def is_terminal(self) -> bool:
        return self._state.is_terminal()

    def returns(self) -> list[float]:
        return [float(r) for r in self._state.returns()]

    def rewards(self) -> list[float]:
        return [float(r) for r in self._state.rewards()]

    def margin(self) -> int:
        """Player 0's seeds minus player 1's (the final margin once over)."""
        return self._state.margin()

    def __str__(self) -> str:
        return str(self._state)


class _BoardObserver:
    """The observation: ``mancala.State.observation_tensor(player)``, and
    the position's notation as its string."""

    def __init__(self, size: int):
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: MancalaState, player: int) -> None:
        self.tensor[:] = state.mancala_state.observation_tensor(player)

    def string_from(self, state: MancalaState, player: int) -> str:
        return state.mancala_state.observation_string(player)


class _HistoryObserver:
    """The information state: everything played (a string only)."""

    def __init__(self) -> None:
        self.tensor = None
        self.dict: dict[str, np.ndarray] = {}

    def set_from(self, state: MancalaState, player: int) -> None:
        del state, player

    def string_from(self, state: MancalaState, player: int) -> str:
        return state.mancala_state.information_state_string(player)


class KalahGame(MancalaGame):
    NAME = "kalah"


class OwareGame(MancalaGame):
    NAME = "oware"


class CongkakGame(MancalaGame):
    NAME = "congkak"


def register() -> None:
    """Registers the three games with OpenSpiel (done on import; calling it
    again does nothing)."""
    registered = set(pyspiel.registered_names())
    for cls in (KalahGame, OwareGame, CongkakGame):
        name = _spiel.SHORT_NAMES[cls.NAME]
        if name not in registered:
            pyspiel.register_game(game_type(cls.NAME), cls)


register()
