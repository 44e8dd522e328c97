"""The little protocol the hostile bots speak, so that each misbehaves at a chosen point.

    import _play
    _play.main(misbehave)          # plays legal moves (index 0) and misbehaves at the first `act`

`when="hello"` misbehaves before answering the handshake instead; `after_bye` runs once the
arena said `bye` (or closed stdin), e.g. to linger; `on_message` sees every message first. With
--raw on the command line there is no protocol: the bot misbehaves at once, writes "done" to
stdout, and waits for the end of its input (the process-level tests in test_sandbox.py and
test_process.py use this).
Needs only msgpack.
"""

import os
import sys

RAW = "--raw" in sys.argv


def say(line: str) -> None:
    """A line on stdout in raw mode (the tests read it), on stderr when speaking the protocol."""
    os.write(1 if RAW else 2, line.encode() + b"\n")


def _messages():
    import msgpack

    unpacker = msgpack.Unpacker(raw=False)
    while data := os.read(0, 65536):
        unpacker.feed(data)
        yield from unpacker


def _send(message: dict) -> None:
    import msgpack

    data = msgpack.packb(message)
    while data:
        data = data[os.write(1, data):]


def main(misbehave, when: str = "act", after_bye=None, on_message=None) -> None:
    if RAW:
        misbehave()
        say("done")
        while os.read(0, 65536):
            pass
    else:
        done = False
        for message in _messages():
            kind = message.get("type")
            if on_message is not None:
                on_message(message)
            if kind == when and not done:
                done = True
                misbehave()
            if kind == "hello":
                _send({"type": "ready", "name": os.path.basename(sys.argv[0]), "version": "1"})
            elif kind == "act":
                _send({"type": "move", "index": 0})
            elif kind == "bye":
                break
    if after_bye is not None:
        after_bye()
