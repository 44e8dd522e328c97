"""The cluster's overhead: the bench tournament (bench/tournament.py's six bundled bots, jensen)
played locally (one arena process per core, the default) and on Dask (`--cluster local:2`, and a
LocalCluster of two workers started beforehand, so that its start-up is not counted), runs
interleaved, medians. Run by hand (never a timed test):

    .venv/bin/python bench/cluster.py [--boards 8 32] [--runs 3] [--sandbox fork]

Record the figures, with machine and date, in bench/README.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
BOTS = ["zwicker/random_bot.py", "zwicker/greedy_bot.py", "zwicker/sweeper_bot.py", "zwicker/builder_bot.py", "zwicker/first_bot.py"]


def one(boards: int, sandbox: str, cluster: str | None) -> dict:
    """One tournament; its wall time from the first room to the ratings stored."""
    import trio

    from arena.results import registry, schema
    from arena.tournaments import runner

    specs = [str(ROOT / "bots" / b) for b in BOTS]
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)
        db = schema.open_db(Path(tmp) / "bench.db")
        if shutil.which("node"):
            registry.add_bot(db, ROOT / "bots" / "zwicker" / "js" / "random_bot.cjs", name="js-random")
            specs.append("js-random")
        tid = runner.prepare(db, "bench", specs, runner.Settings(boards=boards, seed=1), sandbox=sandbox)
        start = time.perf_counter()
        t = trio.run(lambda: runner.run(db, tid, sandbox=sandbox, cluster=cluster))
        wall = time.perf_counter() - start
        deals = db.execute("SELECT COUNT(*) FROM deals").fetchone()[0]
        rooms = db.execute("SELECT COUNT(*) FROM matches").fetchone()[0] * 2
    assert t["status"] == "finished"
    return {"wall_s": wall, "deals": deals, "rooms": rooms, "deals_per_s": deals / wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--boards", type=int, nargs="+", default=[8, 32])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sandbox", default="fork", choices=["fork", "bwrap", "rlimit", "none"])
    args = parser.parse_args()
    import distributed

    from arena.process.modes import resolve_mode

    resolve_mode(args.sandbox)  # the local run's trial, untimed, as `arena tournament run` does
    print(f"machine: {platform.node()} {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, dask {distributed.__version__}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
          f"sandbox {args.sandbox}, {args.runs} runs interleaved, medians")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=2, processes=True, dashboard_address=":0") as warm:
        ways = {"local (2 processes)": None, "--cluster local:2 (start-up counted)": "local:2",
                "running LocalCluster, 2 workers": warm.scheduler_address}
        for boards in args.boards:
            found: dict[str, list[dict]] = {name: [] for name in ways}
            one(boards, args.sandbox, warm.scheduler_address)  # the workers' sandbox trials, bots unpacked
            for _ in range(args.runs):
                for name, cluster in ways.items():
                    found[name].append(one(boards, args.sandbox, cluster))
            base = statistics.median(r["wall_s"] for r in found["local (2 processes)"])
            print(f"\nboards per match {boards}: {found['local (2 processes)'][0]['deals']} deals in "
                  f"{found['local (2 processes)'][0]['rooms']} rooms")
            print("| how | wall, s | deals/s | overhead per room, ms |")
            print("|---|---|---|---|")
            for name, runs in found.items():
                wall = statistics.median(r["wall_s"] for r in runs)
                per_room = (wall - base) / runs[0]["rooms"] * 1000
                print(f"| {name} | {wall:.2f} | {statistics.median(r['deals_per_s'] for r in runs):.1f} | "
                      f"{'-' if name.startswith('local (') else f'{per_room:+.0f}'} |")


if __name__ == "__main__":
    main()
