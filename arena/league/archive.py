"""A submitted bot travels as one tar archive (gzip optional) holding one file or one folder.

Unpacking follows the bot store's rules (arena.results.registry): regular files and folders
only, so a link (symbolic or hard), a device, a fifo, a sparse file, an absolute path or a `..`
is refused, and so is an archive that unpacks to more than `max_bytes` or holds more than
`max_files` files and folders. Member names must be UTF-8 without control characters, and no
file may stand where another entry needs a folder.

The archive is read in one pass through a bounded reader: the decompressed stream stops at
`Limits.max_stream` bytes (derived from the upload limit), and an extended header (PAX `x`/`g`)
or a GNU long name or link (`L`/`K`) larger than `HEADER_MAX` is refused from its size field,
before `tarfile` reads its content into memory. `unpack_isolated` runs all of it in a process
of its own under an address-space limit (RLIMIT_AS) and a CPU limit, off the server's event
loop. A refused archive may have written part of itself into `into`; the caller unpacks into a
temporary folder and removes it. Unpacked files are readable by the sandboxed bot's own user
(0644, or 0755 when the author made them executable), folders 0755; set-id bits are dropped.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import sys
import tarfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Any

from arena.errors import ArenaError

MiB = 1024 * 1024
NAME_MAX = 255  # bytes in one file or folder name (Linux's limit)
PATH_MAX = 1024  # bytes in an entry's path: the server's folders come before it, within Linux's 4096
HEADER_MAX = 32 * 1024  # bytes in one extended (PAX) header or GNU long name/link
MEMORY_MAX = 512 * MiB  # address space of the unpacking process
CPU_MAX_S = 60  # its CPU seconds


@dataclass(frozen=True)
class Limits:
    max_bytes: int = 10 * MiB  # unpacked
    max_files: int = 1000

    @property
    def max_upload(self) -> int:
        """The largest request body taken in: tar's headers and padding cost at most 1 KiB a
        file beyond the content, and gzip never makes it larger than that."""
        return self.max_bytes + 1024 * (self.max_files + 2) + 64 * 1024

    @property
    def max_stream(self) -> int:
        """The most bytes the decompressed tar stream may hold: the content, a header, its
        padding and an extended header of a few blocks a member (what `pack` writes uses
        three blocks), and tar's closing record."""
        return self.max_bytes + 4096 * (self.max_files + 2) + 64 * 1024


class BadArchive(ArenaError):
    """The archive breaks a rule; the message is the one line the author sees (HTTP 400)."""


_KINDS = [(tarfile.TarInfo.issym, "a symbolic link"), (tarfile.TarInfo.islnk, "a hard link"),
          (tarfile.TarInfo.ischr, "a character device"), (tarfile.TarInfo.isblk, "a block device"),
          (tarfile.TarInfo.isfifo, "a fifo")]
_EXTENDED = {tarfile.XHDTYPE: "an extended (PAX) header", tarfile.XGLTYPE: "a global extended (PAX) header",
             tarfile.SOLARIS_XHDTYPE: "an extended (PAX) header", tarfile.GNUTYPE_LONGNAME: "a GNU long name",
             tarfile.GNUTYPE_LONGLINK: "a GNU long link name"}


class _BoundedInfo(tarfile.TarInfo):
    """A member header that refuses an extended or long-name header above HEADER_MAX from its
    size field, before tarfile reads the content (which it would hold in memory whole)."""

    def _proc_member(self, tar: tarfile.TarFile) -> tarfile.TarInfo:  # type: ignore[override]
        if self.type in _EXTENDED and self.size > HEADER_MAX:
            raise BadArchive(f"the archive holds {_EXTENDED[self.type]} of {self.size} bytes "
                             f"(at most {HEADER_MAX} allowed)")
        if self.type == tarfile.GNUTYPE_SPARSE:
            raise BadArchive("the archive holds a sparse file: a bot is submitted as regular files and folders only")
        return super()._proc_member(tar)  # type: ignore[misc]


class _Capped(io.RawIOBase):
    """A stream read through, refused once more than `cap` bytes came out of it."""

    def __init__(self, source: IO[bytes], cap: int) -> None:
        self.source, self.cap, self.read_so_far = source, cap, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        want = min(len(buffer), self.cap + 1 - self.read_so_far)
        chunk = self.source.read(max(want, 1))
        self.read_so_far += len(chunk)
        if self.read_so_far > self.cap:
            raise BadArchive(f"the archive's tar stream is longer than {self.cap} bytes, headers and padding "
                             "included")
        buffer[: len(chunk)] = chunk
        return len(chunk)


