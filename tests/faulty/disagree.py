"""Names one move by index and another by its dict."""
import msgpack
from faultkit import serve

serve(lambda m, n: msgpack.packb({"type": "move", "index": 0, "move": {"type": "trail", "card": "??"}}))
