"""A tempo whisperer and its listener in one (two copies are partners): at each `act` it waits
10 ms times a digit of its hand before answering, and times the gap from its own last reply to
this `act`, across which its partner (two moves back) answered. Says on stderr, per act:
"sent <deal> <moves before> <digit>" and "read <deal> <moves before the partner's act> <digit>"
(the gap in whole 10 ms steps, mod 10): what a partner decoding the table's tempo would get."""
import time

import _play

last = {}


def on_message(message: dict) -> None:
    if message["type"] != "act":
        return
    now = time.monotonic()
    deal, moves = message["number"], len(message["observation"]["moves"])
    if last.get("deal") == deal and moves >= 2:
        _play.say(f"read {deal} {moves - 2} {int((now - last['replied']) * 100) % 10}")
    digit = sum(map(ord, "".join(map(str, message["observation"]["hand"])))) % 10
    _play.say(f"sent {deal} {moves} {digit}")
    time.sleep(digit * 0.01)
    last.update(deal=deal, replied=time.monotonic())  # about when its reply goes (the next write)


_play.main(lambda: None, when="never", on_message=on_message)
