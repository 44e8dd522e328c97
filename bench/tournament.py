"""Tournament throughput: six bundled bots, a duplicate round robin, jensen.

Reports deals per second, the arena's share of the CPU (the coordinator process and its shards,
arena.tournaments.shard, against all the bot processes they started), how busy the whole machine was
(/proc/stat), and the peak memory of the coordinator and of each shard, for two tournament
sizes, each in a fresh process so that peak memory is that size's own. As `arena tournament
run` does, the sandbox mode's trial (a bot started once to see that the mode works here, about
80 ms in fork and bwrap) runs before the timed tournament. Run by hand (never a timed test):

    .venv/bin/python bench/tournament.py [--boards 8 16] [--sandbox bwrap] [--concurrency 2] [--processes 1]
        [--game zwicken]

Record the figures, with machine and date, in bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
BOTS = ["zwicker/random_bot.py", "zwicker/greedy_bot.py", "zwicker/sweeper_bot.py", "zwicker/builder_bot.py", "zwicker/first_bot.py"]


def one(boards: int, sandbox: str, concurrency: int, processes: int | None, game: str = "zwicker") -> dict:
    """Run one tournament in this process and measure it. Zwicken: four bots (rule, random and
    two copies of random) at three-player tables, every group of three (4 matches of 3 rooms)."""
    import trio

    from arena.process.modes import resolve_mode
    from arena.results import registry, schema
    from arena.tournaments import runner

    specs = [str(ROOT / "bots" / b) for b in BOTS]
    if shutil.which("node") is None and game == "zwicker":
        sys.exit("bench/tournament.py needs node for its JavaScript bot")
    resolve_mode(sandbox)  # as `arena tournament run` does first: the sandbox's trial, untimed
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)  # the sandboxed bots run from stored copies in here
        db = schema.open_db(Path(tmp) / "bench.db")
        if game == "zwicken":
            specs = [str(ROOT / "bots" / "zwicken" / "zwicken_rule_bot.py"), str(ROOT / "bots" / "zwicken" / "zwicken_random_bot.py")]
            for k in range(2):
                copy = Path(tmp) / f"zr{k}" / f"zwicken_random{k}.py"
                copy.parent.mkdir()
                copy.write_text((ROOT / "bots" / "zwicken" / "zwicken_random_bot.py").read_text() + f"\n# copy {k}\n")
                specs.append(str(copy))
            settings = runner.Settings(boards=boards, seed=1, game="zwicken", format="session",
                                       variant=runner.with_players(runner.parse_variant(None, "zwicken"), "zwicken", 3))
        else:
            # The sixth bot, in JavaScript, under the name `make tournament` gives it.
            registry.add_bot(db, ROOT / "bots" / "zwicker" / "js" / "random_bot.cjs", name="js-random")
            specs.append("js-random")
            settings = runner.Settings(boards=boards, seed=1)
        tid = runner.prepare(db, "bench", specs, settings, sandbox=sandbox)
        start_wall = time.perf_counter()
        me0, kids0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        busy0 = machine_busy()
        shards: list[dict] = []
        result = trio.run(lambda: runner.run(db, tid, concurrency=concurrency, processes=processes, sandbox=sandbox,
                                        shard_reports=shards))
        wall = time.perf_counter() - start_wall
        busy = machine_busy() - busy0
        me1, kids1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        deals = db.execute("SELECT COUNT(*) FROM deals").fetchone()[0]
        faults = db.execute("SELECT COUNT(*) FROM seats WHERE status != 'ok'").fetchone()[0]
    shards_cpu = sum(s["cpu_s"] for s in shards)  # the shards are the arena too, not bots
    arena_cpu = (me1.ru_utime + me1.ru_stime) - (me0.ru_utime + me0.ru_stime) + shards_cpu
    bots_cpu = (kids1.ru_utime + kids1.ru_stime) - (kids0.ru_utime + kids0.ru_stime) - shards_cpu
    return {
        "game": game, "bots": len(specs), "boards_per_match": boards,
        "arena_cpu_ms_per_deal": round(1000 * arena_cpu / max(deals, 1), 2), "boards": result["boards_done"], "deals": deals,
        "faults": faults, "wall_s": round(wall, 2), "deals_per_s": round(deals / wall, 1),
        "arena_cpu_s": round(arena_cpu, 2), "bots_cpu_s": round(bots_cpu, 2),
        "arena_cpu_share": round(arena_cpu / max(arena_cpu + bots_cpu, 1e-9), 3),
        "processes": 1 + len(shards),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "shards_peak_rss_mib": [round(s["peak_rss_kib"] / 1024, 1) for s in shards],
        "machine_cpu_s": round(busy, 2), "machine_busy_share": round(busy / (wall * (os.cpu_count() or 1)), 3),
    }


def machine_busy() -> float:
    """Core-seconds this machine has spent busy since boot (/proc/stat, all processes and the
    kernel's own work): counts what getrusage cannot, such as bwrap's grandchildren."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--boards", type=int, nargs="+", default=[8, 32])
    parser.add_argument("--sandbox", default="bwrap", choices=["fork", "bwrap", "rlimit", "none"])
    parser.add_argument("--concurrency", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--processes", type=int, help="arena processes (default: the arena's, one per core)")
    parser.add_argument("--game", default="zwicker", choices=["zwicker", "zwicken"])
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(one(args.child, args.sandbox, args.concurrency, args.processes, args.game)))
        return
    print(f"machine: {platform.node()} {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}; {time.strftime('%Y-%m-%d')}; sandbox {args.sandbox}, "
          f"concurrency {args.concurrency}, processes {args.processes or 'default'}")
    for boards in args.boards:
        out = subprocess.run([sys.executable, __file__, "--child", str(boards), "--sandbox", args.sandbox,
                              "--concurrency", str(args.concurrency), "--game", args.game,
                              *(["--processes", str(args.processes)] if args.processes else [])],
                             capture_output=True, text=True, check=True)
        print(json.dumps(json.loads(out.stdout.strip().splitlines()[-1])))


if __name__ == "__main__":
    main()
