"""The Python bot kit: the loop, the hooks, stdout protection, and no trio at start-up."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import msgpack

import engine
from arena.play.match import RANDOM_BOT
from arena.play.table import FixedDeals, play_table
from arena.process.command import BotCommand

BOTS = Path(__file__).resolve().parent.parent / "bots"


def write_bot(tmp_path: Path, body: str) -> BotCommand:
    script = tmp_path / "kit_bot.py"
    script.write_text(f"import sys\nsys.path.insert(0, {str(BOTS)!r})\n" + textwrap.dedent(body))
    return BotCommand.from_spec(str(script))


async def test_hooks_are_called_and_print_goes_to_the_log(tmp_path):
    cmd = write_bot(tmp_path, """
        from botkit import Bot, run, log

        class Chatty(Bot):
            name = "chatty"
            version = "7"
            def on_hello(self, hello):
                log("hello seat", self.seat, "side", self.side, "partners", self.partners)
            def on_deal(self, m):
                log("deal", m["number"], "hand", len(m["observation"]["hand"]))
            def choose(self, observation, legal_moves):
                print("choosing among", len(legal_moves))   # must not corrupt the protocol
                return len(legal_moves) - 1 if observation["table"] else 0
            def on_deal_end(self, m):
                log("deal_end", m["number"], m["points"])
            def on_bye(self, m):
                log("bye", m["reason"])

        run(Chatty())
    """)
    random_bot = BotCommand.from_spec(str(RANDOM_BOT))
    result = await play_table([random_bot, cmd, random_bot, random_bot], variant="jensen",
                              plan=FixedDeals([(engine.deal_seed(2, 0), 0)]), bot_seed=4)
    assert result.ok, result.forfeit
    seat = result.seats[1]
    assert (seat.name, seat.version) == ("chatty", "7")
    log = seat.stderr
    assert "hello seat 1 side 1 partners [3]" in log
    assert "deal 0 hand 4" in log
    assert log.count("choosing among") == seat.moves
    assert f"deal_end 0 {result.deals[0]['points']}" in log
    assert log.rstrip().endswith("bye end")


def test_the_kit_reads_messages_split_across_writes():
    sys.path.insert(0, str(BOTS))
    try:
        import botkit
    finally:
        sys.path.remove(str(BOTS))
    sent = [{"type": "hello", "seed": 2**64 - 1}, {"type": "act", "legal": list(range(500))}]
    data = b"".join(msgpack.packb(m) for m in sent)
    read, write = os.pipe()

    def writer():
        for i in range(0, len(data), 3):
            os.write(write, data[i:i + 3])
        os.close(write)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert list(botkit.messages(read)) == sent
    finally:
        thread.join()
        os.close(read)


def test_the_kit_does_not_import_trio():
    """trio's import alone costs about 120 ms per bot start."""
    code = f"import sys; sys.path.insert(0, {str(BOTS)!r}); import botkit, random_bot, greedy_bot; " \
           "print(sorted(m for m in ('trio', 'engine', 'arena') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd="/", env={"PATH": os.environ.get("PATH", "")})
    assert out.stdout.strip() == "[]"