def _bad_name(name: str) -> str | None:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "is not UTF-8"
    if any(ord(c) < 32 or 127 <= ord(c) < 160 or c in "\u2028\u2029" for c in name):
        return "contains a control character"
    return None


def _shown(name: str) -> str:
    name = name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    name = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 256 else "?" for c in name)
    return name if len(name) <= 80 else name[:60] + "..."


def _member_path(member: tarfile.TarInfo) -> PurePosixPath:
    name = member.name
    if (why := _bad_name(name)) is not None:
        raise BadArchive(f"archive entry {_shown(name)!r} has a name that {why}")
    path = PurePosixPath(name)
    if name.startswith("/") or path.is_absolute() or "\\" in name or (len(name) > 1 and name[1] == ":"):
        raise BadArchive(f"archive entry {_shown(name)!r} is an absolute path: entries must be relative")
    if ".." in path.parts:
        raise BadArchive(f"archive entry {_shown(name)!r} contains '..': entries must stay inside the bot")
    parts = [p for p in path.parts if p not in ("", ".")]
    if not parts:
        raise BadArchive("the archive holds an entry without a name")
    if any(len(p.encode()) > NAME_MAX for p in parts):
        raise BadArchive(f"archive entry {_shown(name)!r} has a name longer than {NAME_MAX} bytes")
    if len(name.encode()) > PATH_MAX:
        raise BadArchive(f"archive entry {_shown(name)!r} is a path longer than {PATH_MAX} bytes")
    return PurePosixPath(*parts)


def _open(data: bytes, limits: Limits) -> tarfile.TarFile:
    if len(data) > limits.max_upload:
        raise BadArchive(f"the upload is {len(data)} bytes, more than the {limits.max_upload} allowed "
                         f"(a bot unpacks to at most {limits.max_bytes} bytes)")
    raw: IO[bytes] = io.BytesIO(data)
    if data[:2] == b"\x1f\x8b":
        raw = gzip.GzipFile(fileobj=raw, mode="rb")
    elif data[:3] == b"BZh" or data[:6] == b"\xfd7zXZ\x00":
        raise BadArchive("not a tar archive (plain or gzip): bzip2 and xz are not taken")
    stream = io.BufferedReader(_Capped(raw, limits.max_stream), 64 * 1024)
    try:
        return tarfile.open(fileobj=stream, mode="r|", tarinfo=_BoundedInfo)
    except BadArchive:
        raise
    except RecursionError:
        raise BadArchive("the archive chains too many extended headers") from None
    except (tarfile.TarError, EOFError, OSError, ValueError, zlib.error) as exc:
        raise BadArchive(f"not a tar archive (plain or gzip): {exc}") from None


