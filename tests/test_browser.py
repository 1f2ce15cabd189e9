"""A person opens the session notebook in JupyterLab, runs every cell, and sees rolls and odds.

Drives a real JupyterLab in headless Chromium; leaves a screenshot in tests/artifacts/.
"""
from __future__ import annotations

import re
from fractions import Fraction
from itertools import product

import pytest

pytestmark = pytest.mark.browser

NOTEBOOK = "examples/run-a-session.ipynb"
ERROR_OUTPUT = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'


def _d20_plus_d6_beats_d20() -> Fraction:
    wins = sum(a + b > c for a, b, c in product(range(1, 21), range(1, 7), range(1, 21)))
    return Fraction(wins, 20 * 6 * 20)


def test_session_notebook_runs_and_shows_rolls_and_odds(browser, lab_server, artifacts):
    context = browser.new_context(viewport={"width": 1280, "height": 1600})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        page.goto(f"{lab_server.url}/lab/tree/{NOTEBOOK}")
        panel = page.locator(".jp-NotebookPanel").first
        panel.wait_for(state="visible")
        # The kernel is ready when the status bar says so; the toolbar's indicator says "idle"
        # before the kernel has even started, and Run All then asks which kernel to start.
        page.locator(".jp-StatusBar-TextItem", has_text=re.compile(r"\| Idle$")).first.wait_for()

        page.locator(".lm-MenuBar-item", has_text=re.compile(r"^Run$")).click()
        page.locator(".lm-Menu-item:visible", has_text=re.compile(r"^Run All Cells")).click()

        # Every code cell ran when none waits ([*] or [ ]); a dialog (e.g. "Select Kernel") or an
        # error (after which the remaining cells never run) ends the wait early.
        page.wait_for_function(
            """() => {
                if (document.querySelector('.jp-Dialog, .jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')) return true;
                const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')];
                return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
            }"""
        )
        dialogs = page.locator(".jp-Dialog").all_inner_texts()
        assert not dialogs, f"a dialog interrupted the run: {dialogs}"
        errors = panel.locator(ERROR_OUTPUT).all_inner_texts()
        assert not [e for e in errors if "Traceback" in e or "Error" in e], "\n".join(errors)
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
