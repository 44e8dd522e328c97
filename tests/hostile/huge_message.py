"""Sends one 100 MB msgpack message (a bin 32 header announcing 100 MB, then the bytes)."""
import os

size = 100 * 1024 * 1024
os.write(1, b"\xc6" + size.to_bytes(4, "big"))
chunk = b"\0" * (1 << 20)
for _ in range(100):
    os.write(1, chunk)
while os.read(0, 65536):
    pass
