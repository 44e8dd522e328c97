"""The arena's packages import only down the layers (README.md, "The layout"), and no two
modules import each other in a circle: the folder listing then tells a newcomer which way the
data flows. Every import counts, also one inside a function or under TYPE_CHECKING."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# A package may import the packages listed before it, never one after it. `errors` is the one
# exception tree every layer raises; the games interface (`games`) and the rules behind it are
# below the arena and import none of it, and the arena reaches a game only through `games`.
LAYERS = ["errors", "process", "protocol", "play", "results", "tournaments", "report", "league", "cli"]
ALLOWED = {
    "errors": set(),
    "process": {"errors"},
    "protocol": {"errors"},
    "play": {"errors", "process", "protocol"},
    "results": {"errors"},
    "tournaments": {"errors", "process", "protocol", "play", "results"},
    "report": {"errors", "results"},  # reads results and draws them; never plays
    "league": {"errors", "process", "protocol", "play", "results", "tournaments", "report"},
    "cli": set(LAYERS) - {"cli"},
}


def modules(package: str) -> dict[str, Path]:
    found = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def imports(path: Path, name: str) -> set[str]:
    """Every module `path` imports, as dotted names (relative imports resolved)."""
    out = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            out.add(base)
            out.update(f"{base}.{alias.name}" for alias in node.names)  # `from pkg import module`
    return out


def layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "arena" and len(parts) > 1 else None


def test_every_arena_module_belongs_to_a_layer():
    stray = [m for m in modules("arena") if m != "arena" and m != "arena.__main__" and layer(m) not in LAYERS]
    assert not stray, f"modules outside the layers {LAYERS}: {stray}"


def test_arena_imports_only_go_down_the_layers():
    arena = modules("arena")
    wrong = []
    for name, path in arena.items():
        here = "cli" if name == "arena.__main__" else layer(name)
        if here is None:
            continue
        for target in imports(path, name):
            there = layer(target)
            if target in arena and there is not None and there != here and there not in ALLOWED[here]:
                wrong.append(f"{name} imports {target} ({here} may import {sorted(ALLOWED[here]) or 'nothing'})")
    assert not wrong, "\n".join(wrong)


def test_the_engine_imports_nothing_of_the_arena():
    wrong = [f"{name} imports {t}" for name, path in modules("engine").items()
             for t in imports(path, name) if t == "arena" or t.startswith("arena.")]
    assert not wrong, "\n".join(wrong)


def test_no_two_modules_import_each_other_in_a_circle():
    arena = modules("arena")
    graph = {name: {t for t in imports(path, name) if t in arena and t != name and not name.startswith(t + ".")}
             for name, path in arena.items()}
    # A package's __init__ is imported with any of its modules; count only real edges.
    state: dict[str, int] = {}
    circles = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                circles.append(" -> ".join(trail[trail.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, trail + [nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert not circles, "import circles:\n" + "\n".join(circles)


def rules_package(module: str) -> bool:
    """A game's rules (engine: Zwicker's, engine.zwicken: Zwicken's, ...) or a game's adapter
    (games.zwicker, ...): what the arena must never import. `games` and `games.api` are the one
    interface."""
    parts = module.split(".")
    return parts[0] == "engine" or parts[0] == "games" and len(parts) > 1 and parts[1] != "api" \
        and module not in GAMES_INTERFACE


GAMES_INTERFACE = {f"games.{name}" for name in (
    "api", "BadPosition", "BadVariant", "Board", "Game", "GameError", "IllegalMove", "Info", "Json", "Layout",
    "Move", "Result", "State", "UnknownGame", "Variant", "game", "load", "names", "BUNDLED", "DEFAULT",
    "oracle")}  # games.oracle: the rules oracle, written against games.api alone


def test_the_arena_reaches_a_game_only_through_the_games_interface():
    wrong = [f"{name} imports {t}" for name, path in modules("arena").items()
             for t in imports(path, name) if rules_package(t)]
    assert not wrong, "\n".join(wrong)


def test_the_games_interface_imports_no_game_and_nothing_of_the_arena():
    """Of the engine only its shared errors (engine.errors), which every game raises."""
    for path in (ROOT / "games" / "api.py", ROOT / "games" / "__init__.py"):
        name = "games" if path.name == "__init__.py" else "games.api"
        found = {t for t in imports(path, name) if t.split(".")[:2] != ["engine", "errors"]}
        assert not [t for t in found if t.split(".")[0] in ("engine", "arena")], f"{path.name}: {found}"


def test_the_checks_see_a_wrong_import(tmp_path):
    """The walk finds imports inside functions and `from package import module` forms."""
    path = tmp_path / "m.py"
    path.write_text("def f():\n    from arena.results import read\n    import arena.cli\n")
    found = imports(path, "arena.play.m")
    assert {"arena.results.read", "arena.cli"} <= found
    assert layer("arena.results.read") not in ALLOWED["play"]
    path.write_text("def f():\n    import engine.moves\n    from games import zwicker, State\n")
    found = imports(path, "arena.play.m")
    assert [t for t in sorted(found) if rules_package(t)] == ["engine.moves", "games.zwicker"]
