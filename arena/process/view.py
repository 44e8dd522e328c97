"""What of /usr a sandboxed bot sees, and why every page of it stays cached.

The page cache is one memory for every process that reads a file: a bot that loads a page
another bot can read, or finds out whether it is loaded, passes a bit. The seccomp filter
refuses the calls that drop a page or ask about one without loading it (arena/process/seccomp.py);
what remains, a read timed by the clock, tells a loaded page (a microsecond) from one that
is not (a read from disk), and loads it. So a bot in bwrap or fork is shown only files whose
pages are all loaded, and loaded by the arena: not all of /usr (5 GB here, almost all of it
never read), but the files a bot runs on, the *view*:

- the sandbox's Python: its interpreter, the folders on its `sys.path` under /usr (the standard
  library, dist-packages), and every shared library those and their extension modules need;
- /bin/sh and the tools scripts call most (`BASE_PROGRAMS`: env, sleep, cat, grep, sed, ...),
  the locale C.UTF-8 and the zone file of /etc/localtime;
- a bot's own program when it lies under /usr (`/usr/bin/node`, say), with its libraries.

Bots see the view as a copy on the machine's tmpfs (`copy_to`, arena/process/sandbox.py's
usr_copy), whose pages are memory: no reclaim evicts them. Where there is no tmpfs the arena
asks the kernel to load every file of the view once per process (`pin`, POSIX_FADV_WILLNEED: a
few ms once the pages are there), and a bot's own folder at each start. The pages are then
charged to the arena's memory cgroup, not to a bot's: a bot that fills its own cgroup evicts
only pages it loaded itself, and it can load none of the view's. What the machine's own memory
pressure may still evict there is in docs/hostile.md.

Shared libraries are found as the dynamic loader finds them: each ELF file's DT_NEEDED names,
looked up in its RPATH/RUNPATH (with $ORIGIN), ld.so.cache (`ldconfig -p`) and the default
folders. A library a program opens by name at run time (dlopen) and that none of them names is
not in the view; `ZWICKER_SANDBOX_USR` names more paths under /usr to show (colon-separated).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import struct
import subprocess
from collections.abc import Iterable

USR = "/usr"
EXTRA_VAR = "ZWICKER_SANDBOX_USR"
BASE_PROGRAMS = tuple(f"/usr/bin/{tool}" for tool in (  # a shell and the tools scripts call most
    "sh", "env", "sleep", "cat", "true", "false", "echo", "ls", "kill", "id", "head", "tail", "wc", "sort",
    "grep", "sed", "tr", "cut", "dirname", "basename", "mkdir", "rm", "cp", "mv", "touch", "test", "expr", "timeout"))
BASE_PATHS = ("/usr/lib/locale/C.utf8",)
DEFAULT_LIBRARY_FOLDERS = {"x86_64": ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
                                      "/lib", "/usr/lib"),
                           "aarch64": ("/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64",
                                       "/lib", "/usr/lib")}
_CACHE_ARCH = {"x86_64": "x86-64", "aarch64": "AArch64"}


def _real_under_usr(path: str) -> str:
    """`path` with its folders' symlinks resolved (/lib -> /usr/lib), the last part kept."""
    return os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))


def _elf_needs(path: str) -> tuple[list[str], list[str], str | None]:
    """An ELF file's DT_NEEDED names, its RPATH/RUNPATH folders and its PT_INTERP (or nothing)."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
            if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
                return [], [], None  # not a 64-bit little-endian ELF file
            phoff, = struct.unpack_from("<Q", head, 32)
            phentsize, phnum = struct.unpack_from("<HH", head, 54)
            f.seek(phoff)
            table = f.read(phentsize * phnum)
            loads, dynamic, interp = [], None, None
            for i in range(phnum):
                kind, _, offset, vaddr, _, filesz, memsz, _ = struct.unpack_from("<IIQQQQQQ", table, i * phentsize)
                if kind == 1:
                    loads.append((vaddr, offset, memsz))
                elif kind == 2:
                    dynamic = (offset, filesz)
                elif kind == 3:
                    f.seek(offset)
                    interp = f.read(filesz).rstrip(b"\0").decode()
            if dynamic is None:
                return [], [], interp
            f.seek(dynamic[0])
            data = f.read(dynamic[1])
            entries = [struct.unpack_from("<qQ", data, i) for i in range(0, len(data) - 15, 16)]
            strtab = next((value for tag, value in entries if tag == 5), None)
            if strtab is None:
                return [], [], interp
            base = next((offset + strtab - vaddr for vaddr, offset, size in loads if vaddr <= strtab < vaddr + size), None)
            if base is None:
                return [], [], interp

            def string(at: int) -> str:
                f.seek(base + at)
                return f.read(4096).split(b"\0", 1)[0].decode(errors="replace")

            needed = [string(value) for tag, value in entries if tag == 1]
            origin = os.path.dirname(os.path.realpath(path))
            runpath = [folder.replace("$ORIGIN", origin).replace("${ORIGIN}", origin)
                       for tag, value in entries if tag in (15, 29) for folder in string(value).split(":") if folder]
            return needed, runpath, interp
    except (OSError, struct.error, UnicodeDecodeError):
        return [], [], None


@functools.cache
def _ld_cache() -> dict[str, str]:
    """soname -> path, as the dynamic loader's cache has them for this machine's ABI."""
    found: dict[str, str] = {}
    ldconfig = shutil.which("ldconfig") or "/sbin/ldconfig"
    try:
        out = subprocess.run([ldconfig, "-p"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return found
    arch = _CACHE_ARCH.get(os.uname().machine, "")
    for line in out.splitlines()[1:]:
        name, _, rest = line.strip().partition(" (")
        flags, _, path = rest.partition(") => ")
        if path and arch in flags:
            found.setdefault(name, path)
    return found


def _find_library(name: str, runpath: list[str]) -> str | None:
    if "/" in name:
        return name if os.path.exists(name) else None
    for folder in runpath:
        if os.path.exists(os.path.join(folder, name)):
            return os.path.join(folder, name)
    if name in _ld_cache():
        return _ld_cache()[name]
    for folder in DEFAULT_LIBRARY_FOLDERS.get(os.uname().machine, ()):
        if os.path.exists(os.path.join(folder, name)):
            return os.path.join(folder, name)
    return None


def _closure(files: Iterable[str]) -> set[str]:
    """`files` and every shared library they need, transitively (paths as the loader opens them)."""
    todo, seen = list(files), set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        needed, runpath, interp = _elf_needs(path)
        if interp:
            todo.append(interp)
        for name in needed:
            found = _find_library(name, runpath)
            if found:
                todo.append(found)
    return seen


def _with_links(path: str) -> list[str]:
    """`path` under /usr, and every path its chain of symlinks passes through."""
    out = []
    for _ in range(40):
        path = _real_under_usr(path)
        out.append(path)
        if not os.path.islink(path):
            break
        path = os.path.join(os.path.dirname(path), os.readlink(path))
    return out


@functools.cache
def _python_trees(python: str) -> tuple[str, ...]:
    """The folders under /usr on the sys.path of `python -I` (its stdlib, dist-packages)."""
    try:
        out = subprocess.run([python, "-I", "-c", "import json, sys; print(json.dumps(sys.path))"],
                             capture_output=True, text=True, timeout=30).stdout
        paths = json.loads(out)
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return ()
    return tuple(p for p in (os.path.realpath(p) for p in paths) if os.path.isdir(p) and _under_usr(p))


def _under_usr(path: str) -> bool:
    return path == USR or path.startswith(USR + "/")


def _elf_files_in(folder: str) -> list[str]:
    return [os.path.join(here, name) for here, _, names in os.walk(folder)
            for name in names if ".so" in name and os.path.isfile(os.path.join(here, name))]


def _minimal(paths: Iterable[str]) -> tuple[str, ...]:
    """The paths under /usr, without any that lies inside another one's folder."""
    kept: list[str] = []
    for path in sorted({p for p in paths if _under_usr(p) and p != USR and os.path.lexists(p)}):
        if not any(path.startswith(k + "/") for k in kept):
            kept.append(path)
    return tuple(kept)


