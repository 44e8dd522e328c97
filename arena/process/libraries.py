"""The installed libraries a sandboxed Python bot declares it imports, shown to that bot alone.

A Python bot sees the kit, msgpack, the engine and `games` (arena/process/runtime.py); a bot that
needs more of the arena's own environment (numpy, OpenSpiel) names it in its script's inline
metadata, the standard form of a one-file script's dependencies (PEP 723)::

    # /// script
    # dependencies = ["open-spiel", "numpy", "absl-py"]
    # ///

Each name is a distribution installed beside the arena (`pip install 'zwicker-arena[openspiel]'`);
its version constraint, extras and markers are not read, and its own dependencies are not
added: a bot lists every distribution it imports. The arena copies the files of those
distributions (their packages and modules, a wheel's bundled libraries such as `numpy.libs`,
their bytecode; not C and C++ sources or headers) once per arena process into a folder of
`runtime.shown()`, a copy on the machine's tmpfs like the kit (where there is none, its pages
loaded by the arena), so that no page of them is one another bot could probe (docs/hostile.md;
the shared libraries under /usr that they load are in every bot's view, arena/process/view.py),
and shows it read-only beside the kit (at
LIBRARY_MOUNT in bwrap and fork, on PYTHONPATH in rlimit). A bot that declares nothing sees
nothing of it; a name that is not installed stops the bot's start with one line saying so.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import secrets
import shutil
import threading
import tomllib
from pathlib import Path

from arena.process import runtime, view

LIBRARY_MOUNT = "/opt/zwicker-lib"
_BLOCK = re.compile(r"(?m)^# /// (?P<type>[a-zA-Z0-9-]+)$\s(?P<content>(^#(| .*)$\s)+)^# ///$")
_NAME = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_IGNORE = shutil.ignore_patterns(".git", "*.egg-info", "*.dist-info", "*.cc", "*.h", "*.c", "*.cpp", "*.hpp", "*.pyi")
_HEAD_BYTES = 64 << 10  # where a script's metadata block may lie


def declared(script: str | os.PathLike) -> tuple[str, ...]:
    """The distributions a Python script names in its `# /// script` block (none without one)."""
    try:
        with open(script, encoding="utf-8", errors="replace") as f:
            text = f.read(_HEAD_BYTES)
    except OSError:
        return ()
    blocks = [m for m in _BLOCK.finditer(text) if m.group("type") == "script"]
    if not blocks:
        return ()
    content = "".join(line[2:] if line.startswith("# ") else line[1:]
                      for line in blocks[0].group("content").splitlines(keepends=True))
    try:
        wanted = tomllib.loads(content).get("dependencies", [])
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{script}: its '# /// script' block is not TOML ({exc})") from None
    if not isinstance(wanted, list) or not all(isinstance(w, str) for w in wanted):
        raise ValueError(f"{script}: its '# /// script' dependencies are not a list of strings")
    names = []
    for requirement in wanted:
        m = _NAME.match(requirement)
        if m is None:
            raise ValueError(f"{script}: dependency {requirement!r} names no distribution")
        names.append(m.group(1))
    return tuple(sorted(set(names), key=str.lower))


def script_of(argv: tuple[str, ...] | list[str], workdir: Path) -> Path | None:
    """The script a Python bot's command runs (`python script.py ...`), or None."""
    if len(argv) < 2 or not argv[1].endswith(".py"):
        return None
    path = Path(argv[1]) if os.path.isabs(argv[1]) else workdir / argv[1]
    return path if path.is_file() else None


def _top_levels(name: str) -> list[Path]:
    """The top-level files and folders a distribution installed (its modules, packages and
    bundled libraries), as they lie beside the arena."""
    try:
        dist = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        raise ValueError(f"the bot imports {name}, which is not installed beside the arena "
                         f"(for OpenSpiel and numpy: pip install 'zwicker-arena[openspiel]')") from None
    tops = set()
    for file in dist.files or ():
        head = file.parts[0] if file.parts else ""
        if head in ("", "..", "__pycache__") or head.endswith((".dist-info", ".egg-info", ".pth")):
            continue
        tops.add(head)
    return sorted(Path(str(dist.locate_file(top))) for top in tops)


_folders: dict[tuple[str, ...], Path] = {}
_lock = threading.Lock()  # bots start from trio's worker threads, several at once


def folder(names: tuple[str, ...]) -> Path:
    """A read-only folder holding the distributions `names` (made once per arena process)."""
    with _lock:
        if names not in _folders:
            _folders[names] = _made(names)
        return _folders[names]


def _made(names: tuple[str, ...]) -> Path:
    paths = [path for name in names for path in _top_levels(name)]
    out = runtime.shown() / f"lib-{secrets.token_hex(8)}"
    out.mkdir()
    for path in paths:
        if not path.exists() or (out / path.name).exists():
            continue
        (shutil.copytree(path, out / path.name, ignore=_IGNORE) if path.is_dir()
         else shutil.copy2(path, out / path.name))  # copy2: the bytecode stays valid (same mtimes)
    runtime._open_to_others(out)
    if runtime.shown() == runtime.stage():
        view.pin([str(out)])  # no tmpfs at /dev/shm: its pages loaded once, as the kit's are
    return out


def for_bot(argv: tuple[str, ...] | list[str], workdir: Path) -> Path | None:
    """The folder of what a Python bot's script declares it imports, or None."""
    script = script_of(argv, workdir)
    names = declared(script) if script is not None else ()
    return folder(tuple(names)) if names else None
