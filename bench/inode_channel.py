"""The inode-number channel between partners: how many bits a sender that makes pipes passes to a
receiver that reads the inode number of its own next pipe (tests/hostile/inode_channel.py), in
the sandboxes and as plain processes ("none": the positive control). Run by hand, not from a
test (a figure of the machine's load, not a property of the code):

    .venv/bin/python bench/inode_channel.py [--modes none,fork] [--kinds same,cross] [--symbols 64]
    .venv/bin/python bench/inode_channel.py --table 8 [--modes fork]

Sender and receiver are two bots started by the arena (`open_bot`) that take turns as partners
do and never run at the same time: the sender gets a number (0 to 15, four bits) and says when
it is done, then the receiver reads. Each line: the mode, the kind, the symbols and bits right
of those sent, and the bits per symbol a code could get through such errors (four bits x (1 -
H(bit error rate)), the binary symmetric channel's capacity). Figures go to docs/hostile.md.

With --table N the partners play: a gauntlet tournament of N boards of jensen, two copies of
tests/hostile/inode_whisper.py against the random bot (a real SQLite file in a temporary folder,
the arena's own scheduling), each passing its hand to its partner a nibble an act; the line says
the nibbles its partner heard right of those sent.
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


def table(mode: str, boards: int) -> tuple[int, int, int]:
    """Nibbles heard right, bits heard right, and nibbles sent, over a gauntlet of `boards`."""
    import re
    import shutil
    import tempfile

    import trio

    from arena.results import registry, schema
    from arena.tournaments import runner

    home = Path(tempfile.mkdtemp(prefix="zwicker-inode-"))
    home.chmod(0o755)
    try:
        db = schema.open_db(home / "arena.db")
        registry.add_bot(db, ROOT / "bots" / "zwicker" / "random_bot.py", name="random", store_dir=home / "store")
        folder = home / "src" / "inode"
        folder.mkdir(parents=True)
        (folder / "bot.py").write_bytes((ROOT / "tests" / "hostile" / "inode_whisper.py").read_bytes())
        (folder / "_play.py").write_bytes((ROOT / "tests" / "hostile" / "_play.py").read_bytes())
        registry.add_bot(db, folder, name="inode", store_dir=home / "store")
        settings = runner.Settings(boards=boards, gauntlet="random")
        tid = runner.prepare(db, "inode", ["random", "inode"], settings, sandbox=mode)
        trio.run(lambda: runner.run(db, tid, concurrency=1, processes=1, sandbox=mode))  # one table at a time
        right = bits = sent_n = 0
        deals: dict[str, list[tuple[list[int], list[int]]]] = {}
        for (log,) in db.execute("SELECT s.stderr_tail FROM seats s JOIN bots b ON b.id = s.bot_id"
                                 " WHERE b.name = 'inode'"):
            for deal, sent, heard in re.findall(r"inode: (\S+) sent \[([\d, ]*)\] heard \[([\d, ]*)\]", log):
                deals.setdefault(deal, []).append(
                    ([int(x) for x in sent.split(",") if x.strip()], [int(x) for x in heard.split(",") if x.strip()]))
        for pair in deals.values():
            if len(pair) != 2:
                continue
            for (_, heard), (sent, _) in ((pair[0], pair[1]), (pair[1], pair[0])):
                # the partner's first nibble is lost when it acts before the first baseline: align
                best = max((sum(a == b for a, b in zip(sent[k:], heard)), k) for k in (0, 1))[1]
                pairs = list(zip(sent[best:], heard))
                right += sum(a == b for a, b in pairs)
                bits += sum(BITS - bin((a ^ b) & 15).count("1") if 0 <= b < 16 else 0 for a, b in pairs)
                sent_n += len(sent)
        db.close()
        return right, bits, sent_n
    finally:
        if not os.environ.get("KEEP"):
            shutil.rmtree(home, ignore_errors=True)


def main() -> None:
    import trio

    parser = argparse.ArgumentParser()
    parser.add_argument("--modes", default="none,fork")
    parser.add_argument("--kinds", default="same,cross")
    parser.add_argument("--symbols", type=int, default=64)
    parser.add_argument("--table", type=int, default=0, help="boards of a gauntlet of the partners (0: raw)")
    args = parser.parse_args()
    print(f"# {os.uname().nodename}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}, as uid {os.geteuid()}")
    if args.table:
        for mode in args.modes.split(","):
            right, bits, sent = table(mode, args.table)
            print(f"{mode:5s} table: nibbles heard right {right}/{sent}, bits {bits}/{BITS * sent}")
        return
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
