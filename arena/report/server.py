"""`arena serve`: every tournament of a database over HTTP on 127.0.0.1, read-only.

One route per view (`views`): `/t/3` answers the page (the static app, which draws it), its
JSON (`Accept: application/json`, `?format=json` or `/t/3.json`; `/api/t/3` as well) or, asked
with `Accept: text/event-stream`, the page's data again each time it changes (server-sent
events), so an open page follows a running tournament without asking. Each page's JSON is kept
(PageCache) and rebuilt by the watcher when the results change: a page is answered from memory,
and a tournament costs one build per change, however many look. A table in play is read at
each look and pushed when its room publishes a move. Connections to SQLite are read-only
(`mode=ro`), each opened for one use and closed after it (see Connections); reads run in worker
threads, so a long build never holds up another answer. `arena league serve` is this app over
the league's database, with the league's routes in front (`make_app`'s `routes`).
"""

from __future__ import annotations

import signal
import sys
import threading
import traceback
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import sqlite_utils
import trio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from arena.errors import ArenaError
from arena.report import app as web
from arena.report import pages, views
from arena.report.pages import page
from arena.results import web_queries

STATIC = Path(__file__).resolve().parent / "static"
HOST = "127.0.0.1"
CACHED_PAGES = 64
PREBUILT = 8
"""Tournaments (the latest) whose pages are built when the server starts."""
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
         ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}
KEEPALIVE_S = 20.0
"""A quiet event stream sends a comment this often: a closed tab's stream ends at the next one."""
finite = web.finite  # (arena.report.site reads it from here)


