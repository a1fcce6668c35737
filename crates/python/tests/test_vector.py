"""The batched environment against one State per game, and its errors."""

import numpy as np
import pytest

import mancala


def reference_step(states, actions, auto_reset, game):
    """What a step must give, computed one State at a time."""
    rewards = np.zeros((len(states), 2), dtype=np.float32)
    terminated = np.zeros(len(states), dtype=bool)
    for i, (s, a) in enumerate(zip(states, actions)):
        s.apply_action(int(a))
        if s.is_terminal():
            rewards[i] = s.returns()
            terminated[i] = True
            if auto_reset:
                states[i] = game.new_initial_state()
    return rewards, terminated


@pytest.mark.parametrize("spec", ["kalah", "kalah:pits=4,seeds=3,pie=true", "oware", "congkak:pits=5,seeds=4,rounds=many"])
@pytest.mark.parametrize("auto_reset", [True, False])
def test_steps_agree_with_states_stepped_one_by_one(spec, auto_reset):
    game = mancala.Game(spec)
    n = 700
    vector = mancala.VectorGame(spec, n, seed=1, auto_reset=auto_reset, threads=2)
    states = [game.new_initial_state() for _ in range(n)]
    rng = np.random.default_rng(0)
    obs, legal, rewards, terminated, to_move = vector.reset()
    assert obs.shape == (n, *game.observation_shape()) and obs.dtype == np.float32
    assert legal.shape == (n, game.num_distinct_actions()) and legal.dtype == np.bool_
    assert rewards.shape == (n, 2) and terminated.shape == (n,) and to_move.dtype == np.int8
    ended = 0
    for _ in range(120):
        if not auto_reset:
            live = [i for i, s in enumerate(states) if not s.is_terminal()]
            if not live:
                break
        actions = np.array(
            [rng.choice(s.legal_actions()) if not s.is_terminal() else 0 for s in states], dtype=np.int64
        )
        if not auto_reset:
            # Finished games cannot step: restart them through reset().
            if any(s.is_terminal() for s in states):
                obs, legal, rewards, terminated, to_move = vector.reset()
                states = [game.new_initial_state() for _ in range(n)]
                continue
        want_rewards, want_terminated = reference_step(states, actions, auto_reset, game)
        obs, legal, rewards, terminated, to_move = vector.step(actions)
        ended += int(want_terminated.sum())
        np.testing.assert_array_equal(terminated, want_terminated)
        np.testing.assert_array_equal(rewards, want_rewards)
        for i in range(0, n, 37):
            s = states[i]
            np.testing.assert_array_equal(obs[i], s.observation_tensor())
            np.testing.assert_array_equal(legal[i], s.legal_actions_mask())
            assert to_move[i] == s.current_player()
            assert vector.state(i) == s
    assert ended > 0


def test_a_batch_split_over_threads_steps_as_one_state_at_a_time():
    # Enough games for each of two threads to take a share (8,192 at least).
    game = mancala.Game("kalah:pie=true")
    n = 16500
    vector = mancala.VectorGame("kalah:pie=true", n, seed=2, threads=2)
    states = [game.new_initial_state() for _ in range(n)]
    rng = np.random.default_rng(3)
    vector.reset()
    ended = 0
    for _ in range(60):
        actions = np.array([rng.choice(s.legal_actions()) for s in states], dtype=np.int64)
        want_rewards, want_terminated = reference_step(states, actions, True, game)
        obs, legal, rewards, terminated, to_move = vector.step(actions)
        ended += int(want_terminated.sum())
        np.testing.assert_array_equal(terminated, want_terminated)
        np.testing.assert_array_equal(rewards, want_rewards)
        np.testing.assert_array_equal(to_move, [s.current_player() for s in states])
    for i in [0, 8191, 8192, 8250, n - 1]:
        assert vector.state(i) == states[i]
        np.testing.assert_array_equal(obs[i], states[i].observation_tensor())
        np.testing.assert_array_equal(legal[i], states[i].legal_actions_mask())
    assert ended > 0


