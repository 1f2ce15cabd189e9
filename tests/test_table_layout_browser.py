"""The table's layout never hides the next click, in a real JupyterLab started as a keeper starts it (``delvebook
lab``) at 1366x768 in headless Chromium: after Run All the table is in view; with JupyterLab's file browser open
(the notebook area about 919 px) and at every width up to 1920 nothing inside the table scrolls sideways or cuts a
label; each panel and each actor opens at its top; in a fight the actor's attacks come before a pending level-up
choice; the table follows JupyterLab's light and dark themes, readable in both. The players' screen on a phone
(390x844) shows the latest outcome and its rolls first and cuts nothing; nor does it at 1920x1080.

Screenshots (looked at by a person): tests/artifacts/table-theme-light.png, table-theme-dark.png,
players-390x844.png, players-dying-1920x1080.png.
"""
from __future__ import annotations

import re

import pytest

import delvebook as db

from conftest import start_run_all
from test_table_browser import NOTEBOOK, Keeper

pytestmark = pytest.mark.browser

W, H = 1366, 768

OVERFLOW = """root => {
    // what scrolls sideways or is cut inside the table: a box whose content is wider than it and that clips or
    // scrolls, a label (a button, a chip, a heading) whose text does not fit, anything drawn past the table's edge
    const out = [], edge = root.getBoundingClientRect().right;
    for (const e of root.querySelectorAll('*')) {
        const r = e.getBoundingClientRect();
        if (!r.width || getComputedStyle(e).visibility === 'hidden') continue;
        const s = getComputedStyle(e);
        const clips = /(auto|scroll|hidden)/.test(s.overflowX) || s.textOverflow === 'ellipsis';
        if (clips && e.scrollWidth > e.clientWidth + 1) {
            const widest = [...e.querySelectorAll('*')].sort((a, b) => b.getBoundingClientRect().right -
                                                                     a.getBoundingClientRect().right)[0];
            out.push(`${e.className || e.tagName}: ${e.scrollWidth} px of content in ${e.clientWidth} px ` +
                     `(${(e.textContent || '').trim().slice(0, 30)}; widest: ${widest ? widest.className : '-'} ` +
                     `${widest ? (widest.textContent || '').trim().slice(0, 30) : ''})`);
        }
        if (r.right > edge + 1)
            out.push(`${e.className || e.tagName} ends at ${Math.round(r.right)}, past the table (${Math.round(edge)})`);
    }
    return out.slice(0, 12);
}"""

CONTRAST = """root => {
    // every text in the table against what is behind it (WCAG's contrast ratio), with the text's and the
    // backgrounds' alpha laid over the first opaque background behind them; faded things (a disabled button,
    // a dropped die, the dead) are left out: they are meant to be faint
    const parse = c => {
        let m = c.match(/^rgba?\\(([^)]+)\\)/);
        if (m) { const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; }
        m = c.match(/^color\\(srgb ([^)]+)\\)/);
        if (m) { const p = m[1].split(/[ \\/]+/).filter(Boolean).map(Number); return [p[0] * 255, p[1] * 255, p[2] * 255, p.length > 3 ? p[3] : 1]; }
        return [0, 0, 0, 0];
    };
    const over = (top, under) => [0, 1, 2].map(i => top[i] * top[3] + under[i] * (1 - top[3])).concat([1]);
    const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
                       return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
    const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
    const behind = e => {
        const layers = [];
        for (let p = e; p; p = p.parentElement) {
            const c = parse(getComputedStyle(p).backgroundColor);
            if (c[3] > 0) layers.push(c);
            if (c[3] >= 1) break;
        }
        let bg = [255, 255, 255, 1];
        for (const c of layers.reverse()) bg = over(c, bg);
        return bg;
    };
    const faded = e => { for (let p = e; p; p = p.parentElement) if (parseFloat(getComputedStyle(p).opacity) < 0.9) return true; return false; };
    const worst = [];
    for (const e of root.querySelectorAll('*')) {
        const own = [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
        const r = e.getBoundingClientRect();
        if (!own || !r.width || faded(e)) continue;
        const bg = behind(e);
        const fg = over(parse(getComputedStyle(e).color), bg);
        const bold = parseInt(getComputedStyle(e).fontWeight) >= 600;
        worst.push([ratio(fg, bg), bold, e.className || e.tagName, e.textContent.trim().slice(0, 30)]);
        if (e.closest('.db-bar')) {  // a bar's label lies over its fill as well as its track
            const fill = e.closest('.db-bar').querySelector('.db-fill');
            if (fill) worst.push([ratio(fg, over(parse(getComputedStyle(fill).backgroundColor), bg)), bold, 'over a fill', e.textContent.trim().slice(0, 30)]);
        }
    }
    return worst.sort((a, b) => a[0] - b[0]).slice(0, 8);
}"""


