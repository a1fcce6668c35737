"""A PettingZoo AEC environment of any mancala game.

``env(game="kalah")`` is the environment with PettingZoo's usual wrappers
(an illegal action ends the game with -1 for its player, calls out of order
are refused); ``raw_env`` is the class itself. Agents are ``"player_0"``
(who moves first) and ``"player_1"``.

- Observations are dicts: ``"observation"``, the game's float32 encoding
  (``State.observation_tensor``) from the observing agent's point of view,
  and ``"action_mask"``, an int8 mask of the legal actions for the agent
  to move (all zeros for the other).
- Actions are the package's action ids: ``0 .. pits-1`` sow pits 1 to
  ``pits``, ``pits`` is the pie rule's swap (legal only where
  ``pie=true`` offers it).
- A Kalah move that ends in the mover's store earns an extra turn: then
  ``agent_selection`` stays with the same agent.
- Rewards come at the end: 1 for the winner, -1 for the loser, 0 each for
  a draw.

Named games: ``ENVIRONMENTS`` maps names such as ``"kalah_v0"`` to their
game specs, and ``make(name)`` builds one.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

import mancala
from mancala._env import RENDER_MODES, action_mask, check_render_mode, render

#: The environments under their PettingZoo-style names and game specs.
ENVIRONMENTS = {
    "kalah_v0": "kalah",
    "kalah_pie_v0": "kalah:pie=true",
    "oware_v0": "oware",
    "congkak_v0": "congkak",
}


def env(game: str = "kalah", render_mode: Optional[str] = None) -> AECEnv:
    """The environment of ``game`` (any game spec) with PettingZoo's wrappers."""
    e = raw_env(game=game, render_mode=render_mode)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


def make(name: str, render_mode: Optional[str] = None) -> AECEnv:
    """The environment named ``name`` in ``ENVIRONMENTS`` (e.g. ``"kalah_v0"``)."""
    try:
        game = ENVIRONMENTS[name]
    except KeyError:
        known = ", ".join(sorted(ENVIRONMENTS))
        raise ValueError(f"no mancala environment {name!r}: known ones are {known}") from None
    return env(game=game, render_mode=render_mode)


class raw_env(AECEnv):
    """A mancala game as a PettingZoo AEC environment (see the module's doc)."""

    metadata = {
        "render_modes": RENDER_MODES,
        "name": "mancala_v0",
        "is_parallelizable": False,
    }

    def __init__(self, game: str = "kalah", render_mode: Optional[str] = None):
        super().__init__()
        check_render_mode(render_mode)
        self.game = mancala.Game(game)
        self.render_mode = render_mode
        self.possible_agents = ["player_0", "player_1"]
        self._seats = {name: i for i, name in enumerate(self.possible_agents)}
        (width,) = self.game.observation_shape()
        actions = self.game.num_distinct_actions()
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, shape=(width,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(actions,), dtype=np.int8),
            }
        )
        self._action_space = spaces.Discrete(actions)
        self.state: mancala.State = self.game.new_initial_state()

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seats[agent]
        return {"observation": self.state.observation_tensor(seat), "action_mask": action_mask(self.state, seat)}

    def reset(self, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None) -> None:
        # The game has no randomness of its own: the seed is accepted for
        # the API and for wrappers that draw from it.
        self.state = self.game.new_initial_state()
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state.current_player()]

    def step(self, action: int) -> None:
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            self._was_dead_step(action)
            return
        agent = self.agent_selection
        self._cumulative_rewards[agent] = 0.0
        self.state.apply_action(int(action))
        if self.state.is_terminal():
            returns = self.state.returns()
            for name, seat in self._seats.items():
                self.rewards[name] = float(returns[seat])
                self.terminations[name] = True
        else:
            for name in self.agents:
                self.rewards[name] = 0.0
            self.agent_selection = self.possible_agents[self.state.current_player()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> Optional[str]:
        return render(self.state, self.render_mode)

    def close(self) -> None:
        pass