@functools.cache
def base(python: str) -> tuple[str, ...]:
    """Every bot's view of /usr (sandbox Python `python`): paths (files, folders, symlinks)."""
    trees = _python_trees(python)
    programs = [python, *(p for p in BASE_PROGRAMS if os.path.lexists(p)), *(f for tree in trees for f in _elf_files_in(tree))]
    if os.path.islink("/etc/localtime"):
        programs.append(os.path.realpath("/etc/localtime"))
    extra = [p for p in os.environ.get(EXTRA_VAR, "").split(":") if p]
    return entries([*trees, *BASE_PATHS, *extra], programs)


def entries(folders: Iterable[str], programs: Iterable[str]) -> tuple[str, ...]:
    """The view's paths for these folders and programs (with the libraries they need)."""
    found = [*folders]
    for path in _closure(programs):
        found += _with_links(path)
    return _minimal(os.path.abspath(p) for p in found)


@functools.cache
def for_program(program: str) -> tuple[str, ...]:
    """What a bot's own program adds to the view (itself and its libraries, under /usr)."""
    return entries((), [program])


def layout(paths: Iterable[str]) -> list[tuple[str, str, str]]:
    """The view as (kind, path, link target) records: "dir", "file" or "link" (kept a link, so
    that /usr/bin/python3 -> python3.11 looks as it does outside)."""
    out = []
    for path in paths:
        if os.path.islink(path):
            out.append(("link", path, os.readlink(path)))
        else:
            out.append(("dir" if os.path.isdir(path) else "file", path, ""))
    return out


def copy_to(layout: Iterable[tuple[str, str, str]], dest: str) -> None:
    """The view as a tree of its own under `dest` (a tmpfs: its pages are memory, never evicted),
    for bwrap, which then binds one folder instead of a hundred paths (about 130 ms less per bot).
    Files keep their modes and times (so the standard library's bytecode stays valid)."""
    for kind, path, target in layout:
        inside = os.path.join(dest, os.path.relpath(path, USR))
        os.makedirs(os.path.dirname(inside), mode=0o755, exist_ok=True)
        if kind == "link":
            os.symlink(target, inside)
        elif kind == "dir":
            shutil.copytree(path, inside, symlinks=True, ignore_dangling_symlinks=True, dirs_exist_ok=True)
        else:
            shutil.copy2(path, inside)
    for here, dirs, _ in os.walk(dest):
        os.chmod(here, 0o755)


_pinned: set[str] = set()


def pin(paths: Iterable[str]) -> None:
    """Ask the kernel to load every page of these files (and of every file in these folders),
    charged to this process: each path once per process."""
    for path in paths:
        if path in _pinned:
            continue
        _pinned.add(path)
        if os.path.isdir(path) and not os.path.islink(path):
            for here, _, names in os.walk(path):
                for name in names:
                    _pin_file(os.path.join(here, name))
        else:
            _pin_file(path)


def pin_folder(folder: str) -> None:
    """A bot's own folder, at each start (it is small; its files may have changed)."""
    for here, _, names in os.walk(folder):
        for name in names:
            _pin_file(os.path.join(here, name))


def _pin_file(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if os.path.isfile(f"/proc/self/fd/{fd}"):
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_WILLNEED)
    except OSError:
        pass
    finally:
        os.close(fd)
