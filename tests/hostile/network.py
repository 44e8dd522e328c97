"""Tries to open a TCP connection to 127.0.0.1:PORT (argv[1]) and send a secret over it."""
import socket
import sys

port = int(sys.argv[1])
try:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(b"leaked hand: 9S KH\n")
    print(f"network: connected to port {port}", file=sys.stderr)
except OSError as exc:
    print(f"network: blocked ({exc})", file=sys.stderr)
