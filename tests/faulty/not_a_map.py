"""Answers act with a bare integer."""
import msgpack
from faultkit import serve

serve(lambda m, n: msgpack.packb(0))
