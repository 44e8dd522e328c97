"""Where an ordinary user gets whole-bot limits: a cgroup v2 group delegated to the user (systemd's
`systemd-run --user --scope -p Delegate=yes`, or a group handed over with `chown -R`). The
detection runs on a fake cgroup file system in tmp (a real delegation needs a v2 machine with
systemd; this one is v1), laid out as the kernel and systemd lay theirs out."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.process import cgroups

ROOT = os.geteuid() == 0
USER = 4242 if ROOT else os.getuid()  # the user a group is delegated to
SCOPE = "user.slice/user-4242.slice/user@4242.service/app.slice/run-r1.scope"
LINES = [f"0::/{SCOPE}"]
PID = 31337


def v2_tree(root: Path, owner: int = USER, controllers: str = "cpuset cpu io memory pids",
            subtree: str = "") -> Path:
    """A v2 hierarchy with the user's scope at SCOPE: its files belong to `owner` (root's above)."""
    root.mkdir(exist_ok=True)
    (root / "cgroup.controllers").write_text("cpuset cpu io memory hugetlb pids rdma misc\n")
    (root / "cgroup.procs").write_text("")
    scope = root / SCOPE
    scope.mkdir(parents=True)
    (scope / "cgroup.controllers").write_text(controllers + "\n")
    (scope / "cgroup.subtree_control").write_text(subtree + "\n")
    (scope / "cgroup.procs").write_text(f"{PID}\n")
    if ROOT:
        for path in (scope, scope / "cgroup.controllers", scope / "cgroup.subtree_control", scope / "cgroup.procs"):
            os.chown(path, owner, owner)
    return scope


def test_a_delegated_v2_scope_holds_the_bots_groups_and_the_arena_moves_into_its_leaf(tmp_path):
    scope = v2_tree(tmp_path / "cgroup")
    assert cgroups.delegated(scope, USER)
    bases = cgroups.bases_in(tmp_path / "cgroup", LINES, USER, PID)
    arena = scope / cgroups._GROUP
    assert bases == {c: arena / cgroups.BOTS for c in cgroups.CONTROLLERS}
    # the scope passed its controllers on once the arena had left it for its own leaf
    assert (scope / "cgroup.subtree_control").read_text() == "+memory +pids +cpu"
    assert (arena / "cgroup.subtree_control").read_text() == "+memory +pids +cpu"
    assert (arena / cgroups.ARENA_LEAF / "cgroup.procs").read_text() == str(PID)
    assert (arena / cgroups.BOTS / "cpu.weight").read_text() == str(min(cgroups.BOTS_WEIGHT * 100, 10000))


def test_a_scope_that_already_passes_its_controllers_on_is_used_as_it_is(tmp_path):
    scope = v2_tree(tmp_path / "cgroup", subtree="cpu memory pids")
    assert cgroups.bases_in(tmp_path / "cgroup", LINES, USER, PID) is not None
    assert (scope / "cgroup.subtree_control").read_text() == "cpu memory pids\n"  # left alone


def test_a_scope_without_the_controllers_is_not_used(tmp_path):
    scope = v2_tree(tmp_path / "cgroup", controllers="cpu pids")  # no memory controller delegated
    assert not cgroups.delegated(scope, USER)
    assert cgroups.bases_in(tmp_path / "cgroup", LINES, USER, PID) is None
    assert not (scope / cgroups._GROUP).exists()


@pytest.mark.skipif(not ROOT, reason="a group owned by another user is made by root")
def test_a_scope_that_belongs_to_someone_else_is_not_used(tmp_path):
    scope = v2_tree(tmp_path / "cgroup", owner=0)
    assert not cgroups.delegated(scope, USER)
    assert cgroups.bases_in(tmp_path / "cgroup", LINES, USER, PID) is None
    assert not (scope / cgroups._GROUP).exists()


def test_v1_is_never_delegated_to_a_user(tmp_path):
    root = tmp_path / "cgroup"
    for controller in (*cgroups.CONTROLLERS, "cpuacct"):
        (root / controller).mkdir(parents=True)
        (root / controller / "cgroup.procs").write_text("")
    lines = ["3:memory:/user.slice", "2:pids:/user.slice", "1:cpu,cpuacct:/user.slice"]
    assert cgroups.bases_in(root, lines, USER, PID) is None
    assert list(root.rglob(f"{cgroups.GROUP_PREFIX}*")) == []


def test_on_this_machine_an_ordinary_user_falls_back_cleanly():
    """The real cgroup file system, asked for a user who owns no group of it: none (v1 is never
    delegated; a v2 group belongs to root or to its own user), and no exception."""
    if not ROOT:
        pytest.skip("as an ordinary user the arena's own detection is this case (cgroups.available())")
    lines = Path("/proc/self/cgroup").read_text().splitlines()
    assert cgroups.bases_in(cgroups.ROOT, lines, 4242, os.getpid()) is None
