"""At its first move, tries a TCP connection to 127.0.0.1:PORT (argv[1]) to leak its hand; plays on."""
import socket
import sys

import _play


def leak() -> None:
    port = int(sys.argv[1])
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
            conn.sendall(b"leaked hand: 9S KH\n")
        _play.say(f"network: connected to port {port}")
    except OSError as exc:
        _play.say(f"network: blocked ({exc})")


_play.main(leak)
