"""The Python bot kit: the loop, the hooks, stdout protection, and no trio at start-up."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import msgpack
import pytest

from engine import zwicker
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
                              plan=FixedDeals([(zwicker.deal_seed(2, 0), 0)]), bot_seed=4)
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
    code = f"import sys; sys.path[:0] = [{str(BOTS)!r}, {str(BOTS / 'zwicker')!r}]; import botkit, random_bot, greedy_bot; " \
           "print(sorted(m for m in ('trio', 'engine', 'arena') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd="/", env={"PATH": os.environ.get("PATH", "")})
    assert out.stdout.strip() == "[]"


# -- the kit's View: one seat's knowledge of a deal, and the hidden cards drawn to fit it ------

def _kit():
    sys.path.insert(0, str(BOTS))
    try:
        import botkit
    finally:
        sys.path.remove(str(BOTS))
    return botkit


def _positions(preset: str, seed: int):
    """Every position of one deal played by a seeded random policy, with its opening."""
    import random

    rng = random.Random(seed)
    state = start = zwicker.deal(preset, seed=seed, dealer=seed % 4)
    while not state.is_over:
        yield start, state
        legal = state.legal_moves()
        state = state.apply(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize("preset", ["jensen", "huelsemann", "grossenwiehe"])
def test_a_view_knows_what_is_public_and_never_rules_out_the_truth(preset):
    """For every seat at every position of random deals: the View's table, piles and hand sizes
    are the engine's, `unseen` is exactly the other hands plus the stock, the true hands satisfy
    every inference (holder-rule promises, compulsory-capture exclusions), and a sample keeps
    everything public as it is, satisfies the inferences, and gives the seat its true legal moves."""
    import random

    botkit = _kit()
    described = zwicker.variant(preset).describe()
    rng = random.Random(1)
    promises = exclusions = 0
    for seed in range(6):
        for start, state in _positions(preset, seed):
            for seat in range(4):
                view = botkit.View(described, start.observation(seat), state.observation(seat))
                assert view.table == state.table and view.taken == state.taken
                assert view.hand_sizes == tuple(len(h) for h in state.hands)
                hidden = [c for s in range(4) if s != seat for c in state.hands[s]] + list(state.stock)
                assert sorted(view.unseen) == sorted(hidden)
                assert view.consistent(state.hands), (seat, view.musts, view.forbidden)
                promises += len(view.musts)
                exclusions += sum(map(len, view.forbidden))
                if seat == state.to_move:
                    sample = view.sample(rng)
                    assert view.consistent(sample.hands)
                    assert sample.hands[seat] == state.hands[seat] and sample.table == state.table
                    assert [len(h) for h in sample.hands] == [len(h) for h in state.hands]
                    assert len(sample.stock) == len(state.stock) and sample.taken == state.taken
                    assert sample.legal_moves() == state.legal_moves()
    if preset == "jensen":
        assert promises > 0  # the holder rule (self) made promises to check
    if preset == "huelsemann":
        assert exclusions > 0  # compulsory capture excluded cards


def test_a_sample_keeps_a_builders_promise():
    """Seat 1 built 9 under the holder rule (self) and has played nothing since: every sample
    gives seat 1 a card that takes 9, though most random draws would not."""
    import random

    botkit = _kit()
    state = start = zwicker.deal("jensen", seed=3, dealer=0)
    seen_build = False
    rng = random.Random(5)
    for seed in range(200):
        state = start = zwicker.deal("jensen", seed=seed, dealer=0)
        state = state.apply(state.legal_moves()[-1])  # seat 1 trails
        builds = [m for m in state.legal_moves() if m.type == "build"]
        if builds:
            state = state.apply(builds[0])
            seen_build = True
            break
    assert seen_build
    builder, value = state.history[-1][0], state.history[-1][1].value
    view = botkit.View(zwicker.variant("jensen").describe(), start.observation(0), state.observation(0))
    assert ((builder,), value) in view.musts
    values = zwicker.variant("jensen").rules.values
    for _ in range(50):
        assert any(value in values[c] for c in view.sample(rng).hands[builder])
