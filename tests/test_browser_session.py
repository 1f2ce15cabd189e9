"""A keeper runs a session in a real JupyterLab page: the session notebook runs, then real clicks on the
dashboard roll a skill (dice drawn), spend a luck die, attack a foe from the tracker (its hearts bar drops),
and undo it (the bar comes back); the campaign's log on disk holds exactly those events.
A campaign whose delver is named like an HTML tag shows the name as text and runs no script.

Checks read the rendered page, not kernel variables. Screenshots go to tests/artifacts/.
"""
from __future__ import annotations

import json
import re
import time
import warnings

import pytest

from delvebook.store import read_log

from conftest import run_all_cells

pytestmark = pytest.mark.browser

NOTEBOOK = "examples/run-a-session.ipynb"
PLAY_LOG = "examples/play/the-sunken-keep"
D6_PIPS = set("⚀⚁⚂⚃⚄⚅")


def timed(page, action, condition: str, arg=None) -> float:
    """Milliseconds from a real click to the page showing its effect (``condition``, a JS predicate)."""
    t0 = time.perf_counter()
    action()
    page.wait_for_function(condition, arg=arg, polling="raf")
    return (time.perf_counter() - t0) * 1000


def tab_state(dash) -> dict:
    """What the dashboard's tabs show, for a failure message (CI keeps no screenshot)."""
    return dash.evaluate("""d => ({
        current: [...d.querySelectorAll('.lm-TabBar-tab.lm-mod-current')].map(t => t.textContent),
        panels: [...d.querySelectorAll('.widget-tab-contents > .lm-Widget')].map(p => ({
            hidden: p.classList.contains('lm-mod-hidden'), text: p.innerText.slice(0, 160)})),
        start_row: [...d.querySelectorAll('.delvebook-start-fight')].map(b => getComputedStyle(b.parentElement).display),
    })""")


def open_tab(dash, title: str, shows) -> None:
    """Click a dashboard tab until ``shows`` (a locator on that tab) is visible. A click that the tab bar did
    not take, or a tab that did not stay current (seen once in CI, not reproduced here), is clicked again, as a
    person would, and reported as a warning; a tab that is current but does not show ``shows`` fails."""
    tab = dash.locator(".lm-TabBar-tab", has_text=title)
    for attempt in range(1, 4):
        tab.click()
        try:
            shows.wait_for(state="visible", timeout=10_000)
            return
        except Exception:
            state = tab_state(dash)
            if state["current"] == [title]:
                raise AssertionError(f"the {title} tab is current but does not show {shows}: {state}") from None
            warnings.warn(f"the {title} tab was not current after click {attempt}: {state}")
    raise AssertionError(f"the {title} tab never stayed current: {tab_state(dash)}")


