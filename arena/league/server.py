"""`arena league serve`: one process that plays the ladder and serves its pages and JSON API.

The pages are `arena serve`'s app (arena.report.server) over the league's database: the same
views, each answering HTML, JSON or server-sent events from one route (a match at `/t/ID/match/N`,
a deal's replay at `/deal/ID`, with the game's own viewer, the one chart and number format),
with the league's own routes mounted in front of them: its home view `league` (`/`, its data
at `/api/league`, pushed to the open page as server-sent events each time it changes), the
author's page, submissions and the API. The league's older addresses (`/match/N`, `/replay/ID`)
redirect to the app's. It runs on Hypercorn in the same trio run as the ladder
(arena.league.ladder), the one writer of the database.

Public (no token): the pages, `/api/league`, `/api/standings` (the document `arena standings
--json` prints), `/api/status`, `/api/deals/ID`, and the app's views, which leave every bot's
stderr and stored copy's hash out (arena.report.pages: a league's database). An author's token
(`Authorization: Bearer TOKEN`) is needed for every write (`POST /api/submit`, `POST
/api/bots/NAME/retire`) and for what only the author may see: `/api/me` (their bots, versions,
check output, faults with stderr), `/api/bots/NAME/stderr` and `/api/bots/NAME/code`. The
league view is answered from a document kept in memory and rebuilt when the ratings change, so
spectators cost the database nothing.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import sqlite_utils
import trio
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from arena.league import archive, pages, store
from arena.league.ladder import Ladder
from arena.league.submissions import Quota, RateLimit, Refused, Submissions, author_of, check_command, sweep_temp
from arena.play.table import TimeControl
from arena.process import forking
from arena.process.modes import resolve_mode
from arena.report import app as web
from arena.report import server as views_server
from arena.report import views
from arena.results import read, schema

HOST = "127.0.0.1"
STOP_S = 15.0  # after SIGINT or SIGTERM, the most the server takes to end
CODE_LIMIT = 30  # code downloads an author may make per hour
STATIC = Path(__file__).resolve().parent / "static"
MODE_JS = b'window.ZA_MODE = "api";\nwindow.ZA_HOME = "league";\n'
"""The app's mode in the league: served, and its home view the league's (not the tournaments' list)."""
WATCH_S = 5.0
"""How often the app's views (a tournament page asked for, say) are brought to the stored rooms:
as often as the ratings are fitted (arena.league.ladder.RATE_EVERY_S), since each build reads
the standings in a thread of the server's process, which the ladder shares."""
TICK_S = 1.0
"""How often an open league page's stream looks whether what is in play moved (in memory)."""
POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self';"
          " base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


class Reads:
    """Database reads in worker threads (trio.to_thread), never on the event loop: each thread
    opens its own connection on first use (a connection stays in its thread), at most `limit`
    at once. `__call__(fn, *args)` runs `fn(db, *args)` there."""

    def __init__(self, path: Path, limit: int = 4) -> None:
        self.path = path
        self.limiter = trio.CapacityLimiter(limit)
        self._local = threading.local()

    def _db(self) -> Any:
        db = getattr(self._local, "db", None)
        if db is None:  # SQLite's own open only: a Python open() and close() of the file in this process
            # would drop the process's locks on it (POSIX), and another process could then delete the WAL
            conn = sqlite3.connect(f"{Path(self.path).resolve().as_uri()}?mode=ro", uri=True)
            conn.execute(f"PRAGMA busy_timeout = {schema.BUSY_TIMEOUT_MS}")
            db = self._local.db = sqlite_utils.Database(conn)
        return db

    async def __call__(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await trio.to_thread.run_sync(lambda: fn(self._db(), *args), limiter=self.limiter)


@dataclass
class League:
    """What the app's handlers share: the database (the loop's connection, for the writes), the
    readers' threads, the league, the ladder, the submissions."""

    db: Any
    tid: int
    ladder: Ladder
    submissions: Submissions
    reads: Reads
    doc: dict = field(default_factory=dict)
    standings: dict | None = None
    version: int = 0
    changes: int = 0  # bumped by every submission and retirement: the names and waiting list change
    code_rate: RateLimit = field(default_factory=lambda: RateLimit(CODE_LIMIT, 3600.0, "code"))
    packing: trio.CapacityLimiter = field(default_factory=lambda: trio.CapacityLimiter(1))  # bots packed at once
    _lists: tuple[tuple, dict, list[int]] | None = None
    _view: tuple[tuple, str, bytes] | None = None
    _views: int = 0
    _wake: trio.Event = field(default_factory=trio.Event)

    def refresh(self, fitted: dict) -> None:
        """The documents the ladder's last fit read (arena.league.ladder.rate_league)."""
        self.doc, self.standings = fitted["league"], fitted["standings"]
        self.version += 1
        self.poke()

    def poke(self) -> None:
        """Something the league view shows changed: its streams look again now."""
        self._wake.set()
        self._wake = trio.Event()

    async def changed(self) -> None:
        """Until the next poke, or TICK_S (what is in play moves without one)."""
        with trio.move_on_after(TICK_S):
            await self._wake.wait()

    async def lists(self) -> tuple[list[dict], list[str]]:
        """What plays and which bots wait for their first matches, read again (off the loop)
        only when a fit, a submission or a match started may have changed them."""
        key = (self.version, self.changes, tuple(sorted(self.ladder.playing)))
        if self._lists is None or self._lists[0] != key:
            names, waiting = await self.reads(_names_and_waiting, self.tid, self.ladder.first)
            self._lists = (key, names, waiting)
        _key, names, waiting = self._lists

        def label(bot: int) -> str:
            v = names.get(bot)
            return f"{v['name']}@{v['version']}" if v else str(bot)

        playing = [{"match_no": m.match_no, "entrants": [label(b) for b in m.bots], "boards": m.boards,
                    "tables": m.tables, "resumed": m.resumed, "rooms": self.ladder.size}
                   for m in sorted(self.ladder.playing.values(), key=lambda m: m.match_no)]
        return playing, [label(b) for b in waiting if b in names]

    async def view(self) -> tuple[str, bytes]:
        """The league view's data (`/api/league`) and its version, which changes with it: kept
        until a fit, a submission, a match or a room changes it."""
        playing, waiting = await self.lists()
        key = (self.version, self.changes, self.ladder.rooms, tuple((m["match_no"], m["tables"]) for m in playing),
               tuple(waiting))
        if self._view is None or self._view[0] != key:
            self._views += 1
            version = f"{os.getpid()}-{self._views}"  # (another server's versions are others)
            body = pages.dumps({**self.doc, "tid": self.tid, "playing": playing, "waiting": waiting,
                                "version": self.version, "rooms_stored": self.ladder.rooms,
                                "data_version": version}).encode()
            self._view = (key, version, body)
        return self._view[1], self._view[2]


def _names_and_waiting(db: Any, tid: int, first: int) -> tuple[dict, list[int]]:
    _pairs, matches_of = store.pair_counts(db, tid)
    return store.versions_of(db), [b["id"] for b in store.active_bots(db) if matches_of.get(b["id"], 0) < first]


def _id(request: Request, key: str) -> int:
    """A number in the path: digits, within SQLite's integers, else 404 (never a 500)."""
    value = request.path_params[key]
    if not (value.isascii() and value.isdigit() and len(value) <= 18):
        raise HTTPException(404, f"no such {'match' if key == 'no' else 'deal'} in this league")
    return int(value)


def _token(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    scheme, _, value = auth.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def _refusal(exc: Refused) -> JSONResponse:
    headers = {"Retry-After": str(exc.extra["retry_after"])} if "retry_after" in exc.extra else None
    return JSONResponse({"error": str(exc), "status": exc.status,
                         **{k: v for k, v in exc.extra.items() if k != "retry_after"}},
                        status_code=exc.status, headers=headers)


def _json(value: Any, status: int = 200) -> Response:
    return Response(pages.dumps(value), status_code=status, media_type="application/json")


def make_app(league: League, results: views_server.Results, hosts: frozenset[str] | None = None) -> Any:
    """The app's views over the league's database (`results`), the league's routes in front."""
    db = league.db
    shell = views.shell_at((views_server.STATIC / "index.html").read_bytes(), "")

    async def home(request: Request) -> Response:
        kind = views.wanted(request.headers.get("accept", ""), request.query_params.get("format"))
        if kind == "html":
            return Response(shell, media_type=views_server.TYPES[".html"])
        return await league_view(request, kind)

    async def api_league(request: Request) -> Response:
        return await league_view(request, "events" if views.wanted(request.headers.get("accept", ""), None) == "events"
                                 else "json")

    async def league_view(request: Request, kind: str) -> Response:
        if kind == "events":
            return StreamingResponse(league_events(request.query_params.get("since", "")),
                                     media_type="text/event-stream", headers={"X-Accel-Buffering": "no"})
        return Response((await league.view())[1], media_type="application/json")

    async def league_events(since: str) -> Any:
        """The league view's data each time it changes (a fit, a submission, a match started,
        a room stored); `since`: the version the page holds."""
        seen, sent = since, trio.current_time()
        while True:
            version, body = await league.view()
            if version != seen:
                yield views_server._event("page", body)
                seen, sent = version, trio.current_time()
            await league.changed()
            if trio.current_time() - sent >= views_server.KEEPALIVE_S:
                yield b": keepalive\n\n"
                sent = trio.current_time()

    async def author(request: Request) -> Response:
        return HTMLResponse(pages.author_page())

    async def match(request: Request) -> Response:
        """The league's older address of a match: the app's."""
        no = _id(request, "no")
        if not await league.reads(_league_match, league.tid, no):
            return _json({"error": "no such match in this league", "status": 404}, 404)
        return RedirectResponse(f"/t/{league.tid}/match/{no}", status_code=308)

    async def replay_html(request: Request) -> Response:
        """The league's older address of a deal's replay: the app's."""
        deal = _id(request, "deal")
        if not await league.reads(_league_deal, league.tid, deal):
            return _json({"error": "no such deal in this league", "status": 404}, 404)
        return RedirectResponse(f"/deal/{deal}", status_code=308)

    async def deal_json(request: Request) -> Response:
        doc = await league.reads(_deal_document, league.tid, _id(request, "deal"))
        if doc is None:
            return _json({"error": "no such deal in this league"}, 404)
        return _json(doc)

    async def api_standings(request: Request) -> Response:
        if league.standings is None:
            return _json({"error": "no standings yet: the league has no bots, or its first fit is under way"}, 503)
        return _json(league.standings)

    async def api_status(request: Request) -> Response:
        return _json(await league.reads(status_document, league.tid, league.ladder.first))

    async def api_me(request: Request) -> Response:
        try:
            who = author_of(db, _token(request))
        except Refused as exc:
            return _refusal(exc)
        return _json(await league.reads(store.author_view, league.tid, who))

    def _own(request: Request) -> tuple[dict, str]:
        who = author_of(db, _token(request))
        name = request.path_params["name"]
        found = store.owner(db, name)
        if found is None:
            raise Refused(404, f"no bot '{name}' in the league")
        if found["author_id"] != who["id"]:
            raise Refused(403, f"bot '{name}' is not yours: only its author sees its code, stderr and checks")
        return who, name

    async def bot_stderr(request: Request) -> Response:
        try:
            who, name = _own(request)
        except Refused as exc:
            return _refusal(exc)
        view = await league.reads(store.author_view, league.tid, who)
        mine = next(b for b in view["bots"] if b["name"] == name)
        return _json({"bot": name, "versions": [{"version": v["version"], "check_text": v["check_text"],
                                                  "faults": v["faults"]} for v in mine["versions"]]})

    async def bot_code(request: Request) -> Response:
        try:
            who, name = _own(request)
            version = request.query_params.get("version")
            if version is not None and not (version.isdigit() and len(version) <= 9):
                raise Refused(400, f"bad version {version[:20]!r}: a version is a number")
            bot = await league.reads(store.own_version, who, name, None if version is None else int(version))
            if bot is None:
                raise Refused(404, f"no version {version} of your bot '{name}'" if version else
                              f"no version of your bot '{name}' is stored")
            league.code_rate.admit(db, who["id"], "code downloads")
        except Refused as exc:
            return _refusal(exc)
        data = await trio.to_thread.run_sync(archive.pack, Path(bot["path"]), limiter=league.packing)
        return Response(data, media_type="application/gzip", headers={
            "Content-Disposition": f'attachment; filename="{bot["name"]}-{bot["version"]}.tar.gz"'})

    async def submit(request: Request) -> Response:
        subs = league.submissions
        try:
            length = request.headers.get("content-length")
            if length is None or not length.isdigit():
                raise Refused(411, "a submission needs a Content-Length")
            if int(length) > subs.limits.max_upload + 64 * 1024:
                author_of(db, _token(request))  # a stranger learns nothing but 401
                raise Refused(400, f"the upload is {length} bytes, more than the {subs.limits.max_upload} allowed "
                                   f"(a bot unpacks to at most {subs.limits.max_bytes} bytes)")
            author_of(db, _token(request))  # before the body is read
            form = await request.form(max_files=1, max_fields=5, max_part_size=64 * 1024)
            try:
                name = form.get("name")
                upload = form.get("archive")
                command = check_command(form.get("command"))
                who, name = subs.admit(_token(request), name if isinstance(name, str) else None)
                if upload is None or isinstance(upload, str):
                    raise Refused(400, "a submission needs a file in the field 'archive'")
                data = await upload.read()
                filename = upload.filename or "bot"
            finally:
                await form.close()
            if not _is_archive(filename, data):
                data = _single_file(filename, data)
            result = await subs.submit(who, name, data, command)
        except Refused as exc:
            return _refusal(exc)
        if result["state"] == "new":
            league.ladder.log(f"submitted: {result['bot']} by {who['name']}")
        elif result["state"] == "active again":
            league.ladder.log(f"active again: {result['bot']} by {who['name']}")
        league.changes += 1
        league.ladder.poke()  # a match for it, and the pages drawn again
        league.poke()
        return _json(result, 201 if result["new"] else 200)

    async def retire(request: Request) -> Response:
        try:
            who, name = _own(request)
        except Refused as exc:
            return _refusal(exc)
        store.retire(db, who, name)
        league.ladder.log(f"retired: {name} by {who['name']}")
        league.changes += 1
        league.ladder.poke()
        league.poke()
        return _json({"bot": name, "retired": True})

    routes = [
        Route("/", home), Route("/author", author), Route("/match/{no}", match),
        Route("/replay/{deal}", replay_html),
        Route("/api/league", api_league), Route("/api/standings", api_standings), Route("/api/status", api_status),
        Route("/api/deals/{deal}", deal_json), Route("/api/me", api_me),
        Route("/api/bots/{name}/stderr", bot_stderr), Route("/api/bots/{name}/code", bot_code),
        Route("/api/bots/{name}/retire", retire, methods=["POST"]),
        Route("/api/submit", submit, methods=["POST"]),
    ]
    return views_server.make_app(results, routes=routes, mode=MODE_JS,
                                 files={"league/author.js": STATIC / "author.js"},
                                 guard=lambda app: SecurityHeaders(app, hosts))


def _stopped_late() -> None:
    """The watchdog's end of a server that did not stop by itself within STOP_S of the signal:
    a line and every thread's stack on stderr (what held it), then exit status 1."""
    import faulthandler
    import sys

    sys.stderr.write(f"arena: league: still stopping {STOP_S:.0f} s after the signal; ending as kill -9 would"
                     " (nothing stored is lost). Every thread's stack:\n")
    sys.stderr.flush()
    faulthandler.dump_traceback(all_threads=True)
    os._exit(1)


class SecurityHeaders:
    """ASGI middleware: every answer carries the content policy (nothing from elsewhere, no
    inline script), and the API's are never cached. Before the app sees a request, any framing
    but one Content-Length is refused (400, and the connection closed, so that nothing smuggled
    after it is read as a request): h11 takes a chunked Transfer-Encoding over a Content-Length
    beside it, where a proxy in front may have read the other, and no client of the league
    needs chunked bodies.
    With `hosts`, a Host header naming another server (DNS rebinding) is refused too."""

    def __init__(self, app: Any, hosts: frozenset[str] | None = None) -> None:
        self.app = app
        self.hosts = hosts

    def _refusal(self, scope: dict) -> str | None:
        headers = [(k.lower(), v) for k, v in scope.get("headers", [])]
        if (why := web.framing_refusal(headers)) is not None:  # (h11 drops a Content-Length beside a chunked one)
            return why
        if self.hosts is not None:
            host = [v for k, v in headers if k == b"host"]
            if len(host) != 1 or _hostname(host[0].decode("latin-1")) not in self.hosts:
                return f"this server answers to {', '.join(sorted(self.hosts))} only (the Host header)"
        return None

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = scope.get("path", "").startswith("/api/")
        extra = [(b"content-security-policy", POLICY.encode()), (b"x-content-type-options", b"nosniff"),
                 (b"referrer-policy", b"no-referrer")] + ([(b"cache-control", b"no-store")] if api else [])
        if (why := self._refusal(scope)) is not None:
            with trio.move_on_after(5):  # what the client sent of its body (Hypercorn would read it anyway)
                left = 1024 * 1024
                while left > 0:
                    message = await receive()
                    left -= len(message.get("body", b""))
                    if message["type"] != "http.request" or not message.get("more_body"):
                        break
            body = pages.dumps({"error": why, "status": 400}).encode()
            await send({"type": "http.response.start", "status": 400, "headers": [
                (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"), *extra]})
            await send({"type": "http.response.body", "body": body})
            return

        async def sending(message: dict) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, sending)


def _hostname(host: str) -> str:
    """The name in a Host header, without its port, lower case ("[::1]:8018" is "::1")."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def allowed_hosts(host: str, public: list[str]) -> frozenset[str] | None:
    """The names a server bound to `host` answers to: that address (and `localhost` for a
    loopback one) and every --public-host; None (any) for a wildcard address without any."""
    import ipaddress

    names = {h.strip().lower() for h in public if h.strip()}
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return frozenset(names | {host.lower()})
    if address.is_unspecified:
        return frozenset(names) if names else None
    names.add(str(address))
    if address.is_loopback:
        names.update({"localhost", "127.0.0.1", "::1"})
    return frozenset(names)


ARCHIVE_SUFFIXES = (".tar", ".tar.gz", ".tgz")


def _is_archive(filename: str, data: bytes) -> bool:
    return filename.endswith(ARCHIVE_SUFFIXES)


def _single_file(filename: str, data: bytes) -> bytes:
    """A bot file uploaded through the form, as the one-file archive the CLI would send."""
    import io
    import tarfile

    name = Path(filename.replace("\\", "/")).name or "bot"
    if name in (".", ".."):
        name = "bot"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        info.mode = 0o644
        tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _league_match(db: Any, tid: int, match_no: int) -> bool:
    return db.execute("SELECT 1 FROM matches WHERE tournament_id = ? AND match_no = ?", [tid, match_no]).fetchone() \
        is not None


def _deal_document(db: Any, tid: int, deal_id: int) -> dict | None:
    from arena.results import replay

    return replay.document(db, deal_id) if _league_deal(db, tid, deal_id) else None


def _league_deal(db: Any, tid: int, deal_id: int) -> bool:
    row = db.execute("SELECT m.tournament_id FROM deals d JOIN board_tables t ON t.id = d.table_id"
                     " JOIN matches m ON m.id = t.match_id WHERE d.id = ?", [deal_id]).fetchone()
    return row is not None and row[0] == tid


def status_document(db: Any, tid: int, first: int = 2) -> dict:
    """What plays and what waits, from the database (unfinished matches: in play if the server
    runs, else to be resumed); `first`: the matches a new version waits for (the ladder's)."""
    t = read.get_tournament(db, tid)
    names = store.versions_of(db)

    def label(bot: int) -> str:
        v = names.get(bot)
        return f"{v['name']}@{v['version']}" if v else str(bot)

    pairs, matches_of = store.pair_counts(db, tid)
    active = store.active_bots(db)
    unfinished = store.unfinished_matches(db, tid, t["boards"])
    done = read.done_tables(db, tid)
    in_play = [{"match_no": m["match_no"], "entrants": [label(b) for b in m["bots"]], "boards": t["boards"],
                "rooms": len(m["bots"]),  # (a room for each entrant)
                "tables": sum(1 for (no, _b, _s) in done if no == m["match_no"])} for m in unfinished]
    return {
        "league": t["name"], "status": t["status"], "matches": t["matches"], "boards_done": t["boards_done"],
        "boards_per_match": t["boards"], "playing": in_play if t["status"] == "running" else [],
        "to_resume": in_play if t["status"] != "running" else [],
        "active": [{"bot": label(b["id"]), "matches": matches_of.get(b["id"], 0)} for b in active],
        "waiting": [label(b["id"]) for b in active if matches_of.get(b["id"], 0) < first],
    }


async def serve(db_path: Path, *, host: str = HOST, port: int = 8018, concurrency: int | None = None,
                sandbox: str = "auto", cluster: str | None = None,
                name: str = store.DEFAULT_NAME, boards: int = 8, game: str | None = None,
                variant: dict | None = None, limits: archive.Limits = archive.Limits(), public_hosts: list[str] | None = None,
                rate: RateLimit | None = None, code_rate: RateLimit | None = None, quota: Quota | None = None,
                time_control: TimeControl = TimeControl(),
                on_ready: Callable[[str], None] | None = None, log: Callable[[str], None] | None = None) -> None:
    """Play the ladder and serve its pages until SIGINT or SIGTERM. The league is made on first
    use for `game` (None: the default) and its `variant` (None: the game's own). With
    `cluster`, the ladder's rooms play on its workers (each resolves `sandbox` itself); submissions are checked here."""
    db = schema.open_db(db_path)
    try:
        t = store.league_tournament(db, name, boards=boards, game=game, variant=variant)
        mode = resolve_mode(sandbox)
        league: League
        ladder = Ladder(db, t["id"], sandbox=mode if cluster is None else sandbox, concurrency=concurrency,
                        time_control=time_control, on_rated=lambda fitted: league.refresh(fitted), log=log,
                        cluster=cluster)
        store.ensure_tables(db)
        store.private(db_path)
        swept = sweep_temp()
        league = League(db, t["id"], ladder, Submissions(db, t["id"], mode, limits, rate or RateLimit(),
                                                         quota=quota or Quota()),
                        Reads(db_path), code_rate=code_rate or RateLimit(CODE_LIMIT, 3600.0, "code"))
        league.doc = pages.empty_document(t)  # until the first fit, a moment after the start
        results = views_server.Results(db_path, check=False)  # the app's views: stderr left out (a league's)
        results.WATCH_S = WATCH_S
        app = make_app(league, results, allowed_hosts(host, public_hosts or []))
        async with forking.serving(mode), trio.open_nursery() as nursery:
            binds = await nursery.start(partial(web.serve, app, host, port))
            await nursery.start(results.watch)
            if on_ready is not None:
                on_ready(binds[0] if binds else f"http://{host}:{port}")
            for folder in swept:
                if log is not None:
                    log(f"swept: {folder} (left by a server stopped mid-submission)")
            await nursery.start(ladder.run)
            with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                async for _signum in signals:
                    nursery.cancel_scope.cancel()
                    # A client that stops reading holds Hypercorn's shielded send, and the run with it:
                    # its connection is shut down. Should anything else hold the run, the server ends
                    # after STOP_S as `kill -9` would, which loses nothing stored.
                    web.cut_connections({web.port_of(b) for b in binds})
                    stopper = threading.Timer(STOP_S, _stopped_late)
                    stopper.daemon = True
                    stopper.start()
                    break
    finally:
        db.close()
