"""The table at every width a keeper's window gives it, in a real JupyterLab started as a keeper starts it
(``delvebook lab``) in headless Chromium: a window of 900 px with the file browser open (the table about 470 px
wide: it stacks into one column), 600 px, 520 px (the table about 400 px), 1366x768 with the file browser open and
1920x1080 without, each in JupyterLab's light and dark themes. In every panel (Play with each delver's actions in a fight and the outcome with
its luck dice, every section of the Keeper panel with the encounter builder open, Party, Charts) nothing scrolls
sideways and no button's text is cut: the scrollWidth of every panel and every button is measured against its
clientWidth, and nothing is drawn past the table's edge. The Charts panel's texts (the title, the ticks, the level
thresholds' labels: "level 3" sat on the title and the "200" tick) overlap nowhere.

Screenshots (looked at by a person): tests/artifacts/table-width-<window>-<theme>.png (Wren's turn in a fight,
the outcome and its luck dice), table-width-<window>-<theme>-keeper.png (the Keeper panel) and
table-width-<window>-<theme>-charts.png (the Charts panel).
"""
from __future__ import annotations

import pytest

from test_table_browser import Keeper, keeper_at_the_table
from test_table_layout_browser import switch_theme

pytestmark = pytest.mark.browser

# (window, whether the file browser is open)
SIZES = (((900, 768), True), ((600, 768), False), ((520, 768), False), ((1366, 768), True), ((1920, 1080), False))
DELVERS = ("Wren", "Brakka", "Ilse", "Father Odo", "Sable")
KEEPER_TABS = ("table", "party", "bestiary", "encounters", "tables")

MEASURE = """table => {
    // every panel (a box that clips or scrolls, or one of the table's blocks) and every button: its content against
    // its width; anything drawn past the table's right edge; the table itself
    const PANEL = /\\bdb-(table|main|left|right|outbox|log|header|party|fightbar|card|keeper|sheets|checks|attacks|group|choice|luckbox|outcome|charts|forecast|tuner|requests)\\b/;
    const edge = table.getBoundingClientRect().right;
    const said = e => `${typeof e.className === 'string' ? e.className : e.tagName} "${(e.textContent || '').trim().slice(0, 40)}"`;
    const cut = [];
    let panels = 0, buttons = 0;
    for (const e of [table, ...table.querySelectorAll('*')]) {
        const r = e.getBoundingClientRect();
        if (!r.width || getComputedStyle(e).visibility === 'hidden') continue;
        const button = e.tagName === 'BUTTON';
        const panel = !button && (PANEL.test(typeof e.className === 'string' ? e.className : '') ||
                                  /(auto|scroll|hidden)/.test(getComputedStyle(e).overflowX));
        buttons += button; panels += panel;
        if ((button || panel) && e.scrollWidth > e.clientWidth + 1)
            cut.push(`${said(e)}: ${e.scrollWidth} px of content in ${e.clientWidth} px`);
        if (r.right > edge + 1) cut.push(`${said(e)} ends at ${Math.round(r.right)}, past the table's ${Math.round(edge)}`);
    }
    return {cut: cut.slice(0, 10), panels, buttons, width: Math.round(table.getBoundingClientRect().width)};
}"""


TEXTS_APART = """table => [...table.querySelectorAll('svg.db-chart')].map(svg => {
    // every text of a chart (its title, ticks, the level thresholds' labels, the lines' end labels) against every
    // other, as drawn (boxes in the page, after scaling): a pixel of touching is allowed, an overlap is not
    const boxes = [...svg.querySelectorAll('text')].map(t => [t.textContent, t.getBoundingClientRect()]);
    const out = [];
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
        const [a, p] = boxes[i], [b, q] = boxes[j];
        if (p.left < q.right - 1 && q.left < p.right - 1 && p.top < q.bottom - 1 && q.top < p.bottom - 1)
            out.push(`${a} / ${b}`);
    }
    return {texts: boxes.map(b => b[0]), overlapping: out};
})"""


