"""What the PettingZoo and Gymnasium environments share: render modes, the
board as they render it, and the action mask of one seat."""

from __future__ import annotations

from typing import Optional

import numpy as np

import mancala

#: The render modes of both environments.
RENDER_MODES = ["human", "ansi"]


def check_render_mode(render_mode: Optional[str]) -> None:
    """Refuses a render mode the environments do not have."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be one of {RENDER_MODES}, not {render_mode!r}")


def render(state: mancala.State, render_mode: Optional[str]) -> Optional[str]:
    """The board as ``render_mode`` asks: returned (``ansi``), printed (``human``) or nothing."""
    if render_mode is None:
        return None
    board = str(state)
    if render_mode == "ansi":
        return board
    print(board)
    return None


def action_mask(state: mancala.State, seat: int) -> np.ndarray:
    """The int8 mask of the legal actions for ``seat``: all zeros when it is not to move."""
    mask = state.legal_actions_mask().astype(np.int8)
    if state.current_player() != seat:
        mask[:] = 0
    return mask


def vector_space(which: str, width: int, actions: int, n: int):
    """One of ``VectorGame``'s Gymnasium spaces: ``single_observation_space``,
    ``single_action_space``, ``observation_space`` or ``action_space``."""
    try:
        from gymnasium import spaces
    except ImportError as e:
        raise ImportError(
            f"VectorGame.{which} is a Gymnasium space: pip install 'mancala-toolkit[rl]'"
        ) from e
    if which == "single_observation_space":
        return spaces.Box(0.0, 1.0, shape=(width,), dtype=np.float32)
    if which == "single_action_space":
        return spaces.Discrete(actions)
    if which == "observation_space":
        return spaces.Box(0.0, 1.0, shape=(n, width), dtype=np.float32)
    if which == "action_space":
        return spaces.MultiDiscrete(np.full(n, actions, dtype=np.int64))
    raise ValueError(f"no space {which!r}")
