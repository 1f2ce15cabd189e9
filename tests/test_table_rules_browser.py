"""The rules that work in code, played by clicks in a real JupyterLab page at 1366x768 (issue 26, item 8), started as
a keeper starts it (``delvebook lab``): a bard chooses its spell and casts it, a Blood Magic fighter traces a spell
from a scroll it carries, a mage copies a spell from a scroll (Continued Research) and its signature spell out onto
a new scroll, the dead wait in the folded row of the fallen, a cleric repeats a dead delver's death save, a rogue
buys arrows, a fighter says it moved (Steady volley greys), a mage splits Magic Missile's darts, an archer duels a
wisp that shoots back, the dual swords wait for a second sword, Bless lists its caster once.

The party is the bundled one with the delvers these rules need, made in the play copy before the page opens. Each
outcome is inside the viewport and the log on disk holds exactly what was clicked (``Keeper.act``); screenshots go
to tests/artifacts/ (``table-rules-*.png``)."""

from __future__ import annotations

import re
import shutil

import pytest

import delvebook as db
from delvebook.players.requests import on_screen

from conftest import start_run_all
from test_table_browser import H, NOTEBOOK, PLAY, W, Keeper
from test_table_layout_browser import readable, switch_theme

pytestmark = pytest.mark.browser


def _party(root) -> None:
    """The play copy: the Sunken Keep's party, and the delvers whose rules are clicked here."""
    play = root / PLAY
    shutil.rmtree(play, ignore_errors=True)
    shutil.copytree(root / "campaigns" / "the-sunken-keep", play, ignore=shutil.ignore_patterns(".delvebook.*"))
    with db.Campaign.open(play) as camp:
        def add(name, cls, player, level, **choices):
            start = {k: v for k, v in choices.items() if k == "weapon"}
            camp.add_delver(name, cls, player=player, choices=start or None,
                            faces={"hearts": [4]} if cls == "fighter" else None)
            for _ in range(level - 1):
                camp.act("level_up", who=name, faces={"hearts": [4]} if cls == "fighter" else None)
            for choice, option in choices.items():
                if choice != "weapon":
                    camp.choose(name, choice, option)
        add("Lark", "rogue", "Ana", 2, specialty="bard_magic")
        camp.give("Lark", "instrument", name="Lute")
        add("Gus", "fighter", "Ben", 3, weapon="sword_and_shield", specialty="swords", technique="blood_magic")
        camp.give("Gus", "scroll", spells=["aid"])
        add("Bea", "fighter", "Ben", 2, weapon="weapon_and_bow", specialty="bows")
        add("Mira", "mage", "Cleo", 3, weapon="staff")
        camp.give("Mira", "scroll", spells=["aid"])
        camp.give("Mira", "spellbook", spells=["truth"], name="Vellum grimoire")
        camp.give("Mira", "scroll", spells=["magic_missile"], count=2)
        camp.earn("40C", who="Mira")
        camp.use("Mira", "signature_spell", spell=camp.delver("Mira").spells[0], name="Ember",
                 description="it burns twice as long")
        add("Tam", "rogue", "Dev", 1)
        camp.damage("Tam", 99, source="a fall into the well")
        camp.death_save("Tam", faces={"death_save": [2]})


