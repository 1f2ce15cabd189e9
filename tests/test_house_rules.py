"""The engine plays by a campaign's house rules: every number it uses comes from the rules data.

Each test changes one rule the way a keeper would (``house_rules`` in campaign.yaml, laid over the shipped rules
with ``Rules.with_overrides``) and checks that play follows it. Dice faces are typed so outcomes are exact.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import delvebook as db
from delvebook.engine import Engine, Reader, queries
from delvebook.core.events import replay
from delvebook.core.model import new_state
from delvebook.core.rules import RulesError
from delvebook.core.rules.load import load_rules
from enginekit import Table


def _dying(t: Table, name: str = "Wren") -> None:
    t.do("damage", who=name, amount=99)
    assert t.delver(name)["status"] == "dying"


# ---------------------------------------------------------------- the death save

def test_a_death_save_needing_five_or_more_defies_death_on_a_five():
    t = Table(house_rules={"core": {"death_save": {"target": 5}}}).party(("Wren", "rogue"), ("Bo", "rogue"))
    _dying(t)
    e = t.do("death_save", who="Wren", faces={"death_save": [5]})
    assert e["success"] and e["target"] == 5 and e["chance"] == "1/3"
    assert t.delver("Wren")["status"] == "alive"
    _dying(t, "Bo")
    assert not t.do("death_save", who="Bo", faces={"death_save": [4]})["success"]
    assert queries.death_save(t.state, t.rules) == ("d6", 5, Fraction(1, 3))


# ---------------------------------------------------------------- saves

def test_a_save_rolls_the_save_die_whether_the_keeper_calls_for_it_or_a_spell_does():
    t = Table(house_rules={"core": {"save": {"die": "d12"}}}).party(("Cy", "cleric"), ("Bo", "fighter"))
    for _ in range(2):
        t.do("level_up", who="Cy")
    t.do("choose", who="Cy", choice="specialty", option="healer")
    called = t.do("check", who="Bo", target=8, save=True, faces={"check": [8]})
    assert called["rolls"]["check"]["expr"] == "d12" and called["success"]
    t.do("encounter", foes=[{"foe": "ogre", "name": "Ogre"}])
    t.do("initiative", first="party")
    t.turn("Cy")
    spell = t.do("cast", who="Cy", spell="inflict_wounds", target="Ogre", faces={"save": [12], "damage": [1] * 4})
    assert spell["rolls"]["save"]["expr"] == "d12" and spell["save"]["expr"] == "d12"
    assert queries.save_roll(Reader(t.state, t.rules), "Bo", t.delver("Bo")).expr == "d12"


# ---------------------------------------------------------------- luck dice

def test_a_d4_luck_die_shows_one_to_four():
    t = Table(house_rules={"core": {"luck_dice": {"die": "d4"}}}).party(("Wren", "rogue"))
    t.do("start_session")
    t.do("check", who="Wren", skill="stealth", target=15, faces={"check": [9, 2]})
    e = t.luck("Wren", +1, face=4)
    assert e["total"] == 15 and e["rolls"]["check"]["luck"][0]["sides"] == 4
    t.do("check", who="Wren", skill="stealth", target=15, faces={"check": [9, 2]})
    with pytest.raises(db.Refused, match="1..4"):
        t.luck("Wren", +1, face=5)
    for _ in range(2):  # rolled luck dice stay on the die
        e = t.luck("Wren", -1)
        assert 1 <= e["rolls"]["check"]["luck"][-1]["face"] <= 4


def test_a_luck_die_of_two_dice_is_a_clear_error_not_a_silent_d4():
    with pytest.raises(RulesError, match="core.luck_dice.die.*single die"):
        load_rules({"core": {"luck_dice": {"die": "2d4"}}})


# ---------------------------------------------------------------- money

_DUCAT = {"core": {"currency": {"units": {"ducat": {"name": "Ducat", "symbol": "D", "talons": 20}}},
                   "xp": {"coin": "ducat", "per_crown": 2}}}


def test_xp_per_coin_follows_the_coin_the_house_rules_name():
    t = Table(house_rules=_DUCAT).party(("Wren", "rogue"))
    e = t.do("earn", amount=45, who="Wren")  # two ducats and 5 talons
    assert e["xp_awards"][0]["amount"] == 4 and t.state["coin_pool"] == 5
    t.do("earn", amount="1D")  # the new coin's symbol reads as money too
    assert t.state["xp_awarded"] == 4 + 2 and t.delver("Wren")["purse"] == 50 + 45 + 20


def test_an_xp_coin_that_is_not_a_currency_unit_is_a_clear_error():
    with pytest.raises(RulesError, match="core.xp.coin.*'ducat'"):
        Engine(load_rules({"core": {"xp": {"coin": "ducat"}}}), new_state("t", 1))


def test_an_unknown_coin_symbol_names_the_campaigns_own_coins():
    t = Table(house_rules=_DUCAT).party(("Wren", "rogue"))
    msg = t.refused("earn", amount="3Q")
    assert "ducat" in msg and "talon" in msg


# ---------------------------------------------------------------- a class made in YAML only

PALADIN = {
    "name": "Paladin",
    "skills": {"athletics": {"name": "Athletics", "weapon": False},
               "swords": {"name": "Swords", "weapon": True},
               "insight": {"name": "Insight", "weapon": False}},
    "levels": {1: {"hearts": {"set": 14}, "skills": {"athletics": "proficient", "swords": "proficient"}},
               2: {"hearts": {"gain": 2}},
               3: {"hearts": {"gain": "d6"}, "skills": {"swords": "expert"}}},
    "resources": {"grit": {"name": "Grit", "max": {1: 3, 2: 4, 3: 5}, "restores_on": "rest"},
                  "blessings": {"name": "Blessings", "max": {1: 1, 2: 2, 3: 3}, "restores_on": "rest"}},
    "starting_gear": {"items": [{"item": "sword", "count": 1}, {"item": "leather_armor", "count": 1}],
                      "purse": {"crown": 3}},
    "abilities": {
        "bless": {"name": "Bless", "level": 1, "cost": {"blessings": 1}, "effect": "A blessing die for a minute.",
                  "mechanics": {"blessing_die": "d4", "duration": "minute"}},
        "smite": {"name": "Smite", "level": 1, "cost": {"grit": 2}, "effect": "2d6 more on a melee hit.",
                  "mechanics": {"extra_damage": "2d6",
                                "extra_damage_against": {"tags": ["undead"], "dice": "3d6"}}},
        "second_wind": {"name": "Second Wind", "level": 2, "cost": {"grit": 1}, "effect": "Heal D6 hearts.",
                        "mechanics": {"heal": "d6"}},
        "battle_prayer": {"name": "Battle prayer", "level": 1, "cost": {"grit": 1},
                          "effect": "Your next attack has advantage.",
                          "mechanics": {"applies_to": "next_attack", "advantage": True}},
    },
}


def _paladin() -> Table:
    t = Table(seed=9, house_rules={"classes": {"paladin": PALADIN}}).party(("Ser", "paladin"), ("Wren", "rogue"))
    t.do("encounter", foes=[{"foe": "skeleton", "name": "Bones"}, {"foe": "goblin", "name": "Gob"}])
    t.do("initiative", first="party")
    return t


def test_a_class_added_in_yaml_only_starts_from_its_block():
    t = _paladin()
    ser = t.delver("Ser")
    assert (ser["class_name"], ser["hearts"], ser["resources"]) == ("Paladin", 14, {"grit": 3, "blessings": 1})
    assert [w["name"] for w in ser["weapons"]] == ["Sword"] and ser["armor"][0]["av"] == 1
    labels = [a.label for a in queries.abilities_available(t.state, t.rules, "Ser")]
    assert labels == ["Bless (1 blessing)", "Smite (2 grit)", "Battle prayer (1 grit)"]


def test_a_yaml_class_blesses_with_its_own_blessing_die():
    t = _paladin()
    t.do("use", who="Ser", ability="bless")  # Ser's action this turn
    assert queries.check_expr(t.state, t.rules, "Ser", "athletics") == "d20+d6+d4"
    e = t.turn("Ser").do("attack", attacker="Ser", target="Gob",
                         faces={"attack": [10, 3, 2], "resist": [11], "damage": [4, 4]})
    assert e["attack_expr"] == "d20+d6+d4" and e["results"] == ["hit"]


def test_a_yaml_class_smites_with_its_own_dice_and_more_against_its_own_tags():
    t = _paladin()
    e = t.do("attack", attacker="Ser", target="Bones", smite=True,
             faces={"attack": [15, 1], "resist": [3], "damage": [1, 1], "smite": [1, 1, 1]})
    (hit,) = e["damage"]
    assert hit["expr"] == "2d6" and hit["added"] == [{"option": "smite", "expr": "3d6", "total": 3}]
    assert hit["raw"] == 5 and t.delver("Ser")["resources"]["grit"] == 1


def test_a_yaml_class_ability_with_only_mechanics_readies_the_next_attack():
    t = _paladin()
    t.do("use", who="Ser", ability="battle_prayer")
    assert queries.attack_exprs(t.state, t.rules, "Ser", "Gob")[0] == "2d20kh1+d6"
    e = t.do("attack", attacker="Ser", target="Gob", faces={"attack": [3, 17, 2], "resist": [5], "damage": [2, 2]})
    assert e["advantage"] and e["results"] == ["hit"]
    assert not [c for c in t.state["conditions"] if c["kind"] == "next_attack"]


def test_a_yaml_class_levels_up_by_its_own_table_and_its_log_replays():
    t = _paladin()
    t.do("level_up", who="Ser")
    assert t.delver("Ser")["max_hearts"] == 16 and t.delver("Ser")["resource_max"]["grit"] == 4
    t.do("damage", who="Ser", amount=5)
    t.do("use", who="Ser", ability="second_wind", faces={"heal": [3]})
    assert t.delver("Ser")["hearts"] == 16 - 5 + 3
    t.do("end_encounter")
    t.do("rest")
    assert t.delver("Ser")["resources"] == {"grit": 4, "blessings": 2}
    assert replay(t.setup, t.events).state == t.state


def test_a_campaign_made_with_a_yaml_class_opens_again_the_same(tmp_path):
    camp = db.Campaign.create(tmp_path / "c", name="Oaths", seed=3, house_rules={"classes": {"paladin": PALADIN}})
    camp.add_delver("Ser", "paladin", player="Ana")
    camp.use("Ser", "bless")
    state = camp.state
    camp.close()
    with db.Campaign.open(tmp_path / "c", read_only=True) as again:
        assert again.state == state and again.delver("Ser").class_name == "Paladin"


# ---------------------------------------------------------------- "all of them" is the list, not a number

_SEVENTH = {"spells": {"grimoire": {"spells": {"house_ray": {
    "number": len(load_rules().spell_lists["grimoire"]["spells"]) + 1, "name": "House Ray", "effect": "2d6 cold; the target loses its next action.", "damage": "2d6",
    "source": "house", "reason": "the table's own seventh spell"}}}}}


def test_learn_the_remaining_mage_spell_list_a_house_rules_seventh_spell_is_learned_at_level_two():
    """Wand Magic: "You learn the remaining mage spell list" (``spells_known: all``): a level-2 mage learns every
    spell the list holds, a house rule's seventh included, not six."""
    t = Table(seed=3, house_rules=_SEVENTH).party(("Mira", "mage", {"weapon": "staff"}))
    assert len(t.delver("Mira")["spells"]) == 3  # level 1: three random spells
    t.do("level_up", who="Mira")
    spells = t.delver("Mira")["spells"]
    assert "house_ray" in spells and sorted(spells) == sorted(t.rules.spell_lists["grimoire"]["spells"])
    shipped = Table(seed=3).party(("Mira", "mage", {"weapon": "staff"}))
    shipped.do("level_up", who="Mira")
    assert len(spells) == len(shipped.delver("Mira")["spells"]) + 1  # the shipped list and the house rule's one


