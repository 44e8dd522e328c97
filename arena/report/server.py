"""`arena serve`: every tournament of a database over HTTP on 127.0.0.1, read-only.

The pages are the static app (`static/`); its data comes from `/api/KEY` (see `pages`), and a
page asks `/api/version` every two seconds and fetches its data again while the token differs
from the one its data was built at, so a running tournament updates itself without a reload.
Each page's JSON is kept (PageCache) and rebuilt by a watcher thread when the results change:
a page is answered from memory, and a tournament costs one build per change, however many look. The standard library's threading
server is enough for a handful of people looking at results; connections to SQLite are
read-only (`mode=ro`), each opened for one use and closed after it (see Connections).
"""

from __future__ import annotations

import json
import math
import sys
import traceback
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import sqlite_utils

from arena.errors import ArenaError
from arena.report.pages import UnknownPage, page
from arena.results import web_queries

STATIC = Path(__file__).resolve().parent / "static"
HOST = "127.0.0.1"
CACHED_PAGES = 64
PREBUILT = 8
"""Tournaments (the latest) whose pages are built when the server starts."""
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
         ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}
# The app needs nothing from elsewhere; the policy also stops any script a bug might let in.
POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self';"
          " base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


class Connections:
    """A read-only connection for each use, closed after it: none lives across a writer's end.

    SQLite's last writer to close checkpoints the WAL and deletes the -wal and -shm files; a
    connection kept open meanwhile (a pool's) may go on reading the deleted files and never see
    a later tournament. A connection opened for one page build or one version check costs a
    fraction of a millisecond against the build it serves, and always sees the current files.
    The first open also checks the file is an arena database."""

    def __init__(self, path: Path) -> None:
        self.path = path
        web_queries.open_readonly(path).close()

    @contextmanager
    def connection(self) -> Iterator[sqlite_utils.Database]:
        db = web_queries.open_readonly(self.path, check=False)
        try:
            yield db
        finally:
            db.close()


class PageCache:
    """Each page's encoded JSON and the data version it was built at.

    A page asked for again after the data changed is answered at once with its last version
    while `refresh` (the server's watcher thread) builds the new one: a viewer never waits for
    a rebuild, which at 20,000 boards takes a second or two, and the page's own poll fetches the
    new one when it is there. Only a page never built before is built while its viewer waits,
    one build per page at a time.
    """

    def __init__(self, size: int = CACHED_PAGES) -> None:
        self.size = size
        self._pages: OrderedDict[str, tuple[str, bytes]] = OrderedDict()
        self._lock = threading.Lock()
        self._building: dict[str, threading.Lock] = {}

    def get(self, key: str, build: Callable[[], tuple[str, bytes]]) -> bytes:
        with self._lock:
            hit = self._pages.get(key)
            if hit is not None:
                self._pages.move_to_end(key)
                return hit[1]
            lock = self._building.setdefault(key, threading.Lock())
        with lock:
            with self._lock:
                hit = self._pages.get(key)
            if hit is not None:  # built while this one waited
                return hit[1]
            return self._store(key, *build())

    def stale(self, version: str) -> list[str]:
        """The pages not built at `version`, most recently asked for first."""
        with self._lock:
            return [k for k, (v, _) in reversed(self._pages.items()) if v != version]

    def refresh(self, key: str, build: Callable[[], tuple[str, bytes]]) -> None:
        with self._lock:
            lock = self._building.setdefault(key, threading.Lock())
        with lock:
            self._store(key, *build())

    def _store(self, key: str, version: str, body: bytes) -> bytes:
        with self._lock:
            self._pages[key] = (version, body)
            self._pages.move_to_end(key)
            while len(self._pages) > self.size:
                self._pages.popitem(last=False)
        return body


