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
- the shared libraries under /usr that the compiled modules of the arena's own environment need
  (glibc's libpthread, librt and libdl beside the above, here): a bot that declares a library it
  imports (numpy, OpenSpiel: arena/process/libraries.py) is shown that library's files beside the
  kit, and finds what they load in the view; a bot that declares nothing is shown none of the
  library's own files;
- the runtime a bot's command (also after `env VAR=value`, `launched`) or its script's `#!` line
  names (`for_program`): the program, its Debian package's files and its own library's (Tcl's
  init.tcl is libtcl8.6's), the runtime's home or library folders (a JDK's home, perl's @INC,
  ruby's load and gem paths, python's sys.path) and their libraries; a runtime's links into /etc
  (a JDK's configuration) are shown as what they point to.

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
import re
import shutil
import struct
import subprocess
import sysconfig
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


def _arena_site() -> set[str]:
    """The arena's own environment's site-packages, whose libraries a bot may declare it imports
    (arena/process/libraries.py): their compiled modules' shared libraries under /usr are in the view."""
    return {p for p in (sysconfig.get_path("platlib"), sysconfig.get_path("purelib")) if p and os.path.isdir(p)}


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
    programs += [f for tree in _arena_site() for f in _elf_files_in(tree)]  # what a declared library needs
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


RUNTIME_QUERIES = {  # how a runtime names the folders it loads its own library from
    "perl": ("-e", "print join(qq(\\0), @INC)"),
    "ruby": ("-e", "print(($LOAD_PATH + (defined?(Gem) ? Gem.path : [])).join(0.chr))"),
    "python": ("-I", "-c", "import sys; print(chr(0).join(sys.path), end='')"),
}
SKIPPED = ("/usr/share/doc/", "/usr/share/man/", "/usr/share/info/", "/usr/share/lintian/", "/usr/include/",
           "/usr/share/locale/", "/usr/share/gdb/", "/usr/share/bug/", "/usr/share/menu/", "/usr/share/applications/",
           "/usr/share/icons/", "/usr/share/bash-completion/", "/usr/share/zsh/", "/usr/share/systemtap/")
"""What of a runtime's package no program reads to run (documentation, headers, shell completion)."""
HOME_SKIPPED = ("jmods", "include", "man", "legal", "docs", "demo", "sample", "src.zip", "lib/src.zip")
"""What of a JDK's home no program reads to run (modules for jlink, headers, sources)."""
SCRIPT_PATH = ("/usr/local/bin", "/usr/bin", "/bin")  # where `#!/usr/bin/env NAME` finds NAME in the sandbox
DPKG_INFO = "/var/lib/dpkg/info"


def interpreters(program: str) -> list[str]:
    """`program` and what runs it: the interpreter its `#!` line names (and that one's, in turn),
    `#!/usr/bin/env NAME` looked up as the sandbox's PATH would find NAME."""
    out: list[str] = []
    todo = [program]
    while todo and len(out) < 8:
        path = todo.pop()
        if path in out:
            continue
        out.append(path)
        try:
            with open(path, "rb") as f:
                head = f.read(256)
        except OSError:
            continue
        if not head.startswith(b"#!"):
            continue
        words = head[2:].split(b"\n", 1)[0].decode(errors="replace").split()
        if not words:
            continue
        if os.path.basename(words[0]) == "env":
            names = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
            found = next((os.path.join(d, names[0]) for d in SCRIPT_PATH if names
                          and os.path.exists(os.path.join(d, names[0]))), None)
            todo += [words[0]] + ([found] if found else [])
        else:
            todo.append(words[0])
    return out


ENV_OPTIONS_WITH_VALUE = ("-u", "-C", "-S", "--unset", "--chdir", "--split-string")


def launched(argv: Iterable[str], workdir: str) -> list[str]:
    """The programs a bot's command starts: its first word (absolute) and, where that is `env`,
    the program `env` runs after its options and VAR=value words, as the sandbox's PATH finds it
    (a relative path: in the bot's folder `workdir`)."""
    words = list(argv)
    if not words:
        return []
    programs = [words[0]]
    if os.path.basename(words[0]) == "env":
        rest = words[1:]
        while rest and (rest[0].startswith("-") or "=" in rest[0]):
            rest = rest[2:] if rest[0] in ENV_OPTIONS_WITH_VALUE else rest[1:]
        if rest:
            name = rest[0]
            if os.sep in name:
                programs.append(os.path.normpath(os.path.join(workdir, name)))
            elif found := next((os.path.join(d, name) for d in SCRIPT_PATH if os.path.exists(os.path.join(d, name))), None):
                programs.append(found)
    return programs


def runtime_kind(program: str) -> str | None:
    """Which runtime a program is ("java", "perl", "ruby", "python", "node"), by its real name."""
    name = os.path.basename(os.path.realpath(program))
    for kind in ("java", "perl", "ruby", "python", "node"):
        if name.startswith(kind):
            return kind
    return None


@functools.cache
def _package_files(path: str) -> tuple[str, ...]:
    """The files (not folders) of the Debian package that holds `path`, without its documentation
    (SKIPPED); nothing where dpkg does not know it."""
    owners = _dpkg_owners(path)
    files: list[str] = []
    for owner in owners:
        try:
            with open(os.path.join(DPKG_INFO, f"{owner}.list")) as f:
                names = f.read().splitlines()
        except OSError:
            continue
        files += [n for n in names if not n.startswith(SKIPPED) and os.path.lexists(n) and not os.path.isdir(n)]
    return tuple(files)


def _dpkg_owners(path: str) -> list[str]:
    """The packages (as their .list files are named, `name:arch` or `name`) listing `path`."""
    try:
        lists = [n for n in os.listdir(DPKG_INFO) if n.endswith(".list")]
    except OSError:
        return []
    wanted = {path, _usrmerged(path)}
    owners = []
    for name in lists:
        try:
            with open(os.path.join(DPKG_INFO, name)) as f:
                if any(line.rstrip("\n") in wanted for line in f):
                    owners.append(name[:-len(".list")])
        except OSError:
            continue
    return owners


def _usrmerged(path: str) -> str:
    """/usr/bin/x as dpkg may list it from before /usr was merged (/bin/x), and the other way."""
    for short in ("/bin/", "/sbin/", "/lib/", "/lib64/"):
        if path.startswith("/usr" + short):
            return path[len("/usr"):]
        if path.startswith(short):
            return "/usr" + path
    return path


@functools.cache
def _asked_folders(program: str, kind: str) -> tuple[str, ...]:
    """The folders under /usr the runtime says it loads its library from (perl's @INC, ruby's
    $LOAD_PATH and gem path, python's sys.path)."""
    try:
        out = subprocess.run([program, *RUNTIME_QUERIES[kind]], capture_output=True, text=True, timeout=30,
                             env={"PATH": ":".join(SCRIPT_PATH), "LANG": "C.UTF-8"}).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ()
    folders = [os.path.realpath(p) for p in out.split("\0") if p]
    links = [link for p in out.split("\0") if p and os.path.isdir(p) for link in _with_links(p)]  # perl/5.36 -> 5.36.0
    return tuple(p for p in [*folders, *links] if os.path.lexists(p) and _under_usr(p))


def _java_home(program: str) -> str | None:
    """The JDK's home of a `java` program (the folder of its bin/ and lib/modules)."""
    home = os.path.dirname(os.path.dirname(os.path.realpath(program)))
    return home if os.path.isfile(os.path.join(home, "lib", "modules")) else None


def _runtime_libraries(program: str) -> list[str]:
    """The shared libraries `program` needs that are its runtime's own, named as it is (tclsh8.6's
    libtcl8.6.so, perl's libperl.so.5.36, ruby3.1's libruby-3.1.so): their packages hold what
    the interpreter loads at start (Tcl's init.tcl)."""
    name = os.path.basename(program)
    needed, runpath, _ = _elf_needs(program)
    own = []
    for library in needed:
        stem = re.sub(r"[-.\d].*$", "", library.removeprefix("lib"))
        if len(stem) >= 3 and name.startswith(stem) and (found := _find_library(library, runpath)):
            own.append(os.path.realpath(found))
    return own


def runtime_paths(program: str) -> tuple[list[str], list[str]]:
    """What running `program` needs besides its ELF libraries: (paths to show, programs whose
    libraries to add). Its Debian package's files and those of its runtime's own library
    (`_runtime_libraries`), and the runtime's own home (a JDK's, without what only a build reads)
    or library folders (as perl, ruby or python report them)."""
    real = os.path.realpath(program)
    shown: list[str] = [f for path in [real, *_runtime_libraries(real)] for f in _package_files(path)]
    programs = [p for p in shown if os.path.isfile(p) and not os.path.islink(p) and (".so" in p or os.access(p, os.X_OK))]
    kind = runtime_kind(program)
    if kind == "java" and (home := _java_home(real)):
        for name in sorted(os.listdir(home)):
            if name in HOME_SKIPPED:
                continue
            if name == "lib":
                shown += [os.path.join(home, "lib", n) for n in os.listdir(os.path.join(home, "lib"))
                          if f"lib/{n}" not in HOME_SKIPPED]
            else:
                shown.append(os.path.join(home, name))
        programs += _elf_files_in(home) + [os.path.join(home, "bin", n) for n in os.listdir(os.path.join(home, "bin"))]
    elif kind in RUNTIME_QUERIES:
        folders = _asked_folders(program, kind)
        shown += folders
        programs += [f for folder in folders for f in _elf_files_in(folder)]
    return shown, programs


@functools.cache
def for_program(program: str) -> tuple[str, ...]:
    """What a bot's own program adds to the view: itself, the interpreter its `#!` line names
    and the runtime that is (`runtime_paths`), and every library those need, under /usr."""
    folders: list[str] = []
    programs: list[str] = []
    for path in interpreters(program):
        programs.append(path)
        if _under_usr(os.path.realpath(path)) or _under_usr(path):
            shown, libraries = runtime_paths(path)
            folders += shown
            programs += libraries
    return entries(folders, programs)


def unseen_interpreter(program: str, folder: str) -> str | None:
    """Why the interpreter `program`'s `#!` line names cannot run in the sandbox (it is not
    installed, or lies outside /usr and outside the bot's folder), or None."""
    for path in interpreters(program)[1:]:
        real = os.path.realpath(path)
        if not os.path.exists(real):
            return f"its #! line names {path}, which is not installed here"
        if not _under_usr(real) and not real.startswith(os.path.realpath(folder) + "/"):
            return (f"its #! line names {path}, which lies outside /usr (all of the machine the sandbox shows "
                    "a bot): install that runtime under /usr, or name one there")
    return None


_PATH = re.compile(r"(/usr/[\w.+@:-]+(?:/[\w.+@:-]+)*)")
_PERL_MISSING = re.compile(r"Can't locate (\S+) in @INC")


def unseen(text: str, shown: Iterable[str]) -> list[str]:
    """The files a bot's words (its stderr) name that are on this machine under /usr but not in
    its view `shown`: named by path, or (perl's "Can't locate X.pm in @INC") found in perl's @INC."""
    folders = tuple(shown)
    covered = lambda path: any(path == p or path.startswith(p + "/") for p in folders)  # noqa: E731
    named = _PATH.findall(text)
    for module in _PERL_MISSING.findall(text):
        perl = shutil.which("perl", path=":".join(SCRIPT_PATH))
        for folder in _asked_folders(perl, "perl") if perl else ():
            if os.path.exists(os.path.join(folder, module)):
                named.append(os.path.join(folder, module))
                break
    out: list[str] = []
    for path in named:
        path = path.rstrip(".:")
        if os.path.exists(path) and not covered(path) and not covered(_real_under_usr(path)) and path not in out:
            out.append(path)
    return out


def _shown_from(path: str) -> str:
    """Where the content shown at `path` comes from: `path`, or the file or folder a link of a
    runtime points to under /etc (a JDK's conf/security/java.security -> /etc/java-17-openjdk/...),
    which the sandbox shows in its place."""
    if os.path.islink(path):
        real = os.path.realpath(path)
        if real.startswith("/etc/") and not real.startswith("/etc/alternatives/") and os.path.exists(real):
            return real
    return path


def layout(paths: Iterable[str]) -> list[tuple[str, str, str]]:
    """The view as (kind, path, link target or source) records: "dir", "file" or "link" (kept a
    link, so that /usr/bin/python3 -> python3.11 looks as it does outside). A "dir" or "file"
    whose source is given shows that path's content (a link into /etc, `_shown_from`)."""
    out = []
    for path in paths:
        source = _shown_from(path)
        if source != path:
            out.append(("dir" if os.path.isdir(source) else "file", path, source))
        elif os.path.islink(path):
            out.append(("link", path, os.readlink(path)))
        else:
            out.append(("dir" if os.path.isdir(path) else "file", path, ""))
    return out


def copy_to(layout: Iterable[tuple[str, str, str]], dest: str) -> None:
    """The view as a tree of its own under `dest` (a tmpfs: its pages are memory, never evicted),
    for bwrap, which then binds one folder instead of a hundred paths (about 130 ms less per bot).
    Files keep their modes and times (so the standard library's bytecode stays valid); a link of
    a runtime into /etc becomes a copy of what it points to. Each path appears whole or not at
    all (copied beside, then renamed), so an arena adding to a copy another one uses shows no
    half-copied runtime."""
    for kind, path, source in layout:
        inside = os.path.join(dest, os.path.relpath(path, USR))
        os.makedirs(os.path.dirname(inside), mode=0o755, exist_ok=True)
        if kind == "link":
            try:
                os.symlink(source, inside)
            except FileExistsError:
                pass
            continue
        if os.path.lexists(inside):
            continue
        part = f"{inside}.part-{os.getpid()}"
        if kind == "dir":
            shutil.copytree(source or path, part, symlinks=True, ignore_dangling_symlinks=True, dirs_exist_ok=True)
            _copy_etc_links(part, source or path)
            os.chmod(part, 0o755)
        else:
            shutil.copy2(source or path, part)
            os.chmod(part, os.stat(part).st_mode | 0o444)
        try:
            os.rename(part, inside)
        except OSError:  # another arena's copy of it came first
            shutil.rmtree(part, ignore_errors=True) if kind == "dir" else os.unlink(part)
    for here, dirs, _ in os.walk(dest):
        try:
            os.chmod(here, 0o755)
        except OSError:
            pass


def _copy_etc_links(copy: str, origin: str) -> None:
    """In a copied folder, the links its origin has into /etc replaced by what they point to."""
    for here, dirs, names in os.walk(copy):
        for name in dirs + names:
            inside = os.path.join(here, name)
            if not os.path.islink(inside):
                continue
            source = _shown_from(os.path.join(origin, os.path.relpath(inside, copy)))
            if source.startswith("/etc/"):
                os.unlink(inside)
                if os.path.isdir(source):
                    shutil.copytree(source, inside, symlinks=True, ignore_dangling_symlinks=True)
                else:
                    shutil.copy2(source, inside)


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