def test_a_keeper_plays_by_clicks_and_the_log_on_disk_holds_each_click(browser, lab_server, artifacts):
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    page.set_default_timeout(60_000)
    shots = iter(range(1, 100))

    def shot(name: str) -> None:
        page.screenshot(path=str(artifacts / f"session-{next(shots):02d}-{name}.png"))

    # a fresh play folder: other tests share this server and may have played (and lost delvers) in it
    import shutil
    shutil.rmtree(lab_server.root / "examples" / "play", ignore_errors=True)
    try:
        panel = run_all_cells(page, lab_server, NOTEBOOK)
        dash = panel.locator(".delvebook-dashboard").last
        dash.wait_for(state="visible")
        dash.scroll_into_view_if_needed()
        assert "VBox(children" not in panel.inner_text(), "a widget rendered as text: the front end is missing"
        shot("notebook-ran")
        log_dir = lab_server.root / PLAY_LOG
        before = len(read_log(log_dir)[0])

        # ---- a skill roll shows its dice
        wren = dash.locator(".delvebook-card", has_text="Wren").first
        luck = wren.locator(".delvebook-luck")
        luck_before = int(luck.get_attribute("data-luck"))
        stealth = wren.locator("button", has_text="Stealth")
        assert re.search(r"Stealth \+D6 · \d+% vs 10", stealth.inner_text())
        result = dash.locator(".delvebook-result .db-result")
        seq_before = result.get_attribute("data-seq")
        ms_roll = timed(page, stealth.click,
                        "s => { const r = document.querySelector('.delvebook-dashboard .delvebook-result .db-result');"
                        " return r && r.dataset.kind === 'check' && r.dataset.seq !== s; }", seq_before)
        dice = result.locator(".delvebook-die")
        assert dice.count() == 2
        faces = dice.all_inner_texts()
        assert faces[0].strip().isdigit(), f"the D20 shows its number, not {faces[0]!r}"
        assert faces[1].strip() in D6_PIPS, f"the D6 shows pips, not {faces[1]!r}"
        assert re.search(r"success|failure", result.inner_text())
        shot("skill-roll")

        # ---- a luck die is spent on it
        ms_luck = timed(page, dash.locator("button", has_text="+ luck die").click,
                        "n => { const c = [...document.querySelectorAll('.delvebook-dashboard .delvebook-card')]"
                        ".find(c => c.textContent.includes('Wren'));"
                        " return c && c.querySelector('.delvebook-luck').dataset.luck === String(n); }",
                        luck_before - 1)
        # the card and the roll panel are two widgets: their updates may arrive a moment apart
        dash.locator(".delvebook-result .db-result", has_text="luck die").wait_for()
        assert result.locator(".delvebook-luck").count() == 1  # the luck die drawn beside the others
        shot("luck-spent")

        # ---- a fight in the tracker: an attack lowers a foe's hearts bar
        start = dash.locator("button", has_text="Start fight")
        open_tab(dash, "Fight", shows=start)
        start.click()
        dash.locator("button", has_text="Party goes first").click()
        dash.locator(".delvebook-fight-status", has_text="acting").wait_for()
        # the delver whose turn it is attacks (the tracker's attacker follows the actor): one action a turn
        dash.locator(".delvebook-targets button", has_text="Bog goblin 1").click()
        sword = dash.locator("button.delvebook-attack:visible").first
        sword.wait_for()
        assert re.search(r" · \d+% vs Bog goblin 1$", sword.inner_text()), sword.inner_text()
        foe_bar = dash.locator('.delvebook-foe[data-name="Bog goblin 1"] .delvebook-hearts')
        full = int(foe_bar.get_attribute("data-hearts"))
        shot("fight-started")
        attacks = 0
        ms_attack = None
        while int(foe_bar.get_attribute("data-hearts")) == full:
            assert attacks < 12, "a dozen attacks and not one hit"
            assert "Refused" not in dash.locator(".db-message").inner_text()
            if attacks:  # a miss is taken back, and the attack made again (its action is free once more)
                seq = dash.locator(".delvebook-result .db-result").get_attribute("data-seq")
                timed(page, dash.locator("button", has_text="Undo").click,
                      "s => { const r = document.querySelector('.delvebook-dashboard .delvebook-result .db-result');"
                      " return r && r.dataset.kind === 'undo' && r.dataset.seq !== s; }", seq)
            seq = dash.locator(".delvebook-result .db-result").get_attribute("data-seq")
            ms = timed(page, sword.click,
                       "s => { const r = document.querySelector('.delvebook-dashboard .delvebook-result .db-result');"
                       " return r && r.dataset.kind === 'attack' && r.dataset.seq !== s; }", seq)
            ms_attack = ms if ms_attack is None else min(ms_attack, ms)
            attacks += 1
        hurt = int(foe_bar.get_attribute("data-hearts"))
        assert hurt < full
        width = foe_bar.locator(".db-fill").evaluate("e => e.style.width")
        assert width != "100%"
        shot("attack-hit")

        # ---- undo brings it back
        dash.locator("button", has_text="Undo").click()
        page.wait_for_function(
            "n => document.querySelector('.delvebook-dashboard .delvebook-foe[data-name=\"Bog goblin 1\"] "
            ".delvebook-hearts').dataset.hearts === String(n)", arg=full)
        assert foe_bar.locator(".db-fill").evaluate("e => e.style.width") == "100%"
        shot("undone")

        # ---- the log file on disk holds exactly those clicks, in order
        events, problems = read_log(log_dir)
        assert not problems
        kinds = [e["kind"] for e in events[before:]]
        assert kinds == ["check", "check", "encounter", "initiative"] + ["attack", "undo"] * attacks, kinds
        assert events[before + 1]["luck"]["player"] == "Ana"
        assert events[-1]["undoes"] == events[-2]["seq"]
        print(f"\nbrowser round-trip, click to page updated: skill roll {ms_roll:.0f} ms, "
              f"luck die on the card {ms_luck:.0f} ms, attack (fastest) {ms_attack:.0f} ms")
        (artifacts / "browser-roundtrip.json").write_text(json.dumps(
            {"skill_roll_ms": ms_roll, "luck_card_ms": ms_luck, "attack_ms": ms_attack}))
    except Exception:
        page.screenshot(path=str(artifacts / "session-failed.png"))
        raise
    finally:
        context.close()


EVIL = "<img src=x onerror=alert(1)>"


def test_a_delver_named_like_html_shows_as_text_and_runs_no_script(browser, lab_server, artifacts):
    import nbformat

    import delvebook as db
    folder = lab_server.root / "evil-keep"
    if not folder.exists():
        db.Campaign.create(folder, name="<script>alert(2)</script> Keep", seed=5,
                           delvers=[{"name": EVIL, "class": "rogue", "player": "<b onmouseover=alert(3)>Mal</b>"}]).close()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "import delvebook as db\n"
        "camp = db.Campaign.open('evil-keep')\n"
        "camp.start_session() if not camp.state['session']['active'] else None\n"
        f"camp.check({EVIL!r}, 'stealth', 10)\n"
        "camp.dashboard()"),
        nbformat.v4.new_code_cell(f"camp.delver({EVIL!r})")]
    nb.metadata = {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}}
    nbformat.write(nb, lab_server.root / "evil.ipynb")

    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    page.set_default_timeout(60_000)
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        panel = run_all_cells(page, lab_server, "evil.ipynb")
        card = panel.locator(".delvebook-card").first
        card.wait_for(state="visible")
        assert EVIL in card.inner_text()
        assert "<b onmouseover=alert(3)>Mal</b>" in card.inner_text()
        assert EVIL in panel.locator(".delvebook-log").inner_text()
        # the delver left last in a cell shows its own live card, the name still as text
        panel.locator(".delvebook-card").nth(1).wait_for(state="visible")
        assert EVIL in panel.locator(".delvebook-card").last.inner_text()
        card.hover()
        page.wait_for_timeout(500)
        page.screenshot(path=str(artifacts / "session-escaped-names.png"))
        assert page.locator('.jp-OutputArea-output img[src="x"]').count() == 0
        assert page.locator(".jp-OutputArea-output b[onmouseover]").count() == 0
        assert not dialogs, f"a script ran: {dialogs}"
    except Exception:
        page.screenshot(path=str(artifacts / "session-escaped-names-failed.png"))
        raise
    finally:
        context.close()
