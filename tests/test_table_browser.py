"""A keeper plays a session on the table in a real JupyterLab page at 1366x768, by clicks only, as a new keeper
would: the session starts, a check gets a luck die and real dice, a fight goes from initiative to XP (a counter,
a tie, a death save, a foe joining, Lay on Hands, Naming Magic at the keeper's price, a spell), a level-up
choice, undo and redo, each on its delver's turn. After each click its outcome (or refusal) is inside the viewport, and the log on disk
holds exactly the events clicked. Then the page reloads and play goes on; a second browser on the same kernel
goes on; the table cell runs again and the log does not change.

Checks read the rendered page and the files on disk, not kernel variables. Screenshots go to tests/artifacts/.
"""
from __future__ import annotations

import contextlib
import json
import re
import shutil

import pytest

from delvebook.store import read_log

from conftest import run_all_cells, start_run_all

pytestmark = pytest.mark.browser

NOTEBOOK = "examples/run-a-session.ipynb"
PLAY = "examples/play/the-sunken-keep"
W, H = 1366, 768
EVIL = "<img src=x onerror=alert(1)>"


class Keeper:
    """A person at the table: clicks, waits for what they would wait for (the table to answer), looks."""

    def __init__(self, page, lab_server, artifacts, name="keeper", play=PLAY):
        self.page = page
        self.log_dir = lab_server.root / play
        self.artifacts = artifacts
        self.name = name
        self.shots = 0
        self.expected: list[str] = [e["kind"] for e in self.events()]

    # ---- what is on the page
    @property
    def table(self):
        return self.page.locator(".jp-OutputArea-output .db-table").last

    def events(self) -> list[dict]:
        if not (self.log_dir / "log.yaml").exists():
            return []
        events, problems = read_log(self.log_dir)
        assert not problems, problems
        return events

    def outcome_seq(self):
        out = self.table.locator(".db-outcome .db-result")
        return out.get_attribute("data-seq") if out.count() else None

    def wait_answered(self) -> None:
        """The table answered the click (it marks itself busy until the kernel's view comes back)."""
        self.page.wait_for_function(
            "() => { const r = [...document.querySelectorAll('.db-root')]; "
            "return r.length > 0 && r.every(x => !x.classList.contains('db-busy')); }", timeout=30_000)

    def in_view(self, locator, what: str) -> None:
        """Seen without scrolling: its box inside the viewport and inside every box that clips it."""
        locator.first.wait_for(state="visible")
        box = locator.first.bounding_box()
        assert box is not None, f"{what}: not drawn"
        vw, vh = self.page.viewport_size["width"], self.page.viewport_size["height"]
        assert box["y"] >= 0 and box["y"] + box["height"] <= vh and box["x"] >= 0 and box["x"] + box["width"] <= vw, \
            f"{what} is outside the {vw}x{vh} viewport: {box}"
        # the top of it (its first lines, at least 40 px) inside every scrolling box around it
        clipped = locator.first.evaluate("""e => {
            const r = e.getBoundingClientRect(); const top = r.top, bottom = Math.min(r.bottom, r.top + 40);
            for (let p = e.parentElement; p; p = p.parentElement) {
                const s = getComputedStyle(p);
                const clips = /(auto|scroll)/.test(s.overflowY) || (s.overflowY === "hidden" && p.closest(".db-root"));
                if (!clips) continue;
                const c = p.getBoundingClientRect();
                if (c.height === 0) continue;
                if (top < c.top - 1 || bottom > c.bottom + 1) return {by: p.className, top, bottom, box: [c.top, c.bottom]};
            }
            return null; }""")
        assert clipped is None, f"{what} is scrolled out of sight: {clipped}"

    def shot(self, name: str) -> None:
        self.shots += 1
        self.page.screenshot(path=str(self.artifacts / f"table-{self.name}-{self.shots:02d}-{name}.png"))

    # ---- acting
    def ui(self, locator) -> None:
        """A click that changes only what the table shows (a panel, who acts): nothing on disk."""
        locator.click()
        self.wait_answered()
        assert [e["kind"] for e in self.events()] == self.expected, "a click on the view changed the log"

    def act(self, locator, *kinds: str, says: str | re.Pattern | None = None) -> str:
        """A click that records ``kinds``: the outcome shows in the viewport, and the log on disk holds exactly
        what was clicked. Returns the outcome's text."""
        before = self.outcome_seq()
        locator.click()
        self.wait_answered()
        refused = self.table.locator(".db-notice.db-refused")
        if refused.count():
            raise AssertionError(f"the click was refused: {refused.first.inner_text()}")
        self.page.wait_for_function(
            "s => { const r = [...document.querySelectorAll('.jp-OutputArea-output .db-table')].pop();"
            " const o = r && r.querySelector('.db-outcome .db-result'); return o && o.dataset.seq !== s; }",
            arg=before, timeout=30_000)
        outcome = self.table.locator(".db-outcome")
        self.in_view(outcome, f"the outcome of {list(kinds)}")
        self.expected += list(kinds)
        on_disk = [e["kind"] for e in self.events()]
        assert on_disk == self.expected, f"the log on disk holds {on_disk[-6:]}, expected {self.expected[-6:]}"
        text = outcome.inner_text()
        if isinstance(says, re.Pattern):
            assert says.search(text), f"the outcome says {text!r}"
        elif says:
            assert says in text, f"the outcome says {text!r}"
        return text

    def refused(self, locator, says: str) -> None:
        """A click the rules refuse: the refusal shows in the viewport, next to the click; nothing is recorded."""
        locator.click()
        self.wait_answered()
        notice = self.table.locator(".db-notice.db-refused")
        self.in_view(notice, "the refusal")
        assert says in notice.first.inner_text()
        assert [e["kind"] for e in self.events()] == self.expected

    # ---- the table's parts
    def button(self, text: str | re.Pattern, within: str = ""):
        scope = self.table.locator(within) if within else self.table
        return scope.locator("button", has_text=text).first

    def panel(self, name: str) -> None:
        self.ui(self.table.locator(f'.db-tab[data-panel="{name}"]'))

    def select(self, who: str) -> None:
        self.ui(self.table.locator(f'.db-party .db-chip[data-name="{who}"]'))
        self.table.locator(".db-actor-name", has_text=who).wait_for()

    def chip(self, who: str):
        return self.table.locator(f'.db-party .db-chip[data-name="{who}"]')

    def real_dice(self, roll: str, faces: str, *, says=None) -> str:
        row = self.table.locator(f'.db-luckrow[data-roll="{roll}"]')
        row.locator("input").fill(faces)
        return self.act(row.locator("button", has_text="Real dice"), self.expected_kind(), says=says)

    def expected_kind(self) -> str:
        return self.outcome_kind()

    def outcome_kind(self) -> str:
        return self.table.locator(".db-outcome .db-result").get_attribute("data-kind")

    def attack(self, target: str, weapon: str, **kw) -> str:
        row = self.table.locator(f'.db-target[data-name="{target}"]')
        return self.act(row.locator("button", has_text=weapon), "attack", **kw)