def nothing_cut(k: Keeper, where: str) -> None:
    cut = k.table.evaluate(OVERFLOW)
    assert not cut, f"{where}: inside the table, sideways scrolling or a cut label: {cut}"


def opens_at_its_top(k: Keeper, where: str) -> None:
    top = k.table.locator(".db-left").evaluate("e => e.scrollTop")
    assert top == 0, f"{where} opens scrolled down by {top} px"


def scroll_down(k: Keeper) -> None:
    k.table.locator(".db-left").evaluate("e => { e.scrollTop = e.scrollHeight; }")


def readable(table, theme: str) -> None:
    worst = table.evaluate(CONTRAST)
    poor = [w for w in worst if w[0] < (3.0 if w[1] else 4.5)]
    assert not poor, f"{theme} theme: text hard to read (contrast ratio, bold, class, text): {poor}"


def switch_theme(page, name: str, light: bool) -> None:
    page.locator(".lm-MenuBar-item", has_text=re.compile(r"^Settings$")).click()
    page.locator(".lm-Menu-item:visible", has_text=re.compile(r"^Theme$")).hover()
    page.locator(".lm-Menu-item:visible", has_text=re.compile(f"^{name}$")).click()
    page.wait_for_function(f"() => document.body.dataset.jpThemeLight === '{str(light).lower()}'")
    page.wait_for_timeout(300)


def test_the_table_fits_every_width_opens_each_panel_and_actor_at_its_top_and_follows_the_theme(
        browser, keeper_lab, artifacts):
    context = browser.new_context(viewport={"width": W, "height": H})
    page = context.new_page()
    page.set_default_timeout(60_000)
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    k = None
    try:
        start_run_all(page, f"{keeper_lab.url}/lab/tree/{NOTEBOOK}?reset")
        k = Keeper(page, keeper_lab, artifacts, name="layout")
        k.table.wait_for(state="visible")
        k.wait_answered()
        # after Run All the table is in view, its top first (no scrolling by the keeper)
        k.in_view(k.table.locator(".db-header"), "the table's header after Run All")
        k.in_view(k.table.locator(".db-party"), "the party after Run All")

        # JupyterLab's file browser is open (its default): the notebook area is about 919 px
        assert page.locator("#filebrowser").is_visible()
        width = k.table.bounding_box()["width"]
        assert 880 <= width <= 960, f"the table is {width:.0f} px wide beside the file browser"
        nothing_cut(k, "Play, no fight")

        # a session and XP enough for level 2: every delver has a level-up choice waiting
        k.panel("keeper")
        k.act(k.button("Start session"), "start_session")
        xp = k.table.locator('[data-form="award_xp"]')
        xp.locator('input[name="amount"]').fill("500")
        k.act(xp.locator("button", has_text="Award XP"), "award_xp")
        nothing_cut(k, "Keeper")
        scroll_down(k)
        for panel in ("play", "party", "charts", "keeper", "play"):
            k.panel(panel)
            opens_at_its_top(k, f"the {panel} panel")
            nothing_cut(k, f"the {panel} panel")
            scroll_down(k)

        # a fight: the acting delver's attacks come first, the level-up choice after every action
        k.act(k.button("Causeway ambush"), "encounter")
        k.act(k.button("Party goes first"), "initiative")
        k.select("Wren")
        k.in_view(k.table.locator(".db-attacks"), "Wren's attacks, with a level-up choice waiting")
        k.in_view(k.table.locator(".db-target button.db-attack").first, "Wren's first attack button")
        order = k.table.locator(".db-left").evaluate(
            "e => [...e.querySelectorAll('.db-attacks, .db-choice')].map(x => x.className)")
        assert "db-attacks" in order[0] and "db-choice" in order[-1], order
        nothing_cut(k, "Wren's turn in a fight")
        page.screenshot(path=str(artifacts / "table-theme-light.png"))
        for who in ("Brakka", "Ilse", "Father Odo", "Sable", "Wren"):
            scroll_down(k)
            k.select(who)
            opens_at_its_top(k, f"{who}'s actions")
            k.in_view(k.table.locator(".db-actor-name"), f"{who}'s name")
            nothing_cut(k, f"{who}'s actions")

        # every width from about 900 to 1920: the file browser open at 1330, closed at 1100 and at 1920
        for size, sidebar in (((1330, 768), True), ((1100, 768), False), ((1920, 1080), False)):
            if page.locator("#filebrowser").is_visible() != sidebar:
                page.locator('.jp-SideBar .lm-TabBar-tab[data-id="filebrowser"]').click()  # its tab opens, closes
                page.wait_for_timeout(300)
            page.set_viewport_size({"width": size[0], "height": size[1]})
            page.wait_for_timeout(400)
            width = k.table.bounding_box()["width"]
            for panel in ("play", "keeper"):
                k.panel(panel)
                nothing_cut(k, f"the {panel} panel {width:.0f} px wide (window {size[0]})")
        page.set_viewport_size({"width": W, "height": H})

        # the theme: light (JupyterLab's default) and dark, each readable; a hovered active tab is not white on
        # a light hover
        readable(k.table, "light")
        switch_theme(page, "JupyterLab Dark", light=False)
        bg = k.table.evaluate("e => getComputedStyle(e).backgroundColor")
        assert bg != "rgb(251, 250, 247)", "the table kept its light background in JupyterLab Dark"
        readable(k.table, "dark")
        k.table.locator(".db-tab.db-on").hover()
        hovered = k.table.locator(".db-tab.db-on").evaluate(
            "e => [getComputedStyle(e).color, getComputedStyle(e).backgroundColor]")
        assert hovered[0] == "rgb(255, 255, 255)" and hovered[1] not in ("rgb(255, 255, 255)", "rgb(241, 237, 226)")
        page.mouse.move(0, 0)
        k.panel("play")
        k.select("Wren")
        readable(k.table, "dark")
        page.screenshot(path=str(artifacts / "table-theme-dark.png"))
        switch_theme(page, "JupyterLab Light", light=True)
        assert not dialogs, dialogs
    except Exception:
        page.screenshot(path=str(artifacts / "table-layout-failed.png"))
        raise
    finally:
        context.close()


