"""A Gymnasium environment: one seat of a mancala game against a built-in agent.

``MancalaEnv(game="kalah", opponent="mcts:sims=100")`` puts the learner in
one seat (``seat=0`` or ``1``, or ``None`` to draw it at each reset) and
lets the opponent, any agent spec of the toolkit, play the other; the
opponent's moves, extra turns included, are played inside ``step``.

- Observations: the game's float32 encoding (``State.observation_tensor``)
  from the learner's point of view. ``info["action_mask"]`` is the int8
  mask of the legal actions, ``info["state"]`` the ``mancala.State``.
- Actions: ``Discrete(pits + 1)``, the package's action ids (the last is
  the pie rule's swap). An illegal action ends the episode with reward -1
  and ``info["illegal_action"] = True``.
- Rewards come at the end: 1 for a win, 0 for a draw, -1 for a loss
  (``reward="margin"``: the final margin divided by the board's seeds).

Importing this module registers ``mancala/Kalah-v0``, ``mancala/KalahPie-v0``,
``mancala/Oware-v0`` and ``mancala/Congkak-v0``;
``gymnasium.make("mancala.gym:mancala/Kalah-v0")`` imports it on the way.
"""

from __future__ import annotations

from typing import Any, Optional

import gymnasium
import numpy as np
from gymnasium import spaces

import mancala
from mancala._env import RENDER_MODES, action_mask, check_render_mode, render

#: Registered ids and their game specs.
ENVIRONMENTS = {
    "mancala/Kalah-v0": "kalah",
    "mancala/KalahPie-v0": "kalah:pie=true",
    "mancala/Oware-v0": "oware",
    "mancala/Congkak-v0": "congkak",
}


class MancalaEnv(gymnasium.Env):
    """One seat of a mancala game against a built-in opponent (see the module's doc)."""

    metadata = {"render_modes": RENDER_MODES}

    def __init__(
        self,
        game: str = "kalah",
        opponent: str = "random",
        seat: Optional[int] = 0,
        reward: str = "win",
        render_mode: Optional[str] = None,
    ):
        if seat not in (0, 1, None):
            raise ValueError(f"seat must be 0, 1 or None (drawn at each reset), not {seat!r}")
        if reward not in ("win", "margin"):
            raise ValueError(f"reward must be 'win' or 'margin', not {reward!r}")
        check_render_mode(render_mode)
        self.game = mancala.Game(game)
        self.opponent = mancala.Agent(opponent)
        self.render_mode = render_mode
        self._seat_choice = seat
        self._reward = reward
        (width,) = self.game.observation_shape()
        self.observation_space = spaces.Box(0.0, 1.0, shape=(width,), dtype=np.float32)
        self.action_space = spaces.Discrete(self.game.num_distinct_actions())
        self.seat = 0 if seat is None else seat
        self.state: mancala.State = self.game.new_initial_state()
        self._over = False

    def _observation(self) -> np.ndarray:
        return self.state.observation_tensor(self.seat)

    def _info(self, **extra: Any) -> dict[str, Any]:
        return {"action_mask": action_mask(self.state, self.seat), "state": self.state, **extra}

    def _opponent_moves(self) -> None:
        while not self.state.is_terminal() and self.state.current_player() != self.seat:
            self.state.apply_action(self.opponent.choose(self.state))

    def _final_reward(self) -> float:
        if self._reward == "margin":
            margin = self.state.margin() * (1 if self.seat == 0 else -1)
            return margin / self.game.total_seeds
        return float(self.state.returns()[self.seat])

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None):
        super().reset(seed=seed)
        if self._seat_choice is None:
            self.seat = int(self.np_random.integers(2))
        # The opponent's random choices follow the environment's generator.
        self.opponent.new_game(int(self.np_random.integers(2**63)))
        self.state = self.game.new_initial_state()
        self._over = False
        self._opponent_moves()
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action):
        if self._over or self.state.is_terminal():
            raise RuntimeError("the episode is over: call reset()")
        action = int(action)
        if action not in self.state.legal_actions():
            self._over = True
            return self._observation(), -1.0, True, False, self._info(illegal_action=True)
        self.state.apply_action(action)
        self._opponent_moves()
        terminated = self.state.is_terminal()
        reward = self._final_reward() if terminated else 0.0
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, False, self._info()

    def render(self) -> Optional[str]:
        return render(self.state, self.render_mode)


def _register() -> None:
    for env_id, game in ENVIRONMENTS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point="mancala.gym:MancalaEnv", kwargs={"game": game})


_register()
