"""Start-up cost of a bot per sandbox mode: spawn to first reply, and the whole life to reaped.

Run: PYTHONPATH=. .venv/bin/python bench/sandbox.py [--runs N]
The bot is tests/hostile/echo.py (Python, no imports beyond os/sys), a node echo bot made on
the fly, and "kit": bots/zwicker/random_bot.py (msgpack and the bot kit), started and given end of input. "none/system" runs the same script under /usr/bin/python3 without a sandbox, which is
the interpreter the sandboxed modes use, so the difference to it is the sandbox's own cost.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import trio

from arena.process import forking, sandbox
from arena.process.command import BotCommand
from arena.process.lifecycle import open_bot

ECHO = Path(__file__).resolve().parent.parent / "tests" / "hostile" / "echo.py"
KIT_BOT = Path(__file__).resolve().parents[1] / "bots" / "zwicker" / "random_bot.py"
NODE_ECHO = "process.stdin.on('data', (d) => process.stdout.write(d));\n"


async def one(cmd: BotCommand, mode: str) -> tuple[float, float]:
    start = time.perf_counter()
    first_reply = float("nan")
    async with open_bot(cmd, sandbox=mode) as bot:
        if cmd.argv[-1] == str(KIT_BOT):  # imports msgpack and the bot kit, then ends at end of input
            await bot.stdin.aclose()
            await bot.wait()
        else:
            await bot.stdin.send_all(b"x")
            await bot.stdout.receive_some(10)
            first_reply = time.perf_counter() - start
    return first_reply, time.perf_counter() - start


async def main(runs: int) -> None:
    python = BotCommand.from_spec(str(ECHO))
    cases = [
        ("python", "none", python),
        ("python", "none/system", BotCommand((sandbox.sandbox_python(), str(ECHO)), ECHO.parent, "command")),
        ("python", "rlimit", python),
    ]
    if sandbox.bwrap_problem() is None:
        cases.append(("python", "bwrap", python))
    if forking.problem() is None:
        cases.append(("python", "fork", python))
    kit = BotCommand.from_spec(str(KIT_BOT))
    cases += [("kit", mode, kit) for mode in ("rlimit", "bwrap", "fork")
              if mode == "rlimit" or (mode == "bwrap" and sandbox.bwrap_problem() is None)
              or (mode == "fork" and forking.problem() is None)]
    folder = Path(tempfile.mkdtemp(prefix="zwicker-bench-"))
    os.chmod(folder, 0o755)
    try:
        if shutil.which("node"):
            (folder / "echo.mjs").write_text(NODE_ECHO)
            (folder / "echo.mjs").chmod(0o644)
            node = BotCommand.from_spec(str(folder / "echo.mjs"))
            cases += [("node", "none", node), ("node", "rlimit", node)]
            if sandbox.bwrap_problem() is None:
                cases.append(("node", "bwrap", node))
            if forking.problem() is None:
                cases.append(("node", "fork", node))
        print(f"{'bot':8}{'mode':14}{'first reply ms':>16}{'start to reaped ms':>20}{'arena CPU ms':>14}{'bot CPU ms':>12}")
        for kind, mode, cmd in cases:
            base = mode.split("/")[0]
            self0, kids0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
            async with forking.serving(base):  # one fork server for all the runs, as in a tournament
                await one(cmd, base)  # warm the page cache
                times = [await one(cmd, base) for _ in range(runs)]
            self1, kids1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
            reply = statistics.median(t[0] for t in times) * 1000
            total = statistics.median(t[1] for t in times) * 1000
            arena_cpu = (self1.ru_utime + self1.ru_stime - self0.ru_utime - self0.ru_stime) / (runs + 1) * 1000
            bot_cpu = (kids1.ru_utime + kids1.ru_stime - kids0.ru_utime - kids0.ru_stime) / (runs + 1) * 1000
            shown = "(hidden)" if base == "bwrap" else f"{bot_cpu:.1f}"  # bwrap's grandchildren are not counted
            print(f"{kind:8}{mode:14}{reply:16.1f}{total:20.1f}{arena_cpu:14.1f}{shown:>12}")
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    trio.run(main, parser.parse_args().runs)
