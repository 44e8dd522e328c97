"""A game without a viewer of its own in the browser: an OpenSpiel game (installed as every
outside game is, by its entry point; it names no viewer) played by the real `arena`, served by
`arena serve` and written by `arena report`, in Debian's Chromium at a desktop's width and a
phone's (390 px). Its replay steps through every frame's text (State.text, a seat's own view
when one is chosen) without a script error; no page script names a bundled game."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import games
from arena.report.server import STATIC
from arena.report.site import write_site
from arena.results import schema
from tests.test_web_browser import ARGS, CHROMIUM, WAIT_MS, Server, shot, sync_api  # noqa: F401

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
    """Step from the first frame to the last with the keys, checking each frame's text; then a
    seat's own view; the result at the end; the page never wider than the window."""
    frames = deal["frames"]
    n = len(frames) - 1
    p.wait_for_selector("#frame-text")
    assert p.text_content("#stepno") == f"move 0 / {n}"
    for k in range(n + 1):
        if k:
            p.keyboard.press("ArrowRight")
        p.wait_for_function(f"() => document.querySelector('#stepno').textContent === 'move {k} / {n}'")
        assert p.text_content("#frame-text") == frames[k]["text"], k
        if k:
            assert p.text_content("#lastmove").startswith(f"Move {k}: seat {frames[k]['move']['seat']} ")
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
