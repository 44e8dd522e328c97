"""The league's pages in a real browser (Debian's Chromium driven by Playwright) against a real
`arena league serve`: an author submits through the form on their page, sees the verdict, a
refusal in one line, an older version put back on the ladder, and their bots; the league view
(the app's, as `arena serve` draws every view) is pushed each change as rooms land, its matches
and replays open in the app's own views and step through without a script error; the page
fits a phone; the server ends at once on SIGINT with a page's stream open."""

from __future__ import annotations

import signal
import sqlite3
from pathlib import Path

import pytest

from arena.league import archive
from tests.test_league import BOTS, Server, add_author, arena, make_bot

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip("needs Debian's chromium package (make test installs it as root)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="needs the playwright package (pip install -e '.[test]')")

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WAIT_MS = 120_000  # how long a page may take to show what the test waits for (not a speed check)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda e: errors.append(str(e)))
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" and "the server responded with a "
           "status of 4" not in m.text and "ERR_INCOMPLETE_CHUNKED_ENCODING" not in m.text
           and "ERR_CONNECTION_RESET" not in m.text else None)
    # (the league page's event stream, cut as the server stops under it: the network's line, no script's)
    yield tab
    context.close()
    assert not errors, errors


def test_an_author_submits_through_the_form_and_the_league_page_shows_it(page, open_dir):
    db = open_dir / "league.db"
    alice, bob = add_author(db, "alice"), add_author(db, "bob")
    bundle = open_dir / "web-bot.tar.gz"
    bundle.write_bytes(archive.pack(make_bot(open_dir / "web-bot", BOTS / "zwicker" / "greedy_bot.py")))
    newer = open_dir / "web-bot-2.tar.gz"
    newer.write_bytes(archive.pack(make_bot(open_dir / "web-bot-2", BOTS / "zwicker" / "first_bot.py")))
    server = Server(db)
    try:
        assert server.submit(make_bot(open_dir / "bobs", BOTS / "zwicker" / "random_bot.py"), bob, "taken").returncode == 0
        page.goto(server.url + "/author")
        page.fill("#token", alice)
        page.click("#token-form button")
        page.wait_for_selector("text=No bots yet", timeout=WAIT_MS)

        page.fill("#bot-name", "taken")  # bob's name: refused, in one line
        page.set_input_files("#bot-file", str(bundle))
        page.click("#submit-form button")
        refused = page.wait_for_selector("#submit-result.error", timeout=WAIT_MS)
        assert refused.inner_text() == "403: the name 'taken' belongs to another author: choose another --name"

        page.fill("#bot-name", "webbot")
        page.click("#submit-form button")
        done = page.wait_for_selector("#submit-result.ok", timeout=WAIT_MS)
        assert done.inner_text() == "stored webbot@1 (conformant)"
        assert "conformant: the bot speaks protocol version 1" in page.inner_text("#submit-check")
        page.wait_for_selector("#my-bots td.bot:text('webbot@1')", timeout=WAIT_MS)
        assert "taken" not in page.inner_text("#my-bots")  # bob's bot is not alice's to see

        page.set_input_files("#bot-file", str(newer))  # a second version, then the first one's content again
        page.click("#submit-form button")
        page.wait_for_selector("#submit-result.ok:has-text('webbot@2')", timeout=WAIT_MS)
        page.set_input_files("#bot-file", str(bundle))
        page.click("#submit-form button")
        again = page.wait_for_selector("#submit-result.ok:has-text('active again')", timeout=WAIT_MS)
        assert again.inner_text() == "active again: webbot@1 is back on the ladder in place of webbot@2"

        page.fill("#token", bob)  # a bot that says how it runs: the form's command, as `arena submit --command`
        page.click("#token-form button")
        page.wait_for_selector("#my-bots td.bot:text('taken@1')", timeout=WAIT_MS)
        page.fill("#bot-name", "cmdbot")
        page.fill("#bot-command", "python3 bot.py")
        page.click("#submit-form button")
        done = page.wait_for_selector("#submit-result.ok:has-text('cmdbot')", timeout=WAIT_MS)
        assert done.inner_text() == "stored cmdbot@1 (conformant)"
        conn = sqlite3.connect(db)
        try:
            assert conn.execute("SELECT command FROM bots WHERE name = 'cmdbot'").fetchall() == [("python3 bot.py",)]
        finally:
            conn.close()
        page.fill("#bot-name", "cmdbot2")
        page.evaluate("document.getElementById('bot-command').value = 'python3 bot.py\\u0007'")
        page.click("#submit-form button")
        refused = page.wait_for_selector("#submit-result.error:has-text('control character')", timeout=WAIT_MS)
        assert refused.inner_text() == "400: the command holds a control character: give one line of words"

        server.wait_for(lambda line: line.startswith("rated:") and line != "rated: 0 boards")
        page.goto(server.url + "/")
        page.wait_for_selector("#standings td.bot:has-text('webbot')", timeout=WAIT_MS)
        assert "taken" in page.inner_text("#standings")
        page.wait_for_selector("#recent a", timeout=WAIT_MS)  # pushed to the page as matches end
        page.click("#recent a")  # the app's match view
        page.wait_for_selector("#boards a[href^='#deal=']", timeout=WAIT_MS)
        page.click("#boards a[href^='#deal=']")  # its first deal, in the one replay viewer (the game's own)
        stepno = page.wait_for_selector("#stepno", timeout=WAIT_MS)
        assert stepno.inner_text().startswith("move 0 / ")
        for _ in range(3):
            page.keyboard.press("ArrowRight")
        page.wait_for_function("() => document.querySelector('#stepno').textContent.startsWith('move 3 / ')")
        page.keyboard.press("End")
        page.wait_for_function("() => { const [a, b] = document.querySelector('#stepno').textContent"
                               ".slice(5).split(' / '); return a === b; }")

        out = open_dir / "site"  # the same views in a report, opened from disk
        written = arena("report", "league", "--db", str(db), "--output", str(out))
        assert written.returncode == 0, written.stderr
        page.goto((out / "index.html").as_uri())
        page.wait_for_selector("#standings td.bot:has-text('webbot')", timeout=WAIT_MS)
        page.click("#recent a")
        page.wait_for_selector("#boards a[href^='#deal=']", timeout=WAIT_MS)
    finally:
        server.stop()


