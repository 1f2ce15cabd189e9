"""The rules that work in code, played by clicks at the keeper's table (issue 26, item 8): Bard Magic's spell chosen
and changed, a spell traced on a Blood Magic sword, Continued Research from a book or a scroll carried, Lay on
Hands on the dead, priced gear bought, a duel with bows, a fighter's move and Steady volley, Magic Missile's darts
split, the dual-wield button ready only with two swords, the user of an optional target listed once.

Each test clicks what the view model offers (``perform`` with the control's own intent) and reads the view model
the page would get; nothing the table offers as ready is refused, and what it greys says why before the click.
Every campaign is opened again from disk at the end and replays to the live state."""

from __future__ import annotations

import json

import pytest

import delvebook as db
from delvebook.table import UI, perform, table_view


@pytest.fixture
def camp(tmp_path):
    c = db.Campaign.create(tmp_path / "c", name="Rules by clicks", seed=26)
    c.start_session()
    yield c
    with db.Campaign.open(c.path, read_only=True) as again:
        assert again.state == c.state
    c.close()


@pytest.fixture
def ui():
    return UI()


def add(camp, name, class_id, level=1, **choices):
    start = {k: v for k, v in choices.items() if k == "weapon"}
    hearts = {"hearts": [4]} if class_id == "fighter" else None
    camp.add_delver(name, class_id, player=f"{name}'s player", choices=start or None, faces=hearts)
    for _ in range(level - 1):
        camp.act("level_up", who=name, faces=hearts)
    for choice, option in choices.items():
        if choice != "weapon":
            camp.choose(name, choice, option)


def view_of(camp, ui, who=None):
    if who is not None:
        perform(camp, ui, {"do": "select", "who": who, "where": "party"})
    view = table_view(camp, ui)
    json.dumps(view)
    return view


def click(camp, ui, intent, **args):
    """Click a control: its intent, with the form's fields filled as given (the rest as the form opens)."""
    i = dict(intent)
    if args:
        i["args"] = args
    out = perform(camp, ui, i)
    assert ui.refusal is None, ui.refusal
    return out


def action(view, name, group="abilities"):
    return next(a for a in view["actor"][group] if a["name"].startswith(name))


def field(a, name):
    return next(f for f in a["form"]["fields"] if f["name"] == name)


def values(f) -> list:
    return [o["value"] for o in f["options"]]


def fight(camp, *foes):
    f = camp.encounter(list(foes) or ["ogre"])
    f.initiative(first="party")
    return f


def turn(camp, ui, name):
    for _ in range(30):
        if camp.fight.actor == name and not camp.fight.may_act(name).used:
            return view_of(camp, ui, name)
        camp.fight.next_turn()
    raise AssertionError(f"{name}'s turn never came")


def every_ready_click_goes_through(camp, ui, view) -> int:
    """Every ready button and chip of the action bar, clicked on a copy of the campaign, is not refused."""
    from delvebook.core.events import clone
    from delvebook.store import MemoryStore
    n = 0
    for group in ("abilities", "spells", "gear"):
        for a in view["actor"].get(group) or ():
            intents = [a["intent"]] if a["kind"] == "button" and a["ready"] else \
                [c["intent"] for c in a.get("chips", ()) if c.get("ready")] if a["kind"] == "chips" else []
            for intent in intents:
                copy = db.Campaign.open(MemoryStore(clone(camp._store.campaign), [clone(e) for e in camp.events]))
                u = UI(**{**ui.to_dict(), "refusal": None})
                perform(copy, u, intent)
                assert u.refusal is None, (a["name"], intent, u.refusal)
                n += 1
    return n


# ---------------------------------------------------------------- Bard Magic

