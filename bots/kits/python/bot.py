"""A complete bot for every game the arena hosts, in Python with nothing to install.

It plays a legal move chosen at random from the `act` message's `legal` list, with a
generator seeded from `hello.seed` (protocol.md section 3), so it replays identically. Put
your strategy in `choose`. Run: `python3 bot.py`; register: `arena bot add
bots/kits/python/bot.py --name my-bot`. The file's second half is the arena's wire format with nothing
but the standard library: a msgpack decoder (every format but extensions, which the arena never
sends), an encoder for what a bot sends, and the message stream on file descriptors 0 and 1
(protocol.md sections 1 and 13).
"""

import os
import random
import struct
import sys

NAME = "kit-python"


def choose(observation, legal, rng):
    """The index in `legal` of the move to play (the game's forms: its page, games/<game>/protocol.md)."""
    return rng.randrange(len(legal))


def main():
    out = os.dup(1)  # stdout is the protocol: keep it private and send stray prints to the log
    os.dup2(2, 1)
    rng = random.Random()
    for message in messages(0):
        kind = message.get("type")
        if kind == "hello":
            rng.seed(message["seed"])
            print(f"{NAME}: seat {message['seat']} of a {message.get('game')} table", file=sys.stderr)
            send(out, {"type": "ready", "name": NAME, "version": "1"})
        elif kind == "act":
            send(out, {"type": "move", "index": choose(message["observation"], message["legal"], rng)})
        elif kind == "bye":
            return
        # "deal" and "deal_end" need no reply: read them here to keep track of a board.


# -- msgpack ------------------------------------------------------------------------------------

class Incomplete(Exception):
    """The bytes end inside a value: read more and decode again."""


_FIXED = {0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q", 0xD0: ">b", 0xD1: ">h", 0xD2: ">i", 0xD3: ">q",
          0xCA: ">f", 0xCB: ">d"}
_SIZED = {0xD9: (">B", str), 0xDA: (">H", str), 0xDB: (">I", str), 0xC4: (">B", bytes), 0xC5: (">H", bytes),
          0xC6: (">I", bytes), 0xDC: (">H", list), 0xDD: (">I", list), 0xDE: (">H", dict), 0xDF: (">I", dict)}


def _take(buf, pos, n):
    if pos + n > len(buf):
        raise Incomplete
    return buf[pos:pos + n], pos + n


def unpack(buf, pos=0):
    """One value from `buf` at `pos`: (value, the position after it)."""
    if pos >= len(buf):
        raise Incomplete
    b, pos = buf[pos], pos + 1
    if b <= 0x7F:
        return b, pos
    if b >= 0xE0:
        return b - 0x100, pos
    if b == 0xC0:
        return None, pos
    if b in (0xC2, 0xC3):
        return b == 0xC3, pos
    if b in _FIXED:
        raw, pos = _take(buf, pos, struct.calcsize(_FIXED[b]))
        return struct.unpack(_FIXED[b], raw)[0], pos
    if b & 0xE0 == 0xA0:
        n, kind = b & 0x1F, str
    elif b & 0xF0 == 0x90:
        n, kind = b & 0x0F, list
    elif b & 0xF0 == 0x80:
        n, kind = b & 0x0F, dict
    elif b in _SIZED:
        fmt, kind = _SIZED[b]
        raw, pos = _take(buf, pos, struct.calcsize(fmt))
        n = struct.unpack(fmt, raw)[0]
    else:
        raise ValueError(f"msgpack type 0x{b:02x} is not part of the protocol")
    if kind is str or kind is bytes:
        raw, pos = _take(buf, pos, n)
        return (raw.decode() if kind is str else bytes(raw)), pos
    items = []
    for _ in range(n * 2 if kind is dict else n):
        item, pos = unpack(buf, pos)
        items.append(item)
    return (dict(zip(items[::2], items[1::2])) if kind is dict else items), pos


def pack(value):
    """msgpack bytes of a dict, list, str, int, bool or None (what a bot sends)."""
    if value is None:
        return b"\xc0"
    if value is True or value is False:
        return b"\xc3" if value else b"\xc2"
    if isinstance(value, int):
        if 0 <= value <= 0x7F or -32 <= value < 0:
            return struct.pack(">b" if value < 0 else ">B", value)
        return struct.pack(">BQ", 0xCF, value) if value > 0 else struct.pack(">Bq", 0xD3, value)
    if isinstance(value, str):
        data = value.encode()
        head = struct.pack(">B", 0xA0 | len(data)) if len(data) < 32 else struct.pack(">BI", 0xDB, len(data))
        return head + data
    if isinstance(value, (list, tuple)):
        return struct.pack(">BI", 0xDD, len(value)) + b"".join(pack(v) for v in value)
    if isinstance(value, dict):
        return struct.pack(">BI", 0xDF, len(value)) + b"".join(pack(k) + pack(v) for k, v in value.items())
    raise TypeError(f"cannot send a {type(value).__name__}")


def messages(fd=0):
    """Yield each message as soon as its bytes are in (a raw read: a buffered reader on a
    pipe waits for more than the arena sends, protocol.md section 10); stop at end of input."""
    buf = b""
    while chunk := os.read(fd, 1 << 16):
        buf += chunk
        pos = 0
        try:
            while True:
                message, pos = unpack(buf, pos)
                yield message
        except Incomplete:
            buf = buf[pos:]


def send(fd, message):
    """Write one message whole."""
    data = memoryview(pack(message))
    while data:
        data = data[os.write(fd, data):]


if __name__ == "__main__":
    main()
