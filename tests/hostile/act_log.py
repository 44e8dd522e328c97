"""An honest bot that says on stderr when it ran: for each `act`, the monotonic clock (ns) when
it came and when its reply left, this process's own token, and the boards it has seen so far
(`test_scheduler.py` checks that no process of a bot runs beside another of that bot). Each act
takes 2 ms of its own CPU, so that two processes running at once would overlap visibly. One file
(a tournament registers it alone); needs only msgpack."""

import os
import time

import msgpack

TOKEN = os.urandom(6).hex()


def send(message: dict) -> None:
    data = msgpack.packb(message)
    while data:
        data = data[os.write(1, data):]


def main() -> None:
    seen: list[str] = []
    unpacker = msgpack.Unpacker(raw=False)
    while data := os.read(0, 65536):
        unpacker.feed(data)
        for message in unpacker:
            kind = message.get("type")
            if kind == "hello":
                send({"type": "ready", "name": "act-log", "version": "1"})
            elif kind == "deal":
                board = str(message.get("board", "")).rsplit("/", 1)[-1]
                if board not in seen:
                    seen.append(board)
            elif kind == "act":
                came = time.monotonic_ns()
                while time.monotonic_ns() - came < 2_000_000:
                    pass
                os.write(2, f"act {TOKEN} {came} {time.monotonic_ns()} {','.join(seen)}\n".encode())
                send({"type": "move", "index": 0})
            elif kind == "bye":
                return


main()