def test_a_bard_chooses_and_changes_the_spell_by_clicks_and_then_casts_it(camp, ui):
    add(camp, "Lark", "rogue", level=2, specialty="bard_magic")
    camp.give("Lark", "instrument")
    view = view_of(camp, ui, "Lark")
    setup = action(view, "Bard Magic: ")
    assert setup["kind"] == "form" and setup["ready"] and "change the spell once each rest" in setup["effect"]
    assert values(field(setup, "choose")) == ["light", "magic_missile", "find_familiar", "firebolt", "invisibility",
                                              "minor_illusion"]  # the mage spell list, nothing else
    assert not view["actor"]["spells"]  # no spell to cast before one is chosen
    click(camp, ui, setup["form"]["submit"]["intent"], choose="invisibility")
    view = view_of(camp, ui)
    cast = action(view, "Invisibility", "spells")
    assert cast["cost"] == "1 grit" and cast["ready"]
    setup = action(view, "Bard Magic: ")
    assert "invisibility" not in values(field(setup, "choose"))
    click(camp, ui, cast["chips"][0]["intent"])  # on Lark itself
    assert camp.latest_action["via"] == "bard" and camp.latest_action["invisible"] == "Lark"
    click(camp, ui, setup["form"]["submit"]["intent"], choose="light")  # the one change of this rest
    view = view_of(camp, ui)
    setup = action(view, "Bard Magic: ")
    assert not setup["ready"] and "once each rest" in setup["note"]
    assert action(view, "Light", "spells")["cost"] == "1 grit"


# ---------------------------------------------------------------- Blood Magic

def test_a_blood_magic_fighter_traces_a_spell_from_the_list_or_a_scroll_carried_by_clicks(camp, ui):
    add(camp, "Gus", "fighter", level=3, weapon="sword_and_shield", specialty="swords", technique="blood_magic")
    camp.give("Gus", "scroll", spells=["aid"])
    view = view_of(camp, ui, "Gus")
    trace = action(view, "Blood Magic: ")
    assert trace["ready"] and "aid" in values(field(trace, "trace")) and "firebolt" in values(field(trace, "trace"))
    assert "Aid (from the Scroll of Aid)" in [o["label"] for o in field(trace, "trace")["options"]]
    click(camp, ui, trace["form"]["submit"]["intent"], trace="firebolt")
    view = view_of(camp, ui)
    assert not action(view, "Blood Magic: ")["ready"] and "already traced" in action(view, "Blood Magic: ")["note"]
    sword = action(view, "Firebolt", "spells")
    assert "not charged" in sword["note"] or not sword["ready"]


def test_tracing_is_not_offered_as_ready_without_a_sword(camp, ui):
    add(camp, "Hal", "fighter", level=3, weapon="heavy_weapon", specialty="pugilist", technique="blood_magic")
    trace = action(view_of(camp, ui, "Hal"), "Blood Magic: ")
    assert not trace["ready"] and "no sword" in trace["note"]


# ---------------------------------------------------------------- Continued Research

def test_continued_research_lists_what_a_carried_book_or_scroll_gives_and_copies_it_by_a_click(camp, ui):
    add(camp, "Mira", "mage", level=3)
    camp.earn("40C", who="Mira")
    research = action(view_of(camp, ui, "Mira"), "Continued Research")
    assert not research["ready"] and "carries no book or scroll" in research["note"]
    camp.give("Mira", "scroll", spells=["aid"])
    camp.give("Mira", "spellbook", spells=["truth"], name="Vellum grimoire")
    research = action(view_of(camp, ui), "Continued Research")
    offered = {o["value"]: o["label"] for o in field(research, "spell")["options"]}
    assert offered == {"aid": "Aid (from the Scroll of Aid, destroyed)", "truth": "Truth (from the Vellum grimoire)"}
    assert research["ready"]
    click(camp, ui, research["form"]["submit"]["intent"], spell="aid")
    assert camp.latest_action["scroll_destroyed"] and "aid" in camp.delver("Mira").spells
    research = action(view_of(camp, ui), "Continued Research")
    assert values(field(research, "spell")) == ["truth"]


