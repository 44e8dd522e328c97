"""What a sandboxed bot is shown of the arena: the bot kits, msgpack, the engine, and its own folder.

No system package is needed for Python bots: the kits (botkit.py, and zwicken_kit.py on top of
it), msgpack and the rules engine (Zwicker's and `engine.zwicken`) are copied
once per arena process from the arena's own environment into `runtime()`, a folder that the
bot's throw-away uid may read, and shown read-only (at KIT_MOUNT in bwrap and fork, on
PYTHONPATH in rlimit). The arena's own files may lie in a private folder (a clone in a 0700
home, a venv under /root): nothing asks the user to open it. For the same reason a bot whose
folder the throw-away uid cannot read is run from a copy that it can (`visible`).

Everything lives under one stage folder per arena process, `/tmp/zwicker-stage-<owner>-...`
(mode 0711: others can reach a copy only by its random name), removed when the process exits;
`sweep_stages` removes those of arenas that were killed outright.

What bwrap and fork bind into a bot's root lies apart, in `shown()`: a folder with a random name
on the machine's tmpfs (/dev/shm) that tells nothing of the host. A bind mount's line in
/proc/self/mountinfo names its source's path within its file system, so a bot would otherwise
read there where the arena keeps its stage and the bot's own folder. The bot's folder is shown
from a copy in `shown()` (`inside`), at BOT_MOUNT, with the paths of its command moved there; on
a tmpfs its pages are memory, not a page cache another bot could probe.
"""

from __future__ import annotations

import atexit
import compileall
import dataclasses
import functools
import os
import secrets
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from arena.process.command import OWNER, BotCommand, owner_alive

ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "bots" / "botkit.py"
KITS = (KIT, ROOT / "bots" / "policy_kit.py")  # a trained policy as a bot: botkit's loop, games' encodings
ENGINE = ROOT / "engine"
GAMES = ROOT / "games"  # the games interface: policy_kit encodes a seat's observation as training did
STAGE_PREFIX = "zwicker-stage-"
SHOWN_PREFIX = "zwicker-"
SHM = "/dev/shm"
BOT_MOUNT = "/bot"  # where bwrap and fork show a bot its own folder
_IGNORE = shutil.ignore_patterns(".git", "*.egg-info")


@functools.cache
def stage() -> Path:
    """This arena process's stage folder (made on first use, removed at exit)."""
    folder = Path(tempfile.mkdtemp(prefix=f"{STAGE_PREFIX}{OWNER.replace(':', '-')}-"))
    folder.chmod(0o711)
    atexit.register(remove, folder)
    return folder


@functools.cache
def shown() -> Path:
    """The folder of what bwrap and fork bind into a bot's root: on /dev/shm with a random name
    where that is a tmpfs (its file `owner`, which no bot sees, names this arena process for
    `sweep_stages`), else the stage itself."""
    if not _is_tmpfs(SHM):
        return stage()
    folder = Path(tempfile.mkdtemp(prefix=SHOWN_PREFIX, dir=SHM))
    atexit.register(remove, folder)
    folder.chmod(0o711)
    (folder / OWNER_FILE).write_text(OWNER)
    return folder


OWNER_FILE = "owner"


def remove(folder: Path) -> None:
    """Remove `folder` and all in it, its read-only folders too (the snapshot of /proc's are
    0555, which stops even their owner's rmtree unless he is root); its folders first, so that
    a sweep still knows by the owner file a folder a failed removal left."""
    for here, dirs, files in os.walk(folder):
        try:
            os.chmod(here, 0o700)
        except OSError:
            pass
    try:
        entries = list(folder.iterdir()) if folder.is_dir() else []
    except OSError:
        entries = []  # (not ours to list: rmtree below fails quietly too)
    for entry in entries:
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
    shutil.rmtree(folder, ignore_errors=True)


def _is_tmpfs(path: str) -> bool:
    try:
        with open("/proc/self/mounts") as f:
            return any(line.split()[1:3] == [path, "tmpfs"] for line in f)
    except OSError:
        return False


