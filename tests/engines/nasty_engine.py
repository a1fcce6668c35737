#!/usr/bin/env python3
"""Engines that attack the runner rather than lose to it, for the tests.
Plays the first legal move until its Nth `go` (default 2), then does what
its first argument says:

  flood-go    prints `info` lines without end instead of answering
  flood-idle  answers, then prints `info` lines without end while its
              opponent thinks (and reads nothing for a while)
  chatty      prints one `info` line every 20 ms, and never answers
  orphan      starts a child that keeps its output open, and exits
  fork        (from the start) leaves a sleeping child behind, then plays
  setsid      (from the start) leaves behind a sleeping child that left
              the engine's process group and session (`setsid`), then plays
  double      answers every `go` twice: a legal move, then pit 99
  binary      answers with a line that is not UTF-8
  stderr      (from the start) prints 8 MiB to standard error between a
              BEGIN and an END line, then plays

When MANCALA_TEST_PIDS names a file, every process of the engine appends
its pid there, so that a test can check that none is left.
"""

import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "engines"))
from greedy_kalah import parse_game  # noqa: E402

mode = sys.argv[1]
fault_at = int(sys.argv[2]) if len(sys.argv) > 2 else 2
game, pos, goes = None, None, 0
# Flooding writes big chunks: as fast as a runaway C engine, even here.
FLOOD = ("info depth 1 nodes 1 string flooding\n" * 30000).encode()


def record(pid):
    path = os.environ.get("MANCALA_TEST_PIDS")
    if path:
        with open(path, "a") as f:
            f.write(f"{pid}\n")


def say(line):
    print(line, flush=True)


def flood():
    out = sys.stdout.buffer
    while True:
        out.write(FLOOD)
        out.flush()


def sleeping_child():
    """A child that sleeps for an hour holding the engine's pipes."""
    pid = os.fork()
    if pid == 0:
        record(os.getpid())
        time.sleep(3600)
        os._exit(0)
    return pid


def detached_child():
    """A child in a session of its own, so outside the engine's process
    group, sleeping for an hour with its output away from the engine's
    pipes, as a daemon-like helper would."""
    pid = os.fork()
    if pid == 0:
        os.setsid()
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        record(os.getpid())
        time.sleep(3600)
        os._exit(0)
    return pid


record(os.getpid())
if mode == "fork":
    sleeping_child()
if mode == "setsid":
    detached_child()
if mode == "stderr":
    sys.stderr.write("BEGIN-OF-STDERR\n")
    junk = "x" * 1023 + "\n"
    for _ in range(8 * 1024):
        sys.stderr.write(junk)
    sys.stderr.write("END-OF-STDERR\n")
    sys.stderr.flush()

for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "mancala":
        say("id name nasty")
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
        goes += 1
        move = game.legal(pos)[0] + 1
        if goes >= fault_at:
            if mode == "flood-go":
                flood()
            if mode == "chatty":
                while True:
                    say("info string still thinking")
                    time.sleep(0.02)
            if mode == "orphan":
                sleeping_child()
                os._exit(0)
            if mode == "binary":
                sys.stdout.buffer.write(b"bestmove \xff\xfe\n")
                sys.stdout.flush()
                continue
        if mode == "double":
            # One write, so that both lines arrive together.
            sys.stdout.write(f"bestmove {move}\nbestmove 99\n")
            sys.stdout.flush()
            continue
        say(f"bestmove {move}")
        if mode == "flood-idle" and goes >= fault_at:
            threading.Thread(target=flood, daemon=True).start()
            time.sleep(5)
    elif words[0] == "quit":
        break