def test_every_rule_of_the_table_is_played_by_clicks(browser, keeper_lab, artifacts):
    _party(keeper_lab.root)
    context = browser.new_context(viewport={"width": W, "height": H})
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.on("dialog", lambda d: d.dismiss())
    try:
        start_run_all(page, f"{keeper_lab.url}/lab/tree/{NOTEBOOK}?reset")
        k = Keeper(page, keeper_lab, artifacts, name="rules")
        k.table.wait_for(state="visible")
        k.table.scroll_into_view_if_needed()
        k.panel("keeper")
        k.act(k.button("Start session"), "start_session", says="Session 1 begins")

        # ---- a trap springs, from its card: a save, or its damage credited to the trap
        trap = k.table.locator('[data-form="trap"]')
        trap.scroll_into_view_if_needed()
        trap.locator('select[name="who"]').select_option("Wren")
        trap.locator('input[name="name"]').fill("a falling block")
        trap.locator('input[name="target"]').fill("12")
        k.act(trap.locator("button", has_text="Spring it"), "trap", says="A falling block springs on Wren")
        e = k.events()[-1]
        assert e["kind"] == "trap" and e["who"] == "Wren" and e["target"] == 12
        assert e["success"] or (e["damage"][0]["by"] == "a falling block" and e["sides"]["a falling block"] == "hazard")
        k.shot("trap")
        k.panel("play")

        def form(key: str):
            return k.table.locator(f'[data-form="{key}"]')

        def open_form(name: str, key: str):
            k.ui(k.button(f"{name}\u2026"))
            f = form(key)
            f.wait_for()
            return f

        # ---- Bard Magic: the spell chosen by a form of the mage spell list, then cast by one click
        k.select("Lark")
        setup = open_form("Bard Magic: choose a spell", "use:Lark:bard_magic:setup")
        assert [o.strip() for o in setup.locator("select option").all_inner_texts()] == [
            "Light", "Magic Missile", "Find Familiar", "Firebolt", "Invisibility", "Minor Illusion"]
        setup.locator("select").select_option("invisibility")
        k.act(setup.locator("button", has_text="Choose"), "use", says="the bard's spell is now invisibility")
        k.act(k.table.locator('[data-where="cast:Lark:invisibility"] button', has_text="Lark (self)"), "cast",
              says="Lark is invisible")
        k.shot("bard")

        # ---- Blood Magic: a spell traced from the scroll the fighter carries
        k.select("Gus")
        trace = open_form("Blood Magic: trace a spell", "use:Gus:blood_magic_sword:setup")
        assert "Aid (from the Scroll of Aid)" in trace.locator("select").inner_text()
        trace.locator("select").select_option("aid")
        k.act(trace.locator("button", has_text="Trace"), "use", says="aid is traced on the sword")
        assert "already traced" in k.table.locator('[data-where="use:Gus:blood_magic_sword:setup"]').inner_text()
        k.shot("blood-magic")

        # ---- Continued Research: from what the mage carries; the scroll is destroyed
        k.select("Mira")
        research = open_form("Continued Research", "use:Mira:continued_research")
        offered = research.locator('select[name="spell"] option').all_inner_texts()
        assert offered == ["Aid (from the Scroll of Aid, destroyed)", "Truth (from the Vellum grimoire)"], offered
        research.locator("select").first.select_option("aid")
        k.act(research.locator("button", has_text="Use Continued Research"), "use",
              says="Aid copied into the book from the Scroll of Aid, which is destroyed")
        k.shot("research")

        # ---- the signature spell copied out onto a new scroll leaves the book
        copy = open_form("Copy a spell out", "use:Mira:copy_out")
        copy.locator('select[name="spell"]').select_option(label="Ember (signature: it leaves your book)")
        k.act(copy.locator("button", has_text="Use Copy a spell out"), "use",
              says="Ember copied out onto a new scroll, the Scroll of Ember; as Mira's signature spell it leaves")
        assert k.events()[-1]["left_the_book"]
        k.shot("copy-out")

        # ---- the fallen: Tam left the party strip for its folded row, named when opened, picked from there
        assert k.chip("Tam").count() == 0
        fallen = k.table.locator(".db-party .db-fallen")
        assert fallen.locator(".db-sub").inner_text() == "Fallen: 1"
        k.ui(fallen.locator("button", has_text="Show them"))
        k.ui(fallen.locator("button.db-fallen-name", has_text="Tam (Rogue 1)"))
        k.table.locator(".db-actor-name", has_text="Tam").wait_for()
        k.shot("fallen")
        switch_theme(page, "JupyterLab Dark", light=False)  # the row follows the theme, readable in both
        readable(fallen, "dark")
        k.shot("fallen-dark")
        switch_theme(page, "JupyterLab Light", light=True)
        readable(fallen, "light")
        k.ui(fallen.locator("button", has_text="Fold"))
        assert fallen.locator("button.db-fallen-name").count() == 0

        # ---- Lay on Hands on the dead: only the dead of the last hour are offered
        k.select("Father Odo")
        death = k.table.locator('[data-where="use:Father Odo:lay_on_hands_revive"]')
        assert death.locator("button").all_inner_texts() == ["Tam"]
        k.act(death.locator("button", has_text="Tam"), "use", says="the death save is repeated")
        bless = k.table.locator('[data-where="use:Father Odo:bless"] button').all_inner_texts()
        assert bless.count("Father Odo (self)") == 1 and "Father Odo" not in bless
        k.shot("lay-on-hands")

        # ---- buying arrows: what the purse pays for
        k.select("Wren")
        buy = open_form("Buy", "gear:Wren:buy")
        assert "Blowdart" not in buy.locator("select").inner_text()
        buy.locator("select").select_option("arrow")
        k.act(buy.locator("button", has_text="Buy"), "buy", says="Wren buys")
        k.shot("buy")

        # ---- a fight: the dual swords wait for a second sword, Bea duels a wisp and moves, Mira splits her darts
        k.act(k.button("Causeway ambush"), "encounter", says="A fight begins (Causeway ambush)")
        k.act(k.button("Party goes first"), "initiative", says="the party goes first")
        join = k.table.locator('[data-form="add_foe"]')
        join.locator("select").select_option("marsh_wisp")
        k.act(join.locator("button", has_text="Joins"), "add_foes", says="Marsh wisp 1 joins the fight")
        k.panel("keeper")  # darkness falls on the fight, from the Keeper panel's card
        k.act(k.button("Darkness falls"), "lighting", says="The fight is in darkness")
        k.act(k.button("Light the fight"), "lighting", says="The fight is lit")
        k.panel("play")

        def turn_of(name: str) -> None:
            for _ in range(20):
                if k.table.locator(".db-actor-name", has_text=name).count() and \
                        k.table.locator(".db-badge.db-turnbadge").count():
                    return
                k.act(k.button("Next turn"), "next_turn")
            raise AssertionError(f"{name}'s turn never came")

        turn_of("Gus")
        dual = k.table.locator('[data-where="use:Gus:sword_dual_wield"]')
        assert "db-unready" in dual.get_attribute("class") and "two swords" in dual.inner_text()
        dual.scroll_into_view_if_needed()
        k.shot("dual-swords")

        turn_of("Bea")
        k.table.locator('.db-check[data-option="duel"] input').check()
        k.wait_answered()
        k.act(k.table.locator('.db-target[data-name="Marsh wisp 1"] button', has_text="Bow"), "attack",
              says="Bea attacks Marsh wisp 1 with Bow")
        assert k.events()[-1]["args"]["counter"] is True
        k.real_dice("resist", "20")  # the real dice: the wisp's resist high, Bea's shot low: it shoots back
        k.real_dice("attack", "1 1 1", says="Marsh wisp 1 hits back")
        missed = k.table.locator('.db-luckrow[data-roll="attack"]')  # 3 vs 20: no luck die changes that
        assert "no luck die can change the outcome" in missed.inner_text() and missed.locator("button.db-mini").count() == 0
        missed.scroll_into_view_if_needed()
        k.shot("duel")
        k.act(k.button("Moved this turn"), "moved", says="Bea moves this turn")
        volley = k.table.locator('[data-where="use:Bea:steady_volley"]')
        assert "db-unready" in volley.get_attribute("class") and "moved this turn" in volley.inner_text()
        volley.scroll_into_view_if_needed()
        k.shot("moved")

        turn_of("Mira")
        key = "cast:Mira:magic_missile:darts:scroll"  # (the scroll's: Mira's book may hold the spell too)
        k.ui(k.table.locator(f'[data-where="{key}"] button', has_text="split the darts"))
        split = form(key)
        standing = [o for o in split.locator("select").first.locator("option").all_inner_texts()]
        goblins = [s.split(" (")[0] for s in standing if s.startswith("Bog goblin")]
        targets = split.locator("select")
        for n, name in enumerate((goblins[0], goblins[-1], goblins[-1])):
            targets.nth(n).select_option(name)
        k.act(split.locator("button", has_text="Cast"), "cast", says="Magic Missile")
        darts = [(d["target"], d["dart"]) for d in k.events()[-1]["damage"]]
        assert darts == [(goblins[0], 1), (goblins[-1], 2), (goblins[-1], 3)]
        k.shot("darts")

        # ---- "Last time...": the session told in the Keeper panel, and shown on the players' screen
        k.panel("keeper")
        k.ui(k.button("Tell the last session"))
        told = k.table.locator('[data-where="keeper:recap"]')
        assert "Session 1" in told.inner_text() and "Causeway ambush" in told.inner_text()
        k.ui(k.button("Show on the players' screen"))
        assert "shows session 1's recap" in told.inner_text()
        assert on_screen(keeper_lab.root / PLAY) == 1
        told.scroll_into_view_if_needed()
        k.shot("last-time")
    finally:
        context.close()
