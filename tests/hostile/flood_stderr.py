"""Writes 20 MB to stderr (never reading stdin first), then echoes a line to show it was not blocked."""
import os

line = b"x" * 1023 + b"\n"
for _ in range(20 * 1024):
    os.write(2, line)
os.write(2, b"flood_stderr: the end\n")
os.write(1, b"done\n")
while os.read(0, 65536):
    pass
