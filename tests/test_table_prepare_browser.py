"""A new keeper prepares an evening by clicks in a real JupyterLab page at 1366x768, from `delvebook new` and
`delvebook lab` with no code after the table cell: three delvers (one with hearts typed from real dice), a foe type,
a prepared encounter whose forecast refines live and finishes (the table answering clicks meanwhile), tuned to
"nobody dies" and started, a loot table rolled and shifted by a luck die; each undone and redone; the page reloaded
and the server started again: all there. Checks read the page and the log on disk; screenshots go to
tests/artifacts/ (table-prepare-*.png)."""
from __future__ import annotations

import re
import subprocess
import sys
import time

import pytest

from delvebook.store import read_log

from conftest import keeper_lab_making, start_run_all
from test_table_browser import Keeper, save_notebook

pytestmark = pytest.mark.browser

CAMPAIGN = "campaigns/new-keep"
NOTEBOOK = "new-keep.ipynb"  # the campaign's own table notebook, beside it (JupyterLab serves campaigns/)
PLAY = CAMPAIGN  # which plays the campaign itself
W, H = 1366, 768


@pytest.fixture(scope="module")
def new_keep_lab(tmp_path_factory):
    """JupyterLab as a new keeper starts it: `delvebook new campaigns/new-keep` (the campaign and its table
    notebook beside it, new-keep.ipynb), then `delvebook lab campaigns/new-keep`."""
    yield from keeper_lab_making(tmp_path_factory, "newkeeplab", CAMPAIGN,
                                 [sys.executable, "-m", "delvebook", "new", CAMPAIGN], first=True)


def open_new_table(page, server):
    panel = start_run_all(page, f"{server.url}/lab/tree/{NOTEBOOK}?reset")
    table = panel.locator(".jp-OutputArea-output .db-table").last
    table.wait_for(state="visible", timeout=120_000)
    table.scroll_into_view_if_needed()
    return table


class Preparer(Keeper):
    """A keeper preparing: the Keeper panel's sections, their forms, and what the forecast shows meanwhile."""

    def tab(self, name: str) -> None:
        self.ui(self.table.locator(f'.db-ktab[data-ktab="{name}"]'))

    def form(self, form_id: str):
        return self.table.locator(f'[data-form="{form_id}"]')

    def fill(self, form_id: str, **values) -> None:
        form = self.form(form_id)
        for name, value in values.items():
            field = form.locator(f'[name="{name}"]')
            if isinstance(value, bool):
                box = form.locator(f'label.db-check:has-text("{name}") input')
                box.set_checked(value)
            elif field.evaluate("e => e.tagName") == "SELECT":
                field.select_option(value)
            else:
                field.fill(value)

    def submit(self, form_id: str, label: str, *kinds: str, says=None) -> str:
        return self.act(self.form(form_id).locator("button", has_text=label), *kinds, says=says)

    def field_error(self, form_id: str, name: str) -> str:
        """The refusal said beside a field: what the page shows next to it."""
        err = self.form(form_id).locator(f'.db-field[data-error] [name="{name}"] ~ .db-field-error')
        err.first.wait_for()
        self.in_view(err, f"the refusal beside {name}")
        return err.first.inner_text()

    def refused_at(self, form_id: str, label: str, name: str, says: str) -> None:
        self.form(form_id).locator("button", has_text=label).click()
        self.wait_answered()
        assert says in self.field_error(form_id, name)
        assert [e["kind"] for e in self.events()] == self.expected, "a refusal recorded something"

    def forecast_status(self) -> tuple[str | None, int]:
        box = self.table.locator(".db-forecast").first
        if not box.count():
            return None, 0
        bar = box.locator(".db-progress")
        return box.get_attribute("data-status"), int(bar.get_attribute("data-done") or 0) if bar.count() else 0


