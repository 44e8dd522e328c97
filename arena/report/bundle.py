"""The app's script modules as one classic script, for `arena report`: a browser runs no module
from a page opened from disk (file://), but it runs a script.

The modules keep to a small form that makes this exact: imports on top, each
`import { a, b as c } from "./x.js";`, and exports as `export function|const|let|class NAME` or
`export { a, b as c };`.
Each module becomes a function run once, in dependency order, whose result is its exports;
each game viewer given (a module that imports nothing) becomes `window.ZA_VIEWERS[game]`,
where the app looks first. The entry module runs last.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from arena.errors import ArenaError

IMPORT = re.compile(r'^import \{([^}]*)\} from "\./([\w.-]+\.js)";[ \t]*\n', re.MULTILINE)
EXPORT = re.compile(r"^export (?=(?:async )?function\b|const\b|let\b|class\b)", re.MULTILINE)
EXPORTED = re.compile(r"^export (?:async )?(?:function\*?|const|let|class)\s+([A-Za-z_$][\w$]*)", re.MULTILINE)
EXPORT_LIST = re.compile(r"^export \{([^}]*)\};?[ \t]*\n", re.MULTILINE)
STRAY = re.compile(r"^\s*(?:import\s+[^(\s]|export\s)", re.MULTILINE)


def _module(name: str, text: str) -> str:
    """One module as an expression whose value is its exports; `M` holds the modules before it."""
    lines = []
    for names, source in IMPORT.findall(text):
        parts = [n.strip() for n in names.split(",") if n.strip()]
        lines.append("const { " + ", ".join(p.replace(" as ", ": ") for p in parts) + " } = M[" + json.dumps(source) + "];")
    body = EXPORT_LIST.sub("", EXPORT.sub("", IMPORT.sub("", text)))
    if STRAY.search(body):
        raise ArenaError(f"{name}: an import or export the report's bundle cannot take (see arena/report/bundle.py)")
    exports = [f"{e}: {e}" for e in EXPORTED.findall(text)]
    for listed in EXPORT_LIST.findall(text):  # export { a, b as c };
        for part in (p.strip() for p in listed.split(",") if p.strip()):
            local, _, public = part.partition(" as ")
            exports.append(f"{(public or local).strip()}: {local.strip()}")
    return ("(function () {\n" + "\n".join(lines) + "\n" + body
            + "\nreturn { " + ", ".join(exports) + " };\n})()")


def bundle(folder: Path, entry: str, viewers: dict[str, Path]) -> str:
    """The modules `entry` (a file of `folder`) imports, itself last, and the game viewers."""
    order: list[str] = []

    def visit(name: str, stack: tuple[str, ...]) -> None:
        if name in order:
            return
        if name in stack:
            raise ArenaError(f"the app's modules import each other in a circle: {' -> '.join(stack + (name,))}")
        for _, dep in IMPORT.findall((folder / name).read_text(encoding="utf-8")):
            visit(dep, stack + (name,))
        order.append(name)

    visit(entry, ())
    out = ['"use strict";', "(function () {", "const M = {};", "window.ZA_VIEWERS = window.ZA_VIEWERS || {};"]
    for game, path in sorted(viewers.items()):
        text = path.read_text(encoding="utf-8")
        if IMPORT.search(text):
            raise ArenaError(f"the viewer of game {game} imports a module: a viewer imports nothing")
        out.append(f"window.ZA_VIEWERS[{json.dumps(game)}] = {_module(path.name, text)};")
    for name in order:
        out.append(f"M[{json.dumps(name)}] = {_module(name, (folder / name).read_text(encoding='utf-8'))};")
    out.append("})();\n")
    return "\n".join(out)
