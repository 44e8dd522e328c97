"""The engine's modules import one way: no circle, and no import hidden inside a function (which
is how a circle used to be papered over: state reached notation, position, observation and
scoring from inside its methods, and they reached back)."""

from __future__ import annotations

import ast

from tests.test_layers import ROOT, imports, modules


def engine_graph() -> dict[str, set[str]]:
    engine = modules("engine")
    packages = {name for name, path in engine.items() if path.name == "__init__.py"}  # engine, each game's
    return {name: {t for t in imports(path, name) if t in engine and t != name and t not in packages}
            for name, path in engine.items() if name not in packages}


def test_no_engine_module_imports_inside_a_function():
    hidden = []
    for name, path in modules("engine").items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                hidden += [f"{name}.{node.name}" for sub in ast.walk(node) if isinstance(sub, (ast.Import, ast.ImportFrom))]
    assert not hidden, f"imports inside functions: {hidden}"


def test_the_engine_imports_one_way():
    graph = engine_graph()
    order: list[str] = []
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            assert state.get(nxt) != 1, "import circle: " + " -> ".join(trail[trail.index(nxt):] + [nxt])
            if nxt not in state:
                visit(nxt, trail + [nxt])
        state[node] = 2
        order.append(node)

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    # the layering the docstrings describe: the plain-data and text forms below the state
    for low in ("position", "observation", "scoring", "moves"):
        low = f"engine.zwicker.{low}"
        assert "engine.zwicker.state" not in graph[low] and order.index(low) < order.index("engine.zwicker.state")
    assert "engine.zwicker.state" in graph["engine.zwicker.notation"]
    # each game's rules stand alone, over the shared errors and seeds
    for name, targets in graph.items():
        for game, other in (("zwicker", "zwicken"), ("zwicken", "zwicker")):
            if name.startswith(f"engine.{game}."):
                assert not any(t.startswith(f"engine.{other}") for t in targets), (name, targets)


def test_every_game_is_laid_out_alike():
    """The same module names and entry points in each game's package (issue: `deal` against
    `opening`, `shuffle(deck, seed)` against `shuffle(seed, deck)`)."""
    import inspect

    from engine import errors, zwicken, zwicker

    folders = [ROOT / "engine" / g for g in ("zwicker", "zwicken")]
    assert {p.name for p in folders[0].glob("*.py")} == {p.name for p in folders[1].glob("*.py")}
    for game in (zwicker, zwicken):
        for name in ("Board", "Move", "State", "PRESETS", "deal", "deal_seed", "from_dict", "to_dict",
                     "observe", "parse_move", "position_text", "shuffle", "variant"):
            assert name in game.__all__, (game.__name__, name)
        assert list(inspect.signature(game.deal).parameters)[:3] == ["variant", "seed", "dealer"]
        assert list(inspect.signature(game.shuffle).parameters)[:2] == ["seed", "deck"]
        assert game.IllegalMove is errors.IllegalMove and game.VariantError is errors.VariantError
        assert game.deal_seed(5, 3) == zwicker.deal_seed(5, 3)


def test_the_check_sees_a_circle(tmp_path):
    a = tmp_path / "a.py"
    a.write_text("def f():\n    from engine.zwicker import state\n")
    assert "engine.zwicker.state" in imports(a, "engine.a")
    assert (ROOT / "engine" / "zwicker" / "state.py").exists()