def test_the_arrays_are_written_in_place():
    vector = mancala.VectorGame("kalah", 3)
    first = vector.reset()
    second = vector.step(np.zeros(3, dtype=np.int32))
    assert all(a is b for a, b in zip(first, second))


def test_an_illegal_action_raises_and_no_game_moves():
    vector = mancala.VectorGame("kalah", 4)
    vector.step([2, 2, 2, 2])  # an extra turn in each: pit 3 is empty now
    before = [vector.state(i).to_notation() for i in range(4)]
    with pytest.raises(ValueError, match="game 1: action 2 is not legal; legal actions are 0 1 3 4 5"):
        vector.step([0, 2, 0, 0])
    with pytest.raises(ValueError, match="game 0: action 9 is not legal"):
        vector.step([9, 0, 0, 0])
    with pytest.raises(ValueError, match="3 given for 4 games"):
        vector.step([0, 0, 0])
    assert [vector.state(i).to_notation() for i in range(4)] == before
    with pytest.raises(ValueError, match="game 4 does not exist"):
        vector.state(4)
    with pytest.raises(ValueError, match="game -1 does not exist"):
        vector.state(-1)
    with pytest.raises(ValueError, match="n must be at least 1"):
        mancala.VectorGame("kalah", 0)
    with pytest.raises(ValueError, match="n must be at least 1"):
        mancala.VectorGame("kalah", -3)
    with pytest.raises(ValueError, match="unknown game"):
        mancala.VectorGame("chess", 2)


def test_a_finished_game_without_auto_reset_must_be_reset():
    vector = mancala.VectorGame("kalah:pits=1,seeds=1", 2, auto_reset=False)
    _, _, rewards, terminated, to_move = vector.step([0, 0])
    assert terminated.all() and (to_move == mancala.TERMINAL).all()
    assert rewards.tolist() == [[0.0, 0.0], [0.0, 0.0]] or rewards.sum() == 0
    with pytest.raises(ValueError, match="game 0 is over"):
        vector.step([0, 0])
    vector.reset()
    vector.step([0, 0])


def run(seed, threads, plies=3, steps=60, n=17000):
    vector = mancala.VectorGame("kalah", n, seed=seed, opening_plies=plies, threads=threads)
    obs, legal, *_ = vector.reset()
    trail = [obs.copy()]
    for _ in range(steps):
        actions = legal.argmax(axis=1)  # the first legal action of each game
        obs, legal, rewards, terminated, to_move = vector.step(actions)
        trail.append(obs.copy())
    return np.stack(trail)


def test_openings_follow_the_seed_at_any_thread_count():
    one = run(7, 1)
    assert np.array_equal(one, run(7, 2))
    assert not np.array_equal(one, run(8, 2))
    # Openings differ between games of one batch.
    assert len({row.tobytes() for row in one[0]}) > 100


@pytest.mark.parametrize("spec", ["kalah", "kalah:pits=4,seeds=3,pie=true", "oware", "congkak"])
def test_sampled_actions_are_legal_uniform_and_follow_the_seed(spec):
    vector = mancala.VectorGame(spec, 3000, seed=4)
    obs, legal, rewards, terminated, to_move = vector.reset()
    swaps = 0
    for _ in range(60):
        actions = vector.sample_actions()
        assert actions.dtype == np.int64 and actions.shape == (3000,)
        assert legal[np.arange(3000), actions].all(), "every sample is a legal action"
        swaps += int((actions == legal.shape[1] - 1).sum())
        obs, legal, rewards, terminated, to_move = vector.step(actions)
    if "pie=true" in spec:
        assert swaps > 0, "the swap is drawn where it is legal"
    # The same seed draws the same actions; another seed does not.
    a = mancala.VectorGame(spec, 500, seed=9)
    b = mancala.VectorGame(spec, 500, seed=9, threads=1)
    c = mancala.VectorGame(spec, 500, seed=10)
    first, second = a.sample_actions().copy(), a.sample_actions().copy()
    assert np.array_equal(first, b.sample_actions())
    assert not np.array_equal(first, c.sample_actions())
    assert not np.array_equal(first, second), "each call draws anew"


