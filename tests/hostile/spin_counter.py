"""A CPU-timing pair in one (two copies are partners): at each `act` it counts its own loop for
20 ms, and then, for a bit of its hand, leaves four children spinning after its reply (a 1) or
none (a 0). Its partner, two moves later, counts fewer turns if it shares the CPU with them.
Says on stderr "sent <deal> <moves before> <bit>" and "count <deal> <moves before the
partner's act> <turns>"."""
import os
import signal
import time

import _play

children: list[int] = []


def on_message(message: dict) -> None:
    if message["type"] != "act":
        return
    while children:
        pid = children.pop()
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    deal, moves = message["number"], len(message["observation"]["moves"])
    turns, end = 0, time.monotonic() + 0.02
    while time.monotonic() < end:
        turns += 1
    if moves >= 2:
        _play.say(f"count {deal} {moves - 2} {turns}")
    bit = sum(map(ord, "".join(map(str, message["observation"]["hand"])))) % 2
    _play.say(f"sent {deal} {moves} {bit}")
    for _ in range(4 * bit):
        pid = os.fork()
        if pid == 0:
            while True:
                pass
        children.append(pid)


_play.main(lambda: None, when="never", on_message=on_message)
