"""The Zwicken ladder, measured in-process (until the arena hosts Zwicken): each bundled Zwicken
bot against the one below it, 4 players, two copies of each bot seated alternately (A B A B),
every board played in both rotations (A at seats 0 and 2, then at 1 and 3) on the same cards.
A board's margin is A's chips minus B's over both rotations; printed: the mean margin per board
with its 95% interval (normal approximation over boards) and A's wins/draws/losses of boards.

    .venv/bin/python bench/zwicken_ladder.py --boards 200

MC runs a fixed number of rounds per decision (`--mc-rounds`), so the figures do not depend on
the machine's speed.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / "bots" / "zwicken"), str(Path(__file__).resolve().parents[1] / "bots")]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import zwicken as zw  # noqa: E402
from zwicken_mc_bot import ZwickenMCBot  # noqa: E402
from zwicken_random_bot import ZwickenRandomBot  # noqa: E402
from zwicken_rule_bot import ZwickenRuleBot  # noqa: E402
from zwicken_table import InProcess, play_boards  # noqa: E402


def match(make_a, make_b, v, boards: int, first_seed: int = 0) -> list[int]:
    margins = []
    for seed in range(first_seed, first_seed + boards):
        margin = 0
        for rotation in (0, 1):
            makers = [make_a, make_b] * (v.players // 2)
            if rotation:
                makers = makers[1:] + makers[:1]
            seats = [InProcess(m()) for m in makers]
            (result,) = play_boards(seats, v, [seed], table=f"r{rotation}")
            for s, bal in enumerate(result["balances"]):
                margin += bal if makers[s] is make_a else -bal
        margins.append(margin)
    return margins


def summary(margins: list[int]) -> str:
    n = len(margins)
    mean = sum(margins) / n
    sd = math.sqrt(sum((m - mean) ** 2 for m in margins) / (n - 1))
    half = 1.96 * sd / math.sqrt(n)
    w = sum(m > 0 for m in margins)
    d = sum(m == 0 for m in margins)
    return f"{mean:+7.2f} chips/board, 95% {mean - half:+.2f} .. {mean + half:+.2f}; W/D/L {w}/{d}/{n - w - d}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=200)
    ap.add_argument("--mc-rounds", type=int, default=24)
    ap.add_argument("--variant", default="bayern")
    args = ap.parse_args()
    v = zw.variant(args.variant)
    mc = lambda: ZwickenMCBot(rounds=args.mc_rounds, min_rounds=args.mc_rounds)  # noqa: E731
    for name, a, b in (("rule v random", ZwickenRuleBot, ZwickenRandomBot), ("mc v rule", mc, ZwickenRuleBot),
                       ("mc v random", mc, ZwickenRandomBot)):
        started = time.perf_counter()
        print(f"{name:<14} {summary(match(a, b, v, args.boards))}  ({time.perf_counter() - started:.0f} s)",
              flush=True)


if __name__ == "__main__":
    main()
