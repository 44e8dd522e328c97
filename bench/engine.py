"""Engine speed: random self-play deals per second per preset, and legal_moves() on busy tables.

Run by hand (never a timed test): `.venv/bin/python bench/zwicker.py [--deals N]`.
Record the figures, with machine and date, in bench/README.md.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import zwicker  # noqa: E402


def self_play(preset: str, deals: int) -> float:
    """Deals per second of uniformly random legal play, one core."""
    start = time.perf_counter()
    for seed in range(deals):
        state = zwicker.deal(preset, seed, dealer=seed % 4)
        rng = random.Random(seed)
        while not state.is_over:
            moves = state.legal_moves()
            state = state.apply(moves[rng.randrange(len(moves))])
    return deals / (time.perf_counter() - start)


def busy_tables(count: int = 200) -> list[zwicker.State]:
    """Positions with 10 to 12 units on the table, many of them dual-valued (aces, courts)."""
    v = zwicker.variant("jensen")
    rng = random.Random(1)
    courts = [c for c in v.rules.deck if c[0] in "AJQK"]
    others = [c for c in v.rules.deck if c[0] not in "AJQKX"]
    states = []
    for _ in range(count):
        cards = rng.sample(courts, 8) + rng.sample(others, 8)
        rng.shuffle(cards)
        table, hand = cards[:12], cards[12:16]
        states.append(zwicker.State.from_dict({
            "variant": "jensen", "dealer": 3, "to_move": 0, "hands": [hand, [], [], []],
            "table": table, "stock": [], "taken": [[], []], "zwicks": [0, 0], "last_capture": None}))
    return states


def legal_moves_time(states: list[zwicker.State]) -> tuple[float, float]:
    """Mean microseconds of one legal_moves() call (on a fresh state, uncached), mean moves."""
    fresh = [zwicker.State.from_dict(s.to_dict()) for s in states]
    start = time.perf_counter()
    total = 0
    for s in fresh:
        total += len(s.legal_moves())
    return (time.perf_counter() - start) / len(fresh) * 1e6, total / len(fresh)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=1000)
    args = parser.parse_args()
    print(f"machine: {platform.node()} {platform.machine()} {platform.python_implementation()} "
          f"{platform.python_version()}; {time.strftime('%Y-%m-%d')}")
    for preset in zwicker.PRESETS:
        print(f"{preset:13s} {self_play(preset, args.deals):8.0f} deals/s (random self-play, one core)")
    micros, moves = legal_moves_time(busy_tables())
    print(f"busy table (12 units, 8 dual-valued): legal_moves() {micros:.0f} us, {moves:.0f} moves on average")


if __name__ == "__main__":
    main()