def set_size(page, size, sidebar: bool) -> None:
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.wait_for_timeout(300)
    tab = page.locator('.jp-SideBar .lm-TabBar-tab[data-id="filebrowser"]')
    if tab.is_visible() and page.locator("#filebrowser").is_visible() != sidebar:
        tab.click()  # its tab opens and closes it
    page.wait_for_timeout(400)


def measure(k: Keeper, where: str, seen: list) -> None:
    m = k.table.evaluate(MEASURE)
    seen.append((where, m["width"], m["panels"], m["buttons"], m["cut"]))


def test_nothing_scrolls_sideways_or_is_cut_from_a_narrow_window_to_1920_in_both_themes(
        browser, keeper_lab, artifacts):
    with keeper_at_the_table(browser, keeper_lab, artifacts, "widths") as k:
        page = k.page
        # a session, XP for level 2 (a level-up choice waits on every sheet), a fight, an attack with its outcome
        k.panel("keeper")
        k.act(k.button("Start session"), "start_session")
        xp = k.table.locator('[data-form="award_xp"]')
        xp.locator('input[name="amount"]').fill("500")
        k.act(xp.locator("button", has_text="Award XP"), "award_xp")
        k.panel("play")
        k.act(k.button("Causeway ambush"), "encounter")
        k.act(k.button("Party goes first"), "initiative")
        k.select("Wren")
        k.attack("Bog goblin 1", "Dagger D6")
        k.panel("keeper")
        k.ui(k.table.locator('.db-ktab[data-ktab="encounters"]'))
        k.ui(k.table.locator('[data-encounter="bell_tower"] button', has_text="Build / forecast"))

        seen = []
        for theme, light in (("light", True), ("dark", False)):
            if not light:
                switch_theme(page, "JupyterLab Dark", light=False)
            for size, sidebar in SIZES:
                set_size(page, size, sidebar)
                at = f"{size[0]}x{size[1]}{' with the file browser' if sidebar else ''}, {theme}"
                k.panel("play")
                for who in DELVERS:
                    k.select(who)
                    measure(k, f"{at}: {who}'s actions", seen)
                k.select("Wren")
                k.table.scroll_into_view_if_needed()
                page.screenshot(path=str(artifacts / f"table-width-{size[0]}-{theme}.png"))
                k.panel("keeper")
                for tab in KEEPER_TABS:
                    k.ui(k.table.locator(f'.db-ktab[data-ktab="{tab}"]'))
                    measure(k, f"{at}: the Keeper panel's {tab}", seen)
                k.ui(k.table.locator('.db-ktab[data-ktab="table"]'))
                page.screenshot(path=str(artifacts / f"table-width-{size[0]}-{theme}-keeper.png"))
                for panel in ("party", "charts"):
                    k.panel(panel)
                    measure(k, f"{at}: the {panel} panel", seen)
                k.table.locator("svg.db-chart").first.scroll_into_view_if_needed()
                page.screenshot(path=str(artifacts / f"table-width-{size[0]}-{theme}-charts.png"))
                charts = k.table.evaluate(TEXTS_APART)
                assert len(charts) == 2 and "level 3" in charts[0]["texts"] and "0" in charts[0]["texts"], charts
                for chart in charts:
                    assert not chart["overlapping"], f"{at}: a chart's texts overlap: {chart['overlapping']}"
        switch_theme(page, "JupyterLab Light", light=True)
        for where, width, panels, buttons, cut in seen:
            print(f"{where}: table {width} px, {panels} panels and {buttons} buttons measured, {len(cut)} cut")
        widths = {where.split(":")[0]: width for where, width, *_ in seen}
        assert min(widths.values()) <= 500, f"no narrow table was tried: {widths}"
        assert all(panels and buttons for _, _, panels, buttons, _ in seen)
        bad = [(where, cut) for where, _, _, _, cut in seen if cut]
        assert not bad, "sideways scrolling or a cut button:\n" + "\n".join(f"{w}: {c}" for w, c in bad)
