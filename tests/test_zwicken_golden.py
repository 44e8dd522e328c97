"""The Zwicken golden playthroughs in tests/golden/ must match what engine/zwicken does now."""

import difflib

import pytest

from tests.golden.zwicken import PRESETS, path, render


@pytest.mark.parametrize("preset", PRESETS)
def test_zwicken_golden_playthrough(preset):
    expected = path(preset).read_text()
    actual = render(preset)
    if actual != expected:
        diff = "".join(list(difflib.unified_diff(
            expected.splitlines(True), actual.splitlines(True), "golden", "now"))[:60])
        pytest.fail(f"zwicken {preset} playthrough changed (if intended: python tests/golden/zwicken.py)\n{diff}")
