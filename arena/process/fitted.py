"""The environment that fits a bot's runtime to the sandbox's limits, so that a program run with
no flags starts (docs/runtimes.md has the measurements).

- Every sandboxed bot gets `MALLOC_ARENA_MAX=2`: the C library otherwise reserves 64 MiB of
  address space for each thread that allocates (up to 8 per core), which under RLIMIT_AS stops a
  JVM from starting and a Node.js bot at about 56 MiB of JavaScript heap.
- A bot whose command runs `java` gets `JAVA_TOOL_OPTIONS` sized from its limits: the heap a
  quarter of the address space (`-XX:MaxRAM`: the JVM's own default share, of the limit instead
  of the machine's RAM), class space and code cache a sixteenth each, the serial collector and
  one processor (few threads against the thread budget), thread stacks that fit the budget, and
  the JVM's log on stderr (stdout is the protocol).

Both are defaults: the bot's command overrides either (`env MALLOC_ARENA_MAX=4 ...`, `env
JAVA_TOOL_OPTIONS=... java ...`), and the JVM's own flags on its command line override
`JAVA_TOOL_OPTIONS` flag by flag (`java -Xmx600m -jar bot.jar` keeps the rest).
"""

from __future__ import annotations

import os
import shutil
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.process.command import Limits

MALLOC_ARENAS = 2
JAVA_STACK_MAX = 1 << 20  # the JVM's default stack per thread on x86-64 and arm64


def java_options(limits: Limits) -> str:
    """The JVM's flags for `limits`: its reservations (heap, class space, code cache, stacks)
    within the address space, its threads within the thread budget, its log off stdout."""
    memory = limits.memory_bytes
    sixteenth = _mib(memory // 16)
    # Every thread's stack together in a thirty-second of the address space (1 MiB for 32 threads in 1 GiB).
    stack = max(256, min(JAVA_STACK_MAX, memory // 32 // limits.processes) >> 10)
    return " ".join([
        f"-XX:MaxRAM={_mib(memory)}m",
        f"-XX:CompressedClassSpaceSize={sixteenth}m",
        f"-XX:ReservedCodeCacheSize={sixteenth}m",
        "-XX:+UseSerialGC",
        "-XX:ActiveProcessorCount=1",
        f"-Xss{stack}k",
        "-XX:+DisplayVMOutputToStderr",
        "-Xlog:disable",
        "-Xlog:all=warning:stderr",
    ])


def environment(argv: list[str] | tuple[str, ...], limits: Limits, path: str) -> dict[str, str]:
    """The variables a sandboxed bot run as `argv` gets before its own (`path`: the sandbox's PATH)."""
    env = {"MALLOC_ARENA_MAX": str(MALLOC_ARENAS)}
    if runs_java(argv, path):
        env["JAVA_TOOL_OPTIONS"] = java_options(limits)
    return env


def runs_java(argv: list[str] | tuple[str, ...], path: str) -> bool:
    """Whether the program `argv` starts is a JVM's launcher (named straight or after `env`)."""
    words = list(argv)
    if words and os.path.basename(words[0]) == "env":
        words = words[1:]
        while words and (words[0].startswith("-") or "=" in words[0]):
            words = words[2:] if words[0] in ("-u", "-C", "--unset", "--chdir") else words[1:]
    if not words:
        return False
    program = words[0] if os.sep in words[0] else shutil.which(words[0], path=path) or words[0]
    return os.path.basename(os.path.realpath(program)) == "java"


def _mib(n: int) -> int:
    return max(1, n >> 20)
