"""The engine's modules import one way: no circle, and no import hidden inside a function (which
is how a circle used to be papered over: state reached notation, position, observation and
scoring from inside its methods, and they reached back)."""

from __future__ import annotations

import ast

from tests.test_layers import ROOT, imports, modules


def engine_graph() -> dict[str, set[str]]:
    engine = modules("engine")
    return {name: {t for t in imports(path, name) if t in engine and t != name and t != "engine"}
            for name, path in engine.items() if name != "engine"}


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
    for low in ("engine.position", "engine.observation", "engine.scoring", "engine.moves"):
        assert "engine.state" not in graph[low] and order.index(low) < order.index("engine.state")
    assert "engine.state" in graph["engine.notation"]


def test_the_check_sees_a_circle(tmp_path):
    a = tmp_path / "a.py"
    a.write_text("def f():\n    from engine import state\n")
    assert "engine.state" in imports(a, "engine.a")
    assert (ROOT / "engine" / "state.py").exists()
