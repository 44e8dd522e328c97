"""Where bots run without whole-bot limits (no writable cgroups: an ordinary user, a container
without them), every place that names the sandbox says so: the run's header and `bot check`
(arena.process.modes.label), the standings as text and JSON, and the tournament's page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import trio
from typer.testing import CliRunner

from arena.process import cgroups, modes
from arena.report import pages
from arena.results import present, read, registry, schema
from arena.tournaments import runner
from tests.test_hostile import FAST, SMALL

ROOT = Path(__file__).resolve().parents[1]
RANDOM = ROOT / "bots" / "zwicker" / "random_bot.py"
GREEDY = ROOT / "bots" / "zwicker" / "greedy_bot.py"


def test_the_note_is_the_one_the_standings_look_for():
    assert modes.NO_WHOLE_BOT_LIMITS.startswith(present.WITHOUT_WHOLE_BOT_LIMITS)


@pytest.mark.parametrize("cgroups_here", [False, True], ids=["without cgroups", "with cgroups"])
async def test_standings_and_the_page_say_when_bots_ran_without_whole_bot_limits(tmp_path, open_dir, monkeypatch,
                                                                                cgroups_here):
    if cgroups_here and not cgroups.available():
        pytest.skip("no writable cgroups here: the runs below are all without whole-bot limits")
    if not cgroups_here:
        monkeypatch.setattr(cgroups, "available", lambda: False)  # as for an ordinary user
    from arena.cli import _register, app

    _register()
    path = tmp_path / "arena.db"
    db = schema.open_db(path)
    registry.add_bot(db, RANDOM, name="random", store_dir=open_dir / "store")
    registry.add_bot(db, GREEDY, name="greedy", store_dir=open_dir / "store")
    tid = runner.prepare(db, "limits", ["random", "greedy"], runner.Settings(boards=1, seed=5, time_control=FAST),
                         sandbox="rlimit")
    with trio.fail_after(120):  # a guard against a hang, not a timing assertion
        await runner.run(db, tid, concurrency=2, processes=1, sandbox="rlimit", limits=SMALL)

    label = f"rlimit ({modes.NO_WHOLE_BOT_LIMITS}) ({modes.NOT_FROZEN})" if not cgroups_here else "rlimit"
    assert read.get_tournament(db, tid)["settings"]["sandbox_labels"] == [label]
    line = (f"sandbox rlimit ({modes.NO_WHOLE_BOT_LIMITS}): each bot process had its own memory, process and CPU "
            "limits, but a bot with all it started was not bounded as a whole.")
    out = CliRunner().invoke(app, ["standings", "limits", "--db", str(path)])
    assert out.exit_code == 0, out.output
    assert (line in out.output.splitlines()) == (not cgroups_here), out.output
    out = CliRunner().invoke(app, ["standings", "limits", "--db", str(path), "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["sandbox_labels"] == [label]
    page = pages.tournament(pages.Reads(db), tid)
    assert page["tournament"]["settings"]["sandbox_labels"] == [label]  # the page's "Sandbox" row
    assert (line in page["standings_table"]["notes"]) == (not cgroups_here)


def test_a_tournament_stored_before_labels_names_its_modes(tmp_path):
    assert read.sandbox_labels({"settings": {"sandbox": "fork", "sandboxes": ["fork", "bwrap"]}}) == ["fork", "bwrap"]
    assert read.sandbox_labels({"settings": {"sandbox": "fork"}}) == ["fork"]
    assert read.sandbox_labels({"settings": {"sandbox": None}}) == []
