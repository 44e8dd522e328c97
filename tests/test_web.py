"""The browser pages' data, server and static site, without a browser (tests/test_web_browser.py
drives the pages in Chromium). The tournament is real: the bundled bots, played by the CLI."""

from __future__ import annotations

import http.client
import json
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli import _register, app
from arena.errors import ArenaError
from arena.report import frames, pages
from arena.report.server import STATIC, PageCache
from arena.report.site import data_file, report_shell, write_site
from arena.results import read, registry, schema, web_queries, write
from engine import zwicker

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "bots"
_register()


def arena(*args: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """A finished tournament of four bundled bots, 3 boards a match, played by `arena tournament run`."""
    db = tmp_path_factory.mktemp("web") / "arena.db"
    for name in ("random", "greedy", "sweeper", "builder"):
        arena("bot", "add", str(BOTS / "zwicker" / f"{name}_bot.py"), "--name", name, "--db", str(db), "--no-check")
    arena("tournament", "run", "--bots", "random,greedy,sweeper,builder", "--boards", "3", "--seed", "5",
          "--name", "cup", "--sandbox", "none", "--quiet", "--db", str(db))
    return db


@pytest.fixture
def ro(played):
    db = web_queries.open_readonly(played)
    yield db
    db.close()


def test_a_read_only_connection_cannot_write(ro):
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        ro.execute("UPDATE tournaments SET name = 'changed'")


def test_read_only_open_refuses_what_is_not_an_arena_database(tmp_path):
    (tmp_path / "text.db").write_text("hello")
    with pytest.raises(ArenaError, match="not an SQLite database"):
        web_queries.open_readonly(tmp_path / "text.db")
    other = sqlite3.connect(tmp_path / "other.db")
    other.execute("CREATE TABLE t (x)")
    other.close()
    with pytest.raises(ArenaError, match="not an arena database"):
        web_queries.open_readonly(tmp_path / "other.db")
    with pytest.raises(ArenaError, match="no arena database"):
        web_queries.open_readonly(tmp_path / "missing.db")


def test_tournament_page_holds_the_listings(ro):
    t = read.get_tournament(ro, "cup")
    p = pages.page(ro, f"t/{t['id']}")
    assert p["standings"] == read.standings(ro, t["id"])
    assert [{k: m[k] for k in x} for m, x in zip(p["matches"], read.matches(ro, t["id"]))] == read.matches(ro, t["id"])
    assert not any(m["playing"] for m in p["matches"])  # finished: nothing in play
    assert all(m["tables_done"] == 6 and m["latest_deal"] for m in p["matches"])
    assert p["tournament"]["seed"] == "5" and p["tournament"]["boards_done"] == 18 == p["tournament"]["boards_total"]
    assert p["tournament"]["variant_text"] == "jensen"
    assert p["tournament"]["settings"]["sandbox"] == "none"
    # the 12 boards stored last, newest first, whichever match finished first (rooms run at once)
    newest = ro.execute("SELECT m.match_no, b.board_no FROM boards b JOIN matches m ON m.id = b.match_id"
                        " WHERE m.tournament_id = ? ORDER BY b.id DESC LIMIT 12", [t["id"]]).fetchall()
    assert [(b["match_no"], b["board_no"]) for b in p["latest"]] == [tuple(x) for x in newest]
    teams = {m["match_no"]: m["entrants"] for m in p["matches"]}
    assert all(b["entrants"] == teams[b["match_no"]] and b["margins"][0] == -b["margins"][1] for b in p["latest"])
    # every cell's interval holds its score and lies in 0..1
    cells = [c for row in p["crosstable"]["rows"] for c in row["results"].values()]
    assert len(cells) == 12
    assert all(0 <= c["ci_low"] <= c["pct"] <= c["ci_high"] <= 1 and c["ci_high"] - c["ci_low"] > 0.2 for c in cells)


def test_the_score_interval_does_not_vanish_at_all_wins():
    cell = pages.score_interval({"boards": 4, "wins": 4, "draws": 0, "losses": 0, "margin": 40})
    assert cell["pct"] == 1 and cell["ci_high"] == 1 and 0.4 < cell["ci_low"] < 0.6
    even = pages.score_interval({"boards": 100, "wins": 40, "draws": 20, "losses": 40, "margin": 0})
    assert even["pct"] == 0.5 and even["ci_low"] == pytest.approx(1 - even["ci_high"])


def test_history_is_the_stored_progression_and_ends_on_the_headline(ro):
    tid = read.get_tournament(ro, "cup")["id"]
    hist = web_queries.history_sampled(ro, tid)
    stored = read.progression(ro, tid)
    assert hist["computed"] is False and hist["seq"] == sorted({r["boards"] for r in stored})
    for b in hist["bots"]:
        mine = {r["boards"]: r["elo"] for r in stored if r["bot_id"] == b["bot_id"]}
        assert b["elo"] == [mine.get(n) for n in hist["seq"]]
    headline = {r["bot"]: r["elo"] for r in read.standings(ro, tid)}
    assert {b["bot"]: b["elo"][-1] for b in hist["bots"]} == pytest.approx(headline)


def test_history_of_a_tournament_still_playing_is_computed_alike(played, ro, tmp_path):
    """Before the end stores it, the progression is computed from the boards so far, the same way."""
    tid = read.get_tournament(ro, "cup")["id"]
    stored = web_queries.history_sampled(ro, tid)
    copy = tmp_path / "copy.db"
    target = sqlite3.connect(copy)
    ro.conn.backup(target)
    target.close()
    with schema.open_db(copy, create=False) as db:
        db.execute("DELETE FROM rating_progression")
        db.conn.commit()
        computed = web_queries.history_sampled(db, tid)
    assert (stored["computed"], computed["computed"]) == (False, True)
    assert computed["seq"] == stored["seq"]
    for a, b in zip(computed["bots"], stored["bots"]):
        assert a["bot"] == b["bot"] and a["elo"] == pytest.approx(b["elo"])


def test_deal_frames_replay_the_stored_deal(ro):
    d = read.get_deal(ro, 7)
    p = pages.page(ro, "deal/7")
    assert len(p["frames"]) == len(d["moves"]) + 1
    assert p["breakdown"] == d["breakdown"] and p["seed"] == str(d["seed"])
    state = zwicker.deal(d["variant"], d["seed"], d["dealer"])
    deck = 55  # jensen: 52 cards and three jokers
    for k, f in enumerate(p["frames"]):
        if k:
            state = state.apply(d["moves"][k - 1]["move"])
            assert f["move"]["seat"] == d["moves"][k - 1]["seat"]
        assert f["hands"] == [list(h) for h in state.hands]
        cards = sum(map(len, f["hands"])) + f["stock"] + sum(f["taken"])
        cards += sum(len(u["build"]) if isinstance(u, dict) else 1 for u in f["table"])
        assert cards == deck
    assert p["frames"][-1]["over"] and p["tournament_id"] == d["tournament_id"]
    # the table's last cards went to the side that captured last, said with the last move
    last, before = p["frames"][-1], p["frames"][-2]
    left = sum(len(u["build"]) if isinstance(u, dict) else 1 for u in before["table"])
    left += 1 if last["move"]["type"] != "capture" else -sum(map(len, last["move"]["took"]))
    assert last["move"]["leftovers"] == left and (left == 0) == (last["move"]["leftovers_to"] is None)


def test_a_capture_lists_what_it_took():
    doc = {"deal_id": 1, "tournament": "t", "match": 1, "board": 0, "swapped": False, "number": 0,
           "variant": "jensen", "seed": 7, "dealer": 0, "seats": [], "complete": False, "points": [0, 0],
           "forfeit": None, "moves": []}
    state = zwicker.deal("jensen", 7, 0)
    while True:  # play trails until someone can capture, then capture
        captures = [m for m in state.legal_moves() if m.type == "capture"]
        move = captures[0] if captures else next(m for m in state.legal_moves() if m.type == "trail")
        doc["moves"].append({"seat": state.to_move, "move": move.to_dict(), "ms": 1.0})
        before = state
        state = state.apply(move)
        if captures:
            break
    last = frames.deal_frames(doc)["frames"][-1]["move"]
    assert last["type"] == "capture" and last["took"] == [
        [u] if isinstance(u, str) else list(u.cards) for i, u in enumerate(before.table) if i in move.take]


def test_unknown_pages_are_one_clear_error(ro):
    with pytest.raises(pages.UnknownPage):
        pages.page(ro, "t/1/nothing")
    with pytest.raises(ArenaError, match="unknown tournament"):
        pages.page(ro, "t/99")
    with pytest.raises(ArenaError, match="unknown deal"):
        pages.page(ro, "deal/100000")


def test_the_page_cache_answers_at_once_and_refreshes_behind():
    """A page is built while its first viewer waits; after that a viewer gets the last build while
    refresh() (the watcher) builds the next; stale() names what the data has moved past."""
    cache, built = PageCache(size=2), []

    def build(tag, version):
        return lambda: built.append(tag) or (version, tag.encode())

    assert cache.get("a", build("a1", "v1")) == b"a1"
    assert cache.get("a", build("a2", "v2")) == b"a1"  # no wait for a rebuild
    assert cache.stale("v1") == [] and cache.stale("v2") == ["a"]
    cache.refresh("a", build("a3", "v2"))
    assert cache.get("a", build("a4", "v2")) == b"a3" and cache.stale("v2") == []
    cache.get("b", build("b1", "v2"))
    cache.get("c", build("c1", "v2"))  # size 2: "a" goes
    assert cache.get("a", build("a5", "v2")) == b"a5"
    assert built == ["a1", "a3", "b1", "c1", "a5"]


@pytest.fixture(scope="module")
def server(played):
    srv = Served(played)
    yield srv
    assert "Traceback" not in srv.close()


def get(srv: Served, path: str, host: str = "127.0.0.1", accept: str | None = None) -> tuple[int, Any, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
    conn.request("GET", path, headers={"Host": f"{host}:{srv.port}", **({"Accept": accept} if accept else {})})
    r = conn.getresponse()
    body = r.read()
    conn.close()
    return r.status, r.headers, body  # (its names read alike in any case)


def test_the_server_serves_the_app_and_its_data(server, played):
    status, headers, body = get(server, "/")
    assert status == 200 and b'src="static/app.js"' in body and "script-src 'self'" in headers["Content-Security-Policy"]
    assert get(server, "/mode.js")[2] == b'window.ZA_MODE = "api";\n'
    assert get(server, "/static/app.js")[0] == 200
    for game, deal in (("zwicker", 1),):  # a game's viewer and its stylesheet, from the game's folder
        status, headers, body = get(server, f"/viewers/{game}.js")
        assert status == 200 and headers["Content-Type"].startswith("text/javascript") and b"export function replay" in body
        status, headers, body = get(server, f"/viewers/{game}.css")
        assert status == 200 and headers["Content-Type"].startswith("text/css")
        page = json.loads(get(server, f"/api/deal/{deal}")[2])
        assert (page["viewer"], page["viewer_style"]) == (f"viewers/{game}.js", f"viewers/{game}.css")
    status, _, body = get(server, "/api/tournaments")
    assert status == 200 and [t["name"] for t in json.loads(body)["tournaments"]] == ["cup"]
    status, _, body = get(server, "/api/t/1")
    with schema.open_db(played) as db:
        assert json.loads(body)["standings"] == json.loads(json.dumps(read.standings(db, 1)))
    version = json.loads(get(server, "/api/version")[2])["version"]
    assert re.fullmatch(r"\d+\.\d+\.\d+\.[0-9a-f]{8}", version)


def test_the_server_refuses_other_hosts_and_other_files(server):
    assert get(server, "/api/version", host="attacker.example")[0] == 421
    for path in ("/static/../server.py", "/static/%2e%2e/server.py", "/static/nothing.js", "/etc/passwd"):
        assert get(server, path)[0] == 404, path
    status, _, body = get(server, "/api/t/99")
    assert status == 404 and "unknown tournament" in json.loads(body)["error"]


def test_one_route_answers_a_views_page_json_and_events(server):
    """/t/1 is the page (the app), its JSON by Accept, ?format=json or .json, as /api/t/1 is,
    and its server-sent events; the app's files are named from the root at such an address."""
    status, headers, body = get(server, "/t/1")
    assert status == 200 and headers["Content-Type"].startswith("text/html") and b'src="/static/app.js"' in body
    api = json.loads(get(server, "/api/t/1")[2])
    for path, accept in (("/t/1", "application/json"), ("/t/1?format=json", None), ("/t/1.json", None)):
        status, headers, body = get(server, path, accept=accept)
        assert status == 200 and headers["Content-Type"] == "application/json", path
        assert json.loads(body) == api, path
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    conn.request("GET", "/t/1", headers={"Host": f"127.0.0.1:{server.port}", "Accept": "text/event-stream"})
    r = conn.getresponse()
    assert r.status == 200 and r.getheader("Content-Type").startswith("text/event-stream")
    assert r.readline() == b"event: page\n"
    line = r.readline()
    assert line.startswith(b"data: ") and json.loads(line[len(b"data: "):]) == api
    conn.close()


def test_hostile_requests_get_a_clear_refusal_and_no_server_error(server):
    """Ids beyond SQLite's integers, unknown keys, other methods, other hosts: a 4xx with one line
    of JSON, never a 500 or a trace."""
    big = "9" * 40
    for path in (f"/api/t/{big}", f"/t/{big}", f"/api/deal/{big}", f"/deal/{big}", f"/t/1/bot/{big}",
                 f"/api/t/1/match/{big}", "/api/t/1/live/1/room99999", "/api/" + "t/" * 5000, "/viewers/../x.js",
                 "/viewers/nogame.js", "/api/t/-1", "/api/t/1%00", "/static/%00"):
        status, headers, body = get(server, path)
        assert 400 <= status < 500, (path, status)
        error = json.loads(body)["error"]
        assert "\n" not in error and "Traceback" not in error and "File " not in error, error
    for host in ("attacker.example", "127.0.0.1.attacker.example", "localhost.", ""):
        assert get(server, "/api/t/1", host=host)[0] == 421, host
    for host in ("localhost", "127.0.0.1"):
        assert get(server, "/api/t/1", host=host)[0] == 200, host
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    conn.request("POST", "/api/t/1", body=b"x", headers={"Host": f"127.0.0.1:{server.port}"})
    r = conn.getresponse()
    assert r.status == 405 and "error" in json.loads(r.read())
    conn.close()
    for framing in (b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", b"Content-Length: 5\r\nContent-Length: 6\r\n"):
        with socket.create_connection(("127.0.0.1", server.port), timeout=60) as sock:  # nothing smuggled is answered
            sock.sendall(b"GET /api/t/1 HTTP/1.1\r\nHost: 127.0.0.1\r\n" + framing + b"\r\n0\r\n\r\n"
                         b"GET /api/t/1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            sock.shutdown(socket.SHUT_WR)
            got = b"".join(iter(lambda: sock.recv(65536), b""))
        assert got.startswith(b"HTTP/1.1 400 ") and got.count(b"HTTP/1.1 ") == 1, got[:300]


def two_bot_tournament(tmp_path, boards: int):
    """A database at tmp_path/a.db with bots a and b and one match of `boards` boards between them."""
    db = schema.open_db(tmp_path / "a.db")
    src = tmp_path / "a.py"
    src.write_text("# a\n")
    a = registry.add_bot(db, src, name="a")["id"]
    src.write_text("# b\n")
    b = registry.add_bot(db, src, name="b")["id"]
    tid = write.create_tournament(db, "t", seed=1, variant={"preset": "jensen"}, format="deal", partners="clone",
                                  boards=boards, settings={}, bot_ids=[a, b], matches=[([a, a], [b, b])])
    return db, tid, a, b


def test_the_version_changes_when_a_table_lands(tmp_path):
    db, tid, a, b = two_bot_tournament(tmp_path, boards=1)
    ro = web_queries.open_readonly(tmp_path / "a.db")
    before = web_queries.data_version(ro)
    write.set_status(db, tid, "running")
    running = web_queries.data_version(ro)
    from tests.test_storage import fake_table

    write.record_table(db, tid, 1, 0, False, 1, fake_table([a, a], [b, b], False, (20, 10)))
    assert len({before, running, web_queries.data_version(ro)}) == 3
    ro.close()
    db.close()


def test_a_served_page_catches_up_with_new_tables(tmp_path):
    """The server answers from its last build at once, and its watcher rebuilds the page when a
    table lands: the page's data_version then is the database's."""
    db, tid, a, b = two_bot_tournament(tmp_path, boards=2)
    write.set_status(db, tid, "running")
    srv = Served(tmp_path / "a.db")
    try:
        before = json.loads(get(srv, f"/api/t/{tid}")[2])
        assert before["tournament"]["boards_done"] == 0
        from tests.test_storage import fake_table

        for swapped in (False, True):
            write.record_table(db, tid, 1, 0, swapped, 1, fake_table([a, a], [b, b], swapped, (20, 10)))
        now = json.loads(get(srv, "/api/version")[2])["version"]
        assert now != before["data_version"]
        for _ in range(600):  # the watcher looks every second; give it a minute at most
            after = json.loads(get(srv, f"/api/t/{tid}")[2])
            if after["data_version"] == now:
                break
            time.sleep(0.1)
        assert after["data_version"] == now and after["tournament"]["boards_done"] == 1
        assert [r["boards"] for r in after["standings"]] == [1, 1]
    finally:
        assert "Traceback" not in srv.close()
        db.close()


def test_the_report_is_a_folder_of_scripts(played, tmp_path):
    out = tmp_path / "site"
    with schema.open_db(played) as db:
        counts = write_site(db, "cup", out)
        deal_ids = [r[0] for r in db.execute("SELECT id FROM deals")]
        standings = read.standings(db, 1)
    assert counts == {"pages": 2 + 4 + 6, "deals": 36} and len(deal_ids) == 36
    assert (out / "mode.js").read_text() == 'window.ZA_MODE = "files";\nwindow.ZA_START = "t=1";\n'
    assert (out / "index.html").read_bytes() == report_shell() and b'src="static/app.bundle.js"' in report_shell()
    files = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert {data_file(f"deal/{d}") for d in deal_ids} <= files
    text = (out / data_file("t/1")).read_text()
    m = re.fullmatch(r'ZA_DATA\("t/1", (.*)\);\n', text, re.DOTALL)
    assert m and json.loads(m[1])["standings"] == json.loads(json.dumps(standings))
    # nothing refers outside the folder (the SVG namespace is a name, not a fetch)
    for name in files:
        body = (out / name).read_text()
        assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", body), name


def test_the_app_never_parses_html():
    """Untrusted text reaches the page only as text: no HTML-parsing sink in the app."""
    sources = [*STATIC.glob("*.js"), *(ROOT / "games").glob("*/viewer.js")]
    assert len(sources) >= 8
    source = "".join(p.read_text() for p in sources)
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
                 "createContextualFragment", "DOMParser"):
        assert sink not in source, sink


def test_report_command(played, tmp_path):
    out = tmp_path / "r"
    result = CliRunner().invoke(app, ["report", "cup", "--db", str(played), "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output == f"wrote {out / 'index.html'} (12 pages, 36 deals)\n"
    result = CliRunner().invoke(app, ["report", "nope", "--db", str(played), "--output", str(out)])
    assert result.exit_code != 0 and "unknown tournament 'nope'" in str(result.exception)


def test_serving_a_missing_database_is_one_clear_error(tmp_path):
    result = CliRunner().invoke(app, ["serve", "--db", str(tmp_path / "none.db"), "--port", "0"])
    assert result.exit_code != 0 and "no arena database at" in str(result.exception)


def test_web_commands_have_help_with_an_example():
    for argv in (["serve"], ["report"]):
        out = CliRunner().invoke(app, [*argv, "--help"]).output
        assert "Example: arena " in out and "--db" in out, argv


class Served:
    """`arena serve --port 0` as a process of its own (the installed program, as a person runs it)."""

    def __init__(self, db: Path, *options: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "arena", "serve", "--db", str(db), "--port", "0", *options],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        line = self.proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, (line, self.proc.stderr.read() if self.proc.poll() is not None else "")
        self.port = int(m[1])

    def get(self, path: str) -> tuple[int, dict]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        conn.request("GET", path, headers={"Host": f"127.0.0.1:{self.port}"})
        r = conn.getresponse()
        body = json.loads(r.read())
        conn.close()
        return r.status, body

    def close(self) -> str:
        self.proc.terminate()
        self.proc.wait()
        self.proc.stdout.close()
        err = self.proc.stderr.read()
        self.proc.stderr.close()
        return err


def test_a_server_started_during_a_tournament_sees_every_later_one(tmp_path):
    """`arena serve` started while a tournament plays, asked for pages by four viewers at once all
    along, still shows the tournaments started after that one ended, running and finished: no
    connection outlives the writer that closes (and deletes) the database's WAL files."""
    db = tmp_path / "arena.db"
    for name in ("random", "greedy"):
        arena("bot", "add", str(BOTS / "zwicker" / f"{name}_bot.py"), "--name", name, "--db", str(db), "--no-check")
    run = ["tournament", "run", "--bots", "random,greedy", "--seed", "3", "--sandbox", "none",
           "--processes", "1", "--concurrency", "1", "--quiet", "--db", str(db)]
    first = subprocess.Popen([sys.executable, "-m", "arena", *run, "--boards", "30", "--name", "first"],
                             cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    server = second = None
    stop = threading.Event()
    seen: list[tuple[int, str]] = []
    try:
        with schema.open_db(db) as w:  # the server starts once the first tournament exists
            while not w.execute("SELECT COUNT(*) FROM tournaments").fetchone()[0]:
                assert first.poll() is None, first.stderr.read()
                stop.wait(0.05)
        server = Served(db)

        def viewer(paths: list[str]) -> None:
            while not stop.is_set():
                for path in paths:
                    status, body = server.get(path)
                    seen.append((status, path))

        viewers = [threading.Thread(target=viewer, args=(p,), daemon=True) for p in (
            ["/api/tournaments", "/api/version"], ["/api/t/1", "/api/version"], ["/api/t/1/bot/1"], ["/api/t/2"])]
        for v in viewers:
            v.start()
        assert first.wait(timeout=600) == 0, first.stderr.read()
        version_between = server.get("/api/version")[1]["version"]
        second = subprocess.Popen([sys.executable, "-m", "arena", *run, "--boards", "6", "--name", "second"],
                                  cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        running = False
        while second.poll() is None and not running:  # the second one is listed while it plays
            listed = {t["name"]: t["status"] for t in server.get("/api/tournaments")[1]["tournaments"]}
            running = listed.get("second") == "running"
        assert second.wait(timeout=600) == 0, second.stderr.read()
        stop.set()
        for v in viewers:
            v.join()
        assert server.get("/api/version")[1]["version"] != version_between
        for _ in range(600):  # the watcher rebuilds the cached pages within a second or so
            listed = {t["name"]: t["status"] for t in server.get("/api/tournaments")[1]["tournaments"]}
            status, page = server.get("/api/t/2")
            if listed.get("second") == "finished" and status == 200 and page["tournament"]["status"] == "finished":
                break
            time.sleep(0.1)  # (not stop.wait: it is set by now, and would not wait at all)
        assert listed == {"first": "finished", "second": "finished"}
        assert status == 200 and page["tournament"]["boards_done"] == 6
        assert running or second.returncode == 0  # (a loaded machine may finish it between two looks)
        assert len(seen) > 20 and {s for s, _ in seen} <= {200, 404}
    finally:
        stop.set()
        if first.poll() is None:
            first.kill()
        first.wait()
        first.stderr.close()
        if second is not None:
            second.wait()
            second.stderr.close()
        if server is not None:
            err = server.close()
            assert "Traceback" not in err, err


def test_a_match_with_one_room_in_is_in_play_while_its_tournament_runs(tmp_path):
    """A running tournament's page marks the match whose first room is stored as in play, with its
    tables and newest deal; once the run is gone (its lock released) nothing is in play."""
    from arena.results.lock import run_lock
    from tests.test_storage import fake_table

    db, tid, a, b = two_bot_tournament(tmp_path, boards=2)
    write.set_status(db, tid, "running")
    with run_lock(tmp_path / "a.db", tid, "t"):
        ro = web_queries.open_readonly(tmp_path / "a.db")
        before = pages.page(ro, f"t/{tid}")  # nobody has played: nobody is ranked, on the page too
        assert [(r["rank"], r["elo"]) for r in before["standings"]] == [(None, None), (None, None)]
        assert [(r["rank"], r["elo"], r["interval"], r["los"]) for r in before["standings_table"]["rows"]] == [("–",) * 4] * 2
        assert not before["matches"][0]["playing"]
        ro.close()
        write.record_table(db, tid, 1, 0, False, 1, fake_table([a, a], [b, b], False, (20, 10)))
        ro = web_queries.open_readonly(tmp_path / "a.db")
        (m,) = pages.page(ro, f"t/{tid}")["matches"]
        assert (m["playing"], m["tables_done"], m["boards_started"], m["boards_done"]) == (True, 1, 1, 0)
        assert m["latest_deal"] == ro.execute("SELECT MAX(id) FROM deals").fetchone()[0]
        ro.close()
    ro = web_queries.open_readonly(tmp_path / "a.db")
    p = pages.page(ro, f"t/{tid}")
    assert p["tournament"]["status"] == "interrupted" and not p["matches"][0]["playing"]
    ro.close()
    db.close()


def test_no_page_holds_a_local_path(played, tmp_path):
    """The report and the served pages name a bot's file, never the folders it came from, and a
    bot's words that name the organiser's folders show them as `…`."""
    out = tmp_path / "site"
    with schema.open_db(played) as db:
        write_site(db, "cup", out)
        sources = [r[0] for r in db.execute("SELECT source FROM bots")]
    assert all(str(BOTS) in s for s in sources)  # the registry keeps where each came from
    folders = [str(ROOT), str(played.parent), str(Path.home())]
    for path in out.rglob("*.js"):
        text = path.read_text()
        assert not any(f in text for f in folders), (path, [f for f in folders if f in text])
    bot_page = json.loads(re.fullmatch(r'ZA_DATA\("t/1/bot/1", (.*)\);\n', (out / data_file("t/1/bot/1")).read_text(), re.DOTALL)[1])
    assert bot_page["bot"]["file"] == "random_bot.py" and "source" not in bot_page["bot"]
    ro = web_queries.open_readonly(played)
    hide = web_queries._local_paths(ro)
    assert hide(f'File "{played.parent}/bots/ab12/bot.py", line 3') == 'File "…/bots/ab12/bot.py", line 3'
    assert hide(None) is None
    ro.close()


STDERR_MARK = "<b>not bold</b>"  # what tests/web/xss_bot.py writes to stderr before it crashes


@pytest.fixture(scope="module")
def league_db(tmp_path_factory) -> Path:
    """A database holding a league (its tournament made as `arena league serve` makes it) and a
    finished tournament in which a bot wrote to stderr and crashed."""
    from arena.league import store

    db = tmp_path_factory.mktemp("league") / "league.db"
    arena("bot", "add", str(BOTS / "zwicker" / "random_bot.py"), "--name", "random", "--db", str(db), "--no-check")
    arena("bot", "add", str(ROOT / "tests" / "web" / "xss_bot.py"), "--name", "xss", "--db", str(db), "--no-check")
    arena("tournament", "run", "--bots", "random,xss", "--boards", "1", "--seed", "3", "--name", "cup",
          "--sandbox", "none", "--quiet", "--db", str(db))
    with schema.open_db(db) as d:
        store.league_tournament(d)
    return db


def _pages_of(get, tid: int = 1) -> list[bytes]:
    """Every page of tournament `tid` as served: the tournament, its bots, its matches, its deals."""
    t = json.loads(get(f"/api/t/{tid}"))
    bodies = [json.dumps(t).encode()]
    for row in t["standings"]:
        bodies.append(get(f"/api/t/{tid}/bot/{row['bot_id']}"))
    for m in t["matches"]:
        match = get(f"/api/t/{tid}/match/{m['match_no']}")
        bodies.append(match)
        for b in json.loads(match)["match"]["boards"]:
            bodies += [get(f"/api/deal/{d}") for tb in b["tables"] for d in tb["deal_ids"]]
    return bodies


def test_a_leagues_stderr_stays_private_in_serve_and_report(league_db, tmp_path):
    """On a league's database `arena serve` and `arena report` show no bot's stderr (the fault
    and its detail still show) unless the organiser passes --show-stderr."""
    for options, shown in (((), False), (("--show-stderr",), True)):
        srv = Served(league_db, *options)
        try:
            def fetch(path: str) -> bytes:
                status, _, body = get(srv, path)
                assert status == 200, (path, status, body)
                return body

            bodies = _pages_of(fetch)
            xss = next(r["bot_id"] for r in json.loads(bodies[0])["standings"] if r["bot"].startswith("xss"))
            faults = json.loads(fetch(f"/api/t/1/bot/{xss}"))["faults"]
            assert faults and all(f["detail"] for f in faults)
            assert any(STDERR_MARK in f["stderr"] for f in faults) if shown else \
                all(f["stderr"] is None and f["stderr_private"] for f in faults)
            assert any(STDERR_MARK.encode() in b for b in bodies) is shown, options
            assert not any(re.search(rb'"sha256": ?"', b) for b in bodies)  # the name of an author's stored copy
        finally:
            assert "Traceback" not in srv.close()
        out = tmp_path / f"site{len(options)}"
        arena("report", "cup", "--db", str(league_db), "--output", str(out), *options)
        written = [p.read_text() for p in (out / "data").iterdir()]
        assert any(STDERR_MARK in text for text in written) is shown, options


def test_a_leagues_report_opens_on_the_league_view(league_db, tmp_path):
    """`arena report league` writes the league view's data as the league's server answers it
    (nothing in play), and opens on it."""
    out = tmp_path / "site"
    arena("report", "league", "--db", str(league_db), "--output", str(out))
    assert 'window.ZA_HOME = "league"' in (out / "mode.js").read_text()
    text = (out / data_file("league")).read_text()
    doc = json.loads(text[text.index(", ") + 2: text.rindex(")")])
    assert doc["league"] == "league" and doc["playing"] == [] and doc["tid"] == 2, doc


def _flood_unread(port: int) -> socket.socket:
    """A client that asks for many answers on one connection and reads none: its socket's
    buffers fill and the server's send of the next answer waits."""
    conn = socket.create_connection(("127.0.0.1", port))
    conn.sendall(b"".join(b"GET /static/pages.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" for _ in range(600)))
    return conn


def test_a_client_that_stops_reading_does_not_hold_either_server_at_its_end(played, open_dir):
    """SIGTERM to `arena serve`, SIGINT to `arena league serve`, while a client holds a send:
    each ends by itself (the league's status 0, not its watchdog's 1, which ended it 15 s later)."""
    from tests.test_league import Server, add_author

    srv = Served(played)
    flood = _flood_unread(srv.port)
    try:
        get(srv, "/api/version")  # (another connection: the server answers while the flood waits)
        srv.proc.terminate()
        assert srv.proc.wait(timeout=60) == 0
    finally:
        srv.close()
        flood.close()
    db = open_dir / "league.db"
    add_author(db, "alice")
    league = Server(db)
    flood = _flood_unread(int(league.url.rsplit(":", 1)[1]))
    try:
        assert league.get("/api/status")[0] == 200
        league.proc.send_signal(signal.SIGINT)
        assert league.proc.wait(timeout=60) == 0, league.proc.stderr.read()[-3000:]
    finally:
        league.stop()
        flood.close()


def test_every_bundled_viewer_file_ships_with_the_package():
    """An install from a wheel carries each bundled game's viewer module and its stylesheet
    (pyproject's package-data for `games`), as the pages load both from the game's folder."""
    import fnmatch
    import tomllib

    import games

    root = Path(__file__).resolve().parent.parent
    shipped = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["games"]
    for name in games.BUNDLED:
        viewer = games.extras(games.game(name)).viewer
        assert viewer is not None, name
        for path in Path(viewer).parent.glob("viewer.*"):
            relative = path.relative_to(root / "games").as_posix()
            assert any(fnmatch.fnmatch(relative, pattern) for pattern in shipped), relative
