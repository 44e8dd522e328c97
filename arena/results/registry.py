"""The bot store: registering a bot copies it beside the database, by content.

A bot is stored as `bots/<sha256>/<file or folder name>` next to the database (the path
relative to the database's folder, so the results folder can move); a name has versions, one
per distinct content. Only regular files and folders are copied, never through a link, and each
keeps its own permission bits: registering never makes anything readable that was not.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import tempfile
from pathlib import Path

import sqlite_utils

from arena.errors import ArenaError
from arena.results.schema import _BOT_NAME, _IGNORED, _db_folder, _now


_KINDS = {stat.S_IFLNK: "a symbolic link", stat.S_IFIFO: "a fifo", stat.S_IFCHR: "a character device",
          stat.S_IFBLK: "a block device", stat.S_IFSOCK: "a socket"}


def _refuse(path: Path, mode: int) -> ArenaError:
    """The one line that says which entry of a bot is not a regular file or folder."""
    kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
    if stat.S_ISLNK(mode):
        kind += f" (to {os.readlink(path)})"
    return ArenaError(f"bot {path} is {kind}: a bot is registered from regular files and folders only")


def _entries(folder: Path) -> tuple[list[tuple[str, Path]], list[tuple[str, Path]]]:
    """The folders and files of a bot folder, by relative path, caches and VCS folders left out.

    Nothing is followed: a link would copy (and hand the sandboxed bot) a file from outside its
    folder, so anything but a regular file or a folder is refused, naming it.
    """
    folders: list[tuple[str, Path]] = []
    files: list[tuple[str, Path]] = []

    def visit(here: Path) -> None:
        with os.scandir(here) as found:
            entries = sorted(found, key=lambda e: e.name)
        for entry in entries:
            if entry.name in _IGNORED:
                continue
            full = Path(entry.path)
            mode = entry.stat(follow_symlinks=False).st_mode
            rel = full.relative_to(folder).as_posix()
            if stat.S_ISDIR(mode):
                folders.append((rel, full))
                visit(full)
            elif not stat.S_ISREG(mode):
                raise _refuse(full, mode)
            elif not entry.name.endswith(".pyc"):
                files.append((rel, full))

    visit(folder)
    return sorted(folders), sorted(files)


def _walk(folder: Path) -> list[tuple[str, Path]]:
    """Files of a bot folder in sorted order, caches and VCS folders left out (see _entries)."""
    return _entries(folder)[1]


def _check_kind(path: Path) -> None:
    """The bot's own path must be a regular file or a folder, not a link to one."""
    mode = os.lstat(path).st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise _refuse(path, mode)


def bot_sha256(path: str | os.PathLike[str]) -> str:
    """sha256 of a bot file, or of a folder's sorted (relative path, size, bytes) records."""
    path = Path(path)
    h = hashlib.sha256()
    if path.is_dir():
        for rel, full in _walk(path):
            data = full.read_bytes()
            h.update(rel.encode() + b"\0" + len(data).to_bytes(8, "big"))
            h.update(data)
    else:
        h.update(path.read_bytes())
    return h.hexdigest()


def _copy_file(source: Path, target: Path) -> None:
    """A regular file's bytes and permission bits (set-id bits dropped), never through a link."""
    fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as src:
        st = os.fstat(src.fileno())
        if not stat.S_ISREG(st.st_mode):  # swapped since the walk
            raise _refuse(source, st.st_mode)
        with open(target, "xb") as dst:
            shutil.copyfileobj(src, dst)
            os.fchmod(dst.fileno(), stat.S_IMODE(st.st_mode) & 0o777)


def _store_copy(source: Path, target_dir: Path) -> Path:
    """Copy into a content-addressed folder; a crash leaves no half copy (rename is atomic).

    Regular files and folders only (see _entries), each with its own permission bits: the
    sandboxed bot, a user of its own, reads what its author left readable to others, and a file
    kept private stays private. The same content under another file name gets its own entry in
    the same folder.
    """
    target = target_dir / source.name
    if target.exists():
        return target
    target_dir.mkdir(parents=True, exist_ok=True)
    os.chmod(target_dir, 0o755)  # the arena's own folder, open for the sandboxed bot to enter
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=target_dir.parent))
    try:
        copy = tmp / source.name
        if source.is_dir():
            folders, files = _entries(source)
            copy.mkdir()
            for rel, _full in folders:
                (copy / rel).mkdir()
            for rel, full in files:
                _copy_file(full, copy / rel)
            for rel, full in [*reversed(folders), (".", source)]:  # last: a folder without w is full
                os.chmod(copy / rel, stat.S_IMODE(os.lstat(full).st_mode) & 0o777)
        else:
            _copy_file(source, copy)
        try:
            os.rename(copy, target)
        except OSError:
            if not target.exists():  # someone else stored the same content meanwhile: fine
                raise
    finally:
        for folder, _dirs, _files in os.walk(tmp):  # a folder copied without w cannot be emptied
            os.chmod(folder, 0o700)
        shutil.rmtree(tmp, ignore_errors=True)
    return target


