"""Spins the CPU forever without reading its input."""
import os

os.write(1, b"spinning\n")
n = 0
while True:
    n += 1
