#!/usr/bin/env python3
"""Speed of the Python package (a benchmark, not a test).

1. Random legal play through the state API (``legal_actions``,
   ``apply_action``, ``is_terminal``), games per second, against the same
   loop over OpenSpiel's ``pyspiel`` on its ``mancala`` (Kalah 6x4) and
   ``oware`` games when ``open-spiel`` is installed beside it.
2. The batched environment's steps per second for several batch sizes on
   one and two threads, with the actions drawn by NumPy from the legal
   masks or by ``VectorGame.sample_actions()`` (the draw is part of the
   loop, as in a training loop; its share and the step's are shown
   apart), and the memory the batch takes.
3. The same against an opponent played in Rust (``opponent="random"``
   and ``"greedy"``): a step is then the learner's move and the
   opponent's whole turn.

Usage: python scripts/python-bench.py [--seconds S]   (after pip install ./crates/python)
Run it on an otherwise idle machine; every figure comes from this run. With
OPENBLAS_NUM_THREADS=1 set, NumPy's BLAS threads do not wait beside the
batch's threads (this script uses no BLAS).
"""

import argparse
import random
import time

import numpy as np

import mancala


def games_per_second(new_state, seconds, seed=1):
    rng = random.Random(seed)
    games = plies = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        state = new_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            plies += 1
        games += 1
    took = time.perf_counter() - started
    return games / took, plies / max(games, 1)


def vector_steps_per_second(spec, n, threads, seconds, draw, seed=1, opponent=None):
    """Steps/s of a loop that draws an action per game and steps them all,
    the seconds spent drawing and stepping apart, and the memory the batch
    holds (its games in Rust and its arrays). With an opponent, a step is
    the learner's move and the opponent's whole turn."""
    vector = mancala.VectorGame(spec, n, seed=seed, opponent=opponent, seat=None if opponent else 0, threads=threads)
    obs, legal, rewards, terminated, to_move = vector.reset()
    rng = np.random.default_rng(seed)
    steps = 0
    drawing = stepping = 0.0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        t0 = time.perf_counter()
        if draw == "numpy":
            # A random legal action per game: the largest of uniform draws
            # over the legal actions.
            actions = (rng.random(legal.shape, dtype=np.float32) * legal).argmax(axis=1)
        else:
            actions = vector.sample_actions()
        t1 = time.perf_counter()
        obs, legal, rewards, terminated, to_move = vector.step(actions)
        t2 = time.perf_counter()
        drawing += t1 - t0
        stepping += t2 - t1
        steps += n
    return steps / (drawing + stepping), steps / drawing, steps / stepping, vector.nbytes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement")
    args = parser.parse_args()

    try:
        import pyspiel
    except ImportError:
        pyspiel = None
        print("open-spiel is not installed: pip install open-spiel for the comparison")

    print("## Random play through the state API (games/s, one thread)\n")
    print("| game | mancala | pyspiel | ratio | plies/game |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for ours, theirs in [("kalah", "mancala"), ("oware", "oware")]:
        game = mancala.Game(ours)
        rate, plies = games_per_second(game.new_initial_state, args.seconds)
        if pyspiel is not None:
            their_game = pyspiel.load_game(theirs)
            their_rate, _ = games_per_second(their_game.new_initial_state, args.seconds)
            print(f"| {ours} | {rate:,.0f} | {their_rate:,.0f} | {rate / their_rate:.2f}x | {plies:.1f} |")
        else:
            print(f"| {ours} | {rate:,.0f} | - | - | {plies:.1f} |")

    print("\n## VectorGame (Kalah 6x4), steps/s\n")
    print("Actions drawn by NumPy from the legal masks, or by `sample_actions()` in Rust;")
    print("the loop's rate, and the draw's and the step's alone.\n")
    print("| n | threads | draw | loop steps/s | draw alone | step alone | memory |")
    print("| ---: | ---: | --- | ---: | ---: | ---: | ---: |")
    for n in [256, 4096, 65536]:
        for threads in [1, 2]:
            for draw in ["numpy", "sample_actions"]:
                rate, drawing, stepping, memory = vector_steps_per_second(
                    "kalah", n, threads, args.seconds, draw
                )
                mem = f"{memory / 2**20:.2f} MiB"
                print(
                    f"| {n:,} | {threads} | {draw} | {rate / 1e6:.2f} M | {drawing / 1e6:.1f} M "
                    f"| {stepping / 1e6:.1f} M | {mem} |"
                )

    print("\n## VectorGame (Kalah 6x4) against an opponent played in Rust, learner steps/s\n")
    print("The learner's actions by `sample_actions()`; each step plays the opponent's turn too.\n")
    print("| opponent | n | threads | loop steps/s | step alone |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for opponent in ["random", "greedy"]:
        for n in [4096, 65536]:
            for threads in [1, 2]:
                rate, _, stepping, _ = vector_steps_per_second(
                    "kalah", n, threads, args.seconds, "sample_actions", opponent=opponent
                )
                print(f"| {opponent} | {n:,} | {threads} | {rate / 1e6:.2f} M | {stepping / 1e6:.1f} M |")


if __name__ == "__main__":
    main()
