"""A game without a viewer of its own in the browser: an OpenSpiel game (installed as every
outside game is, by its entry point; it names no viewer) played by the real `arena`, served by
`arena serve` and written by `arena report`, in Debian's Chromium at a desktop's width and a
phone's (390 px). Its replay steps through every frame's text (State.text, a seat's own view
when one is chosen) without a script error; no page script names a bundled game."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import games
from arena.report.server import STATIC
from arena.report.site import write_site
from arena.results import schema
from tests.test_web_browser import ARGS, CHROMIUM, WAIT_MS, Server, shot, sync_api

ROOT = Path(__file__).resolve().parent.parent
GAME = "openspiel:hearts"
pytest.importorskip("pyspiel", reason="needs OpenSpiel (the game without a viewer)")

POLICY_BOT = '''import os, random, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from policy_kit import run


def policy(observation, action_mask):
    return random.choice([a for a, ok in enumerate(action_mask) if ok])  # copy {k}


run(policy, name="random-policy")
'''


def test_no_page_script_names_a_bundled_game():
    """The pages reach every game alike: its viewer comes from the game's own place."""
    names = {n.lower() for n in games.BUNDLED}
    for name in games.BUNDLED:
        names |= {p.lower() for p in games.game(name).info.presets}
    for path in STATIC.glob("*.js"):
        text = path.read_text().lower()
        assert not [n for n in names if n in text], path.name


