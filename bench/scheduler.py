"""The move scheduler (arena/process/scheduler.py): what it costs, and what it buys.

    .venv/bin/python bench/scheduler.py freeze [--cycles 2000]
        one freeze and thaw of an idle bot, by cgroup and by signals, and one core lent and
        given back: the scheduler's own cost per `act`
    .venv/bin/python bench/scheduler.py fair [--runs 3] [--boards 4] [--move-ms 20] [--sandbox fork]
        a fair tournament (`--fair`: fixed tempo, as many tables as memory allows, one process)
        against a free one (default concurrency and processes), interleaved: deals per second,
        and the bots' memory per table (the sum of their PSS, sampled, over the tables at once)
    .venv/bin/python bench/scheduler.py timeouts [--boards 8] [--move-ms 50] [--tables-per-core 4] [--hog]
        honest time-outs at a 50 ms move limit with at least four tables per core, with or
        without a process per core that burns the CPU beside the arena (20 deals a board:
        `--boards 1000` is 20,000 deals); "timeouts" counts seats, "arena_faults" the tables
        stored as the arena's (a move starved past its replays), both after the run

Five Python bots of bench/tournament.py, jensen. Run by hand (never a test); record the figures,
with machine, date and load, in bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
BOTS = ["zwicker/random_bot.py", "zwicker/greedy_bot.py", "zwicker/sweeper_bot.py", "zwicker/builder_bot.py",
        "zwicker/first_bot.py"]


def machine() -> str:
    load = Path("/proc/loadavg").read_text().split()[:3]
    return (f"{platform.node()} {platform.machine()}, {os.cpu_count()} cores, kernel {platform.release()}; "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average {' '.join(load)}")


# -- the scheduler's own cost ------------------------------------------------------------------

def freeze_cost(cycles: int) -> dict:
    import trio

    from arena.process import cgroups, scheduler
    from arena.process.command import BotCommand
    from arena.process.lifecycle import open_bot

    out: dict = {}

    async def lend() -> float:
        s = scheduler.Scheduler(2)
        labels = frozenset({"bot"})
        start = time.perf_counter()
        for _ in range(cycles):
            await s.acquire(labels)
            s.release(labels)
        return (time.perf_counter() - start) / cycles * 1e6

    out["lend_us"] = round(trio.run(lend), 2)

    async def cycle(kind: str) -> float | None:
        cmd = BotCommand.from_spec(str(ROOT / "tests" / "hostile" / "silent.py"))  # reads its input, idle
        async with open_bot(cmd, "fork", labels=frozenset({kind})) as bot:
            if bot.freezer is None:
                return None
            start = time.perf_counter()
            for _ in range(cycles):
                await bot.resume()
                await bot.pause()
            return (time.perf_counter() - start) / cycles * 1e6

    if cgroups.can_freeze():
        out["cgroup_act_us"] = round(trio.run(cycle, "cgroup"), 1)
        cgroups._freezer_base = lambda: None  # type: ignore[assignment]
        cgroups.available = lambda: False  # type: ignore[assignment]
        cgroups._bases = lambda: None  # type: ignore[assignment]
    out["signals_act_us"] = round(trio.run(cycle, "signals") or 0, 1)
    return out


# -- tournaments -------------------------------------------------------------------------------

def tournament(boards: int, sandbox: str, move_ms: int, tempo: str, concurrency: int, processes: int | None,
               hog: bool) -> dict:
    import trio

    from arena.play.table import TimeControl
    from arena.process.lifecycle import leftover_bot_pids
    from arena.process.modes import resolve_mode
    from arena.results import schema
    from arena.tournaments import runner

    resolve_mode(sandbox)
    peak = [0, 0]  # the bots' PSS at its peak, and how many bot processes then
    stop = threading.Event()

    def sample() -> None:  # the bots' proportional memory, every 0.2 s
        while not stop.wait(0.2):
            total = 0
            pids = leftover_bot_pids()
            for pid in pids:
                try:
                    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                        if line.startswith("Pss:"):
                            total += int(line.split()[1]) * 1024
                except OSError:
                    pass
            if total > peak[0]:
                peak[:] = [total, len(pids)]

    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 1)] if hog else []
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            os.chmod(tmp, 0o755)
            db = schema.open_db(Path(tmp) / "bench.db")
            settings = runner.Settings(boards=boards, seed=1, time_control=TimeControl(
                move_s=move_ms / 1000, bank_s=0.0, tempo=tempo))
            tid = runner.prepare(db, "bench", [str(ROOT / "bots" / b) for b in BOTS], settings, sandbox=sandbox)
            start = time.perf_counter()
            trio.run(lambda: runner.run(db, tid, concurrency=concurrency, processes=processes, sandbox=sandbox))
            wall = time.perf_counter() - start
            deals = db.execute("SELECT COUNT(*) FROM deals").fetchone()[0]
            timeouts = db.execute("SELECT COUNT(*) FROM seats WHERE status = 'timeout'").fetchone()[0]
            forfeits = [json.loads(f) for (f,) in db.execute("SELECT forfeit FROM board_tables WHERE forfeit IS NOT NULL")]
            arena_faults = sum(bool(f.get("arena")) for f in forfeits if isinstance(f, dict))
            faults = db.execute("SELECT COUNT(*) FROM seats WHERE status != 'ok'").fetchone()[0]
            tables = db.execute("SELECT COUNT(*) FROM board_tables").fetchone()[0]
    finally:
        stop.set()
        for p in hogs:
            p.kill()
            p.wait()
    return {"tempo": tempo, "concurrency": concurrency, "processes": processes, "hog": hog, "move_ms": move_ms,
            "deals": deals, "tables": tables, "wall_s": round(wall, 2), "deals_per_s": round(deals / wall, 2),
            "timeouts": timeouts, "faults": faults, "arena_faults": arena_faults,
            "load_after": " ".join(Path("/proc/loadavg").read_text().split()[:3]),
            "bots_pss_peak_mib": round(peak[0] / (1 << 20), 1), "bot_processes_then": peak[1],
            "pss_mib_per_bot_process": round(peak[0] / (1 << 20) / max(peak[1], 1), 2)}


def child(args: list[str]) -> dict:
    out = subprocess.run([sys.executable, __file__, "child", *args], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["freeze", "fair", "timeouts", "child"])
    parser.add_argument("--cycles", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--boards", type=int, default=4)
    parser.add_argument("--move-ms", type=int, default=20)
    parser.add_argument("--sandbox", default="fork", choices=["fork", "bwrap", "rlimit", "none"])
    parser.add_argument("--tables-per-core", type=int, default=4)
    parser.add_argument("--hog", action="store_true")
    parser.add_argument("--tempo", default="free")
    parser.add_argument("--concurrency", type=int, default=0)
    parser.add_argument("--processes", type=int, default=0)
    args = parser.parse_args()
    if args.what == "child":
        print(json.dumps(tournament(args.boards, args.sandbox, args.move_ms, args.tempo, args.concurrency,
                                    args.processes or None, args.hog)))
        return
    print(machine())
    if args.what == "freeze":
        print(json.dumps(freeze_cost(args.cycles)))
        return
    common = ["--boards", str(args.boards), "--sandbox", args.sandbox, "--move-ms", str(args.move_ms)]
    if args.what == "fair":
        from arena.process.scheduler import fair_tables

        runs: dict[str, list[dict]] = {"free": [], "fair": []}
        for _ in range(args.runs):
            runs["free"].append(child([*common, "--concurrency", str(os.cpu_count() or 1)]))
            runs["fair"].append(child([*common, "--tempo", "fixed", "--processes", "1",
                                       "--concurrency", str(fair_tables(4))]))
            print(json.dumps(runs["free"][-1]), json.dumps(runs["fair"][-1]), sep="\n", flush=True)
        for kind, done in runs.items():
            print(f"{kind}: median {statistics.median(r['deals_per_s'] for r in done)} deals/s")
        return
    tables = args.tables_per_core * (os.cpu_count() or 1)
    print(json.dumps(child([*common, "--concurrency", str(tables), *(["--hog"] if args.hog else [])])))


if __name__ == "__main__":
    main()
