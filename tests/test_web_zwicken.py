"""Zwicken tournaments in the browser (issue 25 item 6): a real three-player tournament played by
the installed `arena`, served by `arena serve` and written by `arena report`, driven in Debian's
Chromium. The standings are the terminal's, matches and match pages show entrants and their
chips room by room, the replay viewer steps through every move of a deal and never shows a hand
that passed, a live room beyond the swapped one is drawn, and no page scrolls sideways at 400 px.
Screenshots go to results/screenshots/ (ignored by git)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import games
from arena.report.site import write_site
from arena.results import present, read, schema
from tests.test_web_browser import (WAIT_MS, Server, browser, check_one_match_shape, page, page_standings,  # noqa: F401 (fixtures)
                                   shot)


ARENA = Path(sys.executable).parent / "arena"
ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "bots"
G = games.game("zwicken")


def arena(db: Path, *args: str) -> str:
    done = subprocess.run([str(ARENA), *args, "--db", str(db)], capture_output=True, text=True, cwd=db.parent)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """Three bundled Zwicken bots, 2 boards of 3 rooms each, played by the installed `arena`."""
    db = tmp_path_factory.mktemp("zweb") / "arena.db"
    for name in ("random", "rule", "mc"):
        arena(db, "bot", "add", str(BOTS / "zwicken" / f"zwicken_{name}_bot.py"), "--name", f"z{name}", "--game", "zwicken", "--no-check")
    arena(db, "tournament", "run", "--game", "zwicken", "--players", "3", "--bots", "zrandom,zrule,zmc",
          "--boards", "2", "--seed", str(2**50 + 3), "--name", "zw", "--sandbox", "none", "--quiet")
    return db


@pytest.fixture(scope="module")
def served(played):
    server = Server(played)
    yield server.url
    server.close()


def expected_table(db: Path) -> dict:
    """`arena standings --json` rendered by present.table, as the terminal prints it."""
    return present.table(json.loads(arena(db, "standings", "zw", "--json")))


def check_standings(page, db: Path) -> None:
    want = expected_table(db)
    heads, rows, notes = page_standings(page)
    assert heads == [c["heading"] for c in want["columns"]] and "chips/board" in heads
    assert rows == [{c["key"]: r[c["key"]] for c in want["columns"]} for r in want["rows"]]
    assert notes == want["notes"] and any(line.startswith("W D L: each board compares") for line in notes)


def test_the_standings_are_the_terminals_served_and_reported(page, served, played, tmp_path):
    page.goto(served + "#t=1")
    page.wait_for_selector("#standings tbody tr")
    check_standings(page, played)
    assert "3 players, a bot each" in page.text_content(".page-head")
    out = tmp_path / "site"
    with schema.open_db(played, create=False) as db:
        write_site(db, "zw", out)
    page.goto((out / "index.html").as_uri())
    page.wait_for_selector("#standings tbody tr")
    check_standings(page, played)


def test_the_crosstable_matches_and_a_match_show_entrants_and_their_chips(page, served, played):
    with schema.open_db(played, create=False) as db:
        tid = read.get_tournament(db, "zw")["id"]
        matches = read.matches(db, tid)
        detail = read.match_detail(db, tid, 1)
        ct = read.crosstable(db, tid)
    page.goto(served + f"#t={tid}")
    page.wait_for_selector("#matches tbody tr")
    for m in matches:
        shown = page.eval_on_selector_all(f"#matches tr[data-match='{m['match_no']}'] li[data-entrant]",
                                          "ls => ls.map(l => [l.firstChild.textContent, Number(l.querySelector('[data-result]').dataset.result)])")
        assert shown == [list(x) for x in zip(m["entrants"], m["results"])]
    assert "team" not in page.text_content("#matches").lower()
    for i, row in enumerate(ct["rows"]):  # pairwise cells: the row bot's W-D-L against each other
        wdl = page.eval_on_selector_all(f"#crosstable tbody tr:nth-child({i + 1}) td.cell .wdl", "cs => cs.map(c => c.textContent)")
        assert wdl == [f"{c['wins']}-{c['draws']}-{c['losses']}" for other, c in row["results"].items()]
    page.goto(served + f"#t={tid}&match=1")
    page.wait_for_selector("#boards tbody tr")
    for b in detail["boards"]:
        assert len(b["tables"]) == 3
        for tb in b["tables"]:
            sel = f"#boards tr[data-board='{b['board_no']}'][data-room='{tb['room']}']"
            assert page.text_content(sel + " td:nth-child(" + ("3" if tb["room"] == 0 else "1") + ")") == \
                ["straight", "swapped", "room2"][tb["room"]]
            seats = page.eval_on_selector_all(sel + " li[data-seat]", "ls => ls.map(l => Number(l.querySelector('[data-points]').dataset.points))")
            assert seats == tb["points"]
        results = page.eval_on_selector_all(f"#boards tr[data-board='{b['board_no']}'] [data-col=results] [data-result]",
                                            "ns => ns.map(n => Number(n.dataset.result))")
        assert results == b["results"]
    shot(page, "zwicken-match-1280")


def passed_deal(db: Path) -> tuple[int, int, list[str], int]:
    """A stored deal in which a seat passed: its id, that seat, its hand as dealt, its moves."""
    with schema.open_db(db, create=False) as conn:
        for deal_id, in conn.execute("SELECT id FROM deals ORDER BY id"):
            d = read.get_deal(conn, deal_id)
            passes = [m["seat"] for m in d["moves"] if m["move"]["type"] == "pass"]
            if passes and any(m["move"]["type"] == "card" for m in d["moves"]):
                hand = G.deal(G.variant(d["variant"]), d["seed"], d["dealer"]).rules.hands[passes[0]]
                return deal_id, passes[0], list(hand), len(d["moves"])
    raise AssertionError("no deal with a pass and tricks")


def test_the_replay_steps_through_every_move_and_never_shows_a_passed_hand(page, served, played):
    deal_id, seat, hand, n = passed_deal(played)
    page.goto(served + f"#deal={deal_id}")
    page.wait_for_selector("#stepno")
    seen_tricks = 0
    for step in range(n + 1):
        assert page.text_content("#stepno") == f"move {step} / {n}"
        faces = page.eval_on_selector_all("#main [data-card]", "cs => cs.map(c => c.dataset.card)")
        assert not set(hand) & set(faces), (step, hand, faces)  # not before the pass, not after
        assert page.eval_on_selector_all(f"#felt .seat[data-seat='{seat}'] .cardface:not(.back)", "cs => cs.length") == 0
        if step:
            assert page.text_content("#lastmove").startswith(f"Move {step}: seat ")
        seen_tricks = max(seen_tricks, page.locator("#zw-tricks .zw-row").count())
        if step < n:
            page.click("#forward")
    assert seen_tricks == 3  # every trick, card by card, with its winner
    assert page.is_visible("#breakdown") and page.text_content(f"#felt .seat[data-seat='{seat}'] .hand").startswith("passed")
    shot(page, "zwicken-replay-end-1280")
    for s in range(3):  # one seat's view: the others' cards face down, and the passed hand still never
        page.click(f"#views button[data-seat='{s}']")
        faces = page.eval_on_selector_all("#felt .seat .hand .cardface:not(.back)", "cs => [...new Set(cs.map(c => c.closest('.seat').dataset.seat))]")
        assert set(faces) <= {str(s)}
        assert not set(hand) & set(page.eval_on_selector_all("#main [data-card]", "cs => cs.map(c => c.dataset.card)"))


def test_the_replays_pot_and_balances_are_the_stored_chips(page, served, played):
    """Each deal of a room starts from what its board carried: its last frame's result is the
    stored one, and the next deal starts from the balances this one ended with."""
    with schema.open_db(played, create=False) as db:
        ids = [r[0] for r in db.execute("SELECT d.id FROM deals d JOIN board_tables t ON t.id = d.table_id"
                                        " WHERE t.board_no = 0 AND t.swapped = 2 ORDER BY d.deal_no")]
        points = [read.get_deal(db, i)["points"] for i in ids]
    end, prev_pot = None, 0
    for deal_id, stored in zip(ids, points):
        data = json.loads(page.request.get(served + f"api/deal/{deal_id}").text())
        assert data["room"] == 2 and data["breakdown"]["net"] == stored
        if end is not None:  # the ante paid, the rest as the last one ended
            first = data["frames"][0]["balances"]
            assert sum(first) + data["frames"][0]["pot"] == sum(end) + prev_pot
        end, prev_pot = data["frames"][-1]["balances"], data["frames"][-1]["pot"]
    page.goto(served + f"#deal={ids[-1]}")
    page.wait_for_selector("#zw-pot")
    assert page.text_content("#zw-pot") == f"Pot: {data['frames'][0]['pot']} chips"


PAGES = [("tournament", "#t=1", "#standings"), ("match", "#t=1&match=1", "#boards"), ("bot", "#t=1&bot=2", "#bot-name"),
         ("replay", None, "#stepno")]


def test_every_zwicken_page_fits_a_phone(browser, served, played):
    deal_id = passed_deal(played)[0]
    for width, height in ((1280, 900), (400, 800)):
        context = browser.new_context(viewport={"width": width, "height": height})
        p = context.new_page()
        errors: list[str] = []
        p.on("pageerror", lambda e: errors.append(str(e)))
        try:
            for name, target, ready in PAGES:
                p.goto(served + (target or f"#deal={deal_id}&step=6"))
                p.wait_for_selector(ready)
                shot(p, f"zwicken-{name}-{width}")
                scroll = p.evaluate("document.documentElement.scrollWidth")
                assert scroll <= width, (name, width, scroll)
        finally:
            context.close()
        assert not errors, errors


def test_a_live_room_beyond_the_swapped_one(page, played, tmp_path):
    """room2 of a three-player match publishes its table (arena.play.live, as a room does): its
    page names the room and shows each hand face down, as many as it holds, and the trick."""
    from arena.play import live
    from arena.results import live as published

    db = tmp_path / "arena.db"
    shutil.copyfile(played, db)
    with schema.open_db(db, create=False) as conn:
        seats = [r[0] for r in conn.execute("SELECT s.bot_id FROM seats s JOIN board_tables t ON t.id = s.table_id"
                                            " WHERE t.board_no = 0 AND t.swapped = 2 ORDER BY s.seat")]
    v = G.variant("bayern,players=3")
    state, moves = G.deal(v, 12345, 2), []
    while state.rules.phase != "trick" or not state.rules.trick:
        legal = state.legal_moves()[0]
        move = next((m for m in legal if m.type == "play"), legal[0])  # every seat in: a trick to see
        moves.append({"seat": state.to_move, "move": move.to_dict(), "ms": 1.0})
        state = state.apply(move)
    watch = live.Watch(published.folder(db, 1), "zw/m1", 1, 2, seats, every_s=0, sync=True, game=G, variant=v)
    watch("zw/m1/room2/b0", 0, state, moves)
    server = Server(db)
    try:
        page.goto(server.url + "#live=1-1-room2")
        page.wait_for_selector("#live-felt")
        assert "room2 room · board 0" in page.text_content(".page-head")
        for seat in range(3):
            cards = page.eval_on_selector_all(f"#live-felt .seat[data-seat='{seat}'] .cardface", "cs => cs.map(c => c.dataset.card ?? null)")
            assert cards == [None] * len(state.rules.hands[seat])
        trick = page.eval_on_selector_all("#live-units .zw-trick .cardface", "cs => cs.map(c => c.dataset.card)")
        assert trick == [c for _, c in state.rules.trick]
        assert page.locator("#live-moves li").count() == len(moves)
        shot(page, "zwicken-live-room2-1280")
        page.set_viewport_size({"width": 400, "height": 800})
        assert page.evaluate("document.documentElement.scrollWidth") <= 400
        watch.close()
        page.wait_for_selector("#live-ended", timeout=WAIT_MS)
    finally:
        server.close()


def test_a_match_of_three_entrants_is_shown_like_any_other(browser, served, played):
    with schema.open_db(played, create=False) as db:
        tid = read.get_tournament(db, "zw")["id"]
    check_one_match_shape(browser, served, tid, "zwicken")
