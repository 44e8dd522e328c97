"""An honest bot's move times against opponents whose children burn every core, and against
random bots: what a CPU share per bot (its cgroup) buys. Run by hand, as root (cgroups):

    .venv/bin/python bench/fair_cpu.py [--sandbox bwrap] [--deals 2]

`tests/hostile/thinker.py` needs 40 ms of its own CPU a move; `spin_children.py` starts 30
children spinning for good at its first move. Figures go to bench/README.md ("Fair CPU").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def table(opponent: str, sandbox: str, deals: int) -> dict:
    import trio

    from engine import zwicker
    from arena.play.table import FixedDeals, TimeControl, play_table
    from arena.process.command import BotCommand, Limits

    hostile = ROOT / "tests" / "hostile"
    other = str(hostile / "spin_children.py") if opponent == "spinners" else str(ROOT / "bots" / "zwicker" / "random_bot.py")
    seats = [BotCommand.from_spec(s) for s in (str(hostile / "thinker.py"), other) * 2]
    plan = FixedDeals([(zwicker.deal_seed(7, k), k % 4) for k in range(deals)])
    result = trio.run(lambda: play_table(seats, variant=zwicker.variant("jensen"), plan=plan, sandbox=sandbox,
                                         time_control=TimeControl(handshake_s=10, move_s=5, bank_s=5),
                                         limits=Limits(cpu_seconds=60), match_id="bench", table_id=opponent,
                                         bot_seed=1))
    thinkers = [result.seats[0], result.seats[2]]
    moves = sum(s.moves for s in thinkers)
    return {"opponent": opponent, "moves": moves, "status": [s.status for s in result.seats],
            "mean_ms": round(sum(s.think_ms_total for s in thinkers) / max(moves, 1), 1),
            "max_ms": round(max(s.think_ms_max for s in thinkers), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sandbox", default="bwrap")
    parser.add_argument("--deals", type=int, default=2)
    args = parser.parse_args()
    for opponent in ("random", "spinners", "random", "spinners"):
        print(table(opponent, args.sandbox, args.deals), flush=True)


if __name__ == "__main__":
    main()
