"""The results pages in a real browser: Debian's Chromium driven by Playwright, on tournaments
played by the real `arena` command. Screenshots go to results/screenshots/ (ignored by git)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine import zwicker as rules
from games.zwicker import State as ZwickerState
from arena.report.site import write_site
from arena.results import read, schema
from arena.tournaments import runner

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip("needs Debian's chromium package (make test installs it as root)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="needs the playwright package (pip install -e '.[test]')")

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "bots"
XSS_BOT = Path(__file__).resolve().parent / "web" / "xss_bot.py"
XSS_NAME = "<img src=x onerror=alert(1)>"
SHOTS = ROOT / "results" / "screenshots"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WAIT_MS = 120_000  # how long a page may take to show what a test waits for (not a speed check)


def arena(*args: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    """A fresh page that records script errors (a test fails on any) and turns alert() into a mark."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script("window.alert = function () { window.__xss = 'alert'; };")
    p = context.new_page()
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    p.on("dialog", lambda d: (errors.append(f"dialog: {d.message}"), d.dismiss()))
    yield p
    context.close()
    assert not errors, errors


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


class Server:
    """`arena serve --port 0` as a subprocess; `url` is the address it prints."""

    def __init__(self, db: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "arena", "serve", "--db", str(db), "--port", "0"],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        line = self.proc.stdout.readline()
        m = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
        assert m, (line, self.proc.stderr.read() if self.proc.poll() is not None else "")
        self.url = m[1]

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()


@pytest.fixture(scope="module")
def cup(tmp_path_factory) -> Path:
    """A finished tournament: random, greedy and the bot that speaks markup, 2 boards a match."""
    db = tmp_path_factory.mktemp("browser") / "arena.db"
    arena("bot", "add", str(BOTS / "zwicker" / "random_bot.py"), "--name", "random", "--db", str(db), "--no-check")
    arena("bot", "add", str(BOTS / "zwicker" / "greedy_bot.py"), "--name", "greedy", "--db", str(db), "--no-check")
    arena("bot", "add", str(XSS_BOT), "--name", "xss", "--db", str(db), "--no-check")
    arena("tournament", "run", "--bots", "random,greedy,xss", "--boards", "2", "--seed", "11", "--name", "cup",
          "--sandbox", "none", "--quiet", "--db", str(db))
    return db


@pytest.fixture(scope="module")
def served(cup):
    server = Server(cup)
    yield server.url
    server.close()


def _number(text: str) -> float:
    return float(text.replace("−", "-").replace("+", "").strip() or "nan")


def standings_rows(page) -> list[dict]:
    return page.eval_on_selector_all("#standings tbody tr", """rows => rows.map(r => ({
        bot: r.getAttribute('data-bot'),
        cells: Object.fromEntries([...r.querySelectorAll('[data-col]')].map(c => [c.dataset.col, c.firstChild.textContent]))
    }))""")


def check_standings_against(page, db_path: Path, name: str) -> None:
    with schema.open_db(db_path, create=False) as db:
        expected = read.standings(db, read.get_tournament(db, name)["id"])
    shown = standings_rows(page)
    assert [r["bot"] for r in shown] == [r["bot"] for r in expected]
    for got, want in zip(shown, expected):
        c = got["cells"]
        assert abs(_number(c["elo"]) - want["elo"]) <= 0.5, (got, want)
        assert [int(c[k]) for k in ("boards", "wins", "draws", "losses", "faults")] == \
            [want[k] for k in ("boards", "wins", "draws", "losses", "faults")]
        assert _number(c["margin"]) == pytest.approx(want["avg_margin"], abs=0.051)


