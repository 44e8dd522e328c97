"""An outside game through the whole arena, as its author would take it: tests/data/lonewolf (one
seat alone against a side of two, a face-down bury the others are told only happened, a trump
turned up mid-deal), a package of its own found by its `zwicker_arena.games` entry point,
installed into a site folder as pip lays one out, with no change to the arena. The installed
`arena` runs as a subprocess through `rules`, `bot add` (checked), `bot check`, a tournament
anchored on the arena's random bot, `replay`, `sprt`, the pages in a real browser (a replay
stepped through without a script error; its matches told as entrants, as every game's) and
`league serve --game` with a match played and its page loaded (docs/adding-a-game.md). What the arena stores is checked against the game's own
rules, not against numbers written here."""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import tomllib
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import games
from games import conformance

ROOT = Path(__file__).resolve().parents[1]
WOLF = ROOT / "tests" / "data" / "lonewolf"
CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WAIT_MS = 120_000  # how long a page may take to show what is waited for (not a speed check)
ARENA = Path(sys.executable).parent / "arena"  # the installed command, as its author runs it


def install(project: Path, site: Path) -> Path:
    """A package as `pip install` leaves it in site-packages: its folder, and a dist-info folder
    with its metadata and entry points (from its pyproject.toml)."""
    meta = tomllib.loads((project / "pyproject.toml").read_text())["project"]
    for package in tomllib.loads((project / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]:
        shutil.copytree(project / package, site / package, ignore=shutil.ignore_patterns("__pycache__"))
    info = site / f"{meta['name'].replace('-', '_')}-{meta['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {meta['name']}\nVersion: {meta['version']}\n")
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in points.items())
        for group, points in meta["entry-points"].items()))
    return site


@pytest.fixture(scope="module")
def wolf():
    sys.path.insert(0, str(WOLF))
    try:
        import lonewolf

        yield lonewolf
    finally:
        sys.path.remove(str(WOLF))
        sys.modules.pop("lonewolf", None)


def test_the_lone_wolf_conforms(wolf):
    conformance.check(wolf.GAME, ["classic", "short:players=4", {"players": 5, "tricks": 2}], boards=3)
    layout = wolf.GAME.layout(wolf.GAME.variant("players=4"))
    assert layout.sides == ((0,), (1, 2, 3))  # sides of unequal size


def test_a_spectator_is_told_a_private_move_as_the_seats_are(wolf, tmp_path):
    from arena.play import live

    game = wolf.GAME
    v = game.variant("players=4")
    watch = live.Watch(tmp_path, "cup/m1", 1, 0, [1, 2, 2, 2], every_s=0, sync=True, game=game, variant=v)
    state, moves = game.deal(v, 11, 0), []
    watch("cup/m1/straight/b0", 0, state, moves)
    while not state.is_over:
        move = state.legal_moves()[0][-1]
        public = state.public_move(move)
        state = state.apply(move)
        moves.append({"seat": 0, "move": move.to_dict()})
        watch("cup/m1/straight/b0", 0, state, moves)
        shown = json.loads(watch.path.read_text())["moves"][-1]
        assert shown["move"] == public and (shown["text"] == str(move)) == (public == move.to_dict()), shown
    buried = moves[0]["move"]["card"]
    assert buried not in json.dumps(json.loads(watch.path.read_text())["moves"][0])


class Lines:
    """A server's stdout read line by line on a thread, to wait for what it prints."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.proc, self.lines = proc, queue.Queue()
        self.thread = threading.Thread(target=self._drain, daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def wait_for(self, test) -> str:
        while True:
            line = self.lines.get(timeout=300)
            if line is None:
                raise AssertionError(f"the server ended: {self.proc.stderr.read()}")
            if test(line):
                return line

    def close(self) -> str:
        self.proc.terminate()
        self.proc.wait(timeout=60)
        self.thread.join(timeout=60)
        self.proc.stdout.close()
        err = self.proc.stderr.read()
        self.proc.stderr.close()
        return err


def get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def open_page(browser, url: str, ready: str):
    """A page at `url` once `ready` shows, and the script errors and warnings it logs."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
    page.goto(url)
    page.wait_for_selector(ready, timeout=WAIT_MS)
    return context, page, errors


