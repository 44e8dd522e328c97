"""Spins the CPU forever at its first move."""
import _play


def spin() -> None:
    _play.say("spinning")
    n = 0
    while True:
        n += 1


_play.main(spin)
