"""Benchmark: the arena's request/response round trip against a raw blocking pipe loop, and
the deals per second of one table of four random bots.

    PYTHONPATH=. .venv/bin/python bench/protocol.py [--round-trips N] [--deals N]

The same trivial bot process (it answers every `act` with index 0) is driven twice: by a plain
blocking loop (os.write, os.read, msgpack; no trio, no arena) and by the arena's Connection over
trio streams, with the same `act` message (the first act of a real jensen deal). Each is run
with the two processes free to use both cores and pinned together on one core, interleaved a
few times; the best batch is the figure least disturbed by whatever else the machine runs.
Figures go in bench/README.md by hand.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import msgpack
import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine import zwicker  # noqa: E402
from arena.play.table import FixedDeals, TimeControl, play_table  # noqa: E402
from arena.process.command import BotCommand  # noqa: E402
from arena.process.lifecycle import open_bot  # noqa: E402
from arena.protocol import messages  # noqa: E402
from arena.protocol.connection import Connection  # noqa: E402

TRIVIAL_BOT = """
import os, msgpack
unpacker = msgpack.Unpacker(max_buffer_size=64 << 20)
while chunk := os.read(0, 65536):
    unpacker.feed(chunk)
    for m in unpacker:
        if m["type"] == "act":
            os.write(1, msgpack.packb({"type": "move", "index": 0}))
        elif m["type"] == "hello":
            os.write(1, msgpack.packb({"type": "ready", "name": "trivial"}))
        elif m["type"] == "bye":
            raise SystemExit(0)
"""


def act_message() -> dict:
    state = zwicker.deal("jensen", 42, 0)
    return messages.act(number=0, observation=state.observation(state.to_move),
                        legal=[m.to_dict() for m in state.legal_moves()], move_ms=1000, bank_ms=10000)


def pin(pids: list[int], same_core: bool) -> None:
    cpus = {min(os.sched_getaffinity(0))} if same_core else set(range(os.cpu_count() or 1))
    for pid in pids:
        os.sched_setaffinity(pid, cpus)


def raw_round_trips(n: int, same_core: bool, act: dict) -> list[float]:
    """Blocking pipe loop with the trivial bot: microseconds per round trip, per batch."""
    bot = subprocess.Popen([sys.executable, "-c", TRIVIAL_BOT], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    pin([os.getpid(), bot.pid], same_core)
    w, r = bot.stdin.fileno(), bot.stdout.fileno()
    unpacker = msgpack.Unpacker(max_buffer_size=1 << 16)
    packer = msgpack.Packer(use_bin_type=True)

    def one(message: dict) -> dict:
        os.write(w, packer.pack(message))
        while True:
            for reply in unpacker:
                return reply
            unpacker.feed(os.read(r, 65536))

    one({"type": "hello"})
    for _ in range(200):
        one(act)
    batches = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n // 5):
            one(act)
        batches.append((time.perf_counter() - start) / (n // 5) * 1e6)
    os.write(w, packer.pack({"type": "bye"}))
    bot.stdin.close()
    bot.wait()
    bot.stdout.close()
    return batches


async def arena_round_trips(n: int, same_core: bool, act: dict, script: Path) -> list[float]:
    """The arena's Connection.request (check, encode, send, receive, decode, validate)."""
    cmd = BotCommand.from_spec(str(script))
    async with open_bot(cmd, sandbox="none") as bot:
        pin([os.getpid(), bot.pid], same_core)
        conn = Connection(bot.stdin, bot.stdout)
        await conn.request({"type": "hello"}, "ready", trio.current_time() + 10, "10 s")
        for _ in range(200):
            await conn.request(act, "move", trio.current_time() + 10, "10 s")
        batches = []
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(n // 5):
                await conn.request(act, "move", trio.current_time() + 10, "10 s")
            batches.append((time.perf_counter() - start) / (n // 5) * 1e6)
        await conn.send(messages.bye(reason="end"))
    pin([os.getpid()], False)
    return batches


async def table_speed(deals: int) -> tuple[float, int, float]:
    random_bot = BotCommand.from_spec(str(ROOT / "bots" / "zwicker" / "random_bot.py"))
    plan = FixedDeals([(zwicker.deal_seed(1, k), k % 4) for k in range(deals)])
    start = time.perf_counter()
    result = await play_table([random_bot] * 4, variant="jensen", plan=plan, sandbox="none",
                              time_control=TimeControl(), bot_seed=1)
    elapsed = time.perf_counter() - start
    assert result.ok, result.forfeit
    moves = sum(len(d["moves"]) for d in result.deals)
    return elapsed, moves, sum(s.think_ms_total for s in result.seats) / 1000


def engine_speed(deals: int) -> float:
    """Seconds the engine alone needs for the same deals' moves, legal lists and observations."""
    import random

    rng = random.Random(1)
    start = time.perf_counter()
    for k in range(deals):
        state = zwicker.deal("jensen", zwicker.deal_seed(1, k), k % 4)
        while not state.is_over:
            legal = state.legal_moves()
            state.observation(state.to_move)
            state = state.apply(legal[rng.randrange(len(legal))])
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--round-trips", type=int, default=10000)
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    act = act_message()
    script = Path(os.environ.get("TMPDIR", "/tmp")) / f"zwicker-bench-bot-{os.getpid()}.py"
    script.write_text(TRIVIAL_BOT)
    print(f"machine: {platform.uname().system} {platform.uname().release} {platform.machine()}, "
          f"{os.cpu_count()} cores, Python {platform.python_version()}, trio {trio.__version__}")
    print(f"act message: {len(messages.encode(act))} bytes, {len(act['legal'])} legal moves; "
          f"{args.repeats} x {args.round_trips} round trips each in batches of {args.round_trips // 5}; "
          f"microseconds per round trip, best batch (median)")
    try:
        for same_core in (False, True):
            raw: list[float] = []
            arena: list[float] = []
            for _ in range(args.repeats):  # interleaved, so that other load hits both alike
                raw += raw_round_trips(args.round_trips, same_core, act)
                arena += trio.run(arena_round_trips, args.round_trips, same_core, act, script)
            where = "one core  " if same_core else "both cores"
            print(f"{where}: raw pipe {min(raw):6.1f} us (median {statistics.median(raw):6.1f})   "
                  f"arena {min(arena):6.1f} us (median {statistics.median(arena):6.1f})   "
                  f"ratio of the best batches {min(arena) / min(raw):4.2f}")
    finally:
        script.unlink()
    elapsed, moves, think = trio.run(table_speed, args.deals)
    engine_s = engine_speed(args.deals)
    print(f"table of 4 random bots: {args.deals} deals, {moves} moves in {elapsed:.2f} s "
          f"(with start-up and shutdown): {args.deals / elapsed:.1f} deals/s, {moves / elapsed:.0f} moves/s; "
          f"replies {think:.2f} s in all; the engine alone needs {engine_s:.2f} s for such deals")


if __name__ == "__main__":
    main()
