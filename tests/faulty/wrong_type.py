"""Answers act with a ready message."""
import msgpack
from faultkit import serve

serve(lambda m, n: msgpack.packb({"type": "ready", "name": "confused"}))
