"""The `arena` command's start: CPU seconds (user + system) of a command that does little more
than start, the median of --runs runs of each, measured from the kernel's accounting of the
child (so a loaded machine changes it far less than wall time).

    .venv/bin/python bench/start.py [--runs 15] [--source DIR]

--source runs the arena of another checkout (`git worktree add /tmp/before REV`) with this
interpreter: before and after on the same machine. The commands read a database that does not
exist (exit 2, the start and the error only) or answer from the rules alone.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

COMMANDS = [
    ["bot", "list"],
    ["standings"],
    ["tournament", "list"],
    ["league", "standings"],
    ["rules", "games"],
    ["--help"],
]


def cpu_seconds(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    before = os.times()
    subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--source", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": str(args.source.resolve()), "ARENA_DB": str(Path(tmp) / "none.db")}
        for words in COMMANDS:
            runs = [cpu_seconds([sys.executable, "-m", "arena", *words], Path(tmp), env) for _ in range(args.runs)]
            print(f"arena {' '.join(words):<20} {statistics.median(runs):.3f} s CPU (median of {args.runs})")


if __name__ == "__main__":
    main()
