"""`arena play` and `arena bot check` through the real CLI (typer's CliRunner)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import _register, app, main

ROOT = Path(__file__).resolve().parent.parent
RANDOM = str(ROOT / "bots" / "zwicker" / "random_bot.py")
GREEDY = str(ROOT / "bots" / "zwicker" / "greedy_bot.py")
FAULTY = Path(__file__).parent / "faulty"

_register()
runner = CliRunner()


def test_play_prints_the_boards_and_the_total():
    result = runner.invoke(app, ["play", GREEDY, RANDOM, "--boards", "2", "--seed", "4", "--sandbox", "none"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert f"1 = greedy ({GREEDY})" in out and f"2 = random ({RANDOM})" in out
    assert "variant jensen, seed 4, 2 boards" in out
    assert any(line.startswith("total") for line in out.splitlines())
    assert any(line.startswith("1 (greedy): W-D-L ") for line in out.splitlines())  # (stderr mixed in)


def test_play_json_has_every_move_and_matches_the_text():
    # A bot given as a command string. (Through sh: BotCommand resolves argv[0]'s symlinks, and
    # a virtualenv's python is a symlink whose target does not see the venv's msgpack.)
    command = f"/bin/sh -c 'exec {sys.executable} {RANDOM}'"
    args = ["play", RANDOM, command, "--boards", "1", "--seed", "4", "--sandbox", "none"]
    as_json = runner.invoke(app, args + ["--json"])
    assert as_json.exit_code == 0, as_json.output
    data = json.loads(as_json.stdout)  # stderr: the warning that seed 4 can be guessed
    assert data["bots"] == [RANDOM, command] and data["seed"] == "4" and data["forfeits"] == []
    assert len(data["boards"]) == 1 and len(data["boards"][0]["tables"]) == 2
    assert all(len(t["deals"][0]["moves"]) > 0 for t in data["boards"][0]["tables"])
    text = runner.invoke(app, args)
    total = next(line for line in text.output.splitlines() if line.startswith("total"))
    assert total.split()[-2:] == [f"{x:+d}" for x in data["totals"]]


def test_play_takes_a_variant_as_a_name_or_json():
    result = runner.invoke(app, ["play", RANDOM, RANDOM, "--boards", "1", "--sandbox", "none",
                                 "--variant", '{"preset": "jensen", "players": 2}'])
    assert result.exit_code == 0, result.output
    assert "variant jensen players=2" in result.output


def test_bot_check_passes_a_good_bot_and_fails_a_bad_one():
    good = runner.invoke(app, ["bot", "check", GREEDY, "--deals", "1", "--sandbox", "none"])
    assert good.exit_code == 0, good.output
    assert "conformant: the bot speaks protocol version 1" in good.output
    # its kit named too: the check runs it from a private copy of the files its command names
    illegal = f"{FAULTY / 'illegal.py'} {FAULTY / 'faultkit.py'}"
    bad = runner.invoke(app, ["bot", "check", illegal, "--deals", "1", "--sandbox", "none"])
    assert bad.exit_code == 1
    assert "FAULT illegal_move: index" in bad.output and "NOT conformant" in bad.output


def test_bot_check_json():
    result = runner.invoke(app, ["bot", "check", RANDOM, "--deals", "1", "--sandbox", "none", "--json"])
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["conformant"] is True and len(data["tables"]) == 4
    assert data["reply_ms"]["count"] > 0


@pytest.mark.parametrize("args, words", [
    (["play", "no/such/bot.py", RANDOM], "bot no/such/bot.py: no such file"),
    (["play", RANDOM, RANDOM, "--variant", "skat"], "unknown preset 'skat'"),
    (["play", RANDOM, RANDOM, "--variant", "{bad json"], "--variant: not valid JSON"),
    (["play", RANDOM, RANDOM, "--boards", "0"], "boards must be at least 1"),
    (["play", RANDOM, RANDOM, "--variant", '{"preset": "jensen", "players": 3}'], "2 bots for jensen players=3, which has 3 sides"),
    (["bot", "check", "no-such-program-xyz"], "no-such-program-xyz not found on PATH"),
    (["play", RANDOM, RANDOM, "--move-ms", "0"], "limits must be above 0"),
])
def test_bad_input_is_one_clear_line_and_exit_2(capsys, args, words):
    with pytest.raises(SystemExit) as exit_info:
        main(args + ["--sandbox", "none"] if args[0] == "play" or args[1] == "check" else args)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("arena: error: ") and words in err and err.count("\n") == 1


def test_every_command_has_help_with_an_example():
    for args in (["play", "--help"], ["bot", "check", "--help"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0 and "Example" in result.output
