"""Start-up cost of a bot per sandbox mode: spawn to first reply, and the whole life to reaped.

Run: PYTHONPATH=. .venv/bin/python bench/sandbox.py [--runs N]
The bot is tests/hostile/echo.py (Python, no imports beyond os/sys) and a node echo bot made on
the fly. "none/system" runs the same script under /usr/bin/python3 without a sandbox, which is
the interpreter the sandboxed modes use, so the difference to it is the sandbox's own cost.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import trio

from arena import sandbox
from arena.process import BotCommand, open_bot

ECHO = Path(__file__).resolve().parent.parent / "tests" / "hostile" / "echo.py"
NODE_ECHO = "process.stdin.on('data', (d) => process.stdout.write(d));\n"


async def one(cmd: BotCommand, mode: str) -> tuple[float, float]:
    start = time.perf_counter()
    async with open_bot(cmd, sandbox=mode) as bot:
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
        print(f"{'bot':8}{'mode':14}{'first reply ms (median)':>26}{'start to reaped ms (median)':>30}")
        for kind, mode, cmd in cases:
            await one(cmd, mode.split("/")[0])  # warm the page cache
            times = [await one(cmd, mode.split("/")[0]) for _ in range(runs)]
            reply = statistics.median(t[0] for t in times) * 1000
            total = statistics.median(t[1] for t in times) * 1000
            print(f"{kind:8}{mode:14}{reply:26.1f}{total:30.1f}")
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    trio.run(main, parser.parse_args().runs)
