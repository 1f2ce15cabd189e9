"""model.py reads the state for everyone outside the engine: statuses, the party, foes, conditions, the turn."""

from __future__ import annotations

from delvebook.core import model
from enginekit import Table


def _fight() -> Table:
    t = Table(seed=2).party(("Wren", "rogue"), ("Bo", "fighter"), ("Ada", "mage"))
    t.do("encounter", foes=[{"foe": "goblin", "name": "Gob"}, {"foe": "goblin", "name": "Gab"}])
    t.do("initiative", first="party")
    return t


def test_statuses_are_read_through_the_model_for_dicts_and_views():
    t = _fight()
    t.do("damage", who="Bo", amount=99)
    assert model.dying(t.state) == ["Bo"]
    bo = t.delver("Bo")
    assert model.is_dying(bo) and not model.is_dead(bo) and not model.is_alive(bo)
    assert model.is_dying(model.Delver(bo))
    t.do("death_save", who="Bo", faces={"death_save": [1]})
    assert model.is_dead(t.delver("Bo")) and model.status_of(t.delver("Bo")) == model.STATUS_DEAD


def test_the_party_is_in_seat_order_and_the_present_leave_out_the_dead():
    t = _fight()
    assert [d.name for d in model.party(t.state)] == ["Wren", "Bo", "Ada"] == model.party_names(t.state)
    t.do("damage", who="Bo", amount=99)
    t.do("death_save", who="Bo", faces={"death_save": [2]})
    assert model.present(t.state) == ["Wren", "Ada"]
    assert model.luck_dice(t.state) == {"Wren": 3, "Bo": 3, "Ada": 3}


def test_foes_combatants_and_the_current_actor():
    t = _fight()
    assert [f.name for f in model.foes(t.state)] == ["Gob", "Gab"]
    assert model.combatant(t.state, "Gab")[0] == "foe" and model.combatant(t.state, "Ada")[0] == "delver"
    assert model.combatant(t.state, "Nobody") is None
    assert model.current_actor(t.state) == "Wren"
    t.do("damage", who="Gob", amount=99)
    assert model.foe_names(t.state, living=True) == ["Gab"]


def test_conditions_are_views_with_who_what_and_when_they_end():
    t = _fight()
    t.do("use", who="Wren", ability="dodge")
    (dodge,) = model.conditions_on(t.state, "Wren")
    assert (dodge.kind, dodge.who, dodge.source, dodge.ends_on) == ("dodging", "Wren", "Wren", "turn:Wren")
    assert model.conditions_on(t.state, kind="blessed") == []


def test_a_purse_shows_the_campaigns_own_coins():
    units = {"penny": {"name": "Penny", "symbol": "d", "talons": 1},
             "shilling": {"name": "Shilling", "symbol": "s", "talons": 12}}
    assert model.format_purse(30, units) == "2s 6d"
    assert model.format_purse(234) == "2B 3C 4T" and model.format_purse(0, units) == "0d"


def test_a_resource_at_none_of_none_is_not_one_the_delver_has():
    from delvebook.core.model import Delver, held_resources
    d = {"name": "Ilse", "class_id": "mage", "level": 1, "player": "Cleo", "hearts": 11, "max_hearts": 11,
         "xp": 0, "status": "alive", "purse": 0,
         "resources": {"spellbook": 1, "wand_charges": 0, "grit": 0},
         "resource_max": {"spellbook": 1, "wand_charges": 0, "grit": 3}}
    assert held_resources(d) == [("spellbook", 1, 1), ("grit", 0, 3)]  # spent grit is still grit she has
    html = Delver(d)._repr_html_()
    assert "spellbook 1/1" in html and "grit 0/3" in html and "wand" not in html
