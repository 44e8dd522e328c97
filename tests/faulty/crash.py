"""Exits with status 3 on its second move."""
import sys

from faultkit import move, serve

serve(lambda m, n: sys.exit(3) if n == 2 else move(0))
