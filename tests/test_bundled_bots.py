"""The bundled bots (Python random and greedy, Node.js random) play real tables, reproducibly."""

from __future__ import annotations

import ast
import io
import shutil
import subprocess
import sys
from pathlib import Path

import msgpack
import pytest

from engine import zwicker
from arena.play.match import play_match
from arena.play.table import FixedDeals, TimeControl, play_table
from arena.process.command import BotCommand
from arena.protocol import messages

BOTS = Path(__file__).resolve().parent.parent / "bots"
DEALS = [(zwicker.deal_seed(5, k), k % 4) for k in range(2)]


@pytest.fixture(scope="session")
def js_bot() -> BotCommand:
    """The Node.js bot (one file, nothing to install)."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the Node.js bot cannot run here")
    return BotCommand.from_spec(str(BOTS / "zwicker" / "js" / "random_bot.cjs"))


def command(name: str) -> BotCommand:
    return BotCommand.from_spec(str(BOTS / "zwicker" / name))


async def table_of(cmd: BotCommand, bot_seed: int = 1):
    return await play_table([cmd] * 4, variant="jensen", plan=FixedDeals(DEALS), match_id="bundled",
                            table_id="t", bot_seed=bot_seed, time_control=TimeControl(move_s=2))


def moves_of(result) -> list:
    return [(m["seat"], m["move"]) for deal in result.deals for m in deal["moves"]]


@pytest.mark.parametrize("name, bot_name", [("random_bot.py", "random"), ("greedy_bot.py", "greedy")])
async def test_a_python_bot_plays_a_clean_reproducible_table(name, bot_name):
    first = await table_of(command(name))
    assert first.ok, first.forfeit
    assert [s.name for s in first.seats] == [bot_name] * 4
    assert all(d["complete"] for d in first.deals)
    again = await table_of(command(name))
    assert moves_of(again) == moves_of(first)


async def test_the_random_bot_follows_its_seed():
    first = await table_of(command("random_bot.py"), bot_seed=1)
    other = await table_of(command("random_bot.py"), bot_seed=2)
    assert moves_of(first) != moves_of(other)


async def test_the_node_bot_plays_a_clean_reproducible_table(js_bot):
    first = await table_of(js_bot)
    assert first.ok, first.forfeit
    assert [s.name for s in first.seats] == ["random-js"] * 4
    again = await table_of(js_bot)
    assert moves_of(again) == moves_of(first)
    other = await table_of(js_bot, bot_seed=2)
    assert moves_of(other) != moves_of(first)


async def test_python_and_node_bots_share_a_table(js_bot):
    seats = [command("greedy_bot.py"), js_bot, command("random_bot.py"), js_bot]
    result = await play_table(seats, variant="jensen", plan=FixedDeals(DEALS), bot_seed=9)
    assert result.ok and [s.name for s in result.seats] == ["greedy", "random-js", "random", "random-js"]


def test_the_node_bots_own_msgpack_reads_every_format_in_any_chunking(js_bot):
    """The JS bot decodes msgpack itself: it keeps its place through every format the arena could
    send, cut anywhere, whether it decodes a value or steps over it, and its moves follow the
    64-bit seed as splitmix64 says."""
    odd = {"nil": None, "yes": True, "no": False, "neg": -5, "i8": -100, "i16": -30000, "i32": -2**31,
           "i64": -2**40, "u8": 200, "u16": 60000, "u32": 2**32 - 1, "u64": 2**53 + 1, "f": 0.25,
           "bin": b"\x00\xff", "text": "Zwick \u00e4\u00f6\u00fc \u2660" * 20, "long": "x" * 70000,
           "list": list(range(20)), "wide": {f"k{i}": i for i in range(20)}}
    hello = messages.hello(seat=0, side=0, partners=[2], variant={"odd": odd}, time_control={},
                           match_id="m", table_id="t", seed=2**64 - 1)
    # The bot steps over what it does not use (observation, variant) and decodes the rest: an
    # unknown top-level field (which a bot must ignore) takes every format through the decoder.
    acts = [{**messages.act(number=0, observation={"odd": odd}, legal=[{"type": "trail"}] * n, move_ms=1,
                            bank_ms=1), "later": odd} for n in (1, 7, 300)]
    stream = b"".join(messages.encode(m) for m in [hello, *acts, messages.bye(reason="end")])

    def run(chunk: int) -> list:
        with subprocess.Popen(list(js_bot.argv), cwd=js_bot.workdir, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) as bot:
            for i in range(0, len(stream), chunk):
                bot.stdin.write(stream[i : i + chunk])
                bot.stdin.flush()
            bot.stdin.close()
            out, err = bot.stdout.read(), bot.stderr.read()
            assert bot.wait(timeout=30) == 0, err.decode()
        return list(msgpack.Unpacker(io.BytesIO(out), raw=False))

    whole = run(len(stream))
    assert whole[0] == {"type": "ready", "name": "random-js", "version": "1"}
    assert [m["type"] for m in whole[1:]] == ["move"] * 3
    assert [m["index"] for m in whole[1:]] == splitmix64_choices(2**64 - 1, (1, 7, 300))
    assert run(1) == run(977) == whole


def splitmix64_choices(seed: int, sizes) -> list[int]:
    mask, state, out = 2**64 - 1, seed, []
    for n in sizes:
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        out.append((z ^ (z >> 31)) % n)
    return out


def test_the_bots_import_only_the_kit_and_the_standard_library():
    """Under the sandbox a bot sees its own folder, the kit and the engine: importing trio or the
    arena would fail there. The kit imports the engine only inside the functions that simulate
    (checked by test_importing_the_kit_does_not_import_the_engine)."""
    for name in ("botkit.py", "random_bot.py", "greedy_bot.py", "heuristic_bot.py", "mc_bot.py"):
        tree = ast.parse((BOTS / name if name == "botkit.py" else BOTS / "zwicker" / name).read_text())
        imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                    for alias in node.names}
        imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom) and node.module}
        simulates = name in ("botkit.py", "heuristic_bot.py", "mc_bot.py")
        allowed = set(sys.stdlib_module_names) | {"msgpack", "botkit"} | ({"engine"} if simulates else set())
        assert imported <= allowed, f"{name} imports {imported - allowed}"


def test_importing_the_kit_does_not_import_the_engine():
    """A bot that never simulates should not pay for the engine at every start."""
    code = f"import sys; sys.path.insert(0, {str(BOTS)!r}); import botkit; print('engine' in sys.modules)"
    assert subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


def test_greedy_takes_the_capture_worth_most():
    sys.path.insert(0, str(BOTS / "zwicker"))
    try:
        from greedy_bot import GreedyBot
    finally:
        sys.path.remove(str(BOTS / "zwicker"))
    bot = GreedyBot()
    bot.variant = zwicker.variant("jensen").describe()
    bot.on_hello({})
    table = ["9C", "5H", "4D", "TD", {"build": ["2S", "3C"], "value": 5, "by": 1}]
    legal = [
        {"type": "capture", "card": "9S", "value": 9, "take": [0]},        # 2 cards
        {"type": "capture", "card": "9S", "value": 9, "take": [1, 2]},     # 3 cards
        {"type": "capture", "card": "5S", "value": 5, "take": [4]},        # 3 cards with 2S: 1 point
        {"type": "capture", "card": "TS", "value": 10, "take": [3]},       # TD 3 + TS 1: best
        {"type": "build", "card": "AS", "value": 10, "onto": 0},
        {"type": "trail", "card": "5S"},
    ]
    assert bot.choose({"table": table}, legal) == 3
    assert bot.choose({"table": table}, legal[4:]) == 0  # a build before a trail
    trails = [{"type": "trail", "card": "AS"}, {"type": "trail", "card": "3S"}]
    assert bot.choose({"table": table}, trails) == 1  # never trail a point card when another will do
    sweep = [{"type": "capture", "card": "9S", "value": 9, "take": [0]},
             {"type": "capture", "card": "KS", "value": 13, "take": [0, 1]}]
    assert bot.choose({"table": ["9C", "4H"]}, sweep) == 1  # a Zwick is worth its bonus
    assert bot.score(sweep[1], ["9C", "4H"]) - bot.score(sweep[1], ["9C", "4H", "AH"]) == bot.zwick == 1


async def test_greedy_beats_random_in_a_short_duplicate_match():
    result = await play_match(command("greedy_bot.py"), command("random_bot.py"), boards=3, seed=1)
    assert not result.forfeits
    assert result.names == ["greedy", "random"]
    assert result.totals[0] > result.totals[1]
