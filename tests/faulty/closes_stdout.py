"""Closes its output on its second move and keeps running."""
import os
import time

from faultkit import move, serve


def act(message, n):
    if n == 2:
        os.close(1)
        time.sleep(60)
    return move(0)


serve(act)
