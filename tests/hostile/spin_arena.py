"""A whole arena whose one bot spins the CPU (spin_children.py: 30 children): run as a
process of its own by tests/test_hostile_cpu_share.py, beside the machine's other work.

    spin_arena.py MODE    wait for a line on stdin (the test moves this process into the
                          cgroup it wants first), start the bot in MODE (as root: a uid of its own),
                          say "spinning as uid UID" once its children spin, and hold on until
                          stdin ends
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import trio  # noqa: E402

from arena.process import forking  # noqa: E402
from arena.process.command import BotCommand  # noqa: E402
from arena.process.lifecycle import open_bot  # noqa: E402


async def main(mode: str) -> None:
    stdin = trio.lowlevel.FdStream(0)
    await stdin.receive_some(100)
    cmd = BotCommand.from_spec(str(Path(__file__).parent / "spin_children.py"))
    cmd = BotCommand((*cmd.argv, "--raw"), cmd.workdir, cmd.kind)
    async with forking.serving(mode), open_bot(cmd, sandbox=mode) as bot:
        said = b""
        while b"spinning" not in said and (chunk := await bot.stdout.receive_some(100)):
            said += chunk
        print(f"spinning as uid {bot.uid}" if b"spinning" in said else f"failed: {said!r} {bot.stderr_log()}", flush=True)
        while await stdin.receive_some(100):
            pass


if __name__ == "__main__":
    trio.run(main, sys.argv[1])
