"""The CPU-timing channel between partners: how many bits a second a sender that spins or sleeps
passes to a receiver that times its own loop (tests/hostile/cpu_timing.py), in the sandboxes and
as plain processes ("none": the positive control). Run by hand, not from a test (a figure of
the machine's load, not a property of the code):

    .venv/bin/python bench/cpu_timing.py [--modes none,fork,bwrap] [--slots 20,50,100] [--bits 64] [--rounds 2]

Both bots get the same start time, as if they had agreed on one: an upper bound for partners,
who would first have to agree through the game. Each line: the mode, the slot (one bit), the
bits right of those sent, and the rate a code could get through such errors (the binary
symmetric channel's capacity: bits a second x (1 - H(error rate))). Figures go to
bench/README.md and docs/hostile.md ("CPU timing").
"""

from __future__ import annotations

import argparse
import math
import os
import secrets
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SCRIPT = ROOT / "tests" / "hostile" / "cpu_timing.py"
LEAD_S = 2.0  # both bots are started before the first slot, whatever the sandbox's start-up costs


async def one(mode: str, slot_ms: int, bits: str) -> str:
    import trio

    from arena.process import forking
    from arena.process.command import BotCommand
    from arena.process.lifecycle import open_bot

    base = BotCommand.from_spec(str(SCRIPT))
    start = f"{time.time() + LEAD_S:.3f}"

    def command(*args: str) -> BotCommand:
        return BotCommand(base.argv + (*args, "--start", start, "--slot", str(slot_ms), "--raw"), base.workdir, base.kind)

    said: dict[str, bytes] = {}

    async def run(name: str, cmd: BotCommand) -> None:
        out = b""
        async with open_bot(cmd, sandbox=mode) as bot:
            while b"done\n" not in out and (chunk := await bot.stdout.receive_some(4096)):
                out += chunk
            await bot.stdin.aclose()
            await bot.wait()
        said[name] = out

    async with forking.serving(mode):
        with trio.fail_after(LEAD_S + len(bits) * slot_ms / 1000 + 60):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(run, "sender", command("send", bits))
                nursery.start_soon(run, "receiver", command("receive", str(len(bits))))
    return said["receiver"].decode().split("got ")[1].split()[0]


def capacity(rate: float, right: float) -> float:
    p = min(right, 1 - right)
    entropy = 0.0 if p == 0 else -p * math.log2(p) - (1 - p) * math.log2(1 - p)
    return rate * (1 - entropy)


def main() -> None:
    import trio

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--modes", default="none,fork,bwrap")
    parser.add_argument("--slots", default="20,50,100")
    parser.add_argument("--bits", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    print(f"uid {os.geteuid()}, load average {os.getloadavg()}", flush=True)
    totals: dict[tuple[str, int], list[int]] = {}
    for _ in range(args.rounds):
        for slot in map(int, args.slots.split(",")):
            for mode in args.modes.split(","):
                sent = format(secrets.randbits(args.bits), f"0{args.bits}b")
                got = trio.run(one, mode, slot, sent)
                right = sum(a == b for a, b in zip(sent, got)) / len(sent)
                total = totals.setdefault((mode, slot), [0, 0])
                total[0] += sum(a == b for a, b in zip(sent, got))
                total[1] += len(sent)
                rate = 1000 / slot
                print(f"{mode:6} slot {slot:4} ms  right {right:6.1%}  raw {rate:5.1f} bit/s  "
                      f"capacity {capacity(rate, right):5.2f} bit/s  load {os.getloadavg()[0]:.2f}", flush=True)
    print(f"all rounds, load average {os.getloadavg()}:")
    for (mode, slot), (right, sent) in sorted(totals.items()):
        print(f"{mode:6} slot {slot:4} ms  right {right}/{sent} ({right / sent:.1%})  "
              f"capacity {capacity(1000 / slot, right / sent):5.2f} bit/s")


if __name__ == "__main__":
    main()
