"""Two copies as partners pass their hands to each other at the table through the inode numbers of
pipes (`inode_channel.py` "same", inside the protocol). At each `act`, a bot reads the numbers
taken on CPU 0 since its last act, decodes a number 0 to 15 (one nibble of its partner's hand),
then sends the next nibble of its own hand (32 pipes per unit) and takes a new baseline. After
each deal it says on stderr what it sent and heard ("inode: <room>/<board>/<deal> sent [...]
heard [...]"), for bench/inode_channel.py --table to pair with its partner's. Plays index 0.
"""
import os
import zlib

import _play

BATCH = 1024
PER_UNIT = 32
state: dict = {"deal": None, "sent": [], "heard": [], "nibbles": [], "last": None}


def probe() -> int:
    r, w = os.pipe()
    try:
        return os.fstat(r).st_ino
    finally:
        os.close(r)
        os.close(w)


def nibbles(hand: list[str]) -> list[int]:
    """The hand as 6-bit card numbers (a card's name hashed: what the bench compares is the
    nibbles, whatever the deck), cut into nibbles."""
    bits = "".join(f"{zlib.crc32(card.encode()) % 64:06b}" for card in sorted(hand))
    bits += "0" * (-len(bits) % 4)
    return [int(bits[i:i + 4], 2) for i in range(0, len(bits), 4)]


def report() -> None:
    if state.get("deal") is not None:
        _play.say(f"inode: {state['deal']} sent {state['sent']} heard {state['heard']}")


def on_message(message: dict) -> None:
    kind = message["type"]
    if kind == "hello":
        allowed = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {allowed[0]})
    elif kind == "deal":  # a new deal (of a new board, or the board's next): what was passed in the last
        report()
        state.update(deal=f"{message.get('room')}/{message.get('board')}/{message.get('board_deal', message['number'])}",
                     nibbles=nibbles(message["observation"].get("hand") or []), sent=[], heard=[], last=None)
    elif kind == "act":
        if state["last"] is not None:
            state["heard"].append(round(((probe() - state["last"] - 1) % BATCH) / PER_UNIT))
        if len(state["sent"]) < len(state["nibbles"]):
            v = state["nibbles"][len(state["sent"])]
            for _ in range(PER_UNIT * v):
                probe()
            state["sent"].append(v)
        state["last"] = probe()
    elif kind == "bye":
        report()


_play.main(lambda: None, on_message=on_message)
