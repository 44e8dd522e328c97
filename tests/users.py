"""Running the arena as another, ordinary user (uid nobody) from a test run as root."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys

import pytest

NOBODY = 65534


@functools.cache
def _nobody_runs_this_venv() -> bool:
    """A clone in a private folder (/root/..., 0700) has a virtualenv nobody cannot enter."""
    probe = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
             sys.executable, "-c", "import arena, trio"]
    return subprocess.run(probe, cwd="/", capture_output=True, timeout=60).returncode == 0


def as_nobody() -> list[str]:
    """The argv prefix that runs a command as uid nobody; skips the test where that cannot work."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("run as root (with setpriv) to run the arena as another, ordinary user")
    if not _nobody_runs_this_venv():
        pytest.skip("uid nobody cannot run this clone's virtualenv (the clone lies in a private folder)")
    return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
