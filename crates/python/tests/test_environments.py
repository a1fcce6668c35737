"""The PettingZoo and Gymnasium environments pass their libraries' checks."""

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import mancala
import mancala.gym
import mancala.pettingzoo


@pytest.mark.parametrize("spec", ["kalah", "kalah:pits=4,seeds=3,pie=true", "oware", "congkak:pits=5,seeds=3"])
def test_the_pettingzoo_environment_passes_api_test(spec):
    api_test(mancala.pettingzoo.env(game=spec), num_cycles=200)


def test_pettingzoo_extra_turns_keep_the_agent_and_the_game_ends_with_rewards():
    env = mancala.pettingzoo.env(game="kalah")
    env.reset(seed=1)
    assert env.agent_selection == "player_0"
    env.step(2)  # the last seed in the store: an extra turn
    assert env.agent_selection == "player_0"
    obs, *_ = env.last()
    assert obs["action_mask"].tolist() == [1, 1, 0, 1, 1, 1, 0]
    env.step(5)
    assert env.agent_selection == "player_1"
    # Play it out with the first legal action: the rewards are the returns.
    total = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        total[agent] += reward
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    state = env.unwrapped.state
    assert [total["player_0"], total["player_1"]] == state.returns()


def test_pettingzoo_illegal_actions_end_the_game_and_named_envs_build():
    env = mancala.pettingzoo.make("kalah_pie_v0")
    env.reset()
    env.step(0)
    env.step(0)
    env.step(0)  # player 0's pit 1 is empty: illegal
    assert env.rewards["player_0"] == -1
    with pytest.raises(ValueError, match="kalah_v0"):
        mancala.pettingzoo.make("chess_v0")


@pytest.mark.parametrize("opponent", ["random", "mcts:sims=20"])
@pytest.mark.parametrize("seat", [0, 1, None])
def test_the_gymnasium_environment_passes_check_env(opponent, seat):
    check_env(mancala.gym.MancalaEnv(game="kalah:pits=4,seeds=3", opponent=opponent, seat=seat), skip_render_check=True)


def test_gymnasium_ids_make_environments_that_play_to_the_end():
    for env_id in mancala.gym.ENVIRONMENTS:
        env = gymnasium.make(env_id, opponent="greedy")
        obs, info = env.reset(seed=3)
        done = False
        while not done:
            action = int(np.flatnonzero(info["action_mask"])[0])
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        state = info["state"]
        assert reward == state.returns()[env.unwrapped.seat]
    env = gymnasium.make("mancala.gym:mancala/Kalah-v0")
    assert env.unwrapped.game == mancala.Game("kalah")


def test_gymnasium_illegal_actions_lose_and_seeds_repeat_episodes():
    env = mancala.gym.MancalaEnv(game="kalah", opponent="mcts:sims=30", seat=None)
    obs, info = env.reset(seed=11)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert reward == -1.0 and terminated and info["illegal_action"]
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)

    def episode(seed):
        obs, info = env.reset(seed=seed)
        trail = [env.seat]
        done = False
        while not done:
            action = int(np.flatnonzero(info["action_mask"])[-1])
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        return trail + info["state"].history()

    assert episode(5) == episode(5)
    env = mancala.gym.MancalaEnv(opponent="random", reward="margin", render_mode="ansi")
    env.reset(seed=0)
    assert "<- player" in env.render()
    with pytest.raises(ValueError, match="seat"):
        mancala.gym.MancalaEnv(seat=2)
