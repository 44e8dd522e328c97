"""One bot's end of the protocol, written against trio streams rather than a process.

Production passes a process's stdin/stdout; tests pass in-memory or pipe streams. Low-level
stream errors are translated here into the `BotFault` tree, so the table runner only ever
sees a fault named by cause (crash, timeout, protocol error) or a decoded, typed reply.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from typing import Any

import trio

from arena.errors import BotCrashed, BotTimeout, ProtocolError
from arena.protocol.messages import (
    MAX_BOT_MESSAGE,
    Decoder,
    MoveReply,
    Packed,
    Ready,
    encode,
    parse_reply,
)

Message = dict[str, Any] | Packed

SPIN_SECONDS = 20e-6
"""How long `receive` polls a pipe before it waits through trio (see `Connection._read_soon`)."""
_waiting = 0
"""Requests in this process awaiting their reply: `receive` polls only while it is alone."""


class Connection:
    """Sends the arena's messages to one bot and reads its replies within deadlines."""

    def __init__(self, send_stream: trio.abc.SendStream, receive_stream: trio.abc.ReceiveStream,
                 *, max_message: int = MAX_BOT_MESSAGE) -> None:
        self.send_stream = send_stream
        self.receive_stream = receive_stream
        self.decoder = Decoder(max_message)
        self._read_size = max_message
        # Pipes (a process's stdio) are used through their file descriptors directly: a write
        # that fits the pipe and a quick reply then cost no trip through trio's scheduler,
        # which is most of a round trip's cost (bench/README.md).
        self._fileno = getattr(receive_stream, "fileno", None)
        self._in_fd = send_stream.fileno() if hasattr(send_stream, "fileno") else None

    async def send(self, message: Message, deadline: float = math.inf) -> None:
        """Write one message; a bot that does not read its input in time is a timeout."""
        data = message.data if isinstance(message, Packed) else encode(message)
        if self._in_fd is not None:
            try:
                written = os.write(self._in_fd, data)
            except (BlockingIOError, InterruptedError):
                written = 0
            except BrokenPipeError:
                raise BotCrashed(f"its input was closed before {_type(message)!r} (exited?)") from None
            if written == len(data):
                return
            data = data[written:]
        with trio.move_on_at(deadline) as scope:
            try:
                await self.send_stream.send_all(data)
            except trio.BrokenResourceError:
                raise BotCrashed(f"its input was closed before {_type(message)!r} (exited?)") from None
        if scope.cancelled_caught:
            raise BotTimeout(f"did not read its input ({_type(message)!r} message) in time")

    async def receive(self, deadline: float = math.inf) -> dict[str, Any]:
        """The next decoded message; EOF is a crash, passing the deadline a timeout.

        On a pipe, a lone request's reply that comes within `SPIN_SECONDS` is read without a
        trip through trio's scheduler, so this call is not always a checkpoint (the table runner
        has one per deal). While other tables wait for their bots too, this task first lets them
        run (one checkpoint: their replies are handled meanwhile) and then looks at its pipe
        once: in a tournament the reply is there about half of the time, and is then read
        without arming epoll and a cancel scope for it (bench/README.md).
        """
        while (message := self.decoder.next()) is None:
            data = None
            if self._fileno is not None:
                if _waiting <= 1:
                    data = self._read_soon()
                else:
                    await trio.lowlevel.checkpoint()
                    data = self._read_now()
            if data is None:
                with trio.move_on_at(deadline):
                    data = await self._read()
                if data is None:
                    raise BotTimeout("no reply in time")
            if not data:
                raise BotCrashed("closed its output before 'bye' (exited?)")
            self.decoder.feed(data)
        return message

    def _read_soon(self) -> bytes | None:
        """Poll the pipe for up to SPIN_SECONDS, giving up the CPU between polls; None if empty.

        A quick bot answers in 10 to 20 microseconds: less than waiting through trio (a cancel
        scope, epoll, the scheduler), and on another core less than a blocking read's wake-up.
        sched_yield, before each look, lets a bot that shares the arena's core run: as a batch
        task (arena.process.command.batch_policy) it does not preempt the arena when woken, and looking
        first would cost an empty read on one core (the round trip 1.49 times the raw one
        instead of 1.41-1.48; bench/README.md, Protocol). Only a lone request
        polls: while other tables wait for their bots, the arena has their replies to handle
        instead (a tournament at 32 boards per match ran 15% faster without polling; a single
        table's round trip is a third slower without it). bench/README.md has the figures.
        """
        give_up = time.perf_counter() + SPIN_SECONDS
        while True:
            os.sched_yield()  # a bot on this core runs now: it does not preempt us (SCHED_BATCH)
            if (data := self._read_now()) is not None or time.perf_counter() > give_up:
                return data

    def _read_now(self) -> bytes | None:
        """What the pipe holds now (b"" at end of file), or None if it is empty."""
        try:
            return os.read(self._fileno(), self._read_size)
        except (BlockingIOError, InterruptedError):
            return None
        except OSError as exc:
            raise BotCrashed(f"its output broke before 'bye': {exc}") from None

    async def _read(self) -> bytes | None:
        if self._fileno is None:
            try:
                return await self.receive_stream.receive_some(self._read_size)
            except trio.BrokenResourceError:
                raise BotCrashed("its output broke before 'bye' (exited?)") from None
        fd = self._fileno()
        while True:  # the pipe was just found empty (or written to): wait before reading
            await trio.lowlevel.wait_readable(fd)
            try:
                return os.read(fd, self._read_size)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError as exc:
                raise BotCrashed(f"its output broke before 'bye': {exc}") from None

    async def request(self, message: Message, expected: str, deadline: float,
                      limit_text: object, *, check_idle: bool = True,
                      extend: Callable[[float], float | None] | None = None) -> tuple[Ready | MoveReply, float]:
        """Send `message`, read the one reply of type `expected`; returns (reply, seconds).

        `limit_text` says what the deadline was, in a timeout's detail (any object: it is made
        a string only then). `extend`, if given, is asked when the deadline passes with no reply
        for a later one (None: it is a timeout; it may raise a fault of its own instead).

        Bytes already waiting (unless `check_idle` is off, as for the first request) or more
        bytes after the reply are a protocol error: the bot spoke out of turn or answered twice.
        """
        global _waiting
        if check_idle:
            self.check_idle()
        start = trio.current_time()
        _waiting += 1
        try:
            await self.send(message, deadline)
            while True:
                try:
                    raw = await self.receive(deadline)
                    break
                except BotTimeout:
                    if extend is None or (later := extend(deadline)) is None:
                        raise
                    deadline = later
        except BotTimeout as exc:
            if getattr(exc, "by_arena", False):
                raise  # `extend` found the machine, not the bot, to blame
            raise BotTimeout(f"no {expected!r} reply to {_type(message)!r} within {limit_text}") from None
        finally:
            _waiting -= 1
        elapsed = trio.current_time() - start
        reply = parse_reply(raw, expected)
        if self.decoder.pending:
            raise ProtocolError(f"sent more than one message in answer to {_type(message)!r}")
        return reply, elapsed

    def check_idle(self) -> None:
        """Fault a bot that wrote something nobody asked for (or exited) since its last reply.

        Only file-descriptor streams can be polled without blocking; bytes left over from the
        last read are checked for every stream.
        """
        if self.decoder.pending:
            raise ProtocolError("sent a message the arena did not ask for")
        if self._fileno is None or (data := self._read_now()) is None:
            return
        if not data:
            raise BotCrashed("closed its output before 'bye' (exited?)")
        self.decoder.feed(data)
        message = self.decoder.next()
        kind = message.get("type") if message else None
        what = f"a {kind[:40]!r} message" if isinstance(kind, str) else "a message"
        raise ProtocolError(f"sent {what} the arena did not ask for")

    async def close_input(self) -> None:
        """Close the bot's stdin: after `bye`, this is its signal to exit."""
        try:
            await self.send_stream.aclose()
        except trio.BrokenResourceError:
            pass


def _type(message: Message) -> str:
    return message.type if isinstance(message, Packed) else message["type"]