def _open_to_others(root: Path) -> None:
    """Folders 0755, files 0644 (0755 where the owner may execute): the copy is the arena's own."""
    for folder, dirs, files in os.walk(root):
        os.chmod(folder, 0o755)
        for name in files:
            path = os.path.join(folder, name)
            mode = os.lstat(path).st_mode
            if stat.S_ISREG(mode):
                os.chmod(path, 0o755 if mode & stat.S_IXUSR else 0o644)


@functools.cache
def runtime() -> Path:
    """The folder a sandboxed Python bot imports from: `botkit`, `zwicken_kit`, `policy_kit`,
    `msgpack`, `engine` and `games`, and what every installed game names for its bots (its rules
    and kit, `games.extras`), with their bytecode (compiled here once, so that no bot compiles
    them at every start)."""
    import msgpack

    import games

    folder = shown() / "kit"
    folder.mkdir()
    for kit in KITS:
        shutil.copy2(kit, folder / kit.name)
    shutil.copytree(Path(msgpack.__file__).parent, folder / "msgpack", ignore=_IGNORE)
    shutil.copytree(ENGINE, folder / "engine", ignore=_IGNORE)
    shutil.copytree(GAMES, folder / "games", ignore=_IGNORE)
    for path in games.sandbox_modules():  # an outside game's package, say
        if not (folder / path.name).exists():
            (shutil.copytree(path, folder / path.name, ignore=_IGNORE) if path.is_dir()
             else shutil.copy2(path, folder / path.name))
    compileall.compile_dir(str(folder), quiet=2)
    _open_to_others(folder)
    return folder


def _reachable_by_others(folder: Path) -> bool:
    """Can a uid that owns nothing here get into `folder` and every folder in it? (Its files keep
    their own modes either way: a file its author kept private stays so.)"""
    for path in folder.parents:
        if not os.stat(path).st_mode & 0o001:
            return False
    for here, dirs, files in os.walk(folder):
        if os.stat(here).st_mode & 0o005 != 0o005:
            return False
    return True


MAX_COPY_BYTES = 256 << 20
MAX_COPY_FILES = 10_000


def _check_size(folder: Path) -> None:
    """A bot's folder is copied whole: refuse one that holds far more than a bot (a home, /tmp)."""
    files = size = 0
    for here, dirs, names in os.walk(folder):
        files += len(names)
        size += sum(os.lstat(os.path.join(here, n)).st_size for n in names)
        if files > MAX_COPY_FILES or size > MAX_COPY_BYTES:
            raise ValueError(f"bot folder {folder} is too large to copy for the sandbox (over {MAX_COPY_FILES} "
                             f"files or {MAX_COPY_BYTES >> 20} MiB): put the bot in a folder of its own")


@functools.cache
def _visible_folder(folder: Path) -> Path:
    if _reachable_by_others(folder):
        return folder
    _check_size(folder)
    copy = stage() / f"bot-{secrets.token_hex(8)}" / folder.name
    shutil.copytree(folder, copy, symlinks=True, ignore=_IGNORE)  # files keep their modes
    for here, dirs, files in os.walk(copy.parent):
        os.chmod(here, 0o755)
    return copy


def visible(cmd: BotCommand) -> BotCommand:
    """`cmd` as a throw-away uid can run it: itself, or the same command in a readable copy of
    its folder (made once per arena process; paths into the folder point into the copy)."""
    folder = cmd.workdir.resolve()
    copy = _visible_folder(folder)
    if copy == folder:
        return cmd
    moved = tuple(str(copy / Path(arg).relative_to(folder)) if Path(arg).is_absolute() and Path(arg).is_relative_to(folder)
                  else arg for arg in cmd.argv)
    return dataclasses.replace(cmd, argv=moved, workdir=copy)