def test_a_new_keeper_prepares_an_evening_by_clicks_and_it_survives_undo_reload_and_reopen(browser, new_keep_lab,
                                                                                          artifacts):
    server = new_keep_lab
    context = browser.new_context(viewport={"width": W, "height": H})
    page = context.new_page()
    page.set_default_timeout(60_000)
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    k = None
    try:
        open_new_table(page, server)
        k = Preparer(page, server, artifacts, name="prepare", play=PLAY)
        assert k.expected == [], "the table cell only opens and shows"
        empty = k.table.locator(".db-empty")
        k.in_view(empty, "what an empty table says")
        assert "No one at the table yet" in empty.inner_text()
        k.shot("empty")

        # ---- the party: three delvers, one with hearts typed from real dice
        k.ui(empty.locator("button", has_text="Prepare the evening"))
        assert k.table.locator('.db-ktab.db-on[data-ktab="party"]').count() == 1, "an empty table opens on the party"
        k.fill("add_delver", name="Wren", player="Ana")
        k.submit("add_delver", "Add to the party", "add_delver", says="Wren joins the party (rogue")
        k.refused_at("add_delver", "Add to the party", "name", "needs a name")
        k.form("add_delver").locator('select[name="class"]').select_option("fighter")
        k.wait_answered()
        weapon = k.form("add_delver").locator('select[name="choice:weapon"] option')
        assert weapon.count() >= 2 and ": " in weapon.first.inner_text(), "each starting choice says what it gives"
        k.fill("add_delver", name="Brakka", player="Ben", hearts="4")
        k.submit("add_delver", "Add to the party", "add_delver", says="Brakka joins the party (fighter, 19 hearts")
        k.form("add_delver").locator('select[name="class"]').select_option("mage")
        k.wait_answered()
        k.fill("add_delver", name="Ilse", player="Cy")
        k.submit("add_delver", "Add to the party", "add_delver", says="Ilse joins the party (mage")
        assert [c.get_attribute("data-name") for c in k.table.locator(".db-party .db-chip").all()] == \
            ["Wren", "Brakka", "Ilse"]
        k.shot("party")

        # ---- the bestiary: a foe type, refused first where typed wrong
        k.tab("bestiary")
        k.fill("foe", name="Bog hag", hearts="-3", attack_bonus="0", damage="d6", tags="fae, evil",
               note="hates iron")
        k.refused_at("foe", "Add to the bestiary", "hearts", "1 or more, got -3")
        k.fill("foe", hearts="6")
        k.submit("foe", "Add to the bestiary", "prepare_foe", says="Bog hag joins the bestiary (6 hearts)")
        assert "Bog hag (bog_hag)" in k.table.locator('[data-foe="bog_hag"]').inner_text()
        k.shot("bestiary")

        # ---- an encounter: built, its forecast refining live while the table answers, tuned, saved
        k.tab("encounters")
        k.ui(k.button("New encounter"))
        k.fill("builder_add", foe="bog_hag", count="1")
        k.ui(k.form("builder_add").locator("button", has_text="Add"))
        k.fill("builder_add", foe="goblin", count="2")
        seen = []
        k.ui(k.form("builder_add").locator("button", has_text="Add"))
        began = time.monotonic()
        while time.monotonic() - began < 120:
            status, done = k.forecast_status()
            seen.append((round(time.monotonic() - began, 2), status, done))
            if status == "done":
                break
            time.sleep(0.1)
        running = [d for _, s, d in seen if s == "running"]
        assert seen[-1][1] == "done", seen
        assert len(set(running)) >= 2 and running == sorted(running), f"the forecast refined live: {seen}"
        first = next((t for t, s, d in seen if d > 0), None)
        forecast = k.table.locator(".db-forecast")
        k.in_view(forecast, "the forecast")
        assert "within ±2 points" in forecast.inner_text() and "a death" in forecast.inner_text()
        k.shot("forecast")
        print(f"forecast: first estimate seen at {first} s; done at {seen[-1][0]} s ({seen[-1][2]} fights)")

        # a what-if (one goblin fewer) starts it again, and the table answers a click while it runs
        k.ui(k.table.locator('.db-bfoe[data-foe="goblin"] .db-fewer'))
        answered = time.monotonic()
        k.ui(k.table.locator('.db-sitting button[data-out="Ilse"]'))
        print(f"a click while the forecast runs answered in {time.monotonic() - answered:.2f} s")
        status, _ = k.forecast_status()
        if status == "running":
            k.ui(k.table.locator(".db-fcancel"))
            assert k.forecast_status()[0] == "cancelled"
            k.ui(k.button("Forecast again"))
        k.ui(k.table.locator('.db-sitting button[data-out="Ilse"]'))  # Ilse back in

        # the tuner: how many goblins so that nobody dies
        k.fill("tune", foe="goblin", target="nobody dies")
        k.ui(k.form("tune").locator("button", has_text="Tune"))
        k.table.locator('.db-tuning[data-status="done"]').wait_for(timeout=180_000)
        k.table.locator('.db-forecast[data-status="done"]').wait_for(timeout=180_000)  # it waited for the tuner
        tuning = k.table.locator(".db-tuning")
        k.in_view(tuning, "the tuner's answer")
        k.shot("tuned")
        assert "meet" in tuning.inner_text() and tuning.locator(".db-meets").count() >= 1, tuning.inner_text()
        use = k.table.locator(".db-use-count")
        count = int(re.search(r"Use (\d+)", use.inner_text()).group(1))
        k.ui(use)
        assert k.table.locator('.db-bfoe[data-foe="goblin"] .db-count').inner_text() == str(count)
        k.fill("builder", name="The hag's hut", note="smoke from the chimney")
        k.submit("builder", "Save encounter", "prepare_encounter", says="Encounter prepared: The hag's hut")

        # ---- a loot table, made (a gap refused first)
        k.tab("tables")
        k.fill("table", name="Loot", dice="d6", entries="1-3: a rusty dagger\n5-6: a gem")
        k.refused_at("table", "Make the table", "entries", "a gap: no entry for 4")
        k.fill("table", entries="1-3: a rusty dagger\n4-5: 2d6 talons\n6: a gem")
        k.submit("table", "Make the table", "prepare_table", says="Roll table made: Loot (d6, 3 entries)")
        k.shot("tables")

        # ---- the fight starts from the prepared encounter
        k.tab("encounters")
        k.act(k.table.locator('[data-encounter="the_hag_s_hut"] button', has_text="Start fight"), "encounter",
              says="A fight begins (The hag's hut)")

        # ---- a roll on the loot table, shifted by a luck die
        k.panel("keeper")
        k.tab("tables")
        k.act(k.table.locator('[data-table="loot"] button', has_text="Roll"), "roll_table", says="Loot (d6): ")
        k.ui(k.table.locator('.db-luckbox .db-player[data-player="Ana"]'))
        plus = k.table.locator('.db-luckrow[data-roll="table"] .db-luck-plus')
        k.act(plus, "roll_table", says="Ana spends a luck die on the keeper's roll on the Loot table")
        shifted = k.table.locator(".db-outcome").inner_text()
        assert "Loot (d6): " in shifted
        k.shot("loot-luck")
        prepared = [e["kind"] for e in k.events()]

        # ---- undo each, then redo each
        for kind in reversed(prepared):
            undo = k.table.locator(".db-undo-btn")
            assert undo.get_attribute("title").startswith("Undo "), undo.get_attribute("title")
            k.act(undo, "undo", says="Undo ")
        assert k.table.locator(".db-empty").count() == 1 or "Nothing to undo" in \
            k.table.locator(".db-undo-btn").inner_text()
        k.shot("all-undone")
        for kind in prepared:
            k.act(k.table.locator(".db-redo-btn"), "redo", says="Redo ")
        k.shot("all-redone")

        # ---- the page reloads, then the server starts again: all there
        save_notebook(page)
        page.reload()
        k.table.wait_for(state="visible")
        k.table.scroll_into_view_if_needed()
        assert [c.get_attribute("data-name") for c in k.table.locator(".db-party .db-chip").all()] == \
            ["Wren", "Brakka", "Ilse"]
        log_before = [e["kind"] for e in k.events()]
        server.restart()
        open_new_table(page, server)
        k = Preparer(page, server, artifacts, name="prepare-reopened", play=PLAY)
        assert [e["kind"] for e in k.events()] == log_before
        assert "The hag's hut" in k.table.locator(".db-fightbar").inner_text()
        k.panel("keeper")
        k.tab("bestiary")
        assert k.table.locator('[data-foe="bog_hag"]').count() == 1
        k.tab("tables")
        assert k.table.locator('[data-table="loot"]').count() == 1
        k.shot("reopened")
        events, problems = read_log(server.root / PLAY)
        assert not problems and events
        assert not dialogs, dialogs
    except Exception:
        page.screenshot(path=str(artifacts / "table-prepare-failed.png"))
        raise
    finally:
        context.close()


