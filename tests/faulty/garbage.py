"""Writes bytes that are not msgpack on its second move."""
from faultkit import move, serve

serve(lambda m, n: b"\xc1\xc1\xc1\xc1" if n == 2 else move(0))
