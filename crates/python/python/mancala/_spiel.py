"""What OpenSpiel knows about a game, without needing OpenSpiel.

``mancala.Game.get_type()`` and ``get_parameters()`` come from here, and so
do the parameters with which ``mancala.openspiel`` registers the games.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Union

ParameterValue = Union[bool, int, str]

# Every rule option of each game with its standard value: the parameters of
# `pyspiel.load_game("mancala_kalah(...)")`, named and valued as in a game
# spec (docs/RULES.md).
PARAMETERS: dict[str, dict[str, ParameterValue]] = {
    "kalah": {
        "pits": 6,
        "seeds": 4,
        "empty_capture": False,
        "game_end": "immediate",
        "leftover": "owner",
        "pie": False,
    },
    "oware": {
        "pits": 6,
        "seeds": 4,
        "grand_slam": "no_capture",
        "max_plies": 1000,
    },
    "congkak": {
        "pits": 7,
        "seeds": 7,
        "empty_capture": False,
        "game_end": "delayed",
        "rounds": "one",
        "max_rounds": 20,
    },
}

# The names the games are registered under in OpenSpiel.
SHORT_NAMES = {name: f"mancala_{name}" for name in PARAMETERS}
LONG_NAMES = {
    "kalah": "Kalah (mancala toolkit)",
    "oware": "Oware Abapa (mancala toolkit)",
    "congkak": "Congkak (mancala toolkit)",
}


def _value(default: ParameterValue, text: str) -> ParameterValue:
    """A spec's option text as the type of its default."""
    if isinstance(default, bool):
        return text.lower() in ("true", "yes", "on", "1")
    if isinstance(default, int):
        return int(text)
    return text


def parameters(spec: str) -> dict[str, ParameterValue]:
    """Every option of a canonical game spec (``str(mancala.Game(...))``),
    the defaults included."""
    name, _, options = spec.partition(":")
    values = dict(PARAMETERS[name])
    for item in filter(None, options.split(",")):
        key, _, text = item.partition("=")
        values[key] = _value(PARAMETERS[name][key], text)
    return values


def spec_of(name: str, params: dict[str, Any]) -> str:
    """The game spec of OpenSpiel parameters (unknown keys and bad values
    are for ``mancala.Game`` to refuse, with the spec's message). Standard
    values are left out, as OpenSpiel fills in every parameter and some
    options are refused where they do not apply (``max_rounds`` without
    ``rounds=many``)."""
    items = []
    defaults = PARAMETERS[name]
    for key, value in params.items():
        if key in defaults and value == defaults[key] and type(value) is type(defaults[key]):
            continue
        text = str(value).lower() if isinstance(value, bool) else str(value)
        items.append(f"{key}={text}")
    return f"{name}:{','.join(items)}" if items else name


class Dynamics(enum.Enum):
    SEQUENTIAL = 1


class ChanceMode(enum.Enum):
    DETERMINISTIC = 0


class Information(enum.Enum):
    PERFECT_INFORMATION = 3


class Utility(enum.Enum):
    ZERO_SUM = 1


class RewardModel(enum.Enum):
    TERMINAL = 1


@dataclass(frozen=True)
class GameType:
    """The fields of ``pyspiel.GameType``, for when OpenSpiel is not
    installed."""

    short_name: str
    long_name: str
    dynamics: Dynamics = Dynamics.SEQUENTIAL
    chance_mode: ChanceMode = ChanceMode.DETERMINISTIC
    information: Information = Information.PERFECT_INFORMATION
    utility: Utility = Utility.ZERO_SUM
    reward_model: RewardModel = RewardModel.TERMINAL
    max_num_players: int = 2
    min_num_players: int = 2
    provides_information_state_string: bool = True
    provides_information_state_tensor: bool = False
    provides_observation_string: bool = True
    provides_observation_tensor: bool = True
    parameter_specification: dict[str, ParameterValue] = field(default_factory=dict)
    default_loadable: bool = True


def game_type(name: str) -> Any:
    """The game type of ``name`` (``kalah``, ``oware``, ``congkak``):
    OpenSpiel's own when it is installed, so that its algorithms' checks
    (``game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL``)
    pass on ``mancala.Game``."""
    try:
        from . import openspiel
    except ImportError:
        return GameType(
            short_name=SHORT_NAMES[name],
            long_name=LONG_NAMES[name],
            parameter_specification=dict(PARAMETERS[name]),
        )
    return openspiel.game_type(name)
