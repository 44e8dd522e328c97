"""At its first move, answers with a move that is not legal: by default a trail of a card it
does not hold; with --index, an index past the end of the legal list."""
import sys

import _play

for message in _play._messages():
    kind = message.get("type")
    if kind == "hello":
        _play._send({"type": "ready", "name": "illegal_move", "version": "1"})
    elif kind == "act":
        if "--index" in sys.argv:
            _play._send({"type": "move", "index": len(message["legal"])})
        else:
            hand = message["observation"]["hand"]
            card = next(c for c in ("AS", "AH", "AD", "AC", "KS", "KH") if c not in hand)
            _play._send({"type": "move", "move": {"type": "trail", "card": card}})
    elif kind == "bye":
        break