class Connections:
    """A read-only connection for each use, closed after it: none lives across a writer's end.

    SQLite's last writer to close checkpoints the WAL and deletes the -wal and -shm files; a
    connection kept open meanwhile (a pool's) may go on reading the deleted files and never see
    a later tournament. A connection opened for one page build or one version check costs a
    fraction of a millisecond against the build it serves, and always sees the current files.
    The first open also checks the file is an arena database."""

    def __init__(self, path: Path, *, check: bool = True) -> None:
        self.path = path
        if check:  # (not in the league's own process: a Python open() and close() of the file there
            # would drop the writer's locks on it, POSIX's rule, and SQLite's check does not open it so)
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
    while `refresh` (the server's watcher) builds the new one: a viewer never waits for a
    rebuild, which at 20,000 boards takes a second or two, and the page's event stream brings
    the new one when it is there. Only a page never built before is built while its viewer
    waits, one build per page at a time. Called from worker threads.
    """

    def __init__(self, size: int = CACHED_PAGES) -> None:
        self.size = size
        self._pages: OrderedDict[str, tuple[str, bytes]] = OrderedDict()
        self._lock = threading.Lock()
        self._building: dict[str, threading.Lock] = {}

    def get(self, key: str, build: Callable[[], tuple[str, bytes]]) -> bytes:
        return self.entry(key, build)[1]

    def entry(self, key: str, build: Callable[[], tuple[str, bytes]]) -> tuple[str, bytes]:
        """The page's version and JSON."""
        with self._lock:
            hit = self._pages.get(key)
            if hit is not None:
                self._pages.move_to_end(key)
                return hit
            lock = self._building.setdefault(key, threading.Lock())
        with lock:
            with self._lock:
                hit = self._pages.get(key)
            if hit is not None:  # built while this one waited
                return hit
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

    def _store(self, key: str, version: str, body: bytes) -> tuple[str, bytes]:
        with self._lock:
            self._pages[key] = (version, body)
            self._pages.move_to_end(key)
            while len(self._pages) > self.size:
                self._pages.popitem(last=False)
        return version, body


class Results:
    """The database behind the app: its connections, the page cache, and the watcher that
    rebuilds the pages asked for when the results change and then tells the event streams."""

    WATCH_S = 1.0
    LIVE_S = 0.5  # how often a watched table in play is read again

    def __init__(self, db_path: Path, *, show_stderr: bool = False, check: bool = True) -> None:
        self.db = Connections(db_path, check=check)
        self.show_stderr = show_stderr  # a league's stderr too (pages.page)
        self.cache = PageCache()
        self.version = ""  # the data version the cached pages were last brought to
        self.generation = 0  # how many times they were
        self._changed = trio.Event()
        self._memo: tuple[str, dict] = ("", {})
        self._memo_lock = threading.Lock()
        self._failures = 0  # the watcher's looks at the results that failed

    def page(self, key: str) -> bytes:
        """A page's JSON (see PageCache); a table in play is read afresh. In a worker thread."""
        return self.entry(key)[1]

    def entry(self, key: str) -> tuple[bytes, bytes]:
        """A page's data version and JSON."""
        if pages.is_live(key):
            with self.db.connection() as db:
                return b"live", web.dumps(page(db, key, show_stderr=self.show_stderr))
        version, body = self.cache.entry(key, lambda: self._build(key))
        return version.encode(), body

    def data_version(self) -> str:
        with self.db.connection() as db:
            return web_queries.data_version(db)

    def _build(self, key: str) -> tuple[str, bytes]:
        """Build a page in one read transaction; it carries the version it was built at."""
        with self.db.connection() as db, web_queries.snapshot(db):
            if pages.is_deal(key):
                return "deal", web.dumps(page(db, key, show_stderr=self.show_stderr))
            version = web_queries.data_version(db)
            with self._memo_lock:  # standings and crosstable are shared by the pages of one version
                if self._memo[0] != version:
                    self._memo = (version, {})
                # this build's own version's memo: a viewer's build at an older version, racing the
                # watcher's, must never leave its reads in the newer version's memo (a page would
                # then carry the new version with old data, and never be rebuilt)
                memo = self._memo[1] if self._memo[0] == version else {}
            data = page(db, key, memo, show_stderr=self.show_stderr)
            data["data_version"] = version
            return version, web.dumps(data)

    async def changed(self, generation: int) -> None:
        """Wait until the watcher has brought the pages to another version than at `generation`."""
        while self.generation == generation:
            await self._changed.wait()

    async def watch(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Build the list and the latest tournaments' pages at start, then, each time the results
        change, rebuild whatever pages were asked for and tell the streams."""
        task_status.started()
        try:
            await trio.to_thread.run_sync(self._prebuild)
        except Exception:  # pages not built ahead are built when asked; the watch goes on
            traceback.print_exc(file=sys.stderr)
        while True:
            await trio.sleep(self.WATCH_S)
            try:  # one look that fails (a writer closing the WAL as we open, say) is tried again
                version = await trio.to_thread.run_sync(self.data_version)
            except Exception:
                failed = traceback.format_exc()
                self._failures += 1
                if self._failures in (1, 10, 100):
                    sys.stderr.write(f"arena serve: the results could not be read ({self._failures} times so far;"
                                     f" trying again):\n{failed}")
                continue
            if version == self.version:
                continue
            await trio.to_thread.run_sync(self._refresh, version)
            self.version = version
            self.generation += 1
            self._changed.set()
            self._changed = trio.Event()

    def _prebuild(self) -> None:
        with self.db.connection() as db:
            tids = [t["id"] for t in page(db, "tournaments")["tournaments"]]
            self.version = web_queries.data_version(db)
        for key in ["tournaments", *(f"t/{tid}" for tid in reversed(tids[-PREBUILT:]))]:
            self.cache.get(key, partial(self._build, key))

    def _refresh(self, version: str) -> None:
        for key in self.cache.stale(version):
            if pages.is_deal(key):  # built once: a stored deal never changes
                continue
            try:
                self.cache.refresh(key, partial(self._build, key))
            except ArenaError:  # a page that no longer exists: its viewer will be told
                pass
            except Exception:  # a bug: shown, and the other pages still refreshed
                traceback.print_exc(file=sys.stderr)


def _error(message: str, status: int) -> Response:
    return Response(web.dumps({"error": message, "status": status}), status_code=status,
                    media_type="application/json")


def _event(name: str, data: bytes) -> bytes:
    """One server-sent event; the JSON is one line (it escapes every line break)."""
    return b"event: " + name.encode() + b"\ndata: " + data + b"\n\n"


MODE_JS = b'window.ZA_MODE = "api";\n'


def make_app(results: Results, host: str = HOST, *, routes: list[Any] | tuple = (), mode: bytes = MODE_JS,
             files: dict[str, Path] | None = None, guard: Callable[[Any], Any] | None = None) -> Any:
    """The app: every view of `results`, after `routes` (the league's own, which come first:
    its home page, its API). `mode`: the app's mode.js (the league's names its home view);
    `files`: more static files by name; `guard`: the middleware around it all (default:
    `web.Guard`, the Host check for `host`)."""
    files = {**{p.relative_to(STATIC).as_posix(): p for p in STATIC.rglob("*") if p.is_file()}, **(files or {})}
    shell = (STATIC / "index.html").read_bytes()

    async def index(request: Request) -> Response:
        kind = views.wanted(request.headers.get("accept", ""), request.query_params.get("format"))
        if kind != "html":  # the app's first view, as JSON (or its events) like every other view
            return await answer(request, "tournaments", kind)
        return Response(shell, media_type=TYPES[".html"])

    async def mode_js(request: Request) -> Response:
        return Response(mode, media_type=TYPES[".js"])

    async def static(request: Request) -> Response:
        path = files.get(request.path_params["name"])  # only the app's own files, by name
        if path is None:
            return _error(f"no file {request.path_params['name']}", 404)
        return Response(path.read_bytes(), media_type=TYPES.get(path.suffix, "application/octet-stream"))

    async def viewer(request: Request) -> Response:
        path = views.viewer_file(request.path_params["game"])
        if path is None:
            return _error(f"no viewer for game {request.path_params['game']}", 404)
        return Response(path.read_bytes(), media_type=TYPES[".js"])

    async def viewer_style(request: Request) -> Response:
        path = views.viewer_style_file(request.path_params["game"])
        if path is None:
            return _error(f"no viewer stylesheet for game {request.path_params['game']}", 404)
        return Response(path.read_bytes(), media_type=TYPES[".css"])

    async def version(request: Request) -> Response:
        return Response(web.dumps({"version": await trio.to_thread.run_sync(results.data_version)}),
                        media_type="application/json")

    async def api(request: Request) -> Response:
        return await answer(request, request.path_params["key"], "json")

    async def view(request: Request) -> Response:
        key = request.path_params["key"]
        if key.endswith(".json"):
            return await answer(request, key[: -len(".json")], "json")
        return await answer(request, key, views.wanted(request.headers.get("accept", ""),
                                                       request.query_params.get("format")))

    async def answer(request: Request, key: str, kind: str) -> Response:
        if not pages.known(key):
            return _error(f"no page '{key[:80]}'", 404)
        if kind == "events" or views.wanted(request.headers.get("accept", ""), None) == "events":
            return StreamingResponse(events(key, request.query_params.get("since", "")),
                                     media_type="text/event-stream", headers={"X-Accel-Buffering": "no"})
        if kind == "html":
            return Response(views.shell_at(shell, key), media_type=TYPES[".html"])
        try:
            body = await trio.to_thread.run_sync(results.page, key)
        except ArenaError as exc:  # UnknownPage among them: a page that is not there
            return _error(str(exc), 404)
        return Response(body, media_type="application/json")

    async def events(key: str, since: str) -> AsyncIterator[bytes]:
        """The page's data each time it changes (a table in play: each time its room publishes);
        `since`: the data version the viewer holds. A page that goes away says so and ends."""
        live = pages.is_live(key)
        seen, sent = since.encode(), trio.current_time()
        while True:
            generation = results.generation
            try:
                version, body = await trio.to_thread.run_sync(results.entry, key)
            except ArenaError as exc:
                yield _event("gone", web.dumps({"error": str(exc)}))
                return
            if (body if live else version) != seen:
                yield _event("page", body)
                seen, sent = (body if live else version), trio.current_time()
            with trio.move_on_after(results.LIVE_S if live else KEEPALIVE_S):
                await (trio.sleep_forever() if live else results.changed(generation))
            if trio.current_time() - sent >= KEEPALIVE_S:
                yield b": keepalive\n\n"
                sent = trio.current_time()

    views_routes = [
        Route("/", index), Route("/index.html", index), Route("/mode.js", mode_js),
        Route("/static/{name:path}", static), Route("/viewers/{game}.js", viewer),
        Route("/viewers/{game}.css", viewer_style),
        Route("/api/version", version), Route("/api/{key:path}", api),
        Route("/{key:path}", view),
    ]
    handlers: dict[Any, Any] = {HTTPException: _http_error, Exception: _server_error}
    app = Starlette(routes=[*routes, *views_routes], exception_handlers=handlers)
    return guard(app) if guard is not None else web.Guard(app, web.allowed_hosts(host))


async def _http_error(request: Request, exc: HTTPException) -> Response:
    """Starlette's own refusals (a method it does not serve, say) as one line of JSON."""
    answer = _error(" ".join(str(exc.detail).split()), exc.status_code)
    answer.headers.update(exc.headers or {})
    return answer


async def _server_error(request: Request, exc: Exception) -> Response:
    """A failure of ours: the client learns only that (the traceback goes to the terminal)."""
    traceback.print_exception(exc, file=sys.stderr)
    return _error("the server failed on this request; its terminal says why", 500)


async def serve(db_path: Path, port: int = 8017, *, host: str = HOST, show_stderr: bool = False,
                on_ready: Callable[[str], None] | None = None) -> None:
    """Serve the database's pages until SIGINT or SIGTERM; `on_ready` gets the address.
    `show_stderr`: a league's bots' stderr too (see pages.page)."""
    results = Results(db_path, show_stderr=show_stderr)
    app = make_app(results, host)
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:
            binds = await nursery.start(partial(web.serve, app, host, port))
            await nursery.start(results.watch)
            if on_ready is not None:
                on_ready(binds[0] if binds else f"http://{host}:{port}")
            async for _signum in signals:
                nursery.cancel_scope.cancel()
                web.cut_connections({web.port_of(b) for b in binds})  # (a client that stops reading: see there)
                break
