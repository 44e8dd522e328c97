"""The inode-number channel between partners: how many bits a sender that makes pipes passes to a
receiver that reads the inode number of its own next pipe (tests/hostile/inode_channel.py), in
the sandboxes and as plain processes ("none": the positive control). Run by hand, not from a
test (a figure of the machine's load, not a property of the code):

    .venv/bin/python bench/inode_channel.py [--modes none,fork] [--kinds same,cross] [--symbols 64]

Sender and receiver are two bots started by the arena (`open_bot`) that take turns as partners
do and never run at the same time: the sender gets a number (0 to 15, four bits) and says when
it is done, then the receiver reads. Each line: the mode, the kind, the symbols and bits right
of those sent, and the bits per symbol a code could get through such errors (four bits x (1 -
H(bit error rate)), the binary symmetric channel's capacity). Figures go to docs/hostile.md.
"""

from __future__ import annotations

import argparse
import math
import os
import secrets
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SCRIPT = ROOT / "tests" / "hostile" / "inode_channel.py"
BITS = 4


async def one(mode: str, kind: str, symbols: list[int]) -> list[int]:
    import trio

    from arena.process import forking
    from arena.process.command import BotCommand
    from arena.process.lifecycle import open_bot

    base = BotCommand.from_spec(str(SCRIPT))

    def cmd(*args: str) -> BotCommand:
        return BotCommand(base.argv + args, base.workdir, base.kind)

    async def line(bot) -> str:
        said = b""
        while not said.endswith(b"\n"):
            chunk = await bot.stdout.receive_some(1)
            if not chunk:
                raise RuntimeError(f"the bot ended: {bot.stderr_log()}")
            said += chunk
        return said.decode().strip()

    got = []
    async with forking.serving(mode) if mode == "fork" else _nothing():
        async with open_bot(cmd("receive", kind, "--raw"), sandbox=mode) as receiver, \
                open_bot(cmd("send", kind, "--raw"), sandbox=mode) as sender:
            assert await line(receiver) == "ready"
            for v in symbols:
                await sender.stdin.send_all(f"{v}\n".encode())
                assert await line(sender) == "sent"
                await receiver.stdin.send_all(b"read\n")
                got.append(int((await line(receiver)).split()[1]))
            await sender.stdin.aclose()
            await receiver.stdin.aclose()
            await trio.sleep(0)
    return got


class _nothing:
    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, *exc: object) -> None:
        return None


def capacity(error: float) -> float:
    if error in (0.0, 1.0):
        return float(BITS) if error == 0.0 else 0.0
    h = -error * math.log2(error) - (1 - error) * math.log2(1 - error)
    return BITS * max(0.0, 1 - h)


def main() -> None:
    import trio

    parser = argparse.ArgumentParser()
    parser.add_argument("--modes", default="none,fork")
    parser.add_argument("--kinds", default="same,cross")
    parser.add_argument("--symbols", type=int, default=64)
    args = parser.parse_args()
    print(f"# {os.uname().nodename}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}, as uid {os.geteuid()}")
    for mode in args.modes.split(","):
        for kind in args.kinds.split(","):
            sent = [secrets.randbelow(2 ** BITS) for _ in range(args.symbols)]
            got = trio.run(one, mode, kind, sent)
            right = sum(a == b for a, b in zip(sent, got))
            bits = sum(BITS - bin((a ^ b) & (2 ** BITS - 1)).count("1") if 0 <= b < 2 ** BITS else 0
                       for a, b in zip(sent, got))
            error = 1 - bits / (BITS * len(sent))
            print(f"{mode:5s} {kind:5s} symbols {right}/{len(sent)} bits {bits}/{BITS * len(sent)} "
                  f"({100 * bits / (BITS * len(sent)):.1f}%), {capacity(error):.2f} bits a symbol; "
                  f"first sent {sent[:8]} got {got[:8]}")


if __name__ == "__main__":
    main()
