"""What the table keeps and says between clicks, in a real JupyterLab started as a keeper starts it (``delvebook
lab``) at 1366x768 in headless Chromium, by clicks only: a multi-attack set for Wren is not on Brakka's sword after
Next turn; after a luck die Undo names the luck die, takes back only it, and then names the attack; the Charts
panel draws every combatant from the fight's start, its end labels apart; a name that reads like one in play is
refused next to the click that sent it, and the table keeps answering.

Screenshots (looked at by a person): tests/artifacts/table-bookkeeping-*.png.
"""
from __future__ import annotations

import re

import pytest

from conftest import start_run_all
from test_table_browser import NOTEBOOK, Keeper

pytestmark = pytest.mark.browser

W, H = 1366, 768
CYRILLIC_E = "\u0435"

LABELS_APART = """svg => {
    // every end label's box against every other's: none overlaps another (boxes in the page, after scaling)
    const boxes = [...svg.querySelectorAll('.db-legend')].map(t => [t.textContent, t.getBoundingClientRect()]);
    const out = [];
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
        const [a, p] = boxes[i], [b, q] = boxes[j];
        if (p.left < q.right && q.left < p.right && p.top < q.bottom - 0.5 && q.top < p.bottom - 0.5) out.push([a, b]);
    }
    return {count: boxes.length, overlapping: out};
}"""

LINES = """svg => [...svg.querySelectorAll('polyline.db-series')].map(l => ({
    name: l.querySelector('title').textContent,
    xs: l.getAttribute('points').trim().split(/\\s+/).map(p => parseFloat(p.split(',')[0]))}))"""


def test_fields_undo_labels_charts_and_names_by_clicks(browser, keeper_lab, artifacts):
    context = browser.new_context(viewport={"width": W, "height": H})
    page = context.new_page()
    page.set_default_timeout(60_000)
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        start_run_all(page, f"{keeper_lab.url}/lab/tree/{NOTEBOOK}?reset")
        k = Keeper(page, keeper_lab, artifacts, name="bookkeeping")
        k.table.wait_for(state="visible")
        k.wait_answered()
        k.panel("keeper")
        k.act(k.button("Start session"), "start_session")
        k.panel("play")
        k.act(k.button("Causeway ambush"), "encounter")
        k.act(k.button("Party goes first"), "initiative")
        k.table.locator(".db-actor-name", has_text="Wren").wait_for()

        # ---- a field set for Wren is not carried to Brakka by Next turn
        multi = k.table.locator('input[data-option="multi"]')
        multi.fill("2")
        multi.dispatch_event("change")
        k.wait_answered()
        dagger = k.table.locator('.db-target[data-name="Bog goblin 1"] button.db-attack').first
        assert re.search(r"\u22651 hit \d+%, both \d+%$", dagger.inner_text().rstrip()), dagger.inner_text()
        k.act(k.button("Next turn"), "next_turn", says="Brakka's turn")
        k.table.locator(".db-actor-name", has_text="Brakka").wait_for()
        assert k.table.locator('input[data-option="multi"]').input_value() == ""
        sword = k.table.locator('.db-target[data-name="Bog goblin 1"] button.db-attack', has_text="Sword").first
        assert re.fullmatch(r"Sword 2d6\s*\d+%", sword.inner_text().strip()), sword.inner_text()
        k.shot("field-reset")

        # ---- after a luck die, Undo names the luck die, takes back only it, then names the attack
        k.attack("Bog goblin 1", "Sword 2d6")
        attack_title = k.table.locator(".db-undo-btn").get_attribute("title")
        assert attack_title == "Undo Brakka's attack on Bog goblin 1"
        k.act(k.button("+ Ben", ".db-luckbox"), "attack", says="Ben spends a luck die on ")
        undo = k.table.locator(".db-undo-btn")
        assert re.fullmatch(r"Undo Ben's luck die \(\+\d\) on Brakka's attack on Bog goblin 1",
                            undo.get_attribute("title")), undo.get_attribute("title")
        luck_label = undo.get_attribute("title")
        k.shot("undo-luck-die")
        k.act(undo, "undo", says=luck_label)
        assert k.table.locator(".db-undo-btn").get_attribute("title") == attack_title, "the label moved on"
        assert k.table.locator(".db-redo-btn").get_attribute("title") == "Redo" + luck_label[4:]

        # ---- the Charts panel: every combatant from the fight's start, end labels apart
        k.panel("charts")
        chart = k.table.locator("svg.db-chart").nth(1)
        chart.wait_for(state="visible")
        lines = chart.evaluate(LINES)
        names = [line["name"] for line in lines]
        assert names[:5] == ["Wren", "Brakka", "Ilse", "Father Odo", "Sable"], names
        assert {"Bog goblin 1", "Bog goblin 2", "Bog goblin 3"} <= set(names)
        assert all(len(line["xs"]) >= 2 for line in lines), "every combatant draws a line"
        assert len({line["xs"][0] for line in lines}) == 1, "every line starts at the fight's start"
        apart = chart.evaluate(LABELS_APART)
        assert apart["count"] == len(lines) and not apart["overlapping"], apart
        xp = k.table.locator("svg.db-chart").first.evaluate(LABELS_APART)
        assert xp["count"] == 5 and not xp["overlapping"], f"the XP chart's labels (all at 0 XP): {xp}"
        chart.scroll_into_view_if_needed()
        k.shot("charts")

        # ---- a name that reads like one in play, refused next to the click; the table keeps answering
        k.panel("keeper")
        npc = k.table.locator('[data-form="npc"]')
        npc.locator('input[name="name"]').fill("Wr" + CYRILLIC_E + "n")
        npc.locator('input[name="hearts"]').fill("4")
        k.refused(npc.locator("button", has_text="Name the NPC"), "reads the same as 'Wren'")
        notice = k.table.locator(".db-notice.db-refused")
        assert "CYRILLIC SMALL LETTER IE" in notice.inner_text()
        where = notice.evaluate("e => e.closest('[data-where]').dataset.where")
        assert where == "keeper:npcs", f"the refusal shows at {where}, not beside the NPC form"
        k.shot("look-alike-refused")
        npc.locator('input[name="name"]').fill("Wren\u200b")
        k.refused(npc.locator("button", has_text="Name the NPC"), "U+200B ZERO WIDTH SPACE")
        npc.locator('input[name="name"]').fill("Grak")
        k.act(npc.locator("button", has_text="Name the NPC"), "npc", says="Grak")
        assert not dialogs, dialogs
    except Exception:
        page.screenshot(path=str(artifacts / "table-bookkeeping-failed.png"))
        raise
    finally:
        context.close()