def unpack(data: bytes, into: Path, limits: Limits = Limits()) -> Path:
    """Check and unpack the archive into the (empty or missing) folder `into`, in one pass;
    returns the bot's path in it. On BadArchive, `into` may hold part of it: remove it."""
    into.mkdir(exist_ok=True)
    tar = _open(data, limits)
    seen: set[PurePosixPath] = set()
    files: set[PurePosixPath] = set()
    folders: set[PurePosixPath] = set()
    tops: list[str] = []
    total = count = 0
    try:
        with tar:
            for member in tar:
                path = _member_path(member)
                for test, kind in _KINDS:
                    if test(member):
                        target = f" (to {_shown(member.linkname)})" if member.issym() or member.islnk() else ""
                        raise BadArchive(f"archive entry {_shown(member.name)!r} is {kind}{target}: a bot is "
                                         "submitted as regular files and folders only")
                if not (member.isreg() or member.isdir()) or member.sparse is not None:
                    raise BadArchive(f"archive entry {_shown(member.name)!r} is not a regular file or folder")
                if path in seen:
                    raise BadArchive(f"archive entry {_shown(member.name)!r} appears twice")
                seen.add(path)
                count += 1  # folders count too: a bomb of empty folders is a long walk as well
                if count > limits.max_files:
                    raise BadArchive(f"the archive holds more than {limits.max_files} files and folders")
                if path.parts[0] not in tops:
                    tops.append(path.parts[0])
                if len(tops) > 1:
                    raise BadArchive(f"the archive must hold one file or one folder, not several "
                                     f"({', '.join(_shown(t) for t in tops[:5])})")
                for parent in path.parents:
                    if parent in files:
                        raise BadArchive(f"archive entry {_shown(member.name)!r} uses the file "
                                         f"{_shown(str(parent))!r} as a folder")
                if member.isdir():
                    if path in files:
                        raise BadArchive(f"archive entry {_shown(member.name)!r} appears twice")
                    folders.update([path, *path.parents])
                    (into / path).mkdir(parents=True, exist_ok=True)
                    continue
                if path in folders:
                    raise BadArchive(f"archive entry {_shown(member.name)!r} is a file where the archive "
                                     "has a folder")
                if len(path.parts) == 1 and (folders or files):
                    raise BadArchive(f"the archive must hold one file or one folder: {_shown(str(path))!r} "
                                     "is a file beside others")
                total += member.size
                if total > limits.max_bytes:
                    raise BadArchive(f"the archive unpacks to more than {limits.max_bytes} bytes "
                                     f"({limits.max_bytes // MiB} MiB allowed)")
                files.add(path)
                folders.update(path.parents)
                target = into / path
                target.parent.mkdir(parents=True, exist_ok=True)
                source = tar.extractfile(member)
                assert source is not None
                with open(target, "xb") as out:
                    while chunk := source.read(1024 * 1024):
                        out.write(chunk)
                os.chmod(target, 0o755 if member.mode & 0o111 else 0o644)
    except BadArchive:
        raise
    except tarfile.TarError as exc:
        raise BadArchive(f"a broken tar archive: {exc}") from None
    except (EOFError, OSError, ValueError, zlib.error) as exc:  # a truncated or corrupt gzip stream
        raise BadArchive(f"a broken archive: {exc}") from None
    except RecursionError:  # extended headers chained one after another
        raise BadArchive("the archive chains too many extended headers") from None
    if not tops:
        raise BadArchive("the archive must hold one file or one folder, not nothing")
    for folder in [into, *(p for p in into.rglob("*") if p.is_dir())]:
        os.chmod(folder, 0o755)
    return into / tops[0]


async def unpack_isolated(data: bytes, into: Path, limits: Limits = Limits()) -> Path:
    """`unpack` in a process of its own (`python -m arena.league.archive`) with at most
    MEMORY_MAX of address space and CPU_MAX_S of CPU, so that no archive can take the server's
    memory or its event loop. Raises BadArchive with the reason."""
    import trio

    if len(data) > limits.max_upload:  # before a process is started for it
        raise BadArchive(f"the upload is {len(data)} bytes, more than the {limits.max_upload} allowed "
                         f"(a bot unpacks to at most {limits.max_bytes} bytes)")
    root = str(Path(__file__).resolve().parents[2])
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": root, "LC_ALL": "C.UTF-8"}
    done = await trio.run_process(
        [sys.executable, "-s", "-m", "arena.league.archive", str(into), str(limits.max_bytes),
         str(limits.max_files)], stdin=data, capture_stdout=True, capture_stderr=True, check=False,
        env=env, cwd=root)
    try:
        answer = json.loads(done.stdout.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        answer = {}
    if done.returncode == 0 and "path" in answer:
        return Path(answer["path"])
    if "error" in answer:
        raise BadArchive(answer["error"])
    raise BadArchive("the archive could not be read within the unpacker's limits "
                     f"({MEMORY_MAX // MiB} MiB of memory, {CPU_MAX_S} s of CPU)")


def _main(argv: list[str]) -> int:
    """The unpacking process: the archive on stdin, one JSON line out ({"path"} or {"error"})."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_MAX, MEMORY_MAX))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_MAX_S, CPU_MAX_S))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    into, max_bytes, max_files = Path(argv[0]), int(argv[1]), int(argv[2])
    limits = Limits(max_bytes, max_files)
    try:
        data = sys.stdin.buffer.read(limits.max_upload + 1)
        path = unpack(data, into, limits)
    except BadArchive as exc:
        print(json.dumps({"error": str(exc)}))
        return 1
    except MemoryError:
        print(json.dumps({"error": f"the archive needs more than {MEMORY_MAX // MiB} MiB to read"}))
        return 1
    except Exception as exc:  # noqa: BLE001 - whatever it is, the author gets one line, never a trace
        print(json.dumps({"error": f"the archive could not be read ({type(exc).__name__})"}))
        return 1
    print(json.dumps({"path": str(path)}))
    return 0


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


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
