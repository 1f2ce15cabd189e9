"""The encounter builder of a party that keeps habits, in a real JupyterLab page at 1366x768, from `delvebook lab`:
the habits said in words with the fights they rest on, the forecast as this party plays with the documented
default's chance beside it where they differ, the default one click away (and back), and both checked against the
campaign's fights (Brier scores beside the base rate's), in JupyterLab's light and dark themes. The campaign is played by scripts/make_habits_campaign.py (16 fights: the party leaves once two are down).
Screenshots: tests/artifacts/table-habits-*.png."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import REPO, keeper_lab_making, start_run_all
from test_table_browser import NOTEBOOK, H, W, Keeper
from test_table_layout_browser import nothing_cut, readable, switch_theme

pytestmark = pytest.mark.browser

CAMPAIGN, PLAY = "campaigns/habits-keep", "examples/play/habits-keep"


@pytest.fixture(scope="module")
def habits_lab(tmp_path_factory):
    """`delvebook lab campaigns/habits-keep`, the campaign played by the script's habits first."""
    yield from keeper_lab_making(tmp_path_factory, "habitslab", CAMPAIGN,
                                 [sys.executable, str(REPO / "scripts" / "make_habits_campaign.py"), CAMPAIGN,
                                  "--fights", "16", "--seed", "6"])


def press(k: Keeper, locator) -> None:
    """A click as a person makes it: pressed, held a moment, released; then the table's answer."""
    locator.click(delay=120)
    k.wait_answered()


def test_the_builder_shows_how_this_party_plays_and_both_chances(browser, habits_lab, artifacts):
    context = browser.new_context(viewport={"width": W, "height": H})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        start_run_all(page, f"{habits_lab.url}/lab/tree/{NOTEBOOK}?reset")
        k = Keeper(page, habits_lab, artifacts, name="habits", play=PLAY)
        k.table.wait_for(state="visible", timeout=120_000)
        k.table.scroll_into_view_if_needed()
        k.expected = [e["kind"] for e in k.events()]  # the play copy, made by the table cell
        press(k, k.table.locator('.db-tab[data-panel="keeper"]'))
        press(k, k.table.locator('.db-ktab[data-ktab="encounters"]'))
        press(k, k.table.locator('[data-encounter="orc_pair"] button', has_text="Build / forecast"))
        forecast = k.table.locator(".db-forecast")
        forecast.locator(".db-fother").first.wait_for(timeout=240_000)  # the default's chance, once it is played
        # the keeper scrolls the builder to its forecast: the chances, then how this party plays under them
        forecast.evaluate("e => e.scrollIntoView({block: 'start'})")
        habits = k.table.locator(".db-habits")
        k.in_view(habits, "how this party plays")
        said = habits.inner_text()
        assert "HOW THIS PARTY PLAYS, LEARNED FROM 16 FIGHTS" in said, said  # (its heading, as headings show)
        assert "This party leaves a fight once 2 of its delvers are down: 16 of 16 fights." in said, said
        assert "Its foes attack the standing delver with the most hearts" in said, said
        assert k.table.locator(".db-flabel").inner_text() == "as this party plays:"
        death = forecast.locator('.db-fstat[data-stat="a death"]')
        k.in_view(death, "the chance of a death, both ways")
        mine, theirs = death.locator("b").inner_text(), death.locator(".db-fother").inner_text()
        assert re.fullmatch(r"\d+% \(\d+–\d+\)", mine) and re.fullmatch(r"· \d+% if it fights on", theirs), \
            (mine, theirs)
        assert int(mine.split("%")[0]) + 5 < int(theirs.split()[1].rstrip("%"))  # leaving saves lives
        nothing_cut(k, "the builder with both chances and the habits")
        k.shot("both-chances-light")
        readable(k.table, "light (the builder's habits)")

        # the documented default, one click away: its chance first, this party's beside it
        press(k, habits.locator("button.db-policy", has_text="by the documented default"))
        k.table.locator(".db-flabel", has_text="if it fights on:").wait_for()
        forecast.evaluate("e => e.scrollIntoView({block: 'start'})")
        death = forecast.locator('.db-fstat[data-stat="a death"]')
        death.locator(".db-fother", has_text="as this party plays").wait_for()
        assert habits.locator('button.db-policy[data-on="yes"]').inner_text() == "by the documented default"
        nothing_cut(k, "the builder with the default's chances first")
        k.shot("default-first-light")
        press(k, habits.locator("button.db-policy", has_text="as this party plays"))
        k.table.locator(".db-flabel", has_text="as this party plays:").wait_for()

        # whether to believe it: both policies checked against the campaign's own fights
        press(k, k.table.locator("button.db-check"))
        check = k.table.locator('.db-fcheck[data-status="done"]')
        check.wait_for(timeout=300_000)
        check.evaluate("e => e.scrollIntoView({block: 'start'})")
        scores = check.locator(".db-fscores")
        k.in_view(scores, "the Brier scores of both policies")
        heads = scores.locator("tr").first.inner_text()
        assert "Brier: this party's habits" in heads and "always the base rate" in heads, heads
        win = scores.locator("tr", has_text="the party wins")
        habits_score = float(win.locator('td[data-policy="habits"] b').inner_text())
        default_score = float(win.locator('td[data-policy="default"] b').inner_text())
        assert habits_score < default_score, (habits_score, default_score)
        nothing_cut(k, "the check's tables")
        k.shot("check-light")

        switch_theme(page, "JupyterLab Dark", light=False)
        forecast.evaluate("e => e.scrollIntoView({block: 'start'})")
        k.in_view(habits, "how this party plays (dark)")
        readable(k.table, "dark (the builder's habits)")
        k.shot("both-chances-dark")
        check.evaluate("e => e.scrollIntoView({block: 'start'})")
        readable(k.table, "dark (the check)")
        k.shot("check-dark")
        switch_theme(page, "JupyterLab Light", light=True)
        assert [e["kind"] for e in k.events()] == k.expected, "looking at the forecast changed the log"
    except Exception:
        page.screenshot(path=str(artifacts / "table-habits-failed.png"))
        raise
    finally:
        context.close()