def test_sampled_actions_are_uniform_over_the_legal_ones():
    # At the start of Kalah every one of the 6 pits is legal: 60,000 draws
    # put 10,000 on each, give or take a few hundred.
    counts = np.bincount(mancala.VectorGame("kalah", 60000, seed=1).sample_actions(), minlength=7)
    assert counts[6] == 0
    assert np.all(np.abs(counts[:6] - 10000) < 400), counts
    chi2 = ((counts[:6] - 10000) ** 2 / 10000).sum()
    assert chi2 < 20.5, f"chi-square {chi2:.1f} with 5 degrees of freedom (p < 0.001)"


def test_a_finished_game_samples_minus_one():
    vector = mancala.VectorGame("kalah:pits=1,seeds=1", 4, auto_reset=False)
    vector.reset()
    vector.step(vector.sample_actions())
    assert list(vector.sample_actions()) == [-1, -1, -1, -1]


def test_nbytes_counts_the_games_and_their_arrays():
    small, large = mancala.VectorGame("kalah", 10), mancala.VectorGame("kalah", 1000)
    obs, legal, rewards, terminated, to_move = large.reset()
    arrays = sum(a.nbytes for a in (obs, legal, rewards, terminated, to_move)) + 8 * 1000
    assert arrays < large.nbytes < arrays + 1000 * 200
    assert 90 * small.nbytes < large.nbytes < 110 * small.nbytes


def test_a_batch_this_machine_cannot_hold_is_refused_before_it_is_allocated():
    # Ten billion games (over a terabyte) would abort the interpreter if
    # allocated; 2**62 games overflow the address space. Both are refused
    # with Python's own errors.
    with pytest.raises(MemoryError, match=r"n: 10000000000 games need \d+ MiB"):
        mancala.VectorGame("kalah", 10**10)
    with pytest.raises(ValueError, match="more than this machine can address"):
        mancala.VectorGame("kalah", 2**62)
    # A batch that fits is still made.
    assert len(mancala.VectorGame("oware", 1000)) == 1000


def test_actions_are_integers_and_any_layout_of_them_plays():
    vector = mancala.VectorGame("kalah", 3, seed=4)
    for bad in ([0.9, 0.0, 1.0], np.array([True, False, True]), ["1", "2", "3"]):
        with pytest.raises(TypeError, match="integers expected"):
            vector.step(bad)
    with pytest.raises(ValueError, match="2 dimensions"):
        vector.step(np.zeros((3, 1), dtype=np.int64))
    # No game moved; a strided view and other integer types play as copies.
    assert all(vector.state(i).to_notation() == vector.state(0).to_notation() for i in range(3))
    strided = np.array([0, 9, 1, 9, 2, 9], dtype=np.int64)[::2]
    assert not strided.flags["C_CONTIGUOUS"]
    vector.step(strided)
    moved = [vector.state(i).to_notation() for i in range(3)]
    other = mancala.VectorGame("kalah", 3, seed=4)
    other.step(np.array([0, 1, 2], dtype=np.uint8))
    assert [other.state(i).to_notation() for i in range(3)] == moved