def _stamp(folder: Path) -> tuple:
    """What a copy of `folder` must match: every path in it with its kind, size, mode and time."""
    out = []
    for here, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in sorted(dirs + files):
            info = os.lstat(os.path.join(here, name))
            out.append((os.path.join(here, name), info.st_mode, info.st_size, info.st_mtime_ns))
    return tuple(sorted(out))


_copies: dict[tuple[Path, tuple], Path] = {}  # (folder, stamp) -> its copy in shown()
_in_use: dict[Path, int] = {}  # copy -> bots running from it


def _bot_copy(folder: Path, stamp: tuple) -> Path:
    """A copy of `folder` as `stamp` found it (a folder changed since gets a new copy)."""
    copy = _copies.get((folder, stamp))
    if copy is None:
        _check_size(folder)
        copy = shown() / f"bot-{secrets.token_hex(8)}"
        shutil.copytree(folder, copy, symlinks=True, ignore=_IGNORE)  # files keep their modes
        for here, dirs, files in os.walk(copy):
            os.chmod(here, 0o755)
        _copies[(folder, stamp)] = copy
    return copy


@contextmanager
def inside(cmd: BotCommand) -> Iterator[tuple[Path, BotCommand]]:
    """Where bwrap or fork finds `cmd`'s folder (a copy in `shown()`, made once per arena process
    and again when the folder has changed), and `cmd` as the bot runs it: from BOT_MOUNT, with
    the paths into its folder moved there. For as long as the block runs (the bot's life); then a
    copy no bot runs from is removed if its folder has changed or is gone (a checked submission's
    temp folder, say), so that a long-running arena keeps only the copies it may use again."""
    folder = cmd.workdir.resolve()
    moved = tuple(str(Path(BOT_MOUNT) / Path(arg).relative_to(folder))
                  if Path(arg).is_absolute() and Path(arg).is_relative_to(folder) else arg for arg in cmd.argv)
    stamp = _stamp(folder)
    _prune(folder, stamp)
    copy = _bot_copy(folder, stamp)
    _in_use[copy] = _in_use.get(copy, 0) + 1
    try:
        yield copy, dataclasses.replace(cmd, argv=moved, workdir=Path(BOT_MOUNT))
    finally:
        _in_use[copy] -= 1
        if not _in_use[copy]:
            del _in_use[copy]
        try:
            _prune(folder, _stamp(folder) if folder.is_dir() else None)
        except OSError:
            pass


def _prune(folder: Path, stamp: tuple | None) -> None:
    """Remove the copies no bot runs from whose folder is gone, and those of `folder` that
    `stamp` (its state now) has outdated."""
    for (source, state), copy in list(_copies.items()):
        if copy in _in_use or copy.parent != shown():
            continue
        if (source == folder and state != stamp) or not source.is_dir():
            del _copies[(source, state)]
            shutil.rmtree(copy, ignore_errors=True)


def sweep_stages() -> list[str]:
    """Remove the stage folders of arenas that are dead (killed outright: no exit handler ran),
    and what they showed their bots (`shown`)."""
    removed = []
    for folder in Path(SHM).glob(f"{SHOWN_PREFIX}*"):
        try:
            if folder.lstat().st_uid != os.geteuid() or folder.is_symlink():
                continue
            owner = (folder / OWNER_FILE).read_text()
        except OSError:
            continue  # not one of these (the view's copy), or one still being made
        if not owner_alive(owner):
            remove(folder)
            removed.append(str(folder))
    for folder in Path(tempfile.gettempdir()).glob(f"{STAGE_PREFIX}*-*-*"):
        try:
            if folder.lstat().st_uid != os.geteuid() or folder.is_symlink():
                continue  # another user's arena's (root's, say): never ours to remove
        except OSError:
            continue
        pid, _, rest = folder.name[len(STAGE_PREFIX):].partition("-")
        started = rest.partition("-")[0]
        if pid.isdigit() and started.isdigit() and not owner_alive(f"{pid}:{started}"):
            remove(folder)
            removed.append(str(folder))
    return removed