def test_the_keeper_panels_preparing_sections_fit_every_width_open_at_their_top_and_follow_the_theme(
        browser, keeper_lab, artifacts):
    """The prepared campaign (five delvers, its bestiary, three encounters): each section of the Keeper panel, the
    builder with its forecast and tuner, a refusal beside its field, at 1366x768 with the file browser open, at 1100
    and at 1920 wide: nothing scrolls sideways or is cut, each section opens at its top, readable in JupyterLab's
    light and dark themes."""
    from test_table_layout_browser import nothing_cut, opens_at_its_top, readable, scroll_down, switch_theme
    from test_table_browser import NOTEBOOK as SESSION
    context = browser.new_context(viewport={"width": W, "height": H})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        start_run_all(page, f"{keeper_lab.url}/lab/tree/{SESSION}?reset")
        k = Preparer(page, keeper_lab, artifacts, name="prepare-layout", play="examples/play/the-sunken-keep")
        k.table.wait_for(state="visible")
        k.table.scroll_into_view_if_needed()
        k.panel("keeper")
        for tab in ("party", "bestiary", "encounters", "tables", "table"):
            scroll_down(k)
            k.tab(tab)
            opens_at_its_top(k, f"the Keeper panel's {tab} section")
            nothing_cut(k, f"the {tab} section")
        k.tab("encounters")
        k.ui(k.table.locator('[data-encounter="bell_tower"] button', has_text="Build / forecast"))
        k.table.locator('.db-forecast[data-status="done"]').wait_for(timeout=180_000)
        k.fill("tune", foe="bell_cultist", target="a real threat")
        k.ui(k.form("tune").locator("button", has_text="Tune"))
        k.table.locator('.db-tuning[data-status="done"]').wait_for(timeout=300_000)
        k.table.locator('.db-forecast[data-status="done"]').wait_for(timeout=180_000)
        said = k.table.locator(".db-tuning").inner_text()
        assert "Bell cultist" in said and "a real threat" in said and "1: a death" in said, said
        nothing_cut(k, "the builder with its forecast and tuner")
        page.screenshot(path=str(artifacts / "table-prepare-builder-1366x768.png"))
        k.tab("tables")
        k.fill("table", name="Bad", dice="d6", entries="1-4: a\n3-6: b")
        k.refused_at("table", "Make the table", "entries", "line 2: overlaps line 1")
        nothing_cut(k, "a refusal beside the entries")
        for size, sidebar in (((1100, 768), False), ((1920, 1080), False), ((W, H), True)):
            if page.locator("#filebrowser").is_visible() != sidebar:
                page.locator('.jp-SideBar .lm-TabBar-tab[data-id="filebrowser"]').click()
                page.wait_for_timeout(300)
            page.set_viewport_size({"width": size[0], "height": size[1]})
            page.wait_for_timeout(400)
            for tab in ("party", "bestiary", "encounters", "tables"):
                k.tab(tab)
                nothing_cut(k, f"the {tab} section, window {size[0]} px")
        readable(k.table, "light")
        k.tab("encounters")
        readable(k.table, "light (the builder)")
        switch_theme(page, "JupyterLab Dark", light=False)
        readable(k.table, "dark (the builder)")
        page.screenshot(path=str(artifacts / "table-prepare-builder-dark.png"))
        k.tab("tables")
        k.refused_at("table", "Make the table", "entries", "line 2: overlaps line 1")
        readable(k.table, "dark (a refusal beside its field)")
        switch_theme(page, "JupyterLab Light", light=True)
    except Exception:
        page.screenshot(path=str(artifacts / "table-prepare-layout-failed.png"))
        raise
    finally:
        context.close()
