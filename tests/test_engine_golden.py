"""The golden playthroughs in tests/golden/ must match what the engine does now."""

import difflib

import pytest

from tests.golden.playthrough import PRESETS, path, render


@pytest.mark.parametrize("preset", PRESETS)
def test_golden_playthrough(preset):
    expected = path(preset).read_text()
    actual = render(preset)
    if actual != expected:
        diff = "".join(list(difflib.unified_diff(
            expected.splitlines(True), actual.splitlines(True), "golden", "now"))[:60])
        pytest.fail(f"{preset} playthrough changed (if intended: python tests/golden/playthrough.py)\n{diff}")