def open_table(page, lab_server) -> None:
    panel = run_all_cells(page, lab_server, NOTEBOOK)
    table = panel.locator(".jp-OutputArea-output .db-table").last
    table.wait_for(state="visible")
    assert "Anywidget" not in panel.inner_text() and "Error displaying widget" not in panel.inner_text()
    table.scroll_into_view_if_needed()


@contextlib.contextmanager
def keeper_at_the_table(browser, lab_server, artifacts, name: str, size=(W, H)):
    """A new page of ``size`` with the table notebook run (Run All) and a Keeper at its table, answered once: a
    dialog fails the test, and a failure leaves a screenshot (tests/artifacts/table-<name>-failed.png)."""
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.set_default_timeout(60_000)
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        start_run_all(page, f"{lab_server.url}/lab/tree/{NOTEBOOK}?reset")
        k = Keeper(page, lab_server, artifacts, name=name)
        k.table.wait_for(state="visible")
        k.wait_answered()
        yield k
        assert not dialogs, dialogs
    except Exception:
        page.screenshot(path=str(artifacts / f"table-{name}-failed.png"))
        raise
    finally:
        context.close()


def save_notebook(page) -> None:
    """File > Save Notebook, as a person would before reloading (JupyterLab also saves by itself, every 2 minutes)."""
    page.locator(".lm-MenuBar-item", has_text=re.compile(r"^File$")).click()
    page.locator(".lm-Menu-item:visible", has_text="Save Notebook").first.click()
    page.wait_for_function("() => !document.querySelector('.lm-TabBar-tab.jp-mod-dirty')")


