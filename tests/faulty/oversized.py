"""Sends a 1 MiB reply."""
import msgpack
from faultkit import serve

serve(lambda m, n: msgpack.packb({"type": "move", "index": 0, "pad": "x" * (1 << 20)}))
