"""Answers its second act with an index past the end of the legal list."""
from faultkit import move, serve

serve(lambda m, n: move(len(m["legal"])) if n == 2 else move(0))
