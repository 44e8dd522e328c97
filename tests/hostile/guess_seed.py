"""Tries to compute every hand from its `hello`: searches the master seeds below argv[1]
(default 4096) for one that gives its own `hello` seed, by each way the arena has derived bot
seeds (the old public SHA-256 chains of a tournament room and of `arena play`, the
`play-<seed>` match id, and today's keyed derivation, whose code is public too). With the master
seed it deals the table's first deal itself, says on stderr whether that matches the hand it was
dealt, and names its partner's hand. Plays index 0 throughout. One file (no _play.py): `arena
play` runs it from a private copy of that file alone.
"""
import hashlib
import hmac
import os
import re
import sys

import msgpack

LIMIT = int(sys.argv[1]) if len(sys.argv) > 1 else 4096


def say(line: str) -> None:
    os.write(2, line.encode() + b"\n")


def send(message: dict) -> None:
    data = msgpack.packb(message)
    while data:
        data = data[os.write(1, data):]


def messages():
    unpacker = msgpack.Unpacker(raw=False, max_buffer_size=64 << 20)
    while data := os.read(0, 65536):
        unpacker.feed(data)
        yield from unpacker


def u64(*xs: int) -> bytes:
    return b"".join(x.to_bytes(8, "big") for x in xs)


def first8(digest: bytes) -> int:
    return int.from_bytes(digest[:8], "big")


def deal_seed(master: int, k: int) -> int:  # games/zwicker/protocol.md section 3
    return first8(hashlib.sha256(b"zwicker-deal-seed" + u64(master, k)).digest())


def seat_seed(table: int, seat: int) -> int:
    return first8(hashlib.sha256(b"zwicker-bot" + u64(table, seat)).digest())


def keyed(master: int, *where: int) -> int:  # arena.play.seeds, as published
    key = hmac.digest(master.to_bytes(8, "big"), b"zwicker-bot-key", "sha256")
    return first8(hmac.digest(key, b"zwicker-bot-table" + u64(*where), "sha256"))


def candidates(hello: dict):
    """(scheme, master seed, the table's bot seed) for every master seed tried."""
    table_id, match_id = hello["table_id"], hello["match_id"]
    room = re.fullmatch(r".*/m(\d+)/(straight|swapped)/b(\d+)", table_id)
    match = re.fullmatch(r"b(\d+)t(\d+)", table_id)
    if m := re.fullmatch(r"play-(\d+)", match_id):
        yield "match id", int(m.group(1)), None
    for master in range(LIMIT):
        if room:
            number, board, swapped = int(room.group(1)), int(room.group(3)), room.group(2) == "swapped"
            yield "old room chain", master, deal_seed(deal_seed(master, number), 2 * board + swapped)
            yield "keyed", master, keyed(master, number, 2 * board + swapped)
            yield "keyed room", master, keyed(master, number, int(swapped))  # today's: one seed a room
        if match:
            board, t = int(match.group(1)), int(match.group(2))
            yield "old match chain", master, first8(hashlib.sha256(b"zwicker-table" + u64(master, board, t)).digest())
            yield "keyed", master, keyed(master, board, t)


def board_of(table_id: str) -> int:
    return int(re.search(r"b(\d+)", table_id.rpartition("/")[2]).group(1))


def shuffle(deck: list, seed: int) -> list:  # games/zwicker/protocol.md section 3, docs/rules.md section 7
    def words():
        block = 0
        while True:
            digest = hashlib.sha256(b"zwicker-shuffle" + u64(seed, block)).digest()
            for k in range(0, 32, 8):
                yield int.from_bytes(digest[k:k + 8], "big")
            block += 1
    cards, stream = list(deck), words()
    for i in range(len(cards) - 1, 0, -1):
        bound = i + 1
        limit = 2**64 - 2**64 % bound
        w = next(stream)
        while w >= limit:
            w = next(stream)
        j = w % bound
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def hands(variant: dict, seed: int, dealer: int) -> list[list[str]]:
    n = variant["players"]
    deck, pos = shuffle(variant["deck"], seed), 0
    dealt: list[list[str]] = [[] for _ in range(n)]
    order = [(dealer + 1 + k) % n for k in range(n)]
    for where, count in variant["first_deal"]:
        if where == "hands":
            for _ in range(count):
                for s in order:
                    dealt[s].append(deck[pos])
                    pos += 1
        else:
            pos += count
    return dealt


def main() -> None:
    hello, master = None, None
    for message in messages():
        kind = message.get("type")
        if kind == "hello":
            hello = message
            for scheme, guess, table in candidates(hello):
                if table is None or seat_seed(table, hello["seat"]) == hello["seed"]:
                    master = guess
                    say(f"guess_seed: master seed {guess} found by the {scheme}")
                    break
            else:
                say(f"guess_seed: no master seed below {LIMIT} gives my seed")
            send({"type": "ready", "name": "guess_seed", "version": "1"})
        elif kind == "deal" and message["number"] == 0 and master is not None:
            seed = deal_seed(master, board_of(hello["table_id"]))
            predicted = hands(hello["variant"], seed, message["dealer"])
            mine = sorted(predicted[hello["seat"]]) == sorted(message["observation"]["hand"])
            say(f"guess_seed: deal seed {seed}; my hand {'matches' if mine else 'does not match'}; "
                      f"partner's hand {' '.join(predicted[hello['partner']])}")
        elif kind == "act":
            send({"type": "move", "index": 0})
        elif kind == "bye":
            break


main()