def test_signature_spell_copied_out_by_a_click_leaves_the_book_and_the_form_says_so(camp, ui):
    add(camp, "Mira", "mage", level=3)
    camp.earn("40C", who="Mira")
    bolt = camp.delver("Mira").spells[0]
    camp.use("Mira", "signature_spell", spell=bolt, name="Ember", description="it burns twice as long")
    copy = action(view_of(camp, ui, "Mira"), "Copy a spell out")
    assert copy["cost"] == "20 crown" and copy["ready"]
    offered = {o["value"]: o["label"] for o in field(copy, "spell")["options"]}
    assert offered[bolt] == "Ember (signature: it leaves your book)" and len(offered) == 6  # the whole list at L2
    assert [f["name"] for f in copy["form"]["fields"]] == ["spell", "book"]
    click(camp, ui, copy["form"]["submit"]["intent"], spell=bolt, book=False)
    assert camp.latest_action["left_the_book"] and bolt not in camp.delver("Mira").spells
    view = view_of(camp, ui)
    assert "Scroll of Ember" in view["outcome"]["text"] and "leaves Mira's book" in view["outcome"]["text"]
    assert bolt not in values(field(action(view, "Copy a spell out"), "spell"))


# ---------------------------------------------------------------- Lay on Hands on the dead

def test_lay_on_hands_on_the_dead_offers_the_dead_of_the_last_hour_and_never_the_living(camp, ui):
    add(camp, "Cleo", "cleric")
    add(camp, "Wren", "rogue")
    add(camp, "Bo", "rogue")
    revive = action(view_of(camp, ui, "Cleo"), "Lay on Hands (death)")
    assert revive["chips"] == [] and not revive["ready"] and "no one has died" in revive["note"]
    camp.damage("Wren", 99)
    camp.death_save("Wren", faces={"death_save": [2]})
    revive = action(view_of(camp, ui, "Cleo"), "Lay on Hands (death)")
    assert [c["intent"]["target"] for c in revive["chips"]] == ["Wren"] and revive["ready"]
    out = perform(camp, ui, revive["chips"][0]["intent"])
    assert ui.refusal is None and out["kind"] == "use"
    revive = action(view_of(camp, ui, "Cleo"), "Lay on Hands (death)")
    assert camp.delver("Wren").status == "alive" or (revive["chips"] == [] and not revive["ready"])


# ---------------------------------------------------------------- gear that has a price

def test_priced_gear_is_bought_by_a_click_and_what_the_purse_cannot_pay_is_said(camp, ui):
    add(camp, "Wren", "rogue")  # 5 crowns
    buy = next(g for g in view_of(camp, ui, "Wren")["actor"]["gear"] if g["name"] == "Buy")
    offered = {o["value"]: o["label"] for o in field(buy, "item")["options"]}
    assert offered["arrow"] == "Arrow x20, 1C" and offered["sling"] == "Sling, 1T" and "blowdart" not in offered
    assert "not enough for Blowdart, 10C" in buy["note"] and buy["ready"]
    click(camp, ui, buy["form"]["submit"]["intent"], item="arrow", count=2)
    arrows = next(it for it in camp.delver("Wren").data["items"] if it.get("item") == "arrow")
    assert arrows["count"] == 20 + 40 and camp.delver("Wren").purse == 30


# ---------------------------------------------------------------- a duel with bows

def test_a_duel_with_bows_is_an_attack_option_and_the_target_shoots_back(camp, ui):
    add(camp, "Wren", "rogue")
    add(camp, "Bea", "fighter", weapon="weapon_and_bow")
    camp.encounter([{"foe": "sprite", "name": "Archer"}])
    camp.fight.initiative(first="foes")
    view = view_of(camp, ui, "Archer")
    names = [o["name"] for o in view["actor"]["attacks"]["options"]]
    assert "duel" in names
    perform(camp, ui, {"do": "attack_option", "name": "duel", "value": True, "where": "attack"})
    row = next(r for r in table_view(camp, ui)["actor"]["attacks"]["rows"] if r["name"] == "Bea")
    perform(camp, ui, row["buttons"][0]["intent"])
    e = camp.latest_action
    assert ui.refusal is None and e["args"]["counter"] is True  # the duel asked: Bea may shoot back
    camp.undo()
    camp.fight.attack("Archer", "Bea", counter=True, faces={"attack": [2, 1, 1], "resist": [15]})  # a miss
    assert camp.latest_action["counter"]["possible"] and camp.latest_action["counter"]["weapon"] == "Bow"


