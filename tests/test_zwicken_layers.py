"""engine/zwicken stands alone: its modules import only each other (in one direction), the
engine's shared modules (engine.errors, engine.seeds) and the standard library, never the Zwicker
engine's modules; games/zwicken/ reaches the rules only through engine.zwicken."""

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ORDER = ["cards", "variant", "shuffle", "moves", "scoring", "state", "observation",
         "position", "notation", "board", "__init__"]
SHARED = {"engine.errors", "engine.seeds"}  # one seed derivation and one set of error classes


def imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module in ("engine", "engine.zwicken"):
            found |= {f"{node.module}.{a.name}" for a in node.names}  # from a package: its modules
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_rules_package_imports_one_way():
    files = sorted((ROOT / "engine" / "zwicken").glob("*.py"))
    assert sorted(f.stem for f in files) == sorted(ORDER)
    for f in files:
        for name in imports(f):
            top = name.split(".")[0]
            if name in SHARED:
                continue
            if top == "engine":
                assert name.startswith("engine.zwicken."), f"{f.name} imports {name}"
                assert ORDER.index(name.split(".")[2]) < ORDER.index(f.stem), f"{f.name} imports {name} (a circle)"
            else:
                assert top in sys.stdlib_module_names or top == "__future__", f"{f.name} imports {name}"


def test_the_adapter_uses_only_the_rules_package_and_the_interface():
    for name in imports(ROOT / "games" / "zwicken" / "__init__.py"):
        top = name.split(".")[0]
        assert (name.startswith("engine.zwicken") or top == "games"
                or top in sys.stdlib_module_names or top == "__future__"), name
