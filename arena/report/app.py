"""What the arena's web apps share (`arena serve` here, `arena league serve` in arena.league):
Starlette on anyio's trio backend, served by Hypercorn, behind one guard.

The guard answers a request whose Host header names another site with 421 (a page of that site
reaching us by DNS rebinding reads nothing), and puts the content policy (nothing from elsewhere,
no inline script) and no-sniff on every answer; an API answer is never cached. `serve` runs an
app until its nursery is cancelled, and `cut_connections` ends its clients' connections when
it stops; `dumps` is JSON as the pages read it (no NaN, UTF-8).
"""

from __future__ import annotations

import ipaddress
import json
import math
import os
import socket
from collections.abc import Callable, Iterable
from typing import Any

import trio
from hypercorn.config import Config
from hypercorn.trio import serve as hypercorn_serve

POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self';"
          " base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


def finite(value: Any) -> Any:
    """`value` with every NaN or infinity made None: JSON has no such numbers."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def dumps(value: Any) -> bytes:
    return json.dumps(finite(value), ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


def allowed_hosts(bind: str, names: Iterable[str] = ()) -> frozenset[str] | None:
    """The names a Host header may give for a server bound to `bind`: a loopback address is
    reached as itself or as localhost, another address as itself or `names`; None (any name)
    for a wildcard bind with no names given, which serves whoever reaches it anyway."""
    host = bind.strip("[]")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:  # a name: itself
        return frozenset({host.lower(), *names})
    if address.is_loopback:
        return frozenset({"127.0.0.1", "localhost", "::1", host, *names})
    if address.is_unspecified:
        return frozenset(names) or None
    return frozenset({host, *names})


def host_name(header: str) -> str:
    """The name in a Host header, without its port ("[::1]:80" -> "::1")."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].partition("]")[0]
    return header.rpartition(":")[0] if header.count(":") == 1 else header


def framing_refusal(headers: list[tuple[bytes, bytes]]) -> str | None:
    """Why a request's framing is refused, or None: any framing but one Content-Length. h11
    takes a chunked Transfer-Encoding over a Content-Length beside it, where a proxy in front
    may have read the other (a second request smuggled in the body); no client of ours sends
    chunked bodies."""
    names = [k.lower() for k, _v in headers]
    if b"transfer-encoding" in names:
        return "Transfer-Encoding is not taken: send a body with its Content-Length"
    if names.count(b"content-length") > 1:
        return "a request with two Content-Length headers is ambiguous"
    return None


class Guard:
    """ASGI middleware: the Host check, the framing check (`framing_refusal`: 400, and the
    connection closed, so that nothing after it is read as a request) and the headers every
    answer carries (see the module)."""

    def __init__(self, app: Any, hosts: frozenset[str] | None, policy: str = POLICY) -> None:
        self.app, self.hosts, self.policy = app, hosts, policy.encode()

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        extra = [(b"content-security-policy", self.policy), (b"x-content-type-options", b"nosniff"),
                 (b"referrer-policy", b"no-referrer")]
        if (why := framing_refusal(list(scope.get("headers") or []))) is not None:
            with trio.move_on_after(5):  # what the client sent of its body: closed unread, the socket would be reset
                left = 1024 * 1024        # and the client might never read the answer
                while left > 0:
                    message = await receive()
                    left -= len(message.get("body", b""))
                    if message["type"] != "http.request" or not message.get("more_body"):
                        break
            body = dumps({"error": why, "status": 400})
            await send({"type": "http.response.start", "status": 400, "headers": [
                (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"), *extra]})
            await send({"type": "http.response.body", "body": body})
            return
        if self.hosts is not None and host_name(headers.get(b"host", b"").decode("latin-1")) not in self.hosts:
            body = dumps({"error": "wrong host: this server answers only by the name it is reached at", "status": 421})
            await send({"type": "http.response.start", "status": 421, "headers": [
                (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *extra]})
            await send({"type": "http.response.body", "body": body})
            return
        api = scope.get("path", "").startswith("/api/")

        async def sending(message: dict) -> None:
            if message["type"] == "http.response.start":
                more = extra + ([(b"cache-control", b"no-store")] if api else [(b"cache-control", b"no-cache")])
                message = {**message, "headers": [*message.get("headers", []), *more]}
            await send(message)

        await self.app(scope, receive, sending)


def config(host: str, port: int) -> Config:
    c = Config()
    c.bind = [f"{host}:{port}"]
    c.accesslog = None
    c.errorlog = "-"
    c.loglevel = "WARNING"
    c.graceful_timeout = 1.0
    return c


async def serve(app: Any, host: str, port: int, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
    """Serve `app` on host:port until cancelled; `task_status.started` gets the addresses it listens at."""
    await hypercorn_serve(app, config(host, port), mode="asgi", task_status=task_status)


def port_of(bind: str) -> int:
    """The port of an address `serve` reports ("http://127.0.0.1:8017")."""
    return int(bind.rsplit(":", 1)[1].rstrip("/"))


def cut_connections(ports: set[int]) -> int:
    """Shut down every connection this process accepted on `ports` (both ways); returns how
    many. Hypercorn sends each answer's bytes in a shielded scope: a client that stops reading
    (a full socket buffer, a stream left open in a tab, a pipelined flood) holds that send, and
    with it the server's end, past any cancellation. Shut down, the socket fails the send and
    the connection closes. Linux: the process's sockets are found in /proc/self/fd."""
    cut = 0
    try:
        fds = [int(n) for n in os.listdir("/proc/self/fd")]
    except OSError:
        return 0
    for fd in fds:
        try:
            if not os.readlink(f"/proc/self/fd/{fd}").startswith("socket:"):
                continue
            sock = socket.socket(fileno=os.dup(fd))
        except OSError:
            continue
        try:
            if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.type == socket.SOCK_STREAM \
                    and sock.getsockname()[1] in ports:
                sock.getpeername()  # a connection, not the listener (OSError: not connected)
                sock.shutdown(socket.SHUT_RDWR)
                cut += 1
        except OSError:
            pass
        finally:
            sock.close()  # (the duplicate: the server's own fd stays for it to close)
    return cut
