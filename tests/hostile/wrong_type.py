"""At its first move, answers with a well-formed map of the wrong type (a second `ready`)."""
import _play

for message in _play._messages():
    kind = message.get("type")
    if kind == "hello":
        _play._send({"type": "ready", "name": "wrong_type", "version": "1"})
    elif kind == "act":
        _play._send({"type": "ready", "name": "wrong_type", "version": "1"})
    elif kind == "bye":
        break
