"""protocol.md and Zwicker's page (games/zwicker/protocol.md) cannot rot: their examples are the arena's
real messages, the bot really plays."""

from __future__ import annotations

import ast
import hashlib
import json
import re
from pathlib import Path

from engine import zwicker
from arena.errors import SEAT_STATUSES
from arena.play.match import RANDOM_BOT
from arena.play.table import FixedDeals, play_table
from arena.process.command import BotCommand, Limits
from arena.protocol import messages
from arena.protocol.messages import parse_reply
from tests.test_table import MemoryBot, play

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "protocol.md").read_text()
ZWICKER = (ROOT / "games" / "zwicker" / "protocol.md").read_text()  # Zwicker's messages


def section(title_pattern: str, doc: str = DOC) -> str:
    match = re.search(rf"^#+ {title_pattern}\n(.*?)(?=^#+ |\Z)", doc, re.S | re.M)
    assert match, f"no section {title_pattern!r}"
    return match.group(1)


def examples() -> dict[str, dict]:
    found = {}
    for kind in messages.ARENA_TYPES + messages.BOT_TYPES:
        body = section(rf"`{kind}`")  # the fields every game shares; Zwicker's page has the examples
        example = section(rf"`{kind}`", ZWICKER) if kind in ("hello", "deal", "act", "deal_end") else body
        block = re.search(r"```json\n(.*?)```", example, re.S)
        assert block, f"section `{kind}` has no JSON example"
        found[kind] = json.loads(block.group(1))
        assert found[kind]["type"] == kind
        assert re.search(r"^\| `type` \| str \|", body, re.M), f"section `{kind}` has no field table"
    return found


async def real_messages() -> dict[str, dict]:
    """The first message of each type seat 1 gets at the documented table (deal 42, dealer 0)."""
    bots = [MemoryBot() for _ in range(4)]
    await play(bots, deals=[(42, 0)], bot_seed=0)
    first: dict[str, dict] = {}
    for message in bots[1].received:
        first.setdefault(message["type"], message)
    return first


async def test_every_arena_message_example_is_what_the_arena_sends():
    docs, real = examples(), await real_messages()
    for kind in ("hello", "deal", "act", "bye"):
        assert docs[kind] == real[kind], f"the `{kind}` example differs from the arena's message"
    assert docs["hello"]["variant"] == {**zwicker.variant("jensen").describe(), "game": "zwicker"}
    assert docs["hello"]["game"] == "zwicker"
    end, real_end = docs["deal_end"], real["deal_end"]
    assert end.keys() == real_end.keys()
    assert {k: v for k, v in end.items() if k != "moves"} == {k: v for k, v in real_end.items() if k != "moves"}
    assert end["moves"] == real_end["moves"][:len(end["moves"])]


def test_every_bot_message_example_is_accepted():
    docs = examples()
    assert parse_reply(docs["ready"], "ready").name == "first-move"
    assert parse_reply(docs["move"], "move").index == 4


def test_the_limits_and_statuses_in_the_doc_are_the_code_s():
    limits = section(r"6\. Size limits")
    assert f"{messages.MAX_BOT_MESSAGE} bytes" in limits
    assert f"**{messages.MAX_ARENA_MESSAGE >> 20} MiB**" in limits
    assert f"at most {messages.MAX_NAME} characters" in limits
    assert f"at most {messages.MAX_DEPTH} deep" in limits
    assert f"first and the last {Limits().stderr_bytes // 2 >> 10} KiB" in section(r"1\. Transport and framing")
    faults = section(r"7\. Faults")
    for status in SEAT_STATUSES:
        assert f"`{status}`" in faults
    for name, points in (("jensen", 30), ("huelsemann", 21), ("grupp", 21), ("grossenwiehe", 83)):
        assert zwicker.variant(name).describe()["points_per_deal"] == points
        assert str(points) in faults
    assert f"`{messages.PROTOCOL_VERSION}`" in section(r"8\. Versioning")


def test_where_a_bot_runs_states_the_default_limits():
    where, limits = section(r"11\. Where your bot runs"), Limits()
    assert f"**{limits.tmp_bytes >> 20} MiB**" in where
    assert f"**{limits.memory_bytes >> 30} GiB**" in where
    assert f"**{limits.cpu_seconds} CPU seconds**" in where
    assert f"**{limits.file_bytes >> 20} MiB**" in where
    assert f"**{limits.open_files}** open files" in where
    assert f"**{limits.processes}** processes" in where


def test_the_shuffle_vector_and_deal_seed_are_the_engine_s():
    deck = zwicker.variant("jensen").describe()["deck"]
    vector = re.findall(r"^seed (\d+): ((?:\S+ ){9}\S+)$", section(r"3\. The shuffle[^\n]*", ZWICKER), re.M)
    assert len(vector) == 3
    for seed, cards in vector:
        assert " ".join(zwicker.shuffle(int(seed), deck)[:10]) == cards
    # deal_seed as the section describes it
    for master, k in ((0, 0), (7, 3), (2**64 - 1, 2**64 - 1)):
        digest = hashlib.sha256(b"zwicker-deal-seed" + master.to_bytes(8, "big") + k.to_bytes(8, "big")).digest()
        assert int.from_bytes(digest[:8], "big") == zwicker.deal_seed(master, k)


def minimal_bot() -> str:
    block = re.search(r"```python\n(.*?)```", section(r"9\. A complete minimal bot"), re.S)
    assert block
    return block.group(1)


def test_the_minimal_bot_is_short_and_needs_only_msgpack():
    code = minimal_bot()
    assert len(code.strip().splitlines()) <= 30
    tree = ast.parse(code)
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert imported <= {"os", "random", "msgpack"}
    assert not any(isinstance(node, ast.ImportFrom) for node in ast.walk(tree))


async def test_the_minimal_bot_plays_a_match(tmp_path):
    script = tmp_path / "minimal_bot.py"
    script.write_text(minimal_bot())
    minimal, random_bot = BotCommand.from_spec(str(script)), BotCommand.from_spec(str(RANDOM_BOT))
    deals = FixedDeals([(zwicker.deal_seed(1, k), k % 4) for k in range(2)])
    for seats in ([minimal, random_bot] * 2, [random_bot, minimal] * 2):
        result = await play_table(seats, variant="jensen", plan=deals, bot_seed=8)
        assert result.ok, result.forfeit
        assert {s.name for s in result.seats} == {"minimal", "random"}
        assert all(d["complete"] for d in result.deals)