@pytest.fixture(scope="module")
def hearts(tmp_path_factory) -> Path:
    """One board of hearts (four rooms) between four random policy bots, by the installed `arena`."""
    folder = tmp_path_factory.mktemp("generic")
    bots = []
    for k in range(4):
        path = folder / f"p{k}" / f"rand{k}.py"
        path.parent.mkdir()
        path.write_text(POLICY_BOT.format(k=k))
        bots.append(str(path))
    done = subprocess.run([sys.executable, "-m", "arena", "tournament", "run", "--game", GAME, "--bots", ",".join(bots),
                           "--boards", "1", "--seed", "7", "--name", "h", "--sandbox", "none", "--quiet",
                           "--db", str(folder / "a.db")], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    return folder / "a.db"


@pytest.fixture(scope="module")
def deal(hearts) -> dict:
    from arena.report.pages import page
    with schema.open_db(hearts, create=False) as db:
        (deal_id,) = db.execute("SELECT MIN(id) FROM deals").fetchone()
        return page(db, f"deal/{deal_id}")


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


def test_its_deal_page_names_no_viewer_and_holds_each_frames_text(deal):
    assert getattr(games.game(GAME), "viewer", None) is None and deal["viewer"] is None
    assert all(isinstance(f["text"], str) and f["text"] for f in deal["frames"])
    assert len(deal["frames"]) > 40 and all(f["move"]["text"] for f in deal["frames"][1:])


def step_through(p, deal: dict, width: int, name: str) -> None:
    """Step from the first frame to the last with the keys, checking each frame's text (on a
    phone the first steps and the last); then a
    seat's own view; the result at the end; the page never wider than the window."""
    frames = deal["frames"]
    n = len(frames) - 1
    p.wait_for_selector("#frame-text")
    assert p.text_content("#stepno") == f"move 0 / {n}"
    for k in range(n + 1) if width > 400 else (0, 1, 2):  # on a phone: the first steps, then the end
        if k:
            p.keyboard.press("ArrowRight")
        p.wait_for_function(f"() => document.querySelector('#stepno').textContent === 'move {k} / {n}'")
        assert p.text_content("#frame-text") == frames[k]["text"], k
        if k:
            assert p.text_content("#lastmove").startswith(f"Move {k}: seat {frames[k]['move']['seat']} ")
    p.keyboard.press("End")
    p.wait_for_function(f"() => document.querySelector('#stepno').textContent === 'move {n} / {n}'")
    assert p.text_content("#frame-text") == frames[n]["text"]
    assert "Stored points: " in p.text_content("#breakdown")
    p.click("#views button[data-seat='2']")
    assert p.text_content("#frame-text") == frames[n]["views"][2]
    p.keyboard.press("Home")
    p.wait_for_function(f"() => document.querySelector('#stepno').textContent === 'move 0 / {n}'")
    assert p.text_content("#frame-text") == frames[0]["views"][2]
    shot(p, f"generic-replay-{name}-{width}")
    assert p.evaluate("document.documentElement.scrollWidth") <= width


def check_pages(browser, base: str, deal: dict, name: str) -> None:
    for width, height in ((1280, 900), (390, 800)):
        context = browser.new_context(viewport={"width": width, "height": height})
        p = context.new_page()
        errors: list[str] = []
        p.on("pageerror", lambda e: errors.append(str(e)))
        p.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
        try:
            for target, ready in (("#t=1", "#standings"), ("#t=1&match=1", "#boards")):
                p.goto(base + target)
                p.wait_for_selector(ready, timeout=WAIT_MS)
                assert p.evaluate("document.documentElement.scrollWidth") <= width, (target, width)
            p.goto(base + f"#deal={deal['deal_id']}")
            step_through(p, deal, width, name)
        finally:
            context.close()
        assert not errors, errors


def test_a_replay_without_a_viewer_steps_through_when_served(browser, hearts, deal):
    server = Server(hearts)
    try:
        check_pages(browser, server.url, deal, "served")
    finally:
        server.close()


def test_a_replay_without_a_viewer_steps_through_in_the_report(browser, hearts, deal, tmp_path):
    with schema.open_db(hearts, create=False) as db:
        write_site(db, "h", tmp_path / "site")
    bundle = (tmp_path / "site" / "static" / "app.bundle.js").read_text()
    assert 'window.ZA_VIEWERS["' not in bundle  # no viewer to bundle: the generic one draws it
    check_pages(browser, (tmp_path / "site" / "index.html").as_uri(), deal, "report")


def test_a_table_in_play_without_a_viewer_shows_its_seats_and_moves_and_no_hand(browser, hearts, tmp_path):
    """A room of the game publishing its table mid-deal (its tournament running, its run lock
    held): the live page draws its seats and moves with the generic viewer, at 390 px too, and
    neither it nor its JSON holds the frame's texts of the whole position (every hand)."""
    import shutil

    from arena.play import live
    from arena.results import live as published
    from arena.results import write
    from arena.results.lock import run_lock

    db_path = tmp_path / "a.db"
    shutil.copyfile(hearts, db_path)
    g = games.game(GAME)
    v = g.variant(None)
    with schema.open_db(db_path, create=False) as db:
        write.set_status(db, 1, "running")
        seats = [r[0] for r in db.execute("SELECT id FROM bots ORDER BY id")][:4]
    state = g.deal(v, 12345, 0)
    moves = []
    for _ in range(6):
        move = state.legal_moves()[0][0]
        moves.append({"seat": state.to_move, "move": move.to_dict(), "ms": 1.0})
        state = state.apply(move)
    watch = live.Watch(published.folder(db_path, 1), "h/m1", 1, 0, seats, every_s=0, sync=True, game=g, variant=v)
    server = Server(db_path)
    context = browser.new_context(viewport={"width": 390, "height": 800})
    p = context.new_page()
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    try:
        with run_lock(db_path, 1, "h"):
            watch("h/m1/straight/b0", 0, state, moves)
            status, body = _get(server.url + "api/t/1/live/1/straight")
            table = json.loads(body)["table"]
            assert status == 200 and table["viewer"] is None and table["moves"] and "text" not in table and "views" not in table
            p.goto(server.url + "#live=1-1-straight")
            p.wait_for_selector("#live-seats", timeout=WAIT_MS)
            assert p.locator("#live-moves li").count() == 6 and p.locator("#live-seats li").count() == 4
            assert p.text_content("#lastmove").startswith("Move 6: seat ")
            assert state.text() not in p.content()
            assert p.evaluate("document.documentElement.scrollWidth") <= 390
            shot(p, "generic-live-390")
            watch.close()
    finally:
        context.close()
        server.close()
    assert not errors, errors


def _get(url: str) -> tuple[int, bytes]:
    import urllib.request

    with urllib.request.urlopen(url, timeout=60) as r:
        return r.status, r.read()


def test_the_bundle_runs_the_modules_as_a_browser_would(browser, tmp_path):
    """arena/report/bundle.py on modules of its forms (named imports, renamed ones, export lists,
    declarations), run in Chromium as a classic script; forms it cannot take are refused."""
    from arena.errors import ArenaError
    from arena.report import bundle

    (tmp_path / "a.js").write_text('export const A = 2;\nexport function twice(x) { return A * x; }\n')
    (tmp_path / "b.js").write_text('import { twice as double, A } from "./a.js";\nconst B = double(A) + 1;\n'
                                   'function inner() { return B; }\nexport { B, inner as b };\n')
    (tmp_path / "main.js").write_text('import { B, b } from "./b.js";\nimport { A } from "./a.js";\n'
                                      'window.OUT = [A, B, b(), window.ZA_VIEWERS.g.replay(3)];\n')
    viewer = tmp_path / "viewer.js"
    viewer.write_text("export function replay(x) { return x + 1; }\n")
    script = bundle.bundle(tmp_path, "main.js", {"g": viewer})
    context = browser.new_context()
    p = context.new_page()
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    try:
        p.set_content("<!doctype html><title>t</title>")
        p.add_script_tag(content=script)
        assert p.evaluate("window.OUT") == [2, 5, 5, 4] and not errors, errors
    finally:
        context.close()
    (tmp_path / "c.js").write_text('import { x } from "./d.js";\nexport const y = 1;\n')
    (tmp_path / "d.js").write_text('import { y } from "./c.js";\nexport const x = 1;\n')
    with pytest.raises(ArenaError, match="circle"):
        bundle.bundle(tmp_path, "c.js", {})
    (tmp_path / "e.js").write_text("export default function () {}\n")
    with pytest.raises(ArenaError, match="cannot take"):
        bundle.bundle(tmp_path, "e.js", {})
    with pytest.raises(ArenaError, match="imports nothing"):
        bundle.bundle(tmp_path, "a.js", {"g": tmp_path / "b.js"})
