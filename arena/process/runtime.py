"""What a sandboxed bot is shown of the arena: the bot kits, msgpack, the engine, and its own folder.

No system package is needed for Python bots: the kits (botkit.py, and zwicken_kit.py on top of
it), msgpack and the rules engine (Zwicker's and `engine.zwicken`) are copied
once per arena process from the arena's own environment into `runtime()`, a folder that the
bot's throw-away uid may read, and shown read-only (at KIT_MOUNT in bwrap and fork, on
PYTHONPATH in rlimit). The arena's own files may lie in a private folder (a clone in a 0700
home, a venv under /root): nothing asks the user to open it.

Everything lives under one stage folder per arena process, `/tmp/zwicker-stage-<owner>-...`
(mode 0711: others can reach a copy only by its random name), removed when the process exits;
`sweep_stages` removes those of arenas that were killed outright.

What bwrap and fork bind into a bot's root lies apart, in `shown()`: a folder with a random name
on the machine's tmpfs (/dev/shm) that tells nothing of the host. A bind mount's line in
/proc/self/mountinfo names its source's path within its file system, so a bot would otherwise
read there where the arena keeps its stage and the bot's own folder. A bot's own folder is
copied into `copies()` in `shown()` (0700: no other user enters it, however they learn a copy's
name, from a bot's mountinfo or command line) and run from there: the fork sandbox binds the
copy at BOT_MOUNT before it takes the bot's uid (`inside`); a throw-away uid that reaches the
copy itself (bwrap, which binds as that uid; rlimit) gets it for one run in a folder of its own
(`for_uid`). On a tmpfs the copy's pages are memory, not a page cache another bot could probe.
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
        copy = copies() / f"bot-{secrets.token_hex(8)}"
        shutil.copytree(folder, copy, symlinks=True, ignore=_IGNORE)  # files keep their modes
        for here, dirs, files in os.walk(copy):
            os.chmod(here, 0o755)
        _copies[(folder, stamp)] = copy
    return copy


@functools.cache
def copies() -> Path:
    """The folder of the bots' copies in `shown()`: the arena's user's alone (0700). The fork
    sandbox binds a copy before the bot's uid is taken, so the bot never passes through it;
    bwrap (which runs as the bot's uid) and rlimit reach theirs through `for_uid`."""
    folder = shown() / "bots"
    folder.mkdir(mode=0o700)
    folder.chmod(0o700)
    return folder


@contextmanager
def inside(cmd: BotCommand, uid: int | None = None) -> Iterator[tuple[Path, BotCommand]]:
    """Where bwrap or fork finds `cmd`'s folder (a copy in `copies()`, made once per arena process
    and again when the folder has changed; for a throw-away `uid`, that copy as `for_uid` shows
    it), and `cmd` as the bot runs it: from BOT_MOUNT, with the paths into its folder moved
    there. For as long as the block runs (the bot's life); then a copy no bot runs from is
    removed if its folder has changed or is gone (a checked submission's temp folder, say), so
    that a long-running arena keeps only the copies it may use again."""
    folder = cmd.workdir.resolve()
    moved = tuple(str(Path(BOT_MOUNT) / Path(arg).relative_to(folder))
                  if Path(arg).is_absolute() and Path(arg).is_relative_to(folder) else arg for arg in cmd.argv)
    with _copy_of(folder) as copy, for_uid(copy, uid) as reached:
        yield reached, dataclasses.replace(cmd, argv=moved, workdir=Path(BOT_MOUNT))


@contextmanager
def outside(cmd: BotCommand, uid: int) -> Iterator[BotCommand]:
    """`cmd` as a throw-away `uid` runs it without a mount namespace (rlimit): the same command in
    its folder's copy as `for_uid` shows it, paths into the folder moved there."""
    folder = cmd.workdir.resolve()
    with _copy_of(folder) as copy, for_uid(copy, uid) as reached:
        moved = tuple(str(reached / Path(arg).relative_to(folder))
                      if Path(arg).is_absolute() and Path(arg).is_relative_to(folder) else arg for arg in cmd.argv)
        yield dataclasses.replace(cmd, argv=moved, workdir=reached)


@contextmanager
def _copy_of(folder: Path) -> Iterator[Path]:
    stamp = _stamp(folder)
    _prune(folder, stamp)
    copy = _bot_copy(folder, stamp)
    _in_use[copy] = _in_use.get(copy, 0) + 1
    try:
        yield copy
    finally:
        _in_use[copy] -= 1
        if not _in_use[copy]:
            del _in_use[copy]
        try:
            _prune(folder, _stamp(folder) if folder.is_dir() else None)
        except OSError:
            pass


RUN_PREFIX = "run-"


@contextmanager
def for_uid(copy: Path, uid: int | None) -> Iterator[Path]:
    """`copy` (in `copies()`, which no other user may enter) as a throw-away `uid` reaches it
    itself: for one run, a folder of that uid's alone (0500) in `shown()` holding the copy's
    folders anew and its files as hard links (the same inodes, modes and owner: a file kept
    private stays so, and nothing is copied), removed when the block ends. None: `copy` itself
    (the arena's user runs the bot, or binds it before the uid is taken). A killed arena's are
    removed with its `shown()` (`sweep_stages`)."""
    if uid is None:
        yield copy
        return
    run = shown() / f"{RUN_PREFIX}{secrets.token_hex(8)}"
    run.mkdir(mode=0o700)
    try:
        target = run / copy.name
        for here, dirs, files in os.walk(copy):
            made = target / os.path.relpath(here, copy)
            made.mkdir(exist_ok=True)
            made.chmod(0o755)  # (the copy's folders are: _bot_copy)
            for name in files:
                os.link(os.path.join(here, name), made / name, follow_symlinks=False)
            for name in list(dirs):
                if os.path.islink(os.path.join(here, name)):
                    os.symlink(os.readlink(os.path.join(here, name)), made / name)
                    dirs.remove(name)
        os.chown(run, uid, uid)
        run.chmod(0o500)
        yield target
    finally:
        remove(run)


def _prune(folder: Path, stamp: tuple | None) -> None:
    """Remove the copies no bot runs from whose folder is gone, and those of `folder` that
    `stamp` (its state now) has outdated."""
    for (source, state), copy in list(_copies.items()):
        if copy in _in_use or copy.parent != copies():
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