store_copy = _store_copy  # (for the registration check: the same copy, elsewhere)


def _bot_row(db: sqlite_utils.Database, row: dict) -> dict:
    row = dict(row)
    row["path"] = str((_db_folder(db) / row["path"]).resolve())
    if isinstance(row.get("games"), str):
        row["games"] = json.loads(row["games"])
    return row


def plays(bot: dict, game: str) -> bool:
    """Whether a bot version may sit at a table of `game`: its stored ready.games name it, or
    it named none (any game)."""
    return bot.get("games") is None or game in bot["games"]


def default_name(path: Path) -> str:
    """A bot is registered under its file's stem (or folder's name) without a `_bot` suffix:
    bots/zwicker/random_bot.py is "random", the name that anchors the ratings."""
    stem = path.stem if path.is_file() else path.name
    for suffix in ("_bot", "-bot"):
        if stem.endswith(suffix) and len(stem) > len(suffix):
            return stem[: -len(suffix)]
    return stem


def add_bot(
    db: sqlite_utils.Database,
    path: str | os.PathLike[str],
    *,
    name: str | None = None,
    command: str | None = None,
    store_dir: str | os.PathLike[str] | None = None,
    new_version: bool = False,
    games: list[str] | None = None,
) -> dict:
    """Register a bot file or folder: same content again gives the existing version back. A
    version is its files and its command: the same files with another `command` are other
    content (a new version, with `new_version`); without a command, the path's files find the
    version that holds them, whatever its command, unless `new_version` asks for one without.

    Only regular files and folders are copied; a link, device or fifo (the bot's path itself or
    anything in its folder) is refused in one line naming it.
    Other content under a registered name is refused unless `new_version`: a file that merely
    shares a name (~/x/greedy_bot.py) must not silently become the next "greedy".
    """
    source = Path(path)
    if not source.exists() and not source.is_symlink():
        raise ArenaError(f"no bot at {source}")
    _check_kind(source)
    name = name if name is not None else default_name(source)
    if not _BOT_NAME.match(name):
        raise ArenaError(
            f"bad bot name {name!r}: use letters, digits and . _ + - (start with a letter or digit)"
        )
    if name.isdigit():
        raise ArenaError(f"bad bot name {name!r}: a name of digits only reads as a bot id")
    sha = bot_sha256(source)
    # a version is its files and its command; a path alone (no command, no new version) finds its content's
    existing = list(db.query("SELECT * FROM bots WHERE name = ? AND sha256 = ? AND command IS ?", [name, sha, command]))
    if not existing and command is None and not new_version:
        existing = list(db.query("SELECT * FROM bots WHERE name = ? AND sha256 = ? AND removed IS NULL"
                                 " ORDER BY version DESC LIMIT 1", [name, sha]))
    if existing and existing[0]["removed"] is None:
        return _bot_row(db, existing[0])
    latest = db.execute("SELECT version, source FROM bots WHERE name = ? AND removed IS NULL"
                        " ORDER BY version DESC LIMIT 1", [name]).fetchone()
    if latest is not None and not new_version:
        raise ArenaError(
            f"{source} is not the registered bot '{name}' (version {latest[0]}, from {latest[1]}): register it "
            f"with 'arena bot add {source} --new-version' to make it {name}@{latest[0] + 1}, or under another --name"
        )
    folder = _db_folder(db)
    store = Path(store_dir) if store_dir is not None else folder / "bots"
    stored = _store_copy(source.resolve(), store / sha)
    try:
        rel = os.path.relpath(stored.resolve(), folder.resolve())
    except ValueError:  # another drive on Windows
        rel = str(stored.resolve())
    if existing:  # removed once, added again: the same version, stored again
        with db.atomic():
            db.execute("UPDATE bots SET removed = NULL, path = ? WHERE id = ?", [rel, existing[0]["id"]])
        return get_bot(db, existing[0]["id"])
    with db.atomic():
        version = db.execute("SELECT COALESCE(MAX(version), 0) + 1 FROM bots WHERE name = ?", [name]).fetchone()[0]
        bot_id = db.execute(
            "INSERT INTO bots (name, version, command, path, kind, source, sha256, added, games)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [name, version, command, rel, "folder" if source.is_dir() else "file", str(source.resolve()), sha, _now(),
             None if games is None else json.dumps(games)],
        ).lastrowid
    assert bot_id is not None
    return get_bot(db, bot_id)


def list_bots(db: sqlite_utils.Database) -> list[dict]:
    """Every registered bot version that is not removed, by name then version."""
    return [_bot_row(db, r) for r in db.query("SELECT * FROM bots WHERE removed IS NULL ORDER BY name, version")]


def find_bot(db: sqlite_utils.Database, spec: str) -> dict:
    """A bot named as everywhere else: a path to its file or folder (found by content), or a
    registered name, name@version or id."""
    path = Path(spec).expanduser()
    if path.exists():
        sha = bot_sha256(path)
        rows = list(db.query("SELECT * FROM bots WHERE sha256 = ? AND removed IS NULL ORDER BY id DESC", [sha]))
        if not rows:
            raise ArenaError(f"{spec} is not registered (its content matches no bot): add it with 'arena bot add'")
        return _bot_row(db, rows[0])
    return get_bot(db, spec)


