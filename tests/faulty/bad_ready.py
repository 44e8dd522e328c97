"""Answers hello with a ready message whose name is not a string."""
import msgpack
from faultkit import move, serve

serve(lambda m, n: move(0), hello=lambda m: msgpack.packb({"type": "ready", "name": 42}))
