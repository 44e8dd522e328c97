"""At its first move, starts 30 children that leave its session and spin on the CPU for good,
then plays on: without a CPU share per bot they starve every other bot on the machine."""
import os

import _play


def spin() -> None:
    for _ in range(30):
        if os.fork() == 0:
            os.setsid()
            while True:
                pass
    _play.say("spin_children: 30 spinning")


_play.main(spin)