def test_the_leagues_older_addresses_open_the_apps_views(page, open_dir):
    """/match/N and /replay/D (the addresses docs/league.md gave) redirect to the app's views."""
    db = open_dir / "league.db"
    tokens = [add_author(db, "alice"), add_author(db, "bob")]
    server = Server(db)
    try:
        for token, name, source in zip(tokens, ("g", "r"), ("greedy_bot.py", "random_bot.py"), strict=True):
            assert server.submit(make_bot(open_dir / name, BOTS / "zwicker" / source), token, name).returncode == 0
        server.wait_for(lambda line: line.startswith("room stored: match 1 "))
        page.goto(server.url + "/match/1")
        page.wait_for_selector("#boards a[href^='#deal=']", timeout=WAIT_MS)
        assert "match 1" in page.inner_text("#crumbs") and "league" in page.inner_text("#crumbs")
        deal = page.get_attribute("#boards a[href^='#deal=']", "href").split("=")[1]
        page.goto(server.url + f"/replay/{deal}")
        page.wait_for_selector("#stepno", timeout=WAIT_MS)
        page.keyboard.press("End")
        page.wait_for_function("() => !document.querySelector('#stepno').textContent.startsWith('move 0 ')")
    finally:
        server.stop()


def test_a_stored_room_is_pushed_to_an_open_league_page_and_sigint_ends_the_server_at_once(page, open_dir):
    """The league page is opened before anything plays; the server pushes each change (server-
    sent events, no polling): the bots as they are submitted, the first result as its match is
    stored. Then SIGINT, with the page's stream still open, ends the server by itself (status 0:
    not the watchdog's exit, status 1, which ended it 15 s later when a stream held it)."""
    db = open_dir / "league.db"
    tokens = [add_author(db, "alice"), add_author(db, "bob")]
    server = Server(db)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/api/league" in r.url else None)
    try:
        page.goto(server.url + "/")
        page.wait_for_selector("text=No bots yet", timeout=WAIT_MS)
        page.evaluate("window.__sameDocument = true")  # gone if the page were loaded again
        for token, name, source in zip(tokens, ("g", "r"), ("greedy_bot.py", "random_bot.py"), strict=True):
            assert server.submit(make_bot(open_dir / name, BOTS / "zwicker" / source), token, name).returncode == 0
        page.wait_for_selector("#playing a[href^='#live=']", timeout=WAIT_MS)  # a match in play: watch a room
        page.click("#playing a[href^='#live=']")
        page.wait_for_selector("#live-felt, #live-ended, #main .error", timeout=WAIT_MS)  # (a short room may end first)
        page.evaluate("location.hash = ''")  # back to the league page, in the same document
        page.wait_for_selector("#recent a", timeout=WAIT_MS)  # a match stored, then fitted: pushed
        page.wait_for_selector("#standings td.bot:has-text('g')", timeout=WAIT_MS)
        assert page.evaluate("window.__sameDocument") is True
        assert len(asked) <= 4, asked  # each time the view opens, a load and its one stream: no request every few seconds
        server.proc.send_signal(signal.SIGINT)
        server.proc.wait(timeout=60)
        assert server.proc.returncode == 0, server.proc.stderr.read()[-3000:]
    finally:
        server.stop()


