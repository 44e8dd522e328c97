"""Shared fixtures: every test is checked for bot processes that outlived it."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from pathlib import Path

import pytest

from arena.process.lifecycle import leftover_bot_pids

HOSTILE = Path(__file__).parent / "hostile"

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    # pytest started in the background by a shell without job control ignores Ctrl-C, and so
    # would every `arena` a test starts (an ignored signal stays ignored across exec): the tests
    # that interrupt an arena need it to take SIGINT as a terminal's Ctrl-C.
    signal.signal(signal.SIGINT, signal.default_int_handler)


ALONE = {
    "test_hostile_cpu_share": "compares the CPU an arena's bots get with a spinner's beside them",
    "test_starved": "a bot pinned to one CPU beside a CPU hog: the machine's run queue is the subject",
    "test_tempo": "the gaps between a table's messages, a move limit of 120 ms apart",
    "test_hostile_page_cache": "two bots signalling through the page cache, read against controls outside",
    "test_scheduler": "cores lent to bots and frozen bots, on this machine's CPUs",
    "test_cluster": "a worker killed and a coordinator interrupted at moments in a run",
}
"""Modules whose subject is the machine's CPUs, clocks or caches: `make test` runs them after the
others (which it runs on two workers, pytest-xdist), each with the machine to itself. Plain
`pytest` runs everything in one process, as always."""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    for item in items:
        if item.path.stem in ALONE:
            item.add_marker(pytest.mark.alone)


@pytest.fixture(autouse=True)
def no_bot_left_behind():
    """Fail the test if any bot process it started (or anything the bot started) is still alive."""
    yield
    leftovers = leftover_bot_pids()
    if leftovers:
        for pid in leftovers:  # clean up so that one leak does not fail every later test
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        pytest.fail(f"bot processes outlived the test: {leftovers}")


@pytest.fixture
def open_dir():
    """A folder the sandboxed bots' own users can enter (pytest's tmp_path is private to its
    owner): for bots' sources, their stored copies and databases beside them."""
    path = Path(tempfile.mkdtemp(prefix="zwicker-test-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def hostile():
    """The folder of misbehaving bots (tests/hostile/); `hostile / "silent.py"` etc."""
    return HOSTILE
