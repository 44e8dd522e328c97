"""A tiny kit for Zwicker bots in Python: it speaks the arena's protocol, you choose moves.

Put your bot script next to this file and write::

    from botkit import Bot, run

    class MyBot(Bot):
        name = "my-bot"
        def choose(self, observation, legal_moves):
            return 0          # an index into legal_moves

    run(MyBot())

Only `msgpack` is needed (no trio: a bot should start in milliseconds). The kit reads the raw
file descriptor 0 with os.read, because an Unpacker fed from sys.stdin.buffer waits for a full
buffer on a pipe and deadlocks. It also moves fd 1 aside and points it at stderr, so a stray
print() goes to the bot's log instead of corrupting the protocol stream.
"""

from __future__ import annotations

import os
import random
import sys
TYPE_CHECKING = False
if TYPE_CHECKING:  # importing typing costs a bot ~7 ms of start-up, paid at every table
    from typing import Any

import msgpack

PROTOCOL_VERSION = 1
READ_SIZE = 65536
MAX_MESSAGE = 64 * 1024 * 1024  # the arena's largest message (protocol.md)


class Bot:
    """Override `choose`; the other hooks are optional.

    After `hello` the bot has `seat`, `side`, `partners`, `variant` (the variant's full
    description, see protocol.md), `time` (the time control) and `rng`, a random.Random
    seeded from the arena's seed, so a bot using only `rng` replays identically.
    """

    name = "botkit-bot"
    version = "1"

    def __init__(self) -> None:
        self.hello: dict[str, Any] = {}
        self.seat = 0
        self.side = 0
        self.partners: list[int] = []
        self.variant: dict[str, Any] = {}
        self.time: dict[str, Any] = {}
        self.rng = random.Random(0)

    def on_hello(self, hello: dict[str, Any]) -> None:
        """Called once, before `ready` is sent."""

    def on_deal(self, message: dict[str, Any]) -> None:
        """A deal starts: message has number, dealer, observation."""

    def choose(self, observation: dict[str, Any], legal_moves: list[dict[str, Any]]) -> int:
        """Return the index of the move to play in `legal_moves`."""
        raise NotImplementedError

    def on_deal_end(self, message: dict[str, Any]) -> None:
        """A deal ended: message has number, points, breakdown, totals, moves."""

    def on_bye(self, message: dict[str, Any]) -> None:
        """The arena is done with this bot (message has reason, detail)."""


def unit_cards(unit: Any) -> list[str]:
    """The cards of one table unit: a loose card is its code, a build {"build": [...], ...}."""
    return unit["build"] if isinstance(unit, dict) else [unit]


def log(*args: Any) -> None:
    """Write a line to the bot's log (stderr), which the arena keeps, bounded."""
    print(*args, file=sys.stderr, flush=True)


def messages(fd: int = 0):
    """Yield the arena's messages from a raw file descriptor until it closes."""
    unpacker = msgpack.Unpacker(raw=False, max_buffer_size=MAX_MESSAGE)
    while True:
        data = os.read(fd, READ_SIZE)
        if not data:
            return
        unpacker.feed(data)
        yield from unpacker


class Writer:
    """Writes whole messages to a file descriptor (handling short writes)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.packer = msgpack.Packer(use_bin_type=True)

    def send(self, message: dict[str, Any]) -> None:
        data = memoryview(self.packer.pack(message))
        while data:
            data = data[os.write(self.fd, data):]


def _protect_stdout() -> int:
    """Keep the protocol on a private copy of fd 1 and send fd 1 (and print) to stderr."""
    out = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


def run(bot: Bot) -> None:
    """The protocol loop: answer hello and act, pass the rest to the hooks, stop at bye."""
    out = Writer(_protect_stdout())
    for message in messages(0):
        kind = message.get("type")
        if kind == "act":
            bot.time = message.get("time", bot.time)
            out.send({"type": "move", "index": int(bot.choose(message["observation"], message["legal"]))})
        elif kind == "hello":
            if message.get("protocol") != PROTOCOL_VERSION:
                log(f"botkit: arena speaks protocol {message.get('protocol')}, this kit {PROTOCOL_VERSION}")
            bot.hello = message
            bot.seat, bot.side = message["seat"], message["side"]
            bot.partners = list(message.get("partners", []))
            bot.variant, bot.time = message["variant"], message["time"]
            bot.rng = random.Random(message["seed"])
            bot.on_hello(message)
            out.send({"type": "ready", "name": str(bot.name), "version": str(bot.version)})
        elif kind == "deal":
            bot.on_deal(message)
        elif kind == "deal_end":
            bot.on_deal_end(message)
        elif kind == "bye":
            bot.on_bye(message)
            return
        else:
            log(f"botkit: ignoring a message of type {kind!r}")