def test_a_random_spell_is_picked_by_a_die_with_a_face_for_each_numbered_spell():
    """The grimoire's random pick is one face a spell (``random_pick: numbered``): with a spell more the die has a face
    more, so the new one may be among a level-1 mage's three."""
    n = _SEVENTH["spells"]["grimoire"]["spells"]["house_ray"]["number"]
    t = Table(seed=3, house_rules=_SEVENTH)
    t.do("add_delver", name="Mira", class_id="mage", choices={"weapon": "staff"},
         faces={"spell": [n], "spell#2": [1], "spell#3": [2]})
    assert t.delver("Mira")["spells"] == ["house_ray", "light", "magic_missile"]
    assert t.events[-1]["rolls"]["spell"]["expr"] == f"d{n}"


def test_learning_fewer_than_the_whole_list_is_a_count_a_house_rule_may_set():
    t = Table(seed=3, house_rules={"classes": {"mage": {"abilities": {"wand_magic": {"mechanics": {
        "spells_known": 4}}}}}}).party(("Mira", "mage", {"weapon": "staff"}))
    t.do("level_up", who="Mira")
    assert len(t.delver("Mira")["spells"]) == 4
    with pytest.raises(RulesError, match="a count or all"):
        load_rules({"classes": {"mage": {"abilities": {"wand_magic": {"mechanics": {"spells_known": "most"}}}}}})