# ---------------------------------------------------------------- a fighter's move, and Steady volley

def test_a_fighter_says_it_moved_and_steady_volley_then_says_why_not(camp, ui):
    add(camp, "Bea", "fighter", level=2, weapon="weapon_and_bow", specialty="bows")
    fight(camp, "ogre")
    view = turn(camp, ui, "Bea")
    volley = action(view, "Steady volley")
    assert volley["chips"] and all(c["ready"] for c in volley["chips"])
    moved = action(view, "Moved this turn")
    click(camp, ui, moved["intent"])
    volley = action(view_of(camp, ui), "Steady volley")
    assert not volley["ready"] and all(not c["ready"] and "moved this turn" in c["note"] for c in volley["chips"])
    assert not action(view_of(camp, ui), "Moved this turn")["ready"]


# ---------------------------------------------------------------- Magic Missile's darts

def test_magic_missiles_darts_are_split_between_foes_by_a_form(camp, ui):
    add(camp, "Mira", "mage")
    camp.give("Mira", "scroll", spells=["magic_missile"])
    fight(camp, "goblin", "goblin")
    view = turn(camp, ui, "Mira")
    split = action(view, "Magic Missile: split", "spells")
    assert [f["name"] for f in split["form"]["fields"]] == ["dart_1", "dart_2", "dart_3"]
    click(camp, ui, split["form"]["submit"]["intent"], dart_1="Goblin 1", dart_2="Goblin 2", dart_3="Goblin 2")
    hits = [(d["target"], d.get("dart")) for d in camp.latest_action["damage"]]
    assert hits == [("Goblin 1", 1), ("Goblin 2", 2), ("Goblin 2", 3)]


# ---------------------------------------------------------------- dual swords, and the caster once

def test_the_swords_dual_wield_is_ready_only_with_two_swords(camp, ui):
    add(camp, "Finn", "fighter", level=2, weapon="sword_and_shield", specialty="swords")
    fight(camp, "ogre")
    dual = action(turn(camp, ui, "Finn"), "Dual swords")
    assert not dual["ready"] and all(not c["ready"] and "two swords" in c["note"] for c in dual["chips"])
    camp.give("Finn", "sword")
    dual = action(view_of(camp, ui), "Dual swords")
    assert dual["ready"] and all(c["ready"] for c in dual["chips"])


def test_the_caster_is_listed_once_in_bless_and_lay_on_hands(camp, ui):
    add(camp, "Cleo", "cleric")
    add(camp, "Wren", "rogue")
    view = view_of(camp, ui, "Cleo")
    bless = [c["label"] for c in action(view, "Bless")["chips"]]
    assert bless.count("Cleo (self)") == 1 and "Cleo" not in bless
    heal = field(action(view, "Lay on Hands"), "target")
    assert [o["label"].split(" (")[0] for o in heal["options"]].count("Cleo") == 1


def test_every_ready_control_of_a_level_three_party_goes_through(camp, ui):
    add(camp, "Finn", "fighter", level=3, weapon="sword_and_shield", specialty="swords", technique="commander")
    add(camp, "Cleo", "cleric", level=3, specialty="healer")
    add(camp, "Mira", "mage", level=3)
    add(camp, "Lark", "rogue", level=3, specialty="bard_magic", skill="magic", expertise="stealth")
    fight(camp, "ogre", "goblin")
    clicked = 0
    for who in ("Finn", "Cleo", "Mira", "Lark"):
        clicked += every_ready_click_goes_through(camp, ui, turn(camp, ui, who))
    assert clicked > 20