def finite(value: Any) -> Any:
    """`value` with every NaN or infinity made None: JSON has no such numbers."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def _json(value: Any) -> bytes:
    return json.dumps(finite(value), ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


class Handler(BaseHTTPRequestHandler):
    server: "ArenaServer"
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body leave at once, not 40 ms apart (delayed ACK)
    timeout = 120  # an idle kept-alive connection (and its thread) goes after two minutes

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        """Quiet: a page asks for its version every two seconds."""

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0]
        if host not in ("127.0.0.1", "localhost"):  # a page of another site reaching us by DNS rebinding
            return self._send(HTTPStatus.MISDIRECTED_REQUEST, _json({"error": "wrong host"}), ".json")
        path = unquote(urlsplit(self.path).path)
        try:
            if path in ("/", "/index.html"):
                return self._file("index.html")
            if path == "/mode.js":
                return self._send(HTTPStatus.OK, b'window.ZA_MODE = "api";\n', ".js")
            if path.startswith("/static/"):
                return self._file(path[len("/static/"):])
            if path == "/api/version":
                with self.server.db.connection() as db:
                    version = web_queries.data_version(db)
                return self._send(HTTPStatus.OK, _json({"version": version}), ".json")
            if path.startswith("/api/") and "/live/" in path:  # a table in play: read at each look, never cached
                with self.server.db.connection() as db:
                    return self._send(HTTPStatus.OK, _json(page(db, path[len("/api/"):])), ".json")
            if path.startswith("/api/"):
                return self._send(HTTPStatus.OK, self.server.page(path[len("/api/"):]), ".json")
        except UnknownPage as exc:
            return self._send(HTTPStatus.NOT_FOUND, _json({"error": str(exc)}), ".json")
        except ArenaError as exc:
            return self._send(HTTPStatus.NOT_FOUND, _json({"error": str(exc)}), ".json")
        except Exception as exc:  # a bug: the page says so, the terminal shows where
            traceback.print_exc(file=sys.stderr)
            return self._send(HTTPStatus.INTERNAL_SERVER_ERROR, _json({"error": f"server error: {exc!r}"}), ".json")
        self._send(HTTPStatus.NOT_FOUND, _json({"error": f"nothing at {path}"}), ".json")

    def _file(self, name: str) -> None:
        if name not in self.server.files:  # only the app's own files, by name
            return self._send(HTTPStatus.NOT_FOUND, _json({"error": f"no file {name}"}), ".json")
        path = STATIC / name
        self._send(HTTPStatus.OK, path.read_bytes(), path.suffix)

    def _send(self, status: HTTPStatus, body: bytes, suffix: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", TYPES.get(suffix, "application/json; charset=utf-8"))
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Security-Policy", POLICY)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(body)


class ArenaServer(ThreadingHTTPServer):
    """The HTTP server with its database connections, page cache and the watcher that keeps pages fresh."""

    daemon_threads = True
    WATCH_S = 1.0

    def __init__(self, db_path: Path, port: int = 0) -> None:
        self.db = Connections(db_path)
        self.cache = PageCache()
        self.files = {p.name for p in STATIC.iterdir() if p.is_file()}
        self._memo: tuple[str, dict] = ("", {})
        self._memo_lock = threading.Lock()
        self._stop = threading.Event()
        super().__init__((HOST, port), Handler)
        self._failures = 0  # the watcher's looks at the results that failed
        self._watcher = threading.Thread(target=self._watch, name="arena-serve-watcher", daemon=True)
        self._watcher.start()

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server_address[1]}/"

    def page(self, key: str) -> bytes:
        """A page's JSON: see PageCache."""
        return self.cache.get(key, lambda: self._build(key))

    def _build(self, key: str) -> tuple[str, bytes]:
        """Build a page in one read transaction; it carries the version it was built at."""
        with self.db.connection() as db, web_queries.snapshot(db):
            if key.startswith("deal/"):
                return "deal", _json(page(db, key))
            version = web_queries.data_version(db)
            with self._memo_lock:  # standings and crosstable are shared by the pages of one version
                if self._memo[0] != version:
                    self._memo = (version, {})
                # this build's own version's memo: a viewer's build at an older version, racing the
                # watcher's, must never leave its reads in the newer version's memo (a page would
                # then carry the new version with old data, and never be rebuilt)
                memo = self._memo[1] if self._memo[0] == version else {}
            data = page(db, key, memo)
            data["data_version"] = version
            return version, _json(data)

    def _watch(self) -> None:
        """Build the list and every tournament's page at start, then rebuild whatever pages were
        asked for each time the results change, so that they are ready before they are asked again."""
        try:
            try:
                with self.db.connection() as db:
                    tids = [t["id"] for t in page(db, "tournaments")["tournaments"]]
                for key in ["tournaments", *(f"t/{tid}" for tid in reversed(tids[-PREBUILT:]))]:
                    if self._stop.is_set():
                        return
                    self.cache.get(key, lambda key=key: self._build(key))
            except Exception:  # pages not built ahead are built when asked; the watch goes on
                traceback.print_exc(file=sys.stderr)
            while not self._stop.wait(self.WATCH_S):
                try:  # one look that fails (a writer closing the WAL as we open, say) is tried again
                    with self.db.connection() as db:
                        version = web_queries.data_version(db)
                except Exception:
                    failed = traceback.format_exc()
                    self._failures += 1
                    if self._failures in (1, 10, 100):
                        sys.stderr.write(f"arena serve: the results could not be read ({self._failures} times so far;"
                                         f" trying again):\n{failed}")
                    continue
                for key in self.cache.stale(version):
                    if self._stop.is_set():
                        return
                    if key.startswith("deal/"):  # built once: a stored deal never changes
                        continue
                    try:
                        self.cache.refresh(key, lambda key=key: self._build(key))
                    except ArenaError:  # a page that no longer exists: its viewer will be told
                        pass
                    except Exception:  # a bug: shown, and the other pages still refreshed
                        traceback.print_exc(file=sys.stderr)
        except Exception:  # the server still answers every request itself
            traceback.print_exc(file=sys.stderr)

    def server_close(self) -> None:
        self._stop.set()
        self._watcher.join()
        super().server_close()
