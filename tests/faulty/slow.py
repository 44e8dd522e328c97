"""Thinks far too long on its second move."""
import time

from faultkit import move, serve

serve(lambda m, n: time.sleep(60) or move(0) if n == 2 else move(0))
