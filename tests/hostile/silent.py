"""Never answers (not even the handshake): reads and discards its input until it ends."""
import os

while os.read(0, 65536):
    pass
