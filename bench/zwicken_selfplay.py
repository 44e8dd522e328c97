"""Zwicken speed: self-play deals per second per core through the rules (engine/zwicken).

A deal here is one attempt, from `Board.deal()` to its end, with uniformly random legal moves
(every seat picks among its legal moves with a local generator), the board carried on with
`Board.after`, as the arena plays it. Timed in CPU seconds of this process (`process_time`), so a
loaded machine slows it less than wall time would.
Run by hand (never a timed test):
`.venv/bin/python bench/zwicken_selfplay.py [--deals N]`. Record the figures, with machine and
date, in bench/README.md.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import zwicken as z  # noqa: E402


def self_play(spec: dict, deals: int, seed: int = 1, all_play: bool = False) -> tuple[float, float]:
    """(deals per second, moves per deal) over `deals` attempts of random boards, one core;
    `all_play`: every seat says play (the longest deals, 1 + 4n moves)."""
    rng = random.Random(seed)
    v = z.variant(spec)
    played = moves = 0
    board_seed = 0
    start = time.process_time()
    while played < deals:
        board = z.Board.new(v, board_seed, board_seed % v.players)
        board_seed += 1
        while not board.is_over and played < deals:
            s = board.deal()
            while s.phase != "over":
                legal = s.legal_moves()
                if all_play and s.phase == "decide":
                    s = s.apply(legal[0])
                else:
                    s = s.apply(legal[rng.randrange(len(legal))])
                moves += 1
            board = board.after(s)
            played += 1
    return played / (time.process_time() - start), moves / played


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=20000)
    args = ap.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, {platform.processor() or '?'}")
    for name, spec, all_play in (
            ("bayern, 4 players", {}, False), ("bayern, 4, all play", {}, True),
            ("bayern, 6 players", {"players": 6}, False), ("scharf, 4 players", {"preset": "scharf"}, False),
            ("bayern, 10 players", {"players": 10}, False)):
        rate, per = self_play(spec, args.deals, all_play=all_play)
        print(f"{name:<20} {rate:8.0f} deals/s  ({per:.1f} moves per deal)")


if __name__ == "__main__":
    main()
