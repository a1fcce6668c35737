#!/usr/bin/env python3
"""A Kalah engine in plain Python, speaking the mancala engine protocol.

It plays greedily: the move that gains the most seeds for its store this
turn (an extra turn counts as half a seed), ties broken at random with the
seed the runner sets through the `Seed` option. Given the game clocks (`go
wtime MS btime MS winc MS binc MS`), it looks further ahead instead:
alpha-beta on the store difference, one turn deeper at a time until its
time is spent. It spends a twentieth of what is left (or its share of the
`movestogo` moves) plus three quarters of its increment, never more than
half its clock. It knows Kalah with any `pits`/`seeds` and `empty_capture`;
for other games or options it answers `error`, as the protocol allows.

Try it:  mancala match "engine:cmd=python3 examples/engines/greedy_kalah.py" random
Protocol: docs/engine-protocol.md
"""

import random
import sys
import time


class Kalah:
    """Rules of Kalah, as in docs/RULES.md (standard end, owner's leftover)."""

    def __init__(self, pits=6, seeds=4, empty_capture=False):
        self.pits, self.seeds, self.empty_capture = pits, seeds, empty_capture

    def start(self):
        n = self.pits
        return {"rows": [[self.seeds] * n, [self.seeds] * n], "stores": [0, 0], "to_move": 0}

    def parse(self, text):
        """A position in the toolkit's notation: `a,b/c,d/s0,s1/T`."""
        row0, row1, stores, mover = text.split("/")
        rows = [[int(x) for x in row0.split(",")], [int(x) for x in row1.split(",")]]
        if len(rows[0]) != self.pits or len(rows[1]) != self.pits:
            raise ValueError("wrong number of pits")
        mover = mover.rstrip("s")
        return {
            "rows": rows,
            "stores": [int(x) for x in stores.split(",")],
            "to_move": None if mover == "-" else int(mover),
        }

    def legal(self, pos):
        p = pos["to_move"]
        if p is None:
            return []
        return [i for i, s in enumerate(pos["rows"][p]) if s > 0]

    def play(self, pos, pit):
        """The position after the mover sows `pit` (0-based); a new dict."""
        rows = [list(pos["rows"][0]), list(pos["rows"][1])]
        stores = list(pos["stores"])
        me, n = pos["to_move"], self.pits
        if pit not in self.legal(pos):
            raise ValueError(f"pit {pit + 1} is not a legal move")
        seeds, rows[me][pit] = rows[me][pit], 0
        # The ring from the mover's side: own pits, own store, opponent's pits.
        place = pit
        while seeds:
            place = (place + 1) % (2 * n + 1)
            if place < n:
                rows[me][place] += 1
            elif place == n:
                stores[me] += 1
            else:
                rows[1 - me][place - n - 1] += 1
            seeds -= 1
        next_player = 1 - me
        if place == n:
            next_player = me
        elif place < n and rows[me][place] == 1:
            facing = n - 1 - place
            if rows[1 - me][facing] > 0 or self.empty_capture:
                stores[me] += 1 + rows[1 - me][facing]
                rows[me][place], rows[1 - me][facing] = 0, 0
        if sum(rows[0]) == 0 or sum(rows[1]) == 0:
            for p in (0, 1):
                stores[p] += sum(rows[p])
                rows[p] = [0] * n
            next_player = None
        return {"rows": rows, "stores": stores, "to_move": next_player}


def parse_game(spec):
    """A Kalah from a game spec, or an error message."""
    name, _, options = spec.partition(":")
    if name.strip().lower() != "kalah":
        return None, f"this engine plays only kalah, not {name}"
    values = {"pits": "6", "seeds": "4", "empty_capture": "false"}
    for option in filter(None, options.split(",")):
        key, _, value = option.partition("=")
        if key.strip() not in values:
            return None, f"this engine does not support the option {key.strip()}"
        values[key.strip()] = value.strip()
    return Kalah(int(values["pits"]), int(values["seeds"]), values["empty_capture"] == "true"), None


