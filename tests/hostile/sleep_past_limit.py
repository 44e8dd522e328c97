"""At its first move, sleeps (a minute) instead of answering: a hung bot."""
import time

import _play


def hang() -> None:
    _play.say("sleep_past_limit: sleeping")
    time.sleep(60)


_play.main(hang)