def test_a_keeper_plays_a_session_by_clicks_through_reloads_and_a_second_browser(browser, lab_server, artifacts):
    shutil.rmtree(lab_server.root / "examples" / "play", ignore_errors=True)  # a fresh play copy
    context = browser.new_context(viewport={"width": W, "height": H})
    page = context.new_page()
    page.set_default_timeout(60_000)
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    k = None
    try:
        open_table(page, lab_server)
        k = Keeper(page, lab_server, artifacts)
        assert k.expected == [], "the table cell only opens and shows: nothing recorded"
        k.shot("opened")

        # ---- the session starts; a check, a luck die, real dice
        k.panel("keeper")
        k.act(k.button("Start session"), "start_session", says="Session 1 begins: every player has 3 luck dice")
        k.panel("play")
        k.select("Wren")
        k.act(k.button("Stealth +D6", ".db-checks"), "check", says=re.compile(r"Wren: Stealth check \d+ vs 10"))
        k.real_dice("check", "8 1", says="Wren: Stealth check 9 vs 10: fails")  # a luck die added may lift it
        k.act(k.button("+ Ana", ".db-luckbox"), "check", says="Ana spends a luck die on Wren's Stealth check: +")
        assert k.chip("Wren").get_attribute("data-luck") == "2"
        k.real_dice("check", "15 4", says="Wren: Stealth check 19 vs 10: succeeds")
        k.shot("check-luck-real-dice")

        # ---- a fight: initiative, the party first
        k.act(k.button("Causeway ambush"), "encounter", says="A fight begins (Causeway ambush)")
        text = k.act(k.button("Roll initiative"), "initiative", says="Initiative: party ")
        if "the foes go first" in text:  # the keeper rules otherwise: undo, and the party goes first
            k.act(k.button("Undo the initiative roll"), "undo", says="Undo the initiative roll")
            k.act(k.button("Party goes first"), "initiative", says="the party goes first")
        k.table.locator(".db-actor-name", has_text="Wren").wait_for()

        # a miss, countered: the resist roll made high, then the attack low, as the real dice showed
        k.attack("Bog goblin 1", "Dagger D6")
        k.real_dice("resist", "20")
        k.real_dice("attack", "1 1", says="Bog goblin 1 hits back: Wren takes")
        assert "miss, countered" in k.table.locator(".db-outcome .db-verdict").inner_text()
        k.shot("counter")

        # Brakka's turn: a tie, and the sword's hit drops the goblin, which therefore does not hit back
        k.act(k.button("Next turn"), "next_turn", says="Brakka's turn")
        k.attack("Bog goblin 2", "Sword 2d6")
        k.real_dice("resist", "10")
        k.real_dice("attack", "9 1", says="a tie")
        k.real_dice("damage", "6 6", says="a tie: Brakka hits")
        assert "no counter: Bog goblin 2 is down" in k.table.locator(".db-outcome").inner_text()
        k.shot("tie")

        # a death save: a trap by hand drops Wren; the chip offers the save with its odds
        k.panel("keeper")
        form = k.table.locator('[data-form="by_hand"]')
        form.locator("select").select_option("Wren")
        form.locator('input[name="amount"]').fill("20")
        form.locator('input[name="source"]').fill("a falling portcullis")
        k.act(form.locator("button", has_text="Damage"), "damage", says="death save!")
        k.panel("play")
        save = k.chip("Wren").locator("button", has_text="Death save")
        assert save.inner_text() == "Death save: D6, needs 6: 17%"
        k.act(save, "death_save", says="needs 6: 17%")
        k.real_dice("death_save", "6", says="defies death, alive at 0 hearts")
        k.shot("death-save")

        # a foe joins
        join = k.table.locator('[data-form="add_foe"]')
        join.locator("select").select_option("marsh_wisp")
        k.act(join.locator("button", has_text="Joins"), "add_foes", says="Marsh wisp 1 joins the fight")

        # a spell: Firebolt at the last goblin, one click, its odds on the button
        k.act(k.button("Next turn"), "next_turn", says="Ilse's turn")
        k.table.locator(".db-actor-name", has_text="Ilse").wait_for()
        fire = k.table.locator('[data-where="cast:Ilse:firebolt"] button', has_text="Bog goblin 3")
        assert re.search(r"\d+%", fire.inner_text())
        k.act(fire, "cast", says="Firebolt: ")
        k.real_dice("attack", "20 6", says="hit")
        if k.table.locator('.db-luckrow[data-roll="damage"]').count():
            k.real_dice("damage", "6 6", says="Bog goblin 3 takes")
        k.shot("spells")

        # Lay on Hands: the hearts asked, a healing point each
        k.act(k.button("Next turn"), "next_turn", says="Father Odo's turn")
        k.table.locator(".db-actor-name", has_text="Father Odo").wait_for()
        k.ui(k.button("Lay on Hands\u2026"))
        loh = k.table.locator('[data-form="use:Father Odo:lay_on_hands"]')
        loh.locator('select').select_option("Wren")
        loh.locator('input[name="hearts"]').fill("2")
        k.act(loh.locator("button", has_text="Use Lay on Hands"), "use",
              says="Lay on Hands: Wren heals 2 (0 -> 2 hearts)")

        # Naming Magic: names the namer knows, a description, the keeper's price, the agreed cost
        k.act(k.button("Next turn"), "next_turn", says="Sable's turn")
        k.table.locator(".db-actor-name", has_text="Sable").wait_for()
        k.ui(k.button("Naming Magic\u2026"))
        nm = k.table.locator('[data-form="cast:Sable:naming"]')
        nm.locator('input[type="checkbox"][value="Water"]').check()
        nm.locator('input[type="checkbox"][value="Bind"]').check()
        nm.locator('input[name="description"]').fill("the marsh water binds the wisp")
        nm.locator('input[name="price"]').fill("4")
        nm.locator('input[name="cost"]').fill("3")
        k.act(nm.locator("button", has_text="Cast Naming Magic"), "cast", says="for 3 soul points")
        assert "soul points 4/7" in k.chip("Sable").inner_text()

        # the fight ends with foes standing: the table asks once, then XP for the vanquished, split
        k.ui(k.button("End fight"))
        confirm = k.table.locator(".db-notice.db-confirm")
        k.in_view(confirm, "the guard rail's question")
        assert "still standing" in confirm.inner_text()
        k.act(confirm.locator("button", has_text="End the fight anyway"), "end_encounter", says="XP")
        assert re.search(r"split 5 ways|waits in the pool", k.table.locator(".db-outcome").inner_text())

        # XP enough for level 2, and a level-up choice by one click
        k.panel("keeper")
        xp = k.table.locator('[data-form="award_xp"]')
        xp.locator('input[name="amount"]').fill("500")
        xp.locator('input[name="reason"]').fill("the drowned bell")
        k.act(xp.locator("button", has_text="Award XP"), "award_xp", says="split 5 ways: 100 each")
        k.shot("keeper-panel")
        k.panel("play")
        k.select("Wren")
        k.act(k.button("Bows", ".db-choice"), "choose", says="Wren chooses Bows (specialty)")
        k.shot("level-up")

        # undo says what it undoes, and redo puts it back
        undo = k.table.locator(".db-undo-btn")
        assert undo.get_attribute("title") == "Undo Wren's choice of bows"
        k.act(undo, "undo", says="Undo Wren's choice of bows")
        assert k.table.locator('.db-logrow[data-mark="undone"]').count() >= 1
        k.act(k.table.locator(".db-redo-btn"), "redo", says="Redo Wren's choice of bows")
        page.screenshot(path=str(artifacts / "table-1366x768.png"))

        # a refusal shows next to the click: the same quest twice
        k.panel("keeper")
        quest = k.table.locator('[data-where="keeper:quests"]')
        k.act(quest.locator("button.db-mini", has_text="Complete").first, "complete_quest", says="Quest complete")
        qf = k.table.locator('[data-form="quest"]')
        qf.locator("input").fill("Silence the drowned bell")
        k.refused(qf.locator("button"), "already completed")
        k.panel("play")

        # ---- the page reloads: the live table comes back and play goes on
        save_notebook(page)
        page.reload()
        k.table.wait_for(state="visible")
        k.table.scroll_into_view_if_needed()
        k.table.locator(".db-actor-name", has_text="Wren").wait_for()
        k.act(k.button("Stealth +D6", ".db-checks"), "check", says="Wren: Stealth check")
        k.shot("after-reload")

        # ---- a second browser on the same kernel: the same live table
        second = browser.new_context(viewport={"width": 1920, "height": 1080})
        try:
            p2 = second.new_page()
            p2.set_default_timeout(60_000)
            p2.goto(f"{lab_server.url}/lab/tree/{NOTEBOOK}")
            k2 = Keeper(p2, lab_server, artifacts, name="second")
            k2.expected = k.expected
            k2.table.wait_for(state="visible")
            k2.table.scroll_into_view_if_needed()
            k2.select("Brakka")
            k2.act(k2.button("Athletics", ".db-checks"), "check", says="Brakka: Athletics check")
            k.expected = k2.expected
            # the first browser shows the second's click: one model, two pages
            page.wait_for_function(
                "s => { const o = document.querySelector('.jp-OutputArea-output .db-table .db-outcome .db-result');"
                " return o && o.dataset.seq === s; }", arg=k2.outcome_seq())
            p2.screenshot(path=str(artifacts / "table-1920x1080.png"))

            # ---- the table cell runs again: it only opens and shows
            log_before = (lab_server.root / PLAY / "log.yaml").read_bytes()
            cell = p2.locator(".jp-CodeCell").first
            cell.locator(".jp-InputPrompt").first.click()  # the cell picked (its code is folded away)
            p2.keyboard.press("Shift+Enter")
            p2.locator(".jp-CodeCell").first.locator(".jp-OutputArea-output .db-table").wait_for(state="visible")
            k2.wait_answered()
            errors = p2.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]').all_inner_texts()
            assert not errors, errors
            assert (lab_server.root / PLAY / "log.yaml").read_bytes() == log_before, "re-running the cell changed the log"
            k2.table.scroll_into_view_if_needed()
            k2.select("Brakka")
            k2.act(k2.button("Athletics", ".db-checks"), "check", says="Brakka: Athletics check")
        finally:
            second.close()
        assert not dialogs, dialogs
    except Exception:
        page.screenshot(path=str(artifacts / "table-failed.png"))
        if k is not None:
            (artifacts / "table-failed-log.json").write_text(json.dumps([e["kind"] for e in k.events()]))
        raise
    finally:
        context.close()