def choose(game, pos, rng):
    me = pos["to_move"]
    best, best_gain = [], None
    for pit in game.legal(pos):
        after = game.play(pos, pit)
        gain = after["stores"][me] - pos["stores"][me] + (0.5 if after["to_move"] == me else 0)
        if best_gain is None or gain > best_gain:
            best, best_gain = [pit], gain
        elif gain == best_gain:
            best.append(pit)
    return rng.choice(best), best_gain


def think_time(words, me):
    """Seconds to think for a `go` line with clocks, from player `me`'s
    side (`w` is player 0, `b` player 1); 0 without clocks: answer
    greedily at once (a `movetime` too, as this engine always has)."""
    args = dict(zip(words[1::2], words[2::2]))
    side = "w" if me == 0 else "b"
    if side + "time" not in args:
        return 0
    left = int(args[side + "time"]) / 1000
    increment = int(args.get(side + "inc", 0)) / 1000
    moves_left = min(max(int(args.get("movestogo", 20)), 1), 20)
    return min(left / moves_left + 0.75 * increment, left / 2)


class OutOfTime(Exception):
    pass


def search(game, pos, depth, alpha, beta, deadline):
    """Alpha-beta value of `pos` for player 0 (store difference), `depth`
    turns ahead (an extra turn is part of the turn it extends)."""
    if time.monotonic() > deadline:
        raise OutOfTime
    me = pos["to_move"]
    if me is None or depth == 0:
        return pos["stores"][0] - pos["stores"][1]
    best = None
    for pit in game.legal(pos):
        after = game.play(pos, pit)
        deeper = depth if after["to_move"] == me else depth - 1
        value = search(game, after, deeper, alpha, beta, deadline)
        if me == 0:
            best = value if best is None else max(best, value)
            alpha = max(alpha, value)
        else:
            best = value if best is None else min(best, value)
            beta = min(beta, value)
        if alpha >= beta:
            break
    return best


def look_ahead(game, pos, rng, seconds):
    """The best move of the deepest search finished within `seconds`
    (ties at random), its depth and value for the mover; None when not
    even one turn fits."""
    deadline = time.monotonic() + seconds
    me = pos["to_move"]
    sign = 1 if me == 0 else -1
    found = None
    for depth in range(1, 100):
        values = {}
        try:
            for pit in game.legal(pos):
                after = game.play(pos, pit)
                deeper = depth if after["to_move"] == me else depth - 1
                values[pit] = sign * search(game, after, deeper, -999, 999, deadline)
        except OutOfTime:
            break
        top = max(values.values())
        found = (rng.choice([p for p, v in values.items() if v == top]), depth, top)
    return found


def main():
    game, pos, rng = None, None, random.Random(0)

    def say(line):
        print(line, flush=True)

    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command = words[0]
        if command == "mancala":
            say("id name greedy-kalah.py")
            say("id author the mancala toolkit's examples")
            say("option name Seed type spin default 0")
            say("mancalaok")
        elif command == "setoption" and len(words) >= 5 and words[2] == "Seed":
            rng = random.Random(int(words[4]))
        elif command == "newgame":
            game, error = parse_game(" ".join(words[1:]))
            if error:
                say(f"error {error}")
        elif command == "isready":
            say("readyok")
        elif command == "position" and game:
            try:
                pos = game.start() if words[1] == "startpos" else game.parse(words[1])
                if "moves" in words:
                    for move in words[words.index("moves") + 1:]:
                        pos = game.play(pos, int(move) - 1)
            except (ValueError, IndexError) as e:
                pos = None
                say(f"error bad position: {e}")
        elif command == "go":
            if not game or not pos or not game.legal(pos):
                say("error no position to move from")
                continue
            started = time.monotonic()
            seconds = think_time(words, pos["to_move"])
            found = look_ahead(game, pos, rng, seconds) if seconds > 0 else None
            if found:
                pit, depth, value = found
                spent = int((time.monotonic() - started) * 1000)
                say(f"info depth {depth} score {value} time {spent} pv {pit + 1}")
            else:
                pit, gain = choose(game, pos, rng)
                say(f"info depth 1 nodes {len(game.legal(pos))} score {gain}")
            say(f"bestmove {pit + 1}")
        elif command == "quit":
            return


if __name__ == "__main__":
    main()
