"""The author's end: `arena submit` sends a bot as one archive and reads the server's answer.

A refusal comes back as JSON `{"error": "..."}` with its HTTP status; it becomes one ArenaError
line (the check's output, when there is one, comes with it for the caller to print).
"""

from __future__ import annotations

import json
import secrets
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.league import archive
from arena.results import registry

TIMEOUT_S = 300.0  # a check plays a few deals in the sandbox


class ServerRefused(ArenaError):
    def __init__(self, status: int, message: str, body: dict[str, Any]) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status
        self.body = body


def _multipart(fields: dict[str, str], filename: str, data: bytes) -> tuple[bytes, str]:
    boundary = "----arena" + secrets.token_hex(12)
    parts = []
    for key, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'.encode())
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="archive"; filename="{filename}"\r\n'
                 "Content-Type: application/gzip\r\n\r\n".encode() + data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def request(method: str, url: str, *, token: str | None = None, body: bytes | None = None,
            content_type: str | None = None) -> tuple[int, Any]:
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if content_type:
        headers["Content-Type"] = content_type
    req = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT_S) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        try:
            answer = json.loads(raw)
        except ValueError:
            answer = {"error": raw.decode(errors="replace").strip()[:200] or exc.reason}
        raise ServerRefused(exc.code, str(answer.get("error", exc.reason)), answer) from None
    except urllib.error.URLError as exc:
        raise ArenaError(f"cannot reach the league at {url}: {exc.reason}") from None
    except (TimeoutError, OSError) as exc:
        raise ArenaError(f"the league at {url} did not answer: {exc}") from None


def default_name(path: Path) -> str:
    """The name `arena bot add` gives the same bot (an archive named as the folder it packs)."""
    path = Path(path).resolve()
    for suffix in (".tar.gz", ".tgz", ".tar"):
        if path.is_file() and path.name.endswith(suffix) and len(path.name) > len(suffix):
            return registry.default_name(path.with_name(path.name[: -len(suffix)]))
    return registry.default_name(path)


def submit(server: str, token: str, name: str, path: Path, command: str | None = None) -> dict:
    """Send the bot at `path` (a file or a folder, packed here; an existing .tar or .tar.gz is
    sent as it is) under `name`, with the `command` that runs it in its folder, if it needs one."""
    path = Path(path)
    if path.is_file() and path.name.endswith((".tar", ".tar.gz", ".tgz")):
        data, filename = path.read_bytes(), path.name
    else:
        data, filename = archive.pack(path), f"{path.name}.tar.gz"
    fields = {"name": name} if command is None else {"name": name, "command": command}
    body, content_type = _multipart(fields, filename, data)
    return request("POST", server.rstrip("/") + "/api/submit", token=token, body=body, content_type=content_type)[1]


def retire(server: str, token: str, name: str) -> dict:
    from urllib.parse import quote

    return request("POST", f"{server.rstrip('/')}/api/bots/{quote(name, safe='')}/retire", token=token, body=b"")[1]
