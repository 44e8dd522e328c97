"""A trained policy as a bot: the function PettingZoo's examples train,
`policy(observation, action_mask) -> action`, answers the arena's `act` unchanged.

    from policy_kit import run

    def policy(observation, action_mask):
        return max(range(len(action_mask)), key=lambda a: (action_mask[a], -a))   # your trained one

    run(policy, name="my-policy")

`observation` is what `games.pettingzoo` gives a seat in training: a dict with `observation` (the
game's fixed-size numeric encoding, games/encoding.py: the same numbers for the same position),
`action_mask` (1 for the first len(legal) actions) and `protocol` (the `act` message's
observation and legal moves). Action k is the k-th legal move. The numbers come as numpy arrays
where numpy can be imported, else as lists (a sandboxed bot sees no numpy: write the policy so
that it works on both, or run the bot with `--sandbox none`).

The bot plays every game (its `ready` names none); the kit needs `msgpack` and the arena's
`games` package, both beside it in every sandbox. A game the sandbox cannot load (one that needs
a package the sandbox lacks) is encoded by `games.encoding` without its game object: OpenSpiel's
games by their observation's own tensor, others hashed.
"""

from __future__ import annotations

import random
import sys

from botkit import PROTOCOL_VERSION, Writer, _protect_stdout, log, messages

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable


def _game(name: str) -> Any:
    import games

    try:
        return games.game(name)
    except games.GameError:
        return None


def observation_for(game: Any, described: dict[str, Any], act: dict[str, Any], numpy: Any = None) -> dict[str, Any]:
    """What `games.pettingzoo` gives the seat for this `act` message, as a dict."""
    from games import encoding

    legal = act["legal"]
    mask = [1] * min(len(legal), encoding.MAX_ACTIONS) + [0] * max(0, encoding.MAX_ACTIONS - len(legal))
    numbers = encoding.encode(game, described, act["observation"])
    if numpy is not None:
        numbers, mask = numpy.asarray(numbers, numpy.float32), numpy.asarray(mask, numpy.int8)
    return {"observation": numbers, "action_mask": mask,
            "protocol": {"observation": act["observation"], "legal": legal}}


def run(policy: Callable[[dict[str, Any], Any], int], name: str = "policy", version: str = "1") -> None:
    """The protocol loop around `policy` (hello, act, bye); stops at bye or when stdin closes."""
    try:
        import numpy
    except ImportError:
        numpy = None
    out = Writer(_protect_stdout())
    game: Any = None
    described: dict[str, Any] = {}
    for message in messages(0):
        kind = message.get("type")
        if kind == "hello":
            if message.get("protocol") != PROTOCOL_VERSION:
                log(f"policy_kit: arena speaks protocol {message.get('protocol')}, this kit {PROTOCOL_VERSION}")
            described = message["variant"]
            game = _game(message.get("game", "zwicker"))
            random.seed(message.get("seed"))
            out.send({"type": "ready", "name": str(name), "version": str(version)})
        elif kind == "act":
            seen = observation_for(game, described, message, numpy)
            action = int(policy(seen, seen["action_mask"]))
            if not 0 <= action < len(message["legal"]):
                log(f"policy_kit: the policy chose action {action}, the seat has {len(message['legal'])} legal moves")
            out.send({"type": "move", "index": action})
        elif kind == "bye":
            return
    sys.exit(0)
