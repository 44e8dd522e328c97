"""Answers its first act twice, in two separate writes."""
import os

from faultkit import move, serve


def act(message, n):
    if n == 1:
        os.write(1, move(0))
    return move(0)


serve(act)
