"""A common slip: print() to stdout, which corrupts the protocol stream."""
import sys

from faultkit import move, serve


def act(message, n):
    print("thinking about", len(message["legal"]), "moves")
    sys.stdout.flush()
    return move(0)


serve(act)
