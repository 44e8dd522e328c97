"""A submitted bot travels as one tar archive (gzip optional) holding one file or one folder.

Unpacking follows the bot store's rules (arena.results.registry): regular files and folders
only, so a link (symbolic or hard), a device, a fifo, an absolute path or a `..` is refused,
and so is an archive that unpacks to more than `max_bytes` or holds more than `max_files`
files and folders. Every member is checked from the headers before a byte is written, so a refused
archive leaves nothing behind. Unpacked files are readable by the sandboxed bot's own user
(0644, or 0755 when the author made them executable), folders 0755; set-id bits are dropped.
"""

from __future__ import annotations

import io
import os
import tarfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from arena.errors import ArenaError

MiB = 1024 * 1024
NAME_MAX = 255  # bytes in one file or folder name (Linux's limit)
PATH_MAX = 1024  # bytes in an entry's path: the server's folders come before it, within Linux's 4096


@dataclass(frozen=True)
class Limits:
    max_bytes: int = 10 * MiB  # unpacked
    max_files: int = 1000

    @property
    def max_upload(self) -> int:
        """The largest request body taken in: tar's headers and padding cost at most 1 KiB a
        file beyond the content, and gzip never makes it larger than that."""
        return self.max_bytes + 1024 * (self.max_files + 2) + 64 * 1024


class BadArchive(ArenaError):
    """The archive breaks a rule; the message is the one line the author sees (HTTP 400)."""


_KINDS = [(tarfile.TarInfo.issym, "a symbolic link"), (tarfile.TarInfo.islnk, "a hard link"),
          (tarfile.TarInfo.ischr, "a character device"), (tarfile.TarInfo.isblk, "a block device"),
          (tarfile.TarInfo.isfifo, "a fifo")]


def _member_path(member: tarfile.TarInfo) -> PurePosixPath:
    name = member.name
    path = PurePosixPath(name)
    if name.startswith("/") or path.is_absolute() or "\\" in name or (len(name) > 1 and name[1] == ":"):
        raise BadArchive(f"archive entry {name!r} is an absolute path: entries must be relative")
    if ".." in path.parts:
        raise BadArchive(f"archive entry {name!r} contains '..': entries must stay inside the bot")
    if "\0" in name:
        raise BadArchive(f"archive entry {name!r} contains a NUL byte")
    parts = [p for p in path.parts if p not in ("", ".")]
    if not parts:
        raise BadArchive("the archive holds an entry without a name")
    shown = name if len(name) <= 80 else name[:60] + "..."
    if any(len(p.encode(errors="surrogateescape")) > NAME_MAX for p in parts):
        raise BadArchive(f"archive entry {shown!r} has a name longer than {NAME_MAX} bytes")
    if len(name.encode(errors="surrogateescape")) > PATH_MAX:
        raise BadArchive(f"archive entry {shown!r} is a path longer than {PATH_MAX} bytes")
    return PurePosixPath(*parts)


def check(data: bytes, limits: Limits = Limits()) -> list[tuple[PurePosixPath, tarfile.TarInfo]]:
    """Every member of the archive, checked: one top-level file or folder, nothing but regular
    files and folders, within the limits."""
    if len(data) > limits.max_upload:
        raise BadArchive(f"the upload is {len(data)} bytes, more than the {limits.max_upload} allowed "
                         f"(a bot unpacks to at most {limits.max_bytes} bytes)")
    try:
        tar = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise BadArchive(f"not a tar archive (plain or gzip): {exc}") from None
    members: list[tuple[PurePosixPath, tarfile.TarInfo]] = []
    total = files = 0
    seen: set[PurePosixPath] = set()
    try:
        with tar:
            for member in tar:
                path = _member_path(member)
                for test, kind in _KINDS:
                    if test(member):
                        target = f" (to {member.linkname})" if member.issym() or member.islnk() else ""
                        raise BadArchive(f"archive entry {member.name!r} is {kind}{target}: a bot is submitted "
                                         "as regular files and folders only")
                if not (member.isreg() or member.isdir()):
                    raise BadArchive(f"archive entry {member.name!r} is not a regular file or folder")
                if path in seen:
                    raise BadArchive(f"archive entry {member.name!r} appears twice")
                seen.add(path)
                files += 1  # folders count too: a bomb of empty folders is a long walk as well
                if files > limits.max_files:
                    raise BadArchive(f"the archive holds more than {limits.max_files} files and folders")
                if member.isreg():
                    total += member.size
                    if total > limits.max_bytes:
                        raise BadArchive(f"the archive unpacks to more than {limits.max_bytes} bytes "
                                         f"({limits.max_bytes // MiB} MiB allowed)")
                members.append((path, member))
    except tarfile.TarError as exc:
        raise BadArchive(f"a broken tar archive: {exc}") from None
    except (EOFError, OSError, ValueError) as exc:  # a truncated or corrupt gzip stream
        raise BadArchive(f"a broken archive: {exc}") from None
    tops = {path.parts[0] for path, _ in members}
    if len(tops) != 1:
        raise BadArchive(f"the archive must hold one file or one folder, not {len(tops) or 'nothing'}"
                         + (f" ({', '.join(sorted(tops)[:5])})" if tops else ""))
    top = PurePosixPath(next(iter(tops)))
    if any(path == top and member.isreg() for path, member in members) and len(members) > 1:
        raise BadArchive(f"the archive must hold one file or one folder: {str(top)!r} is a file beside others")
    return members


def unpack(data: bytes, into: Path, limits: Limits = Limits()) -> Path:
    """Unpack a checked archive into the (empty) folder `into`; returns the bot's path in it."""
    members = check(data, limits)
    tar = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")
    with tar:
        by_name = {m.name: path for path, m in members}
        folders = []
        for member in tar:
            path = into / by_name[member.name]
            if member.isdir():
                path.mkdir(parents=True, exist_ok=True)
                folders.append(path)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(member)
            assert source is not None
            written = 0
            with open(path, "xb") as out:
                while chunk := source.read(1024 * 1024):
                    written += len(chunk)
                    if written > member.size:  # (tarfile reads exactly the header's size)
                        raise BadArchive(f"archive entry {member.name!r} is longer than its header says")
                    out.write(chunk)
            os.chmod(path, 0o755 if member.mode & 0o111 else 0o644)
    for folder in [into, *folders, *(p for p in into.rglob("*") if p.is_dir())]:
        os.chmod(folder, 0o755)
    return into / members[0][0].parts[0]


def pack(path: Path) -> bytes:
    """A bot file or folder as the gzip tar archive `arena submit` sends (caches and VCS folders
    left out, as the store leaves them out). A link or device inside is refused here already."""
    from arena.results.registry import _check_kind, _entries

    path = Path(path)
    if not path.exists() and not path.is_symlink():
        raise ArenaError(f"no bot at {path}")
    _check_kind(path)
    entries = _entries(path) if path.is_dir() else ([], [])
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
        top = path.name
        if path.is_dir():
            tar.add(path, arcname=top, recursive=False)
            folders, files = entries
            for rel, full in folders:
                tar.add(full, arcname=f"{top}/{rel}", recursive=False)
            for rel, full in files:
                tar.add(full, arcname=f"{top}/{rel}", recursive=False)
        else:
            tar.add(path, arcname=top, recursive=False)
    return buffer.getvalue()