def _versions(db: sqlite_utils.Database, spec: str) -> list[dict]:
    """`name` means every version of it; `name@2`, an id or a path, that one version."""
    if "@" in spec or spec.isdigit() or Path(spec).expanduser().exists():
        return [find_bot(db, spec)]
    rows = [_bot_row(db, r) for r in db.query("SELECT * FROM bots WHERE name = ? AND removed IS NULL", [spec])]
    if not rows:
        get_bot(db, spec)  # the usual "unknown bot" message
    return rows


def tournaments_using(db: sqlite_utils.Database, bot_ids: list[int]) -> list[str]:
    marks = ",".join("?" * len(bot_ids))
    return [r[0] for r in db.execute(
        f"SELECT DISTINCT t.name FROM tournaments t JOIN tournament_bots tb ON tb.tournament_id = t.id"
        f" WHERE tb.bot_id IN ({marks}) ORDER BY t.id", bot_ids)]


def remove_bot(db: sqlite_utils.Database, spec: str, *, force: bool = False) -> list[dict]:
    """Remove a bot (every version, or the one named): its row and stored copy. A bot that
    tournaments used is refused unless `force`; then its copy goes, its row stays (marked
    removed), so those results still name it."""
    rows = _versions(db, spec)
    ids = [r["id"] for r in rows]
    used = tournaments_using(db, ids)
    if used and not force:
        raise ArenaError(f"bot '{spec}' played in {', '.join(used)}: --force removes its stored copy and keeps "
                         "their results readable (or delete those tournaments first)")
    with db.atomic():
        for r in rows:
            played = bool(tournaments_using(db, [r["id"]]))
            if played:
                db.execute("UPDATE bots SET removed = ? WHERE id = ?", [_now(), r["id"]])
            else:
                db.execute("DELETE FROM bots WHERE id = ?", [r["id"]])
    for r in rows:  # the copy, unless another registration stores the same content
        (left,) = db.execute("SELECT COUNT(*) FROM bots WHERE sha256 = ? AND removed IS NULL", [r["sha256"]]).fetchone()
        if not left:
            shutil.rmtree(Path(r["path"]).parent, ignore_errors=True)
    return rows


def rename_bot(db: sqlite_utils.Database, old: str, new: str) -> None:
    """Give every version of a bot another name; results show the new one."""
    if not _BOT_NAME.match(new) or new.isdigit():
        raise ArenaError(f"bad bot name {new!r}: use letters, digits and . _ + - (start with a letter or digit)")
    rows = _versions(db, old)
    if len({r["name"] for r in rows}) != 1 or "@" in old:
        raise ArenaError("rename a bot by its name, not one version")
    if db.execute("SELECT 1 FROM bots WHERE name = ?", [new]).fetchone():
        raise ArenaError(f"there is a bot '{new}' already")
    with db.atomic():
        db.execute("UPDATE bots SET name = ? WHERE name = ?", [new, rows[0]["name"]])


def disable_bot(db: sqlite_utils.Database, spec: str, *, disabled: bool = True) -> list[dict]:
    """Leave a bot (every version, or the one named) out of `--all` and new tournaments."""
    rows = _versions(db, spec)
    with db.atomic():
        for r in rows:
            db.execute("UPDATE bots SET disabled = ? WHERE id = ?", [_now() if disabled else None, r["id"]])
    return rows


def get_bot(db: sqlite_utils.Database, name_or_id: str | int, version: int | None = None) -> dict:
    """A bot by id, by name (latest version) or by "name@version"."""
    key = str(name_or_id)
    if isinstance(name_or_id, int) or key.isdigit():
        rows = list(db.query("SELECT * FROM bots WHERE id = ?", [int(key)]))
    else:
        if "@" in key and version is None:
            key, _, v = key.rpartition("@")
            if not v.isdigit():
                raise ArenaError(f"bad bot version in {name_or_id!r}: expected name@NUMBER")
            version = int(v)
        if version is None:
            rows = list(db.query("SELECT * FROM bots WHERE name = ? AND removed IS NULL"
                                 " ORDER BY version DESC LIMIT 1", [key]))
        else:
            rows = list(db.query("SELECT * FROM bots WHERE name = ? AND version = ?", [key, version]))
    if not rows:
        known = [r[0] for r in db.execute("SELECT DISTINCT name FROM bots WHERE removed IS NULL ORDER BY name")]
        what = f"{key}@{version}" if version is not None else key
        hint = ""
        if key == "random":  # (games.RANDOM_NAME) where to find the arena's own, from any folder
            import games

            hint = f"; the arena's random bot, which plays any game: arena bot add {games.RANDOM_BOT} --game GAME"
        raise ArenaError(f"unknown bot '{what}' (known: {', '.join(known) or 'none yet'}){hint}")
    return _bot_row(db, rows[0])
