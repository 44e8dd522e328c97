"""The research extras stay optional: no module of the arena's core imports OpenSpiel, PettingZoo,
Gymnasium or numpy (nor the bridges that do), and a tournament run by the installed `arena`
loads none of them, although the OpenSpiel games' entry points are installed beside it (the
arena loads every game's entry point to show a sandboxed bot the games' packages)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.test_layers import imports, modules

ROOT = Path(__file__).resolve().parents[1]
ARENA = Path(sys.executable).parent / "arena"
EXTRAS = {"pyspiel", "open_spiel", "pettingzoo", "gymnasium", "numpy", "scipy", "absl"}
BRIDGES = {"games.pettingzoo", "games.openspiel", "games.as_openspiel"}


def test_no_core_module_imports_an_extra():
    wrong = [f"{name} imports {t}" for package in ("arena", "engine") for name, path in modules(package).items()
             for t in imports(path, name) if t.split(".")[0] in EXTRAS or t in BRIDGES or t.startswith("games.openspiel")]
    assert not wrong, "\n".join(wrong)


def test_a_tournament_loads_no_extra(tmp_path):
    """`-X importtime` lists every module the arena's process imports (in the default sandbox,
    which copies every installed game's packages for the bots), numpy included: sqlite-utils
    imports it where installed, and the arena keeps it out of its sight (arena/cli/__init__.py)."""
    bots = ",".join(str(ROOT / "bots" / "zwicker" / f) for f in ("random_bot.py", "first_bot.py"))
    done = subprocess.run([str(ARENA), "tournament", "run", "--bots", bots, "--boards", "1", "--seed", str(2**50 + 9),
                           "--name", "t", "--quiet"], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env={"PATH": os.environ["PATH"], "ARENA_DB": str(tmp_path / "a.db"), "PYTHONPROFILEIMPORTTIME": "1"})
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    loaded = set(re.findall(r"^import time:.*\|\s+(\S+)$", done.stderr, re.M))
    assert "arena.tournaments.runner" in loaded  # the listing is there
    assert not {m for m in loaded if m.split(".")[0] in EXTRAS or m in BRIDGES}
