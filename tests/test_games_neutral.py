"""The arena names no game: every game, bundled or installed from outside, is reached through
`games` (its Info, its extras), so no module under arena/ and no page script names a bundled game
or one of its presets in a string, and every `--variant` defaults to the game's own.

Docstrings and comments may name a game as an example; the project's own name ("Zwicker Arena",
and tags made from it: `zwicker-stage-`, `ZWICKER_ARENA_BOT`, `zwicker_arena.games`) is no game."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import typer.main

import games

ROOT = Path(__file__).resolve().parents[1]
PROJECT = re.compile(r"zwicker(?:[-_](?=[a-z]|\W|$)| arena)", re.IGNORECASE)


def bundled_names() -> set[str]:
    out = set()
    for name in games.BUNDLED:
        g = games.game(name)
        out.add(g.info.name)
        out.update(g.info.presets)
    return out


def named(text: str, names: set[str]) -> set[str]:
    """The bundled games and presets `text` names as words (the project's own name left out)."""
    return set(re.findall(r"[a-z0-9]+", PROJECT.sub(" ", text).lower())) & names


def python_strings(path: Path) -> list[tuple[int, str]]:
    """Every string literal of a module that is not documentation (a docstring, or a string
    standing alone as a statement: an attribute's docstring)."""
    tree = ast.parse(path.read_text())
    docs = {id(node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs]


JS_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
JS_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|`(?:[^`\\]|\\.)*`', re.DOTALL)


def js_strings(path: Path) -> list[tuple[int, str]]:
    """The string literals of a page script (comments left out; a rough tokenizer that is enough
    for the project's own scripts)."""
    text = path.read_text()
    out, at = [], 0
    while at < len(text):
        comment, string = JS_COMMENT.search(text, at), JS_STRING.search(text, at)
        if string is None:
            break
        if comment is not None and comment.start() < string.start():
            at = comment.end()
            continue
        out.append((text.count("\n", 0, string.start()) + 1, string.group()[1:-1]))
        at = string.end()
    return out


def test_the_project_name_is_no_game():
    names = bundled_names()
    assert not named("zwicker-stage-", names) and not named("ZWICKER_ARENA_BOT", names)
    assert not named("Zwicker Arena league", names) and not named("zwicker_arena.games", names)
    assert named("zwicker", names) == {"zwicker"} and named("a jensen game", names) == {"jensen"}
    assert named("bots/zwicken/zwicken_random_bot.py", names) == {"zwicken"}


def test_no_arena_module_names_a_bundled_game():
    names = bundled_names()
    found = [f"{path.relative_to(ROOT)}:{line}: {text[:80]!r} names {sorted(hit)}"
             for path in sorted((ROOT / "arena").rglob("*.py"))
             for line, text in python_strings(path) if (hit := named(text, names))]
    assert not found, "\n".join(found)


def test_no_page_script_names_a_bundled_game():
    names = bundled_names()
    scripts = sorted((ROOT / "arena").rglob("static/**/*.js")) + sorted((ROOT / "arena").rglob("static/*.js"))
    assert scripts
    found = [f"{path.relative_to(ROOT)}:{line}: {text[:80]!r} names {sorted(hit)}"
             for path in sorted(set(scripts))
             for line, text in js_strings(path) if (hit := named(text, names))]
    assert not found, "\n".join(found)


def test_every_variant_option_defaults_to_the_games_own():
    """No `--variant` has a default: left out, the game's own default variant is played."""
    from arena.cli import _register, app

    _register()
    command = typer.main.get_command(app)
    wrong = []

    def walk(cmd, path):
        for param in getattr(cmd, "params", []):
            if "--variant" in getattr(param, "opts", ()) and param.default is not None:
                wrong.append(f"{' '.join(path)}: --variant defaults to {param.default!r}")
        for name, sub in getattr(cmd, "commands", {}).items():
            walk(sub, [*path, name])

    walk(command, ["arena"])
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("name", games.BUNDLED)
def test_a_bundled_game_says_what_the_arena_needs(name):
    g = games.game(name)
    extras = games.extras(g)
    assert extras.anchor[0] in extras.reference_bots and extras.anchor[1].is_file()
    assert all(path.is_file() for path in extras.reference_bots.values())
    assert extras.modules and all(path.exists() for path in extras.modules)
    assert extras.docs and all(path.is_file() for path in extras.docs)


def test_a_game_without_extras_gets_the_arenas_random_bot_and_its_own_package():
    class Bare:  # a game written before extras: only the interface
        info = games.game(games.DEFAULT).info

    Bare.__module__ = "json.decoder"
    extras = games.extras(Bare())  # type: ignore[arg-type]
    assert extras.anchor == (games.RANDOM_NAME, games.RANDOM_BOT) and games.RANDOM_BOT.is_file()
    assert extras.reference_bots == {} and extras.viewer is None and extras.docs == ()
    assert [p.name for p in extras.modules] == ["json"]
