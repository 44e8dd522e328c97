"""A game from outside in the browser: tests/data/toytrick, installed by its entry point into a
site folder of its own as pip lays one out (tests/test_games_conformance.install), played by the
real `arena`, served by `arena serve` and written by `arena report`, in Debian's Chromium at a
phone's width. As it is (no viewer) its replay steps through its frames' text; given a viewer
module in its own folder (the game object's `viewer`, with viewer.css beside it), the pages load
that module and its stylesheet from there, served and from disk alike. No script error either way."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_games_conformance import install
from tests.test_web_browser import ARGS, CHROMIUM, WAIT_MS, check_one_match_shape, shot, sync_api

ROOT = Path(__file__).resolve().parent.parent
VIEWER = """/* Toy Trick's viewer: each frame's text, marked as its own. */
export function replay(d, kit) {
  return {
    subtitle: "a toy deal " + d.deal_id,
    feltClass: "felt text-felt",
    draw: function (felt, k) { felt.appendChild(kit.h("pre", { id: "toy-frame", class: "frame-text" }, "toy: " + d.frames[k].text)); },
    score: function (c) { c.appendChild(kit.h("p", { id: "toy-score" }, "toy totals " + JSON.stringify(d.breakdown))); },
  };
}
"""


def _sites(tmp: Path) -> dict[str, Path]:
    plain = install(tmp / "plain")
    viewed = tmp / "viewed"
    shutil.copytree(plain, viewed)
    (viewed / "toytrick" / "viewer.js").write_text(VIEWER)
    (viewed / "toytrick" / "viewer.css").write_text("#toy-frame { color: rgb(1, 2, 3); }\n")
    with open(viewed / "toytrick" / "__init__.py", "a") as f:
        f.write('\nToyTrick.viewer = HERE / "viewer.js"  # (added by tests/test_web_outside.py)\n')
    return {"plain": plain, "viewed": viewed}


@pytest.fixture(scope="module")
def toy(tmp_path_factory) -> dict:
    """One tournament of the toy game (its two bots and the arena's random one), in a database
    read by either install: with and without its viewer."""
    tmp = tmp_path_factory.mktemp("outside")
    sites = _sites(tmp)
    db = tmp / "arena.db"

    def arena(site: str, *args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "arena", *args, "--db", str(db)], cwd=tmp, capture_output=True,
                              text=True, env={**os.environ, "PYTHONPATH": str(sites[site])}, timeout=600)
        assert done.returncode == 0, f"arena {' '.join(args)}: {done.stdout}\n{done.stderr}"
        return done.stdout

    bots = sites["plain"] / "toytrick" / "bots"
    import games
    for path in (bots / "low_bot.py", bots / "high_bot.py", games.RANDOM_BOT):
        arena("plain", "bot", "add", str(path), "--game", "toytrick", "--no-check")  # (checked in test_games_conformance)
    arena("plain", "tournament", "run", "--game", "toytrick", "--bots", "low,high,random", "--boards", "1",
          "--format", "rubber", "--name", "toy", "--seed", "99", "--sandbox", "none", "--quiet")
    return {"db": db, "sites": sites, "tmp": tmp, "arena": arena}


class Served:
    def __init__(self, db: Path, site: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "arena", "serve", "--db", str(db), "--port", "0"],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                                     env={**os.environ, "PYTHONPATH": str(site)})
        line = self.proc.stdout.readline()
        m = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
        assert m, (line, self.proc.stderr.read() if self.proc.poll() is not None else "")
        self.url = m[1]

    def close(self) -> str:
        self.proc.terminate()
        self.proc.wait()
        self.proc.stdout.close()
        err = self.proc.stderr.read()
        self.proc.stderr.close()
        return err


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


def _deal(served: Served, deal_id: int) -> dict:
    import urllib.request

    with urllib.request.urlopen(served.url + f"api/deal/{deal_id}", timeout=60) as r:
        return json.loads(r.read())


def step_through(browser, url: str, deal: dict, own_viewer: bool, name: str) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 800})
    p = context.new_page()
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    p.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
    try:
        for target, ready in (("#t=1", "#standings"), ("#t=1&match=1", "#boards")):
            p.goto(url + target)
            p.wait_for_selector(ready, timeout=WAIT_MS)
        p.goto(url + f"#deal={deal['deal_id']}")
        frame = "#toy-frame" if own_viewer else "#frame-text"
        p.wait_for_selector(frame, timeout=WAIT_MS)
        frames = deal["frames"]
        n = len(frames) - 1
        for k in range(n + 1):
            if k:
                p.keyboard.press("ArrowRight")
            p.wait_for_function(f"() => document.querySelector('#stepno').textContent === 'move {k} / {n}'")
            assert p.text_content(frame) == ("toy: " if own_viewer else "") + frames[k]["text"], k
        p.wait_for_selector("#breakdown")
        if not own_viewer:  # a seat's own view: State.text(seat), the others' hands hidden
            p.click("#views button[data-seat='1']")
            assert p.text_content(frame) == frames[n]["views"][1] != frames[n]["text"]
            p.keyboard.press("Home")
            p.wait_for_function(f"() => document.querySelector('#stepno').textContent === 'move 0 / {n}'")
            assert p.text_content(frame) == frames[0]["views"][1] != frames[0]["text"] and "cards)" in frames[0]["views"][1]
        if own_viewer:  # its stylesheet, from beside its module
            assert p.text_content("#toy-score").startswith("toy totals ")
            p.wait_for_function("() => getComputedStyle(document.querySelector('#toy-frame')).color === 'rgb(1, 2, 3)'")
        assert p.evaluate("document.documentElement.scrollWidth") <= 390
        shot(p, f"outside-{name}-390")
    finally:
        context.close()
    assert not errors, errors


@pytest.mark.parametrize("site", ["plain", "viewed"])
def test_an_outside_games_replay_steps_through_served_and_from_disk(browser, toy, site, tmp_path):
    served = Served(toy["db"], toy["sites"][site])
    try:
        deal = _deal(served, 1)
        assert (deal["viewer"] is None) == (site == "plain") and len(deal["frames"]) > 3
        step_through(browser, served.url, deal, site == "viewed", f"{site}-served")
    finally:
        assert "Traceback" not in served.close()
    out = tmp_path / "site"
    toy["arena"](site, "report", "toy", "--output", str(out))
    bundle = (out / "static" / "app.bundle.js").read_text()
    assert ('window.ZA_VIEWERS["toytrick"]' in bundle) == (site == "viewed")
    step_through(browser, (out / "index.html").as_uri(), deal, site == "viewed", f"{site}-report")


def test_an_outside_games_matches_are_its_entrants_on_every_page(browser, toy):
    served = Served(toy["db"], toy["sites"]["plain"])
    try:
        check_one_match_shape(browser, served.url, 1, "outside")
    finally:
        assert "Traceback" not in served.close()