@pytest.mark.slow
def test_an_outside_game_of_unequal_sides_goes_through_the_arena_unchanged(wolf, tmp_path):
    tmp_path.chmod(0o755)  # the league's sandbox reads the submitted copies
    site = install(WOLF, tmp_path / "site")
    env = {**os.environ, "PYTHONPATH": str(site), "ARENA_DB": str(tmp_path / "arena.db")}
    bots = site / "lonewolf" / "bots"

    def arena(*args: str, stdin: str | None = None, token: str | None = None) -> str:
        done = subprocess.run([str(ARENA), *args], cwd=tmp_path, input=stdin, capture_output=True,
                              text=True, env={**env, **({"ARENA_TOKEN": token} if token else {})}, timeout=600)
        assert done.returncode == 0, f"arena {' '.join(args)}: {done.stdout}\n{done.stderr}"
        return done.stdout

    # rules: listed, and a board played out by the rules as the game's own package plays it
    listed = {g["name"]: g for g in json.loads(arena("rules", "games", "--json"))}
    assert listed["lonewolf"]["anchor"] == games.RANDOM_NAME and listed["lonewolf"]["presets"] == ["classic", "short"]
    board = json.loads(arena("rules", "board", "--game", "lonewolf",
                             stdin='{"variant": "short:players=4", "seed": 7, "policy": "first", "format": "round"}\n'))
    game = wolf.GAME
    v, b = game.variant("short:players=4"), game.board(game.variant("short:players=4"), 7, 0, "round")
    while not b.is_over:
        state = b.deal()
        while not state.is_over:
            state = state.apply(state.legal_moves()[0][0])
        b = b.after(state)
    assert board["points"] == list(b.result().seats) and len(board["deals"]) == v.players

    # bots: checked at a table of the game as they are added, the random bot the anchor (where
    # to find it is said to whoever names it before adding it)
    refused = subprocess.run([str(ARENA), "tournament", "run", "--game", "lonewolf", "--bots", "random,random", "--name", "early"],
                             cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600)
    assert refused.returncode != 0 and f"arena bot add {games.RANDOM_BOT} --game" in refused.stderr, refused.stderr
    assert "added" in arena("bot", "add", str(bots / "greedy_bot.py"), "--game", "lonewolf")
    for path in (bots / "timid_bot.py", games.RANDOM_BOT):  # (as the ones checked)
        arena("bot", "add", str(path), "--game", "lonewolf", "--no-check")
    check = arena("bot", "check", str(bots / "greedy_bot.py"), "--game", "lonewolf", "--variant", "players=4")
    assert "conformant" in check and "NOT" not in check  # its bot imports the game's own package, sandboxed

    # a tournament: every pair of bots, the wolf's side and the pack's held in turn
    arena("tournament", "run", "--game", "lonewolf", "--bots", "greedy,timid,random", "--boards", "2",
          "--name", "wolf", "--seed", "123456789012345", "--quiet")
    standings = json.loads(arena("standings", "wolf", "--json"))
    assert standings["game"] == "lonewolf" and standings["anchor"] == games.RANDOM_NAME
    rows = {r["bot"]: r for r in standings["standings"]}
    assert set(rows) == {"greedy", "timid", "random"} and rows["random"]["elo"] == 0 and rows["random"]["anchor"]
    assert all(r["boards"] == 2 * 2 for r in rows.values())  # two opponents, two boards each

    # swiss: every round's matches of the same shape as the first's (one entrant a side)
    arena("tournament", "run", "--game", "lonewolf", "--bots", "greedy,timid,random", "--boards", "1", "--name", "sw",
          "--pairing", "swiss", "--rounds", "2", "--seed", "123456789012346", "--quiet")
    assert arena("matches", "sw").count("/1 ") == 2  # one match a round (and a bye)

    # a replay: the stored deal replays by the game's rules; a seat is told a bury, not its card
    doc = json.loads(arena("replay", "1", "--json"))
    state = game.deal(game.variant(doc["variant"]), int(doc["seed"]), doc["dealer"], doc.get("carry"))
    for record in doc["moves"]:
        state = state.apply(record["move"])
    assert doc["points"] == list(state.result().sides) and doc["game"] == "lonewolf"
    buried = doc["moves"][0]["move"]
    seen = arena("replay", "1", "--seat", "1")
    assert buried["type"] == "bury" and f"plays {game.move_from_dict(buried)}" not in seen and "plays bury" in seen
    assert f"score: {doc['points']}" in seen

    # sprt: the two hold the sides in turn, the boards stored as a tournament of their own
    sprt = arena("sprt", "greedy", "timid", "--game", "lonewolf", "--max-boards", "4", "--elo0", "0", "--elo1", "50",
                 "--seed", "12345678901234567", "--quiet")
    assert "after 4 boards" in sprt or "accepted" in sprt.lower()

    if not CHROMIUM.exists():
        pytest.skip("needs Debian's chromium package (make test installs it as root)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs the playwright package (pip install -e '.[test]')")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            # the pages: the tournament, a match (each seat shows its side's points), a replay stepped through
            served = Lines(subprocess.Popen([str(ARENA), "serve", "--port", "0"], cwd=tmp_path,
                                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
            try:
                url = re.search(r"(http://127\.0\.0\.1:\d+/)", served.wait_for(lambda line: "http://" in line))[1]
                status, body = get(url + "api/deal/1")
                assert status == 200, body
                frames = json.loads(body)["frames"]
                n = len(frames) - 1
                context, page, errors = open_page(browser, url + "#t=1", "#standings")
                assert "greedy" in page.text_content("#standings")
                page.goto(url + "#t=1&match=1")
                page.wait_for_selector("#boards", timeout=WAIT_MS)
                shown = page.eval_on_selector_all("#boards [data-seat] .num", "els => els.map(e => e.textContent)")
                assert shown and "–" not in shown, shown  # the pack's second seat has its side's points too
                page.goto(url + "#deal=1")
                page.wait_for_selector("#frame-text", timeout=WAIT_MS)
                for k in range(n + 1):
                    if k:
                        page.keyboard.press("ArrowRight")
                    page.wait_for_function(f"() => document.querySelector('#stepno').textContent === 'move {k} / {n}'")
                    assert page.text_content("#frame-text") == frames[k]["text"], k
                page.wait_for_selector("#breakdown")
                # a seat's view lists the bury as that seat was told of it; "All hands" shows the card
                mover, other = frames[1]["move"]["seat"], (frames[1]["move"]["seat"] + 1) % len(doc["seats"])
                first = "#movelist li[data-step='1'] .mono"
                assert frames[1]["move"]["public"] == "bury" != frames[1]["move"]["text"]
                for seat, text in ((other, "bury"), (mover, frames[1]["move"]["text"]), (-1, frames[1]["move"]["text"])):
                    page.click(f"#views button[data-seat='{seat}']")
                    page.wait_for_function(f"() => document.querySelector(\"{first}\").textContent === {text!r}")
                context.close()
                assert not errors, errors
                from tests.test_web_browser import check_one_match_shape

                check_one_match_shape(browser, url, 1, "lonewolf")  # a side of one v a side of two: two entrants
            finally:
                assert "Traceback" not in served.close()

            # the league of the game: two bots meet, the match is rated and its page loads
            db = str(tmp_path / "league.db")
            token = arena("league", "author", "add", "ann", "--db", db).strip().splitlines()[-1]
            ladder = Lines(subprocess.Popen(
                [str(ARENA), "league", "serve", "--db", db, "--port", "0", "--boards", "1",
                 "--concurrency", "1", "--free", "--game", "lonewolf", "--players", "3"],
                cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
            try:
                url = ladder.wait_for(lambda line: "serving on" in line).split("serving on ")[1].split()[0].rstrip("/")
                for name, source in (("wolf", bots / "greedy_bot.py"), ("dice", games.RANDOM_BOT)):
                    folder = tmp_path / "src" / name
                    folder.mkdir(parents=True)
                    shutil.copy(source, folder / "bot.py")
                    for path in (folder.parent, folder, folder / "bot.py"):
                        path.chmod(0o755 if path.is_dir() else 0o644)
                    assert "conformant" in arena("submit", str(folder), "--server", url, "--name", name, token=token)
                assert ladder.wait_for(lambda line: line.startswith("match ")).count(" v ") == 1  # two sides, two entrants
                ladder.wait_for(lambda line: line.startswith("rated:") and line != "rated: 0 boards")
                status, body = get(url + "/api/standings")
                assert status == 200, body[:300]
                doc = json.loads(body)
                assert doc["game"] == "lonewolf" and {r["bot"].split("@")[0] for r in doc["standings"]} == {"wolf", "dice"}
                status, body = get(url + "/api/league")  # what the league's page draws
                assert status == 200 and json.loads(body)["recent"], body[:300]
                context, page, errors = open_page(browser, url + "/", "#recent")
                assert "wolf" in page.text_content("#standings") and "dice" in page.text_content("#recent")
                page.goto(url + "/match/1")
                page.wait_for_selector("#boards", timeout=WAIT_MS)
                shown = page.eval_on_selector_all("#boards [data-seat] .num", "els => els.map(e => e.textContent)")
                assert len(shown) == 2 * 3 and "–" not in shown, shown  # two rooms of three seats
                context.close()
                assert not errors, errors
            finally:
                assert "Traceback" not in ladder.close()
        finally:
            browser.close()