def test_the_league_page_fits_a_phone(page, open_dir):
    """At 400 px: no sideways scrolling, the standings' main columns in view, and the rating
    chart's labels at least 10 px high (the names are a legend in HTML, which wraps)."""
    db = open_dir / "league.db"
    long, short = add_author(db, "an-author-with-a-long-name"), add_author(db, "bo")
    server = Server(db)
    try:
        for token, name, source in ((long, "a-rather-long-bot-name-for-a-phone", "greedy_bot.py"),
                                    (short, "rnd", "random_bot.py")):
            assert server.submit(make_bot(open_dir / name, BOTS / "zwicker" / source), token, name).returncode == 0
        server.wait_for(lambda line: line.startswith("rated:") and line != "rated: 0 boards")
        page.set_viewport_size({"width": 400, "height": 800})
        page.goto(server.url + "/")
        page.wait_for_selector("svg[aria-label='rating history'] polyline", timeout=WAIT_MS)
        assert page.evaluate("document.documentElement.scrollWidth") <= 400
        assert page.evaluate("Array.from(document.querySelectorAll('#main *'))"
                             ".filter(e => e.getBoundingClientRect().right > 400).length") == 0
        heights = page.evaluate("Array.from(document.querySelectorAll(\"svg[aria-label='rating history'] text\"))"
                                ".map(t => t.getBoundingClientRect().height)")
        assert heights and min(heights) >= 10, heights
        assert "a-rather-long-bot-name-for-a-phone@1" in page.inner_text(".legend")
    finally:
        server.stop()


def test_a_league_of_three_entrants_draws_its_view_and_replays(page, open_dir):
    """A league of an outside game that seats one bot a side, three a table (tests/data/toytrick,
    installed by its entry point): the league view lists each match's entrants, and a deal
    of it steps through in the generic viewer without a script error."""
    import shutil

    import games
    from tests.test_games_conformance import install

    site = install(open_dir / "site")
    env = {"PYTHONPATH": str(site)}
    db = open_dir / "league.db"
    tokens = {author: add_author(db, author) for author in ("ann", "ben", "cid")}
    server = Server(db, "--game", "toytrick", "--players", "3", env=env)
    try:
        sources = {"ann": site / "toytrick" / "bots" / "low_bot.py", "ben": site / "toytrick" / "bots" / "high_bot.py",
                   "cid": games.RANDOM_BOT}
        for author, source in sources.items():
            folder = open_dir / "src" / author
            folder.mkdir(parents=True)
            shutil.copy(source, folder / "bot.py")
            for p in (folder.parent, folder, folder / "bot.py"):
                p.chmod(0o755 if p.is_dir() else 0o644)
            out = arena("submit", str(folder), "--server", server.url, "--name", f"{author}-bot",
                        env={**env, "ARENA_TOKEN": tokens[author]})
            assert out.returncode == 0, out.stdout + out.stderr
        server.wait_for(lambda line: line.startswith("rated:") and line != "rated: 0 boards")
        page.goto(server.url + "/")
        page.wait_for_selector("#recent a", timeout=WAIT_MS)
        row = page.inner_text("#recent tbody tr >> nth=0")  # each entrant with its result
        assert all(f"{author}-bot" in row for author in tokens), row
        page.click("#recent a")
        page.click("#boards a[href^='#deal='] >> nth=0")
        page.wait_for_selector("#stepno", timeout=WAIT_MS)
        page.keyboard.press("End")
        page.wait_for_function("() => !document.querySelector('#stepno').textContent.startsWith('move 0 ')")
    finally:
        server.stop()