def test_the_players_screen_puts_the_latest_first_on_a_phone_and_cuts_nothing_there_or_at_1920(
        browser, keep, tmp_path, artifacts):
    from test_players import _open_players_page, _serve, _stop
    camp = db.Campaign.open(keep)
    try:
        camp.start_session()
        fight = camp.encounter("causeway_ambush")
        fight.initiative("party")
        camp.damage("Wren", 12, source="a goblin's spear")  # Wren is dying: her badge says so
        camp.check("Brakka", "athletics", 10)
    finally:
        camp.close()
    proc, url, log = _serve(keep, tmp_path)
    try:
        phone = _open_players_page(browser, url, viewport={"width": 390, "height": 844})
        phone.wait_for_selector(".db-p-latest .db-result")
        tops = phone.evaluate("""() => Object.fromEntries(['.db-p-latest', '.db-p-rolls', '.db-party', '.db-fightbar',
            '.db-p-story'].map(s => [s, document.querySelector(s).getBoundingClientRect().top]))""")
        assert tops[".db-p-latest"] < tops[".db-p-rolls"] < tops[".db-party"] < tops[".db-fightbar"] \
            < tops[".db-p-story"], tops
        assert tops[".db-p-latest"] < 844 and tops[".db-p-rolls"] < 844, f"nothing new on the first screen: {tops}"
        table = phone.locator(".db-mode-players")
        cut = table.evaluate(OVERFLOW)
        assert not cut, f"on a phone: {cut}"
        for part in (".db-title", ".db-session"):
            box = phone.locator(part).bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= 390, f"{part} runs off a phone's screen: {box}"
        phone.screenshot(path=str(artifacts / "players-390x844.png"), full_page=True)
        phone.close()

        wide = _open_players_page(browser, url, viewport={"width": 1920, "height": 1080})
        badge = wide.locator('.db-chip[data-name="Wren"] .db-badge')
        assert "dying" in badge.inner_text().lower()
        cut = wide.locator(".db-mode-players").evaluate(OVERFLOW)
        assert not cut, f"at 1920x1080: {cut}"
        readable(wide.locator(".db-mode-players"), "the players' screen (Wren dying and acting)")
        wide.screenshot(path=str(artifacts / "players-dying-1920x1080.png"))
        wide.close()
    finally:
        _stop(proc, log)
