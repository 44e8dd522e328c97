"""Answers act with a move message that names no move."""
import msgpack
from faultkit import serve

serve(lambda m, n: msgpack.packb({"type": "move", "idx": 0}))