def test_names_like_markup_show_as_text_on_the_table_and_run_no_script(browser, lab_server, artifacts):
    import nbformat

    import delvebook as db
    folder = lab_server.root / "evil-keep"
    if not folder.exists():
        db.Campaign.create(folder, name=f"{EVIL} Keep", seed=5,
                           delvers=[{"name": EVIL, "class": "rogue", "player": "<b onmouseover=alert(3)>Mal</b>"}],
                           bestiary={"imp": {"name": "<svg onload=alert(4)>", "hearts": 3, "attack_bonus": 0,
                                             "damage": "d6", "tags": []}}).close()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "import delvebook as db\n"
        "camp = db.Campaign.open('evil-keep')\n"
        "if not camp.state['session']['active']:\n"
        "    camp.start_session()\n"
        f"camp.check({EVIL!r}, 'stealth', 10)\n"
        "camp.encounter(['imp']) if camp.fight is None else None\n"
        "camp.dashboard()"),
        nbformat.v4.new_code_cell(f"camp.delver({EVIL!r})")]
    nb.metadata = {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}}
    nbformat.write(nb, lab_server.root / "evil.ipynb")

    context = browser.new_context(viewport={"width": W, "height": H})
    page = context.new_page()
    page.set_default_timeout(60_000)
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        panel = run_all_cells(page, lab_server, "evil.ipynb")
        table = panel.locator(".db-table").first
        table.wait_for(state="visible")
        panel.locator(".db-table").nth(1).wait_for(state="visible")  # the delver's own live card
        text = table.inner_text()
        assert EVIL in text and "<b onmouseover=alert(3)>Mal</b>" in text and "<svg onload=alert(4)>" in text
        assert EVIL in panel.locator(".db-table").last.inner_text()
        table.hover()
        page.wait_for_timeout(300)
        page.screenshot(path=str(artifacts / "table-escaped-names.png"))
        assert page.locator('.jp-OutputArea-output img[src="x"]').count() == 0
        assert page.locator(".jp-OutputArea-output b[onmouseover], .jp-OutputArea-output svg[onload]").count() == 0
        assert not dialogs, f"a script ran: {dialogs}"
    except Exception:
        page.screenshot(path=str(artifacts / "table-escaped-names-failed.png"))
        raise
    finally:
        context.close()


