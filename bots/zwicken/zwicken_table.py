"""Zwicken boards among bots without the arena, for testing bots: the messages of
games/zwicken/protocol.md, played over the rules package either in-process (`Bot` objects, their hooks
called directly, as botkit's loop would) or with bot programs over the real protocol (msgpack on
their stdin and stdout).

    python bots/zwicken/zwicken_table.py bots/zwicken/zwicken_rule_bot.py bots/zwicken/zwicken_random_bot.py ... --boards 4

A board is the rules' session of deals; a bot that answers anything but a legal index (or a
move dict that names a legal move) faults, and the board is forfeited as docs/zwicken-rules.md
section 6 says.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # botkit
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # engine

import msgpack  # noqa: E402

from engine import zwicken as zw  # noqa: E402

TIME = {"handshake_ms": 10000, "move_ms": 1000, "bank_ms": 10000}


class Fault(Exception):
    def __init__(self, seat: int, why: str) -> None:
        super().__init__(f"seat {seat}: {why}")
        self.seat = seat


class InProcess:
    """A botkit Bot object driven as botkit.run drives it."""

    def __init__(self, bot) -> None:
        self.bot = bot

    def send(self, message: dict) -> dict | None:
        import random as _random

        bot = self.bot
        kind = message["type"]
        if kind == "hello":
            bot.hello = message
            bot.seat, bot.side = message["seat"], message["side"]
            bot.partners = list(message["partners"])
            bot.variant, bot.time = message["variant"], message["time"]
            bot.rng = _random.Random(message["seed"])
            bot.on_hello(message)
            return {"type": "ready", "name": bot.name, "version": bot.version}
        if kind == "deal":
            bot.deal_start = message["observation"]
            bot.on_deal(message)
        elif kind == "act":
            bot.time = message["time"]
            return {"type": "move", "index": int(bot.choose(message["observation"], message["legal"]))}
        elif kind == "deal_end":
            bot.on_deal_end(message)
        elif kind == "bye":
            bot.on_bye(message)
        return None

    def close(self) -> None:
        pass


class Program:
    """A bot program over the real protocol: msgpack on its stdin and stdout."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.unpacker = msgpack.Unpacker(raw=False)

    def send(self, message: dict) -> dict | None:
        self.proc.stdin.write(msgpack.packb(message, use_bin_type=True))  # type: ignore[union-attr]
        self.proc.stdin.flush()  # type: ignore[union-attr]
        if message["type"] not in ("hello", "act"):
            return None
        while True:
            for reply in self.unpacker:
                return reply
            data = os.read(self.proc.stdout.fileno(), 65536)  # type: ignore[union-attr]
            if not data:
                raise EOFError("the bot closed its stdout")
            self.unpacker.feed(data)

    def close(self) -> None:
        try:
            self.proc.stdin.close()  # type: ignore[union-attr]
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()  # type: ignore[union-attr]


def describe(v: zw.Variant) -> dict:
    return {"game": "zwicken", **v.to_dict()}


def resolve(reply: object, legal: list, seat: int) -> zw.Move:
    if not isinstance(reply, dict) or reply.get("type") != "move":
        raise Fault(seat, f"expected a move, got {reply!r}")
    index, move = reply.get("index"), reply.get("move")
    if index is not None:
        if type(index) is not int or not 0 <= index < len(legal):
            raise Fault(seat, f"illegal move: index {index!r} of {len(legal)}")
        if move is not None and move != legal[index].to_dict():
            raise Fault(seat, f"illegal move: index {index} and move {move!r} differ")
        return legal[index]
    try:
        m = zw.Move.from_dict(move)
    except zw.IllegalMove as exc:
        raise Fault(seat, f"illegal move: {exc}") from None
    if m not in legal:
        raise Fault(seat, f"illegal move: {m} is not legal")
    return m


def _ask(seats: list, seat: int, message: dict) -> dict | None:
    """Send one message to one seat; a bot that crashed or closed its pipes faults."""
    try:
        return seats[seat].send(message)
    except (EOFError, OSError, ValueError) as exc:
        raise Fault(seat, f"crashed: {exc}") from None


def play_boards(seats: list, v: zw.Variant, seeds: list[int], table: str = "t") -> list[dict]:
    """Play one board per seed (first dealer: seed mod n) with `seats` (one InProcess or Program
    per seat); returns each board's result form (a forfeit's form when a seat faulted, and play
    stops there)."""
    n = v.players
    rng = random.Random(f"{table}/{n}")  # the bots' seeds: the same for the same table
    results = []
    for seat, bot in enumerate(seats):
        reply = _ask(seats, seat, {"type": "hello", "protocol": 1, "seat": seat, "side": seat, "partner": None,
                          "partners": [], "game": "zwicken", "variant": describe(v), "time": TIME,
                          "match_id": table, "table_id": table, "seed": rng.getrandbits(64)})
        if not isinstance(reply, dict) or reply.get("type") != "ready":
            raise Fault(seat, f"expected ready, got {reply!r}")
    number = 0
    totals = [0] * n
    try:
        for b, seed in enumerate(seeds):
            name = f"{table}/b{b}"
            board = zw.Board.new(v, seed, seed % n)
            board_totals = [0] * n
            try:
                while not board.is_over:
                    s = board.deal()
                    for seat in range(n):
                        _ask(seats, seat, {"type": "deal", "number": number, "dealer": s.dealer,
                                  "observation": zw.observe(s, seat), "room": table, "board": name,
                                  "board_deal": board.deals_played})
                    while not s.is_over:
                        seat = s.to_move
                        legal = s.legal_moves()
                        reply = _ask(seats, seat, {"type": "act", "number": number, "observation": zw.observe(s, seat),
                                                  "legal": [m.to_dict() for m in legal], "legal_complete": True,
                                                  "time": {"move_ms": TIME["move_ms"], "bank_ms": TIME["bank_ms"]}})
                        s = s.apply(resolve(reply, legal, seat))
                    net = list(s.result.net)
                    totals = [t + x for t, x in zip(totals, net)]
                    board_totals = [t + x for t, x in zip(board_totals, net)]
                    for seat in range(n):
                        _ask(seats, seat, {"type": "deal_end", "number": number, "points": net,
                                  "breakdown": s.result.to_dict(), "result": {"seats": net, "sides": net},
                                  "totals": totals, "board": name, "board_totals": board_totals,
                                  "moves": [{"seat": x, **m.to_dict()} for x, m in s.moves]})
                    board = board.after(s)
                    number += 1
                results.append(board.result())
            except Fault as fault:
                results.append(zw.forfeit_result(v, fault.seat))
                for seat in range(n):
                    if seat != fault.seat:
                        try:
                            seats[seat].send({"type": "bye", "reason": "fault", "detail": str(fault)})
                        except (EOFError, OSError, ValueError):
                            pass
                return results
        for seat in range(n):
            _ask(seats, seat, {"type": "bye", "reason": "end", "detail": ""})
        return results
    finally:
        for bot in seats:
            bot.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bots", nargs="+", help="bot programs, one per seat (2 to 10)")
    ap.add_argument("--boards", type=int, default=2)
    ap.add_argument("--variant", default="bayern", help='e.g. "scharf" or "bayern,deals=2"')
    args = ap.parse_args()
    v = zw.variant(args.variant, players=len(args.bots))
    seats = [Program([sys.executable, path]) for path in args.bots]
    for i, r in enumerate(play_boards(seats, v, list(range(args.boards)))):
        print(f"board {i}: balances {r['balances']}" + (f" (forfeit by seat {r['forfeit']})" if "forfeit" in r else ""))


if __name__ == "__main__":
    main()
