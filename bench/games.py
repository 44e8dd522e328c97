"""A Zwicken tournament's throughput beside a Zwicker one's, measured in the same run.

Each game's `bench/tournament.py` tournament (Zwicker: six bots, 15 matches of 2 rooms; Zwicken:
four bots at three-player tables, 4 matches of 3 rooms) in a fresh process, interleaved
Zwicker, Zwicken, Zwicker, ... so that the machine's drift and other load hit both alike; each
game's runs, their medians of deals per second and of the arena's CPU per deal. A Zwicken deal
is an attempt (three cards, at most 1 + n + 3n decisions), a Zwicker deal a whole hand: compare
the games by their own units. Run by hand (never a timed test):

    .venv/bin/python bench/games.py --runs 5 --boards 8 --sandbox fork

Record the figures, with machine and date, in bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--boards", type=int, default=8)
    parser.add_argument("--sandbox", default="fork", choices=["fork", "bwrap", "rlimit", "none"])
    args = parser.parse_args()
    print(f"machine: {platform.node()} {platform.machine()}, {os.cpu_count()} cores; {time.strftime('%Y-%m-%d %H:%M')}"
          f" UTC; sandbox {args.sandbox}, {args.boards} boards per match, load {os.getloadavg()[0]:.1f}")
    runs: dict[str, list[dict]] = {"zwicker": [], "zwicken": []}
    for k in range(args.runs):
        for game in runs:
            out = subprocess.run([sys.executable, str(HERE / "tournament.py"), "--child", str(args.boards),
                                  "--sandbox", args.sandbox, "--game", game],
                                 capture_output=True, text=True, check=True)
            result = json.loads(out.stdout.strip().splitlines()[-1])
            runs[game].append(result)
            print(f"run {k + 1} {game}: {result['deals']} deals, {result['deals_per_s']} deals/s, "
                  f"{result['arena_cpu_ms_per_deal']} ms arena CPU per deal, {result['faults']} faults")
    for game, results in runs.items():
        rate = [r["deals_per_s"] for r in results]
        cpu = [r["arena_cpu_ms_per_deal"] for r in results]
        print(f"{game}: deals/s median {statistics.median(rate):.1f} ({min(rate)} to {max(rate)}), arena CPU per "
              f"deal median {statistics.median(cpu):.2f} ms; boards per run {results[0]['boards']}, deals per board "
              f"{results[0]['deals'] / max(results[0]['boards'], 1):.1f}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