def test_the_live_page_follows_a_real_tournament(tmp_path, page):
    """While `arena tournament run` plays, the open page's standings change without a reload;
    at the end they are the database's."""
    db = tmp_path / "arena.db"
    names = ["random", "greedy", "sweeper", "builder", "first"]
    for name in names:
        arena("bot", "add", str(BOTS / "zwicker" / f"{name}_bot.py"), "--name", name, "--db", str(db), "--no-check")
    with schema.open_db(db, create=False) as conn:  # made before the page opens, played once it is open:
        runner.prepare(conn, "live", names, runner.Settings(boards=8, seed=2))  # at any pace, 80 boards do
    server = Server(db)
    run = None
    try:
        page.goto(server.url)
        page.wait_for_selector("#tournaments a", timeout=WAIT_MS)  # the list shows it once it exists
        page.click("#tournaments a")
        page.wait_for_selector("#standings tbody tr")
        page.wait_for_function("() => document.querySelectorAll('#standings tbody tr').length === 5")
        page.evaluate("window.__same_page = true")
        first = page.text_content("[data-test=progress]")
        first_rows = standings_rows(page)
        assert first_rows and first.startswith("0 of 80 boards"), first
        run = subprocess.Popen(
            [sys.executable, "-m", "arena", "tournament", "run", "--resume", "live", "--sandbox", "none",
             "--processes", "1", "--concurrency", "1", "--quiet", "--db", str(db)],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        page.wait_for_selector("#live", state="visible", timeout=WAIT_MS)
        page.wait_for_function(
            "rows => JSON.stringify([...document.querySelectorAll('#standings tbody tr [data-col=boards]')]"
            ".map(c => c.textContent)) !== rows",
            arg=json.dumps([r["cells"]["boards"] for r in first_rows], separators=(",", ":")), timeout=WAIT_MS)
        assert page.text_content("[data-test=progress]") != first
        shot(page, "live-running")
        assert run.wait(timeout=600) == 0, run.stderr.read()  # a guard: a loaded machine plays 80 boards slowly
        page.wait_for_selector(".page-head .badge.finished", timeout=WAIT_MS)
        page.wait_for_selector("#history", timeout=WAIT_MS)
        assert page.evaluate("window.__same_page") is True  # never reloaded
        assert page.text_content("[data-test=progress]").startswith("80 of 80 boards")
        assert not page.is_visible("#live") and page.locator("#in-play").count() == 0  # nothing in play any more
        check_standings_against(page, db, "live")
        shot(page, "live-finished")
    finally:
        if run is not None:
            if run.poll() is None:
                run.terminate()
                run.wait()
            run.stderr.close()
        server.close()


def test_standings_and_crosstable_match_the_database(page, served, cup):
    page.goto(served + "#t=1")
    page.wait_for_selector("#standings tbody tr")
    check_standings_against(page, cup, "cup")
    with schema.open_db(cup, create=False) as db:
        ct = read.crosstable(db, 1)
    cells = page.eval_on_selector_all("#crosstable tbody tr", "rows => rows.map(r => [...r.querySelectorAll('td.cell')]"
                                      ".map(c => c.getAttribute('title')))")
    for row, shown in zip(ct["rows"], cells):
        for other, title in zip(ct["bots"], shown):
            c = row["results"].get(other)
            if c is None:
                assert title is None
            else:
                assert title.startswith(f"{row['bot']} v {other}: {c['wins']}-{c['draws']}-{c['losses']} in {c['boards']} boards")
    shot(page, "tournament")


def hand_cards(page, seat: int) -> list[str | None]:
    return page.eval_on_selector_all(f"#felt .seat[data-seat='{seat}'] .hand .cardface",
                                     "cs => cs.map(c => c.getAttribute('data-card'))")


def test_stepping_through_a_replay(page, served, cup):
    with schema.open_db(cup, create=False) as db:
        deal_id = next(r[0] for r in db.execute(
            "SELECT d.id FROM deals d JOIN seats s ON s.table_id = d.table_id AND s.seat = 0"
            " JOIN bots b ON b.id = s.bot_id WHERE b.name != 'xss' AND d.complete = 1 ORDER BY d.id"))
        d = read.get_deal(db, deal_id)
    states = [rules.deal(d["variant"], d["seed"], d["dealer"])]
    for m in d["moves"]:
        states.append(states[-1].apply(m["move"]))
    n = len(d["moves"])

    def at(step: int) -> None:
        page.wait_for_function(f"() => document.querySelector('#stepno')?.textContent === 'move {step} / {n}'")
        assert page.evaluate("location.hash").endswith(f"step={step}")
        for seat in range(4):
            if page.locator(f"#felt .seat[data-seat='{seat}'] .cardface.back").count() == 0:
                assert hand_cards(page, seat) == list(states[step].hands[seat])
        table = page.eval_on_selector_all("#table-units .unit", "us => us.map(u => [...u.querySelectorAll('.cardface')]"
                                          ".map(c => c.getAttribute('data-card')))")
        assert table == [list(u.cards) if isinstance(u, rules.Build) else [u] for u in states[step].table]

    page.goto(served + f"#deal={deal_id}")
    at(0)
    assert page.is_disabled("#back") and page.is_disabled("#first")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    at(3)
    page.click("#forward")
    at(4)
    page.click("#movelist li[data-step='10']")
    at(10)
    page.fill("#jump", "20")
    page.press("#jump", "Enter")
    at(20)
    page.keyboard.press("ArrowLeft")
    at(19)
    page.click("#views button[data-seat='2']")
    page.wait_for_function("() => location.hash.includes('seat=2')")
    for seat in (0, 1, 3):
        assert hand_cards(page, seat) == [None] * len(states[19].hands[seat])
    assert hand_cards(page, 2) == list(states[19].hands[2])
    shot(page, "replay-seat-view")
    page.keyboard.press("End")
    at(n)
    assert page.is_disabled("#forward")
    totals = page.eval_on_selector_all("#breakdown tbody tr", "rs => rs.map(r => r.lastElementChild.textContent)")
    assert [int(x) for x in totals] == d["points"] == states[n].score()
    shot(page, "replay-end")

    # a shared address opens at its view and step
    page.goto(served + f"#deal={deal_id}&seat=1&step=5")
    at(5)
    assert page.get_attribute("#views button[data-seat='1']", "class") == "on"
    assert hand_cards(page, 0) == [None] * len(states[5].hands[0])


def xss_checks(page, base: str, bot_id: int) -> None:
    """Visit every page that shows the bot's words; each shows them as text and runs none."""
    page.goto(base + f"#t=1&bot={bot_id}")
    page.wait_for_selector("#faults pre.stderr")
    assert XSS_NAME in page.eval_on_selector_all(".announced .says", "ss => ss.map(s => s.textContent)")
    assert page.is_visible(f"text={XSS_NAME}")
    assert page.text_content("#faults pre.stderr").strip().endswith('<img src=x onerror="window.__xss = 3"><b>not bold</b>')
    shot(page, "xss-bot-page")
    deal = page.get_attribute("#faults a[href^='#deal=']", "href")
    for target, ready in (("#t=1", "#crosstable"), ("#t=1&match=1", "#boards"), (deal, "#seats")):
        page.goto(base + target)
        page.wait_for_selector(ready)
        if target == deal:
            said = page.eval_on_selector_all("#seats .says", "ss => ss.map(s => s.textContent)")
            assert f"{XSS_NAME} <script>window.__xss = 2</script>" in said
            page.keyboard.press("End")  # where the crashed bot stopped: the forfeit, no score
            page.wait_for_selector("#breakdown")
            assert "The deal stopped here." in page.text_content("#breakdown")
            assert re.search(r"Seat \d faulted \(crash: closed its output", page.text_content("#breakdown"))
    for target, ready in (("#t=1&bot=%d" % bot_id, "#faults"), (deal, "#seats"), ("#t=1", "#crosstable")):
        page.goto(base + target)
        page.wait_for_selector(ready)
        assert page.evaluate("document.images.length") == 0
        assert page.evaluate("document.querySelectorAll('main b, main script, main img').length") == 0
        assert page.evaluate("window.__xss") is None


def test_untrusted_text_stays_text_when_served(page, served, cup):
    with schema.open_db(cup, create=False) as db:
        bot_id = db.execute("SELECT id FROM bots WHERE name = 'xss'").fetchone()[0]
    xss_checks(page, served, bot_id)


def test_untrusted_text_stays_text_in_the_report(page, cup, tmp_path):
    """The report has no Content-Security-Policy to fall back on: only the escaping protects it."""
    out = tmp_path / "site"
    with schema.open_db(cup, create=False) as db:
        write_site(db, "cup", out)
        bot_id = db.execute("SELECT id FROM bots WHERE name = 'xss'").fetchone()[0]
    xss_checks(page, (out / "index.html").as_uri(), bot_id)


def test_the_report_opens_from_disk(page, cup, tmp_path):
    out = tmp_path / "site"
    with schema.open_db(cup, create=False) as db:
        write_site(db, "cup", out)
    page.goto((out / "index.html").as_uri())
    page.wait_for_selector("#standings tbody tr")  # `arena report cup` opens on cup, not on a list
    assert page.evaluate("location.hash") == "#t=1" and page.text_content(".page-head h1") == "cup"
    check_standings_against(page, cup, "cup")
    page.click("#crumbs a")  # and its list is one click away
    page.wait_for_selector("#tournaments a")
    page.click("#tournaments a")
    page.wait_for_selector("#standings tbody tr")
    page.click("#matches a >> nth=0")
    page.wait_for_selector("#boards a[href^='#deal=']")
    page.click("#boards a[href^='#deal=']")
    page.wait_for_selector("#stepno")
    page.keyboard.press("End")
    page.wait_for_selector("#breakdown")
    shot(page, "report-replay")
    assert os.path.exists(out / "index.html")


# ---- the pages say what the terminal says, and fit a phone ------------------------------------

FAULTY = Path(__file__).resolve().parent / "faulty"


@pytest.fixture(scope="module")
def separated(tmp_path_factory) -> Path:
    """A real gauntlet of the crashing bot against random and greedy: both win every board (a
    perfect record, shown `> X`), the crasher loses every one (`< X`): a separated pool."""
    db = tmp_path_factory.mktemp("separated") / "arena.db"
    arena("bot", "add", str(BOTS / "zwicker" / "random_bot.py"), "--name", "random", "--db", str(db), "--no-check")
    arena("bot", "add", str(BOTS / "zwicker" / "greedy_bot.py"), "--name", "greedy", "--db", str(db), "--no-check")
    arena("bot", "add", str(FAULTY / "crash.py"), "--name", "crash", "--no-check", "--db", str(db))
    arena("tournament", "run", "--bots", "random,greedy,crash", "--gauntlet", "crash", "--boards", "2",
          "--seed", "11", "--name", "sep", "--sandbox", "none", "--quiet", "--db", str(db))
    return db


def terminal_standings(db: Path, name: str) -> tuple[list[str], list[dict[str, str]], list[str]]:
    """`arena standings NAME` as printed: its headings, each row's cells by column key (cut at the
    column boundaries the dashes line draws) and the lines under the table."""
    from arena.results.present import COLUMNS

    lines = arena("standings", name, "--db", str(db)).splitlines()
    n = len(json.loads(arena("standings", name, "--db", str(db), "--json"))["standings"])
    spans = [(m.start(), m.end()) for m in re.finditer(r"-+", lines[2])]
    assert len(spans) == len(COLUMNS)
    cut = lambda line: [line[a:b].strip() for a, b in spans]  # noqa: E731
    rows = [dict(zip([k for k, _, _ in COLUMNS], cut(line))) for line in lines[3:3 + n]]
    return cut(lines[1]), rows, lines[3 + n:]


def page_standings(page) -> tuple[list[str], list[dict[str, str]], list[str]]:
    heads = page.eval_on_selector_all("#standings thead th[data-col]", "hs => hs.map(h => h.textContent)")
    rows = page.eval_on_selector_all("#standings tbody tr", """rows => rows.map(r => Object.fromEntries(
        [...r.querySelectorAll('td[data-col]')].map(c => [c.dataset.col,
          (c.dataset.col === 'bot' ? c.querySelector('a').textContent : c.innerText).trim()])))""")
    notes = page.eval_on_selector_all("#standings-notes p:not(.wide-only)", "ps => ps.map(p => p.textContent)")
    return heads, rows, notes


def check_like_the_terminal(page, terminal: tuple[list[str], list[dict[str, str]], list[str]]) -> None:
    """Row by row, cell by cell: the page's standings are the terminal's (`terminal_standings`)."""
    heads, rows, notes = terminal
    shown_heads, shown_rows, shown_notes = page_standings(page)
    assert shown_heads == heads
    assert shown_rows == rows
    swiss = [line for line in notes if line.startswith("Swiss")]  # the pairing: the page's settings say it
    assert shown_notes == [line for line in notes if line not in swiss]


def test_the_pages_render_the_standings_as_the_terminal_does(page, separated, tmp_path):
    """A pool with perfect records, a zero record and separated groups: the served tournament page,
    each bot's page and the static report print what `arena standings` prints."""
    heads, rows, notes = terminal = terminal_standings(separated, "sep")
    assert [r["interval"][0] for r in rows] == [">", ">", "<"]  # what this pool is about
    assert any(line.startswith("Separated: ") for line in notes) and "vs pool mean, 95%" in heads
    assert rows[2]["los"] == "-" and rows[2]["faults"] == "8 !"  # (the LOS figures are the rating model's)
    server = Server(separated)
    try:
        page.goto(server.url + "#t=1")
        page.wait_for_selector("#standings tbody tr")
        check_like_the_terminal(page, terminal)
        shot(page, "standings-separated")
        hrefs = dict(page.eval_on_selector_all("#standings tbody tr", "rs => rs.map(r => [r.dataset.bot,"
                                               " r.querySelector('td.bot a').getAttribute('href')])"))
        for want in rows:
            page.goto(server.url + hrefs[want["bot"]])  # the same document, another hash: wait for its page
            page.wait_for_function("name => document.querySelector('#bot-name')?.textContent === name", arg=want["bot"])
            got = {k: page.text_content(f"dl.settings dd[data-col={k}]") for k in ("elo", "interval", "los", "boards", "margin")}
            assert got == {k: want[k] for k in got}
            assert page.text_content("dl.settings dd[data-col=rank]") == f"{want['rank']} of 3"
    finally:
        server.close()
    out = tmp_path / "site"
    with schema.open_db(separated, create=False) as db:
        write_site(db, "sep", out)
    page.goto((out / "index.html").as_uri())
    page.wait_for_selector("#standings tbody tr")
    check_like_the_terminal(page, terminal)


PAGES = [("index", "", "#tournaments"), ("tournament", "#t=1", "#standings"), ("bot", "#t=1&bot=2", "#bot-name"),
         ("match", "#t=1&match=1", "#boards"), ("replay", "#deal=1", "#stepno")]


def test_every_page_fits_a_phone_with_the_standings_first(browser, served):
    """At 400 x 800 no page scrolls sideways and the tournament page opens with its standings;
    screenshots of every page at 1280 and 400 px go to results/screenshots/."""
    for width, height in ((1280, 900), (400, 800)):
        context = browser.new_context(viewport={"width": width, "height": height})
        p = context.new_page()
        errors: list[str] = []
        p.on("pageerror", lambda e: errors.append(str(e)))
        try:
            for name, target, ready in PAGES:
                p.goto(served + target)
                p.wait_for_selector(ready)
                if name == "replay":
                    p.keyboard.press("End")
                    p.wait_for_selector("#breakdown")
                shot(p, f"{name}-{width}")
                scroll = p.evaluate("document.documentElement.scrollWidth")
                assert scroll <= width, (name, width, scroll)
            p.goto(served + "#t=1")
            p.wait_for_selector("#standings")
            first = p.evaluate("document.querySelector('main section.card').querySelector('table')?.id")
            assert first == "standings"
            if width == 400:  # what the dropped columns held is in the bot's cell
                sub = p.text_content("#standings tbody tr .sub")
                assert re.fullmatch(r"\d+ boards · \d+-\d+-\d+ · [+-]\d+\.\d a board( · .* faults)?", sub), sub
                assert p.is_visible("#standings [data-col=los]") and not p.is_visible("#standings tbody [data-col=wins]")
                assert p.evaluate("document.querySelector('#standings').scrollWidth <= "
                                  "document.querySelector('#standings').parentElement.clientWidth")  # no scrollbar in its card
        finally:
            context.close()
        assert not errors, errors


def test_a_replay_takes_its_sides_from_the_variant_and_plays_itself(page, served, cup):
    """The seats' sides come from the page data (the variant's layout), not from the number of
    players; play steps the moves by itself; a build says how its value comes about."""
    with schema.open_db(cup, create=False) as db:
        deal_id = db.execute("SELECT id FROM deals ORDER BY id LIMIT 1").fetchone()[0]
    page.goto(served + f"#deal={deal_id}")
    page.wait_for_selector("#stepno")
    sides = page.eval_on_selector_all("#seats tbody tr", "rs => rs.map(r => r.children[1].textContent)")
    assert sides == ["0", "1", "0", "1"]
    page.click("#play")
    page.wait_for_function("() => !document.querySelector('#stepno').textContent.startsWith('move 0 ')", timeout=WAIT_MS)
    page.click("#play")  # pause
    sums = page.eval_on_selector_all("#movelist .sum", "ss => ss.map(s => s.textContent)")
    assert all(re.fullmatch(r"\d+ [+−] \d+ = \d+", x) for x in sums)
    assert page.text_content("#running-score").startswith("Points so far: side 0 ")


@pytest.fixture(scope="module")
def sprts(tmp_path_factory) -> tuple[Path, str, str]:
    """Two real `arena sprt` runs in one database: greedy against random (tournament 1, accepts
    H1), then random against greedy (tournament 2, accepts H0); with what each printed."""
    db = tmp_path_factory.mktemp("sprt") / "arena.db"
    arena("bot", "add", str(BOTS / "zwicker" / "random_bot.py"), "--name", "random", "--db", str(db), "--no-check")
    arena("bot", "add", str(BOTS / "zwicker" / "greedy_bot.py"), "--name", "greedy", "--db", str(db), "--no-check")
    said = arena("sprt", "greedy", "random", "--elo0", "0", "--elo1", "150", "--max-boards", "40", "--batch", "4",
                 "--seed", "123456789012345", "--sandbox", "none", "--name", "test", "--db", str(db))
    said_h0 = arena("sprt", "random", "greedy", "--elo0", "0", "--elo1", "150", "--max-boards", "40", "--batch", "4",
                    "--seed", "123456789012345", "--sandbox", "none", "--quiet", "--name", "h0", "--db", str(db))
    return db, said, said_h0


def test_an_sprt_page_shows_its_llr_between_its_bounds_and_its_verdict(page, sprts):
    """A real `arena sprt` that accepts H1: its page draws the LLR over the boards it counted with
    both bounds, and gives the hypotheses, error rates, pentanomial counts, verdict and NEW's Elo."""
    db, said, _ = sprts
    from arena.results import sprt_tests

    with schema.open_db(db, create=False) as d:
        stored = sprt_tests.get(d, 1)
        stored_played = len(sprt_tests.board_scores(d, 1))
    server = Server(db)
    try:
        page.goto(server.url + "#t=1")
        page.wait_for_selector("#sprt #llr polyline.llr")
        assert page.evaluate("document.querySelector('main section.card').id") == "sprt"  # before the standings
        verdict = {"H1": "H1 accepted", "H0": "H0 accepted", "limit": "stopped at the board limit"}[stored["verdict"]]
        assert page.text_content("#sprt-verdict").startswith(verdict)
        assert f"\n{page.text_content('#sprt-verdict')}, after {stored['boards']} boards" in said  # the terminal's words
        assert page.text_content("#sprt-faults") == f"Faults: none in {2 * stored_played} tables." and \
            f"\n{page.text_content('#sprt-faults')}\n" in said
        points = page.get_attribute("#llr polyline.llr", "points").split()
        assert len(points) == stored["boards"] + 1
        assert page.locator("#llr line.bound-h1").count() == 1 and page.locator("#llr line.bound-h0").count() == 1
        shown = page.eval_on_selector_all("#pentanomial tbody td.num", "ts => ts.map(t => Number(t.textContent))")
        assert shown == stored["counts"]
        facts = page.text_content("#sprt-facts")
        assert f"{stored['llr']:.2f} after {stored['boards']} boards" in facts
        assert "H0: greedy is 0.0 Elo better per room; H1: +150.0" in facts and "α 0.05" in facts and "β 0.05" in facts
        assert "greedy's Elo" in facts and "per room (95%: " in facts
        shot(page, "sprt-1280")
        page.set_viewport_size({"width": 400, "height": 800})
        page.wait_for_selector("#sprt")
        assert page.evaluate("document.documentElement.scrollWidth") <= 400
        assert page.evaluate("document.querySelector('#standings').scrollWidth <= "
                             "document.querySelector('#standings').parentElement.clientWidth")
        shot(page, "sprt-400")
    finally:
        server.close()


def test_an_sprt_that_accepts_h0_says_so_in_the_terminals_words(page, sprts):
    """H0 is accepted against elo1 (NEW is not better by elo1): the page's verdict is the line
    `arena sprt` printed."""
    db, _, said = sprts
    assert said.startswith("H0 accepted: random is not better than greedy by elo1 = 150, after ")
    server = Server(db)
    try:
        page.goto(server.url + "#t=2")
        page.wait_for_selector("#sprt #sprt-verdict")
        assert page.text_content("#sprt-verdict") == said.split(", after ")[0]
    finally:
        server.close()


def test_a_person_watches_a_table_in_play_without_its_hands(page, tmp_path):
    """A running tournament (its run lock held, as `arena tournament run` holds it) whose room
    publishes its table mid-deal: the tournament page marks the match in play and links to the
    room, whose page draws the public view (hands face down, as many as each holds) and follows
    it as the table plays on."""
    from arena.play import live
    from arena.results import live as published, write
    from arena.results.lock import run_lock

    db_path = tmp_path / "arena.db"
    arena("bot", "add", str(BOTS / "zwicker" / "random_bot.py"), "--name", "random", "--db", str(db_path), "--no-check")
    arena("bot", "add", str(BOTS / "zwicker" / "greedy_bot.py"), "--name", "greedy", "--db", str(db_path), "--no-check")
    with schema.open_db(db_path) as db:
        r, g = (b["id"] for b in db.query("SELECT id FROM bots ORDER BY id"))
        tid = write.create_tournament(db, "now", seed=1, variant={"preset": "jensen"}, format="deal", partners="clone",
                                      boards=2, settings={"sandbox": "none"}, bot_ids=[r, g], matches=[([r, r], [g, g])])
        write.set_status(db, tid, "running")
    state = rules.deal("jensen", rules.deal_seed(77, 1), 1)
    moves = []
    for _ in range(5):
        move = state.legal_moves()[0]
        moves.append({"seat": state.to_move, "move": move.to_dict(), "ms": 1.0})
        state = state.apply(move)
    watch = live.Watch(published.folder(db_path, tid), "now/m1", 1, False, [r, g, r, g], every_s=0, sync=True)
    server = Server(db_path)
    with run_lock(db_path, tid, "now"):
        try:
            watch("now/m1/straight/b1", 0, ZwickerState(state), moves)
            page.goto(server.url + f"#t={tid}")
            page.wait_for_selector("#in-play a[href^='#live=']")
            assert page.get_attribute("#matches tbody tr", "class") == "playing"
            page.click("#in-play a[href^='#live=']")
            page.wait_for_selector("#live-felt")
            for seat in range(4):
                cards = page.eval_on_selector_all(f"#live-felt .seat[data-seat='{seat}'] .cardface",
                                                  "cs => cs.map(c => c.getAttribute('data-card'))")
                assert cards == [None] * len(state.hands[seat])  # face down, every one
            units = page.eval_on_selector_all("#live-units .unit", "us => us.map(u => [...u.querySelectorAll('.cardface')]"
                                              ".map(c => c.getAttribute('data-card')))")
            assert units == [list(u.cards) if isinstance(u, rules.Build) else [u] for u in state.table]
            assert page.locator("#live-moves li").count() == 5
            shot(page, "live-table-1280")
            move = state.legal_moves()[0]  # the table plays on: the open page follows
            moves.append({"seat": state.to_move, "move": move.to_dict(), "ms": 1.0})
            state = state.apply(move)
            watch("now/m1/straight/b1", 0, ZwickerState(state), moves)
            page.wait_for_function("() => document.querySelectorAll('#live-moves li').length === 6", timeout=WAIT_MS)
            page.set_viewport_size({"width": 400, "height": 800})
            assert page.evaluate("document.documentElement.scrollWidth") <= 400
            shot(page, "live-table-400")
            watch.close()  # the room ends: the page says so
            page.wait_for_selector("#live-ended", timeout=WAIT_MS)
        finally:
            server.close()


def _document(url: str, key: str) -> dict:
    """A view's JSON, from the route that also answers its page."""
    import urllib.request

    with urllib.request.urlopen(url + key + "?format=json", timeout=60) as r:
        return json.loads(r.read())


def _listed(p, selector: str) -> list[list]:
    """An entrant list's items: [name, number shown, the number's data, its note]."""
    return p.eval_on_selector_all(selector + " li[data-entrant]", """ls => ls.map(l => [l.firstChild.textContent,
        l.querySelector('[data-result]').textContent, Number(l.querySelector('[data-result]').dataset.result),
        (l.querySelector('[data-note]') || {}).textContent || null])""")


def _signed(x: int) -> str:
    return "+" + str(x) if x > 0 else "\u2212" + str(-x) if x < 0 else "0"


def check_one_match_shape(browser, url: str, tid: int, name: str) -> None:
    """Every listing of a match shows its k entrants alike, whatever the game and its player
    count: the tournament's matches and latest boards, a match's head, totals and boards, a
    bot's matches: each entrant (a side's bots, `a+b` for mixed partners) with its margin and
    W-D-L as the view's JSON says; no team A or B; nothing scrolls sideways at 1280 or 390 px."""
    doc = _document(url, f"t/{tid}")
    assert doc["matches"] and all("team_a" not in m and "team_b" not in m for m in doc["matches"] + doc["latest"])
    match = _document(url, f"t/{tid}/match/1")
    for width in (1280, 390):
        context = browser.new_context(viewport={"width": width, "height": 800})
        p = context.new_page()
        errors: list[str] = []
        p.on("pageerror", lambda e: errors.append(str(e)))
        try:
            p.goto(url + f"#t={tid}")
            p.wait_for_selector("#matches tbody tr", timeout=WAIT_MS)
            for m in doc["matches"]:
                assert _listed(p, f"#matches tr[data-match='{m['match_no']}']") == [
                    [e, _signed(x), x, f" · {w}-{d}-{lost}"]
                    for e, x, w, d, lost in zip(m["entrants"], m["margins"], m["wins"], m["draws"], m["losses"])]
            for b in doc["latest"]:
                assert [x[:3] for x in _listed(p, f"#latest tr[data-match='{b['match_no']}'][data-board='{b['board_no']}']")] \
                    == [[e, _signed(x), x] for e, x in zip(b["entrants"], b["margins"])]
            text = p.text_content("main")
            assert "Team A" not in text and "(A)" not in text and "Margin A" not in text
            assert p.evaluate("document.documentElement.scrollWidth") <= width, "tournament"
            shot(p, f"{name}-matches-{width}")

            p.goto(url + f"#t={tid}&match=1")
            p.wait_for_selector("#boards tbody tr", timeout=WAIT_MS)
            m = match["match"]
            assert p.text_content("#match-entrants") == " v ".join(m["entrants"])
            done = [b for b in m["boards"] if b["margins"] is not None]
            totals = [sum(b["margins"][e] for b in done) for e in range(len(m["entrants"]))]
            assert [x[:3] for x in _listed(p, "#entrants")] == [[e, _signed(x), x] for e, x in zip(m["entrants"], totals)]
            for b in done:
                assert [x[2] for x in _listed(p, f"#boards tr[data-board='{b['board_no']}'] [data-col=results]")] == b["margins"]
                for tb in b["tables"]:
                    sel = f"#boards tr[data-board='{b['board_no']}'][data-room='{tb['room']}'] li[data-seat]"
                    sides = match["seat_sides"] or list(range(len(tb["seats"])))
                    assert p.eval_on_selector_all(sel, "ls => ls.map(l => Number(l.querySelector('[data-points]').dataset.points))") \
                        == [tb["points"][sides[s]] for s in range(len(tb["seats"]))]
            assert "(A)" not in p.text_content("main")
            assert p.evaluate("document.documentElement.scrollWidth") <= width, "match"
            shot(p, f"{name}-match-{width}")

            bot_id = next(iter(match["bot_ids"].values()))
            mine = _document(url, f"t/{tid}/bot/{bot_id}")["matches"]
            p.goto(url + f"#t={tid}&bot={bot_id}")
            p.wait_for_selector("#bot-matches tbody tr", timeout=WAIT_MS)
            assert p.eval_on_selector_all("#bot-matches [data-col=bot-wdl]", "cs => cs.map(c => c.textContent)") == \
                [f"{m['bot']['wins']}-{m['bot']['draws']}-{m['bot']['losses']}" for m in mine]
            assert p.eval_on_selector_all("#bot-matches [data-col=bot-margin]", "cs => cs.map(c => c.textContent)") == \
                [_signed(m["bot"]["margin"]) for m in mine]
            assert p.evaluate("document.documentElement.scrollWidth") <= width, "bot"
        finally:
            context.close()
        assert not errors, errors


def test_a_match_of_two_teams_is_its_two_entrants_on_every_page(browser, served):
    check_one_match_shape(browser, served, 1, "zwicker")


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """Four bots in mixed partners, a board a match: every split of them in two teams, served."""
    db = tmp_path_factory.mktemp("mixed") / "arena.db"
    for name, file in (("random", "random_bot.py"), ("greedy", "greedy_bot.py"), ("random2", "random_bot.py"),
                       ("greedy2", "greedy_bot.py")):
        arena("bot", "add", str(BOTS / "zwicker" / file), "--name", name, "--db", str(db), "--no-check")
    arena("tournament", "run", "--bots", "random,greedy,random2,greedy2", "--partners", "mixed", "--boards", "1",
          "--seed", "5", "--name", "mixed", "--sandbox", "none", "--quiet", "--db", str(db))
    server = Server(db)
    yield server.url
    server.close()


def test_a_match_of_mixed_partners_shows_each_sides_two_bots(browser, mixed):
    assert all(all("+" in e for e in m["entrants"]) for m in _document(mixed, "t/1")["matches"])
    check_one_match_shape(browser, mixed, 1, "mixed")