def test_without_auto_reset_a_batch_plays_to_its_end_and_games_reset_alone():
    n = 50
    vector = mancala.VectorGame("kalah:pits=3,seeds=2", n, seed=8, auto_reset=False)
    game = mancala.Game("kalah:pits=3,seeds=2")
    rewarded = np.zeros(n, dtype=int)
    for _ in range(200):
        actions = vector.sample_actions()
        was_over = actions == -1
        _, _, rewards, terminated, to_move = vector.step(actions)
        # A finished game stays over and gets its reward once, when it ends.
        assert terminated[was_over].all() and not rewards[was_over].any()
        rewarded += (rewards != 0).any(axis=1)
        if terminated.all():
            break
    assert terminated.all() and (to_move == mancala.TERMINAL).all()
    assert rewarded.max() <= 1
    # Each final position is a game's end, with the result it was rewarded.
    for i in range(n):
        assert vector.state(i).is_terminal()
    # A game that is over and given an action is refused, naming the way out.
    with pytest.raises(ValueError, match=r"game 0 is over .* -1 .*reset\(\[0\]\)"):
        vector.step(np.zeros(n, dtype=np.int64))
    ended = [vector.state(i).to_notation() for i in range(n)]
    obs, legal, rewards, terminated, to_move = vector.reset([3, 7])
    assert not terminated[[3, 7]].any() and terminated[[0, 1, 2, 4, 49]].all()
    assert vector.state(3).to_notation() == game.new_initial_state().to_notation()
    assert [vector.state(i).to_notation() for i in (0, 1, 49)] == [ended[i] for i in (0, 1, 49)]
    assert legal[3].any() and not legal[0].any()
    actions = np.full(n, -1)
    actions[[3, 7]] = vector.sample_actions()[[3, 7]]
    vector.step(actions)
    with pytest.raises(ValueError, match="indices: game 50 does not exist"):
        vector.reset([50])
    with pytest.raises(TypeError, match="indices: integers expected"):
        vector.reset([1.5])
    assert vector.reset([])[3][[0, 3]].tolist() == [True, False]
    assert not vector.reset()[3].any()


def opponent_replies(state, seat):
    """Every position the opponent's turn can reach from ``state`` (its
    moves, extra turns included, until ``seat`` is to move or the game ends)."""
    if state.is_terminal() or state.current_player() == seat:
        return {state.to_notation()}
    reached = set()
    for a in state.legal_actions():
        reached |= opponent_replies(state.child(a), seat)
    return reached


@pytest.mark.parametrize("spec", ["kalah:pits=4,seeds=3", "oware:seeds=2", "congkak:pits=4,seeds=2"])
def test_an_opponent_plays_its_turns_inside_reset_and_step(spec):
    n = 300
    vector = mancala.VectorGame(spec, n, seed=5, opponent="greedy", seat=None, auto_reset=False, threads=2)
    seats = vector.seats
    assert seats.tolist() == [i % 2 for i in range(n)] and vector.opponent == "greedy"
    obs, legal, rewards, terminated, to_move = vector.reset()
    # Every game the learner holds seat 1 in has seen the opponent's first turn.
    start = mancala.Game(spec).new_initial_state()
    for i in (1, 3, 5):
        assert vector.state(i).to_notation() in opponent_replies(start, 1)
        assert vector.state(i).to_notation() != start.to_notation()
    checked = 0
    while not terminated.all():
        live = ~terminated
        # The learner is to move in every game still going.
        assert (to_move[live] == seats[live]).all()
        before = [vector.state(i) for i in range(n)]
        actions = vector.sample_actions()
        obs, legal, rewards, terminated, to_move = vector.step(actions)
        for i in range(0, n, 7):
            if actions[i] < 0:
                continue
            mine = before[i].child(int(actions[i]))
            assert vector.state(i).to_notation() in opponent_replies(mine, int(seats[i]))
            checked += 1
            if terminated[i]:
                final = vector.state(i)
                assert rewards[i].tolist() == final.returns()
                assert vector.margins[i].tolist() == [final.margin(), -final.margin()]
            else:
                assert not rewards[i].any() and not vector.margins[i].any()
    assert checked > 100


def test_an_opponent_that_searches_beats_a_random_learner_and_random_does_not():
    def learner_score(opponent):
        vector = mancala.VectorGame("kalah:pits=4,seeds=3", 400, seed=2, opponent=opponent, seat=None, auto_reset=False)
        _, _, rewards, terminated, _ = vector.reset()
        total = np.zeros(400)
        while not terminated.all():
            _, _, rewards, terminated, _ = vector.step(vector.sample_actions())
            total += rewards[np.arange(400), vector.seats]
        return total.mean()

    assert learner_score("minimax:depth=6") < -0.8
    assert abs(learner_score("random")) < 0.2


