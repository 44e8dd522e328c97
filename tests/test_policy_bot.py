"""A trained policy is a bot (bots/policy): trained briefly on games.pettingzoo, registered with
`arena bot add` (which checks it at a table), checked by `arena bot check` and played in a
tournament from its stored folder."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo", reason="the [pettingzoo] extra is not installed (pip install -e '.[pettingzoo]')")

ROOT = Path(__file__).resolve().parents[1]
ARENA = Path(sys.executable).parent / "arena"
sys.path.insert(0, str(ROOT / "bots" / "policy"))

import train  # noqa: E402


def arena(*args: str, cwd: Path) -> str:
    done = subprocess.run([str(ARENA), *args], capture_output=True, text=True, timeout=600, cwd=cwd,
                          env={"PATH": "/usr/bin:/bin", "ARENA_DB": str(cwd / "a.db")})
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_a_policy_trained_briefly_is_registered_checked_and_played(tmp_path):
    folder = tmp_path / "policy"
    folder.mkdir()
    shutil.copy(ROOT / "bots" / "policy" / "policy_bot.py", folder)
    assert train.train("zwicker", deals=3, seed=7, out=str(folder / "weights.json")) == 3
    weights = json.loads((folder / "weights.json").read_text())["weights"]
    assert len(weights) == train.FEATURES and any(weights)  # it learned something, if little
    assert "added trained" in arena("bot", "add", str(folder), "--command", "policy_bot.py", "--name", "trained",
                                    cwd=tmp_path)
    assert "conformant" in arena("bot", "check", "trained", "--deals", "1", cwd=tmp_path)
    random_bot = ROOT / "bots" / "zwicker" / "random_bot.py"
    out = arena("tournament", "run", "--bots", f"trained,{random_bot}", "--boards", "1", "--seed", str(2**50 + 3),
                "--name", "t", cwd=tmp_path)
    assert "1/1 boards" in out
    standings = arena("standings", "t", "--json", cwd=tmp_path)
    assert all(row["faults"] == 0 for row in json.loads(standings)["standings"]), standings
