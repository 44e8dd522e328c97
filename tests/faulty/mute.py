"""Reads its input but never answers hello."""
from faultkit import serve

serve(lambda m, n: b"", hello=lambda m: b"")