def test_the_rules_controls_by_clicks_gear_the_keepers_override_and_npcs_beside_the_party(browser, lab_server,
                                                                                          artifacts):
    """What the rules made playable, by clicks on the page: found gear given, a keeper's override after an
    out-of-turn refusal, a crossbow shot and reloaded, a dagger dropped, a fight ended keeping its foes as NPCs and
    an NPC named; each outcome in the viewport and on disk, and the NPCs shown beside the party."""
    import nbformat
    folder = lab_server.root / "rules-keep"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(lab_server.root / "campaigns" / "the-sunken-keep", folder,
                    ignore=shutil.ignore_patterns(".delvebook*"))
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("from delvebook.table import playing\n"
                                          "camp = playing('rules-keep')\n"
                                          "camp.dashboard()")]
    nb.metadata = {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}}
    nbformat.write(nb, lab_server.root / "rules.ipynb")
    context = browser.new_context(viewport={"width": W, "height": H})
    page = context.new_page()
    page.set_default_timeout(60_000)
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        panel = run_all_cells(page, lab_server, "rules.ipynb")
        panel.locator(".db-table").first.wait_for(state="visible")
        k = Keeper(page, lab_server, artifacts, name="rules", play="rules-keep")
        k.table.scroll_into_view_if_needed()

        # found gear from the keeper's panel: a crossbow and five bolts for Brakka
        k.panel("keeper")
        k.act(k.button("Start session"), "start_session", says="Session 1 begins")
        give = k.table.locator('[data-form="give"]')
        give.locator('select[name="who"]').select_option("Brakka")
        give.locator('select[name="item"]').select_option("crossbow")
        k.act(give.locator("button", has_text="Give"), "give", says="Brakka gains Crossbow")
        give.locator('select[name="who"]').select_option("Brakka")  # a form starts afresh once it did its work
        give.locator('select[name="item"]').select_option("bolt")
        give.locator('input[name="count"]').fill("5")
        k.act(give.locator("button", has_text="Give"), "give", says="Brakka gains Bolt")

        # a fight, the party first: Brakka out of turn is refused, and the keeper overrides with a reason
        k.panel("play")
        k.act(k.button("Causeway ambush"), "encounter", says="A fight begins (Causeway ambush)")
        k.act(k.button("Party goes first"), "initiative", says="the party goes first")
        k.select("Brakka")
        sword = k.table.locator('.db-target[data-name="Bog goblin 1"] button', has_text="Sword 2d6")
        assert "db-unready" in sword.get_attribute("class") and "it is Wren's turn" in sword.get_attribute("title")
        k.refused(sword, "it is Wren's turn, not Brakka's")
        override = k.table.locator('.db-notice.db-refused [data-form^="override"]')
        override.locator("input").fill("Brakka was readied")
        k.act(override.locator("button", has_text="Keeper's override"), "attack",
              says="the keeper's override: Brakka was readied")
        k.shot("override")

        # Wren drops a dagger (her gear, on her turn or not: it is no action)
        k.select("Wren")
        k.ui(k.button("Drop\u2026", ".db-gear"))
        drop = k.table.locator('[data-form="gear:Wren:drop"]')
        drop.locator("select").select_option("Dagger")
        k.act(drop.locator("button", has_text="Drop"), "drop", says="Wren drops Dagger")

        # Brakka's turn: the crossbow shoots (a bolt spent); reloading now needs another action: the keeper allows it
        k.act(k.button("Next turn"), "next_turn", says="Brakka's turn")
        k.table.locator(".db-actor-name", has_text="Brakka").wait_for()
        standing = k.table.locator(".db-target").first.get_attribute("data-name")
        k.attack(standing, "Crossbow", says="1 bolt spent, 4 left")
        reload = k.table.locator('[data-where^="gear:Brakka:reload"] button', has_text="Reload Crossbow")
        k.refused(reload, "Brakka has used its action this turn")
        override = k.table.locator('.db-notice.db-refused [data-form^="override"]')
        override.locator("input").fill("a quick hand")
        k.act(override.locator("button", has_text="Keeper's override"), "reload", says="Brakka reloads the Crossbow")
        k.shot("gear")

        # the fight ends with the goblins standing: kept in the story as NPCs, shown beside the party
        k.ui(k.button("End fight"))
        confirm = k.table.locator(".db-notice.db-confirm")
        k.in_view(confirm, "the guard rail's question")
        k.act(confirm.locator("button", has_text="keeping"), "end_encounter", says="in the story as")
        kept = k.table.locator(".db-creatures .db-chip")
        assert kept.count() >= 1 and "NPC" in kept.first.inner_text()
        k.in_view(k.table.locator(".db-creatures"), "the NPCs beside the party")

        # and an NPC named by the keeper, from the bestiary
        k.panel("keeper")
        npc = k.table.locator('[data-form="npc"]')
        npc.locator('input[name="name"]').fill("Grak")
        npc.locator('select[name="foe"]').select_option("bog_goblin")
        k.act(npc.locator("button", has_text="Name the NPC"), "npc", says="Grak enters the story (Bog goblin")
        assert "Grak" in k.table.locator(".db-creatures").inner_text()
        k.shot("npcs")
        assert not dialogs, dialogs
    except Exception:
        page.screenshot(path=str(artifacts / "table-rules-failed.png"))
        raise
    finally:
        context.close()