def test_games_against_an_opponent_follow_the_seed_at_any_thread_count():
    def trail(seed, threads):
        vector = mancala.VectorGame("kalah", 20000, seed=seed, opponent="greedy", seat=None, opening_plies=2, threads=threads)
        obs, *_ = vector.reset()
        out = [obs.copy()]
        for _ in range(30):
            obs, *_ = vector.step(vector.sample_actions())
            out.append(obs.copy())
        return np.stack(out)

    one = trail(3, 1)
    assert np.array_equal(one, trail(3, 2))
    assert not np.array_equal(one, trail(4, 2))


def test_reset_with_a_seed_starts_the_batch_as_a_new_one_of_that_seed():
    def positions(vector):
        return [vector.state(i).to_notation() for i in range(len(vector))]

    fresh = mancala.VectorGame("kalah", 50, seed=9, opponent="random", seat=None, opening_plies=3)
    reused = mancala.VectorGame("kalah", 50, seed=1, opponent="random", seat=None, opening_plies=3)
    for _ in range(5):
        reused.step(reused.sample_actions())
    reused.reset(seed=9)
    want, got = [positions(fresh)], [positions(reused)]
    for _ in range(10):
        fresh.step(fresh.sample_actions())
        reused.step(reused.sample_actions())
        want.append(positions(fresh))
        got.append(positions(reused))
    assert want == got
    with pytest.raises(ValueError, match="seed restarts the whole batch"):
        reused.reset([0], seed=3)


def test_opponent_and_seat_are_checked():
    with pytest.raises(ValueError, match="opponent: .*unknown agent"):
        mancala.VectorGame("kalah", 4, opponent="nobody")
    with pytest.raises(ValueError, match="external engine"):
        mancala.VectorGame("kalah", 4, opponent="engine:cmd=python3")
    with pytest.raises(ValueError, match="seat must be 0, 1 or None"):
        mancala.VectorGame("kalah", 4, opponent="random", seat=2)
    with pytest.raises(ValueError, match="give opponent= too"):
        mancala.VectorGame("kalah", 4, seat=1)
    # An opponent that cannot play the game (the solver plays no Oware).
    with pytest.raises(ValueError, match="opponent: .*[Oo]ware"):
        mancala.VectorGame("oware", 4, opponent="perfect")
    plain = mancala.VectorGame("kalah", 4)
    assert plain.seats is None and plain.opponent is None


def test_the_batch_has_gymnasium_spaces():
    gymnasium = pytest.importorskip("gymnasium")
    vector = mancala.VectorGame("kalah:pits=5", 8)
    obs, legal, *_ = vector.reset()
    assert vector.single_observation_space.contains(obs[0])
    assert vector.observation_space.contains(obs)
    assert vector.single_action_space == gymnasium.spaces.Discrete(legal.shape[1])
    assert vector.action_space.contains(vector.sample_actions())
    assert vector.action_space.shape == (8,)


def test_ctrl_c_stops_a_step_against_a_searching_opponent_and_the_batch_must_be_reset(sigint_raises):
    import os
    import signal
    import threading
    import time

    # 4 games of 10 s each on two threads: bounded even if the interrupt were lost.
    vector = mancala.VectorGame("kalah", 4, opponent="minimax:time=10s", threads=2)
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    started = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        vector.step(vector.sample_actions())
    assert time.monotonic() - started < 10
    with pytest.raises(RuntimeError, match=r"cannot step: .*reset\(\) every game"):
        vector.step(vector.sample_actions())
    with pytest.raises(RuntimeError, match="cannot step"):
        vector.reset([0])
    _, legal, _, terminated, to_move = vector.reset()
    assert (to_move == 0).all() and not terminated.any() and legal.any(axis=1).all()
