#!/usr/bin/env python3
"""A slow engine for the clock tests: answers every `go` with the first
legal move after sleeping its first argument in milliseconds, and appends
each `go` line it receives to the file named by MANCALA_TEST_GO_LOG (one
line each, prefixed by the mover: `0 go wtime ...`).

When MANCALA_TEST_PIDS names a file, the engine appends its pid there, so
that a test can check that it is not left running.
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "engines"))
from greedy_kalah import parse_game  # noqa: E402

sleep = int(sys.argv[1]) / 1000 if len(sys.argv) > 1 else 0
log = os.environ.get("MANCALA_TEST_GO_LOG")
game, pos = None, None
if os.environ.get("MANCALA_TEST_PIDS"):
    with open(os.environ["MANCALA_TEST_PIDS"], "a") as f:
        f.write(f"{os.getpid()}\n")


def say(line):
    print(line, flush=True)


for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "mancala":
        say("id name clock")
        say("mancalaok")
    elif words[0] == "isready":
        say("readyok")
    elif words[0] == "newgame":
        game, _ = parse_game(" ".join(words[1:]))
    elif words[0] == "position":
        pos = game.start() if words[1] == "startpos" else game.parse(words[1])
        if "moves" in words:
            for move in words[words.index("moves") + 1:]:
                pos = game.play(pos, int(move) - 1)
    elif words[0] == "go":
        if log:
            with open(log, "a") as f:
                f.write(f"{pos['to_move']} {line.strip()}\n")
        time.sleep(sleep)
        say(f"bestmove {game.legal(pos)[0] + 1}")
    elif words[0] == "quit":
        break
