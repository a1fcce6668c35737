#!/usr/bin/env python3
"""A misbehaving engine for the tests: plays the first legal move until its
Nth `go` (default 3), then does what its first argument says:

  crash    exits at once             hang     never answers
  garbage  prints a line that is not a reply
  illegal  answers a pit that is empty or out of range
  silent   never finishes the introduction (no `mancalaok`)
  refuse   answers `error` to every `newgame`

When MANCALA_TEST_PIDS names a file, the engine appends its pid there, so
that a test can check that it is not left running.
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "engines"))
from greedy_kalah import parse_game  # noqa: E402

mode = sys.argv[1]
fault_at = int(sys.argv[2]) if len(sys.argv) > 2 else 3
game, pos, goes = None, None, 0
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
        if mode == "silent":
            continue
        say("id name faulty")
        say("mancalaok")
    elif words[0] == "isready":
        say("readyok")
    elif words[0] == "newgame":
        if mode == "refuse":
            say("error not today")
        game, _ = parse_game(" ".join(words[1:]))
    elif words[0] == "position":
        pos = game.start() if words[1] == "startpos" else game.parse(words[1])
        if "moves" in words:
            for move in words[words.index("moves") + 1:]:
                pos = game.play(pos, int(move) - 1)
    elif words[0] == "go":
        goes += 1
        if goes >= fault_at:
            if mode == "crash":
                sys.exit(3)
            if mode == "hang":
                time.sleep(3600)
            if mode == "garbage":
                say("I think pit four is nice")
                continue
            if mode == "illegal":
                empty = [i for i, s in enumerate(pos["rows"][pos["to_move"]]) if s == 0]
                say(f"bestmove {(empty[0] if empty else game.pits) + 1}")
                continue
        say(f"bestmove {game.legal(pos)[0] + 1}")
    elif words[0] == "quit":
        break
