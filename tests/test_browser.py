"""A person opens the session notebook in JupyterLab, runs every cell, and sees rolls and odds.

Drives a real JupyterLab in headless Chromium; leaves a screenshot in tests/artifacts/.
"""
from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest

from conftest import run_all_cells

pytestmark = pytest.mark.browser

NOTEBOOK = "examples/run-a-session.ipynb"


def _d20_plus_d6_beats_d20() -> Fraction:
    wins = sum(a + b > c for a, b, c in product(range(1, 21), range(1, 7), range(1, 21)))
    return Fraction(wins, 20 * 6 * 20)


def test_session_notebook_runs_and_shows_rolls_and_odds(browser, lab_server, artifacts):
    context = browser.new_context(viewport={"width": 1280, "height": 1600})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        panel = run_all_cells(page, lab_server, NOTEBOOK)
        panel.get_by_text("3d6: min 3, max 18").wait_for()
        page.screenshot(path=str(artifacts / "browser-run-a-session.png"))

        # Rolls render as HTML: the roll's box and each of its dice, not a plain repr.
        rolls = panel.locator(".jp-OutputArea-output .delvebook-roll")
        assert rolls.count() >= 2
        assert rolls.first.is_visible()
        assert panel.locator(".jp-OutputArea-output .delvebook-roll .delvebook-die").count() >= 3
        assert "<" not in rolls.first.inner_text()

        text = panel.inner_text()
        win = _d20_plus_d6_beats_d20()
        assert f"({win})" in text, "the exact win chance of d20+d6 vs d20 should be visible"
        assert "d20+2d6 meets or beats 15" in text
    except Exception:
        page.screenshot(path=str(artifacts / "browser-run-a-session-failed.png"))
        raise
    finally:
        context.close()
