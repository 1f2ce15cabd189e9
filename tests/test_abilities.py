"""Class abilities (`use`) and spells (`cast`): one test per rule, named after it.

Outcomes are made exact with typed faces; every refusal is checked to change nothing; each table's log
is replayed and compared with the live state at the end of every test.
"""
from __future__ import annotations

import random

import pytest

from delvebook.engine import Engine, Refused
from delvebook.core.events import clone, replay
from delvebook.core.model import new_state
from delvebook.core.rules.load import load_rules


LEATHER = {"item": "leather_armor", "name": "Leather armor", "av": 1, "dv": 10, "dv_max": 10, "shield": False,
           "bonus_av": 0}
SHIELD = dict(LEATHER, item="shield", name="Shield", shield=True)


def _wear(t: "Table", who: str, *armor: dict) -> None:
    """Armor the rules give no price for: the keeper hands it over (the table starts from here)."""
    t.state["delvers"][who]["armor"] = [dict(a) for a in armor]
    t.setup, t.log = clone(t.state), []


class Table:
    """A campaign driven the way the notebooks drive it: decide, then apply."""

    def __init__(self, seed: int = 7):
        self.setup = new_state("abilities")
        self.eng = Engine(load_rules(), self.setup)
        self.rng = random.Random(seed)
        self.seq = 0
        self.log: list[dict] = []

    @property
    def state(self) -> dict:
        return self.eng.state

    def d(self, name: str) -> dict:
        return self.state["delvers"][name]

    def foe(self, name: str) -> dict:
        return self.state["encounter"]["foes"][name]

    def do(self, kind: str, faces=None, **args) -> dict:
        self.seq += 1
        e = self.eng.decide(kind, args, self.rng, self.seq, faces)
        self.eng.apply(e)
        self.log.append(e)
        return e

    def refused(self, kind: str, faces=None, **args) -> str:
        """The command is refused, and nothing changed."""
        before = clone(self.state)
        with pytest.raises(Refused) as err:
            self.seq += 1
            self.eng.decide(kind, args, self.rng, self.seq, faces)
        assert self.state == before
        return str(err.value)

    def undo(self) -> None:
        self.seq += 1
        e = self.eng.decide_undo(self.seq)
        self.eng.apply(e)
        self.log.append(e)

    def conditions(self, who: str, kind: str) -> list[dict]:
        return [c for c in self.state["conditions"] if c["who"] == who and c["kind"] == kind]

    def add(self, name: str, class_id: str, level: int = 1, **choices) -> dict:
        self.do("add_delver", name=name, class_id=class_id,
                choices={k: v for k, v in choices.items() if k == "weapon"} or None)
        for _ in range(level - 1):
            self.do("level_up", who=name)
        for choice, option in choices.items():
            if choice != "weapon":
                self.do("choose", who=name, choice=choice, option=option)
        return self.d(name)

    def fight(self, *foes, first="party") -> None:
        self.do("encounter", foes=list(foes))
        self.do("initiative", first=first)

    def turn(self, name: str) -> "Table":
        """Play on (next turn) until ``name``'s turn in the fight, with nothing used yet in it."""
        from delvebook.core.model import current_actor, used_this_turn
        for _ in range(40):
            if current_actor(self.state) == name and not used_this_turn(self.state, name):
                return self
            self.do("next_turn")
        raise AssertionError(f"{name}'s turn never came")


@pytest.fixture
def t():
    table = Table()
    yield table
    # every sequence replays from its log to the very same state
    assert replay(table.setup, table.log).state == table.state


# ---------------------------------------------------------------- using an ability at all

def test_an_ability_must_be_the_delvers_own(t):
    t.add("Wren", "rogue")
    assert "has no ability 'bless'" in t.refused("use", who="Wren", ability="bless")


def test_an_ability_comes_at_its_level(t):
    t.add("Cy", "cleric")
    assert t.refused("use", who="Cy", ability="holy_weapon") == "Cy is level 1; Holy Weapon comes at level 2"


def test_an_ability_comes_with_its_specialty(t):
    t.add("Wren", "rogue", level=2, specialty="bard_magic")
    msg = t.refused("use", who="Wren", ability="bow_volley", target="x")
    assert msg == "Volley comes with the Bows specialty; Wren chose Bard Magic"


def test_an_ability_may_be_named_by_its_name(t):
    t.add("Fa", "fighter")
    t.do("use", who="Fa", ability="Ferocious strike")
    assert t.d("Fa")["resources"]["grit"] == 2


def test_the_dead_and_dying_use_no_abilities(t):
    t.add("Fa", "fighter")
    t.do("damage", who="Fa", amount=99)
    assert "dying" in t.refused("use", who="Fa", ability="ferocious_strike")
    t.do("death_save", who="Fa", faces={"death_save": [1]})
    assert "dead" in t.refused("use", who="Fa", ability="ferocious_strike")


def test_spending_grit_you_lack_is_refused(t):
    t.add("Fa", "fighter")
    t.do("use", who="Fa", ability="second_wind", faces={"heal": [1]})
    assert t.refused("use", who="Fa", ability="second_wind") == "Fa has 1 grit; Second Wind needs 2"


def test_an_unknown_option_is_refused_as_a_typo(t):
    t.add("Fa", "fighter")
    assert "no option 'advantge'" in t.refused("use", who="Fa", ability="ferocious_strike", advantge=True)


# ---------------------------------------------------------------- rogue

def test_dodge_subtracts_d6_from_the_next_damage(t):
    t.add("Wren", "rogue")
    t.do("use", who="Wren", ability="dodge")
    assert t.d("Wren")["resources"]["grit"] == 2
    e = t.do("damage", who="Wren", amount=5, faces={"dodge": [4]})
    assert e["damage"][0]["dodged"] == 4 and t.d("Wren")["hearts"] == 12 - 1
    assert not t.conditions("Wren", "dodging")
    t.do("damage", who="Wren", amount=2)  # the dodge was spent on the first
    assert t.d("Wren")["hearts"] == 9


def test_dodge_as_an_attack_option_spends_grit_only_when_a_hit_lands(t):
    t.add("Wren", "rogue")
    t.fight({"foe": "goblin", "name": "Gob"}, first="foes")
    miss = t.do("attack", attacker="Gob", target="Wren", dodge=True, counter=False,
                faces={"attack": [3], "resist": [15]})
    assert miss["results"] == ["miss"] and t.d("Wren")["resources"]["grit"] == 3
    t.turn("Gob")  # the goblin's next turn
    hit = t.do("attack", attacker="Gob", target="Wren", dodge=True,
               faces={"attack": [15], "resist": [3], "damage": [5], "dodge": [6]})
    assert hit["damage"][0]["dodged"] == 6 and hit["damage"][0]["dealt"] == 0
    assert t.d("Wren")["resources"]["grit"] == 2 and t.d("Wren")["hearts"] == 12


def test_dodge_comes_off_before_armor(t):
    t.add("Wren", "rogue")
    _wear(t, "Wren", LEATHER)
    e = t.do("damage", who="Wren", amount=4, armor=True, dodge=True, faces={"dodge": [1]})
    hit = e["damage"][0]
    assert (hit["raw"], hit["dodged"], hit["av"], hit["dealt"]) == (4, 1, 1, 2) and hit["dv"][0]["dv"] == 9
    whole = t.do("damage", who="Wren", amount=3, armor=True, dodge=True, faces={"dodge": [5]})
    assert whole["damage"][0]["dealt"] == 0 and whole["damage"][0]["dv"] == []  # dodged: the armor is untouched


def test_a_foe_cannot_dodge(t):
    t.add("Wren", "rogue")
    t.fight({"foe": "goblin", "name": "Gob"})
    assert "only a delver with Dodge" in t.refused("attack", attacker="Wren", target="Gob", dodge=True,
                                                   faces={"attack": [15, 1], "resist": [2], "damage": [3]})


def test_sprint_doubles_movement_without_an_action_until_the_next_turn(t):
    t.add("Wren", "rogue")
    t.add("Bo", "fighter")
    t.fight("goblin")
    e = t.do("use", who="Wren", ability="sprint")
    assert e["movement_multiplier"] == 2 and e["uses_action"] is False
    assert t.conditions("Wren", "sprinting")[0]["ends_on"] == "turn:Wren"
    t.do("next_turn")  # Bo
    t.do("next_turn")  # the goblin
    t.do("next_turn")  # Wren again: the sprint is over
    assert not t.conditions("Wren", "sprinting")


def test_hide_is_a_stealth_check_without_an_action(t):
    t.add("Wren", "rogue")
    e = t.do("use", who="Wren", ability="hide", target=12, faces={"check": [9, 3]})
    assert e["hidden"] is True and e["total"] == 12 and t.d("Wren")["resources"]["grit"] == 2
    assert t.conditions("Wren", "hidden")[0]["ends_when"] == ["attack", "cast"]


def test_hide_that_fails_leaves_the_rogue_seen(t):
    t.add("Wren", "rogue")
    e = t.do("use", who="Wren", ability="hide", target=12, faces={"check": [2, 3]})
    assert e["hidden"] is False and not t.conditions("Wren", "hidden")


def test_focus_adds_d6_to_the_next_roll_using_a_skill(t):
    t.add("Wren", "rogue")
    t.do("use", who="Wren", ability="focus")
    e = t.do("check", who="Wren", skill="stealth", target=15, faces={"check": [10, 2, 3]})
    assert e["expr"] == "d20+d6+d6" and e["total"] == 15 and e["success"]
    assert not t.conditions("Wren", "focus")
    again = t.do("check", who="Wren", skill="stealth", target=15, faces={"check": [10, 2]})
    assert again["expr"] == "d20+d6"


def test_focus_waits_for_a_roll_that_uses_a_skill(t):
    t.add("Wren", "rogue")
    t.do("use", who="Wren", ability="focus")
    t.do("check", who="Wren", skill="athletics", target=5, faces={"check": [10]})  # no skill: no focus
    assert t.conditions("Wren", "focus")
    t.fight({"foe": "goblin", "name": "Gob"})
    e = t.do("attack", attacker="Wren", target="Gob", faces={"attack": [10, 1, 6], "resist": [16]})
    assert e["attack_totals"] == [17] and not t.conditions("Wren", "focus")


def test_volley_is_a_bow_multi_attack_for_one_grit(t):
    t.add("Wren", "rogue", level=2, specialty="bows")
    t.fight({"foe": "ogre", "name": "Ogre"})
    e = t.do("use", who="Wren", ability="bow_volley", target="Ogre",
             faces={"attack": [12], "attack#2": [4], "bonus": [1, 1], "resist": [10], "damage": [3]})
    assert e["multi"] == 2 and e["weapon"] == "Bow" and e["results"] == ["hit", "miss"]
    assert e["attack_totals"] == [14, 6] and t.d("Wren")["resources"]["grit"] == 4
    assert e["counter"] is None  # a bow attack draws no counter


def test_volley_needs_a_bow(t):
    t.add("Wren", "rogue", level=2, specialty="bows")
    t.state["delvers"]["Wren"]["weapons"] = [w for w in t.d("Wren")["weapons"] if w["skill"] != "bows"]
    t.setup, t.log = clone(t.state), []  # the bow is lost before the table starts
    t.fight("goblin")
    assert "needs a bow" in t.refused("use", who="Wren", ability="bow_volley", target="Goblin 1")


def test_dual_daggers_multi_attack_two_with_two_daggers(t):
    t.add("Wren", "rogue", level=2, specialty="daggers")
    t.fight({"foe": "ogre", "name": "Ogre"})
    e = t.do("use", who="Wren", ability="dagger_dual_wield", target="Ogre",
             faces={"attack": [12], "attack#2": [14], "bonus": [1, 1], "resist": [10],
                    "damage": [3], "damage#2": [4]})
    assert e["multi"] == 2 and e["results"] == ["hit", "hit"] and t.foe("Ogre")["hearts"] == 20 - 7


def test_ambush_adds_d6_dagger_damage_against_a_surprised_target(t):
    t.add("Wren", "rogue", level=2, specialty="daggers")
    t.fight({"foe": "ogre", "name": "Ogre"})
    e = t.do("use", who="Wren", ability="dagger_ambush", target="Ogre",
             faces={"attack": [12, 1, 1], "resist": [10], "damage": [3, 5]})
    assert e["damage"][0]["expr"] == "d6+d6" and e["damage"][0]["dealt"] == 8


def test_bard_magic_casts_the_chosen_spell_for_one_grit_with_an_instrument(t):
    t.add("Wren", "rogue", level=2, specialty="bard_magic")
    assert "not chosen a bard spell" in t.refused("cast", who="Wren", spell="firebolt", target="x")
    t.do("use", who="Wren", ability="bard_magic", choose="minor_illusion")
    assert "carries no instrument" in t.refused("use", who="Wren", ability="bard_magic")
    e = t.do("cast", who="Wren", spell="minor_illusion", instrument="lute", description="a door")
    assert e["via"] == "bard" and e["paid"] == {"grit": 1} and t.d("Wren")["resources"]["grit"] == 4
    assert t.conditions("Wren", "illusion")[0]["data"]["description"] == "a door"
    assert "is Minor Illusion, not 'firebolt'" in t.refused("cast", who="Wren", spell="firebolt", instrument="lute")


def test_bard_magic_changes_the_spell_once_each_rest(t):
    t.add("Wren", "rogue", level=2, specialty="bard_magic")
    t.do("use", who="Wren", ability="bard_magic", choose="light")
    t.do("use", who="Wren", ability="bard_magic", choose="firebolt")
    assert "already changed" in t.refused("use", who="Wren", ability="bard_magic", choose="invisibility")
    t.do("rest")
    t.do("use", who="Wren", ability="bard_magic", choose="invisibility")
    assert t.d("Wren")["choices"]["bard_spell"] == "invisibility"


# ---------------------------------------------------------------- fighter

def test_ferocious_strike_gives_the_next_attack_advantage_and_max_damage(t):
    t.add("Fa", "fighter", weapon="heavy_weapon")
    t.fight({"foe": "ogre", "name": "Ogre"})
    t.do("use", who="Fa", ability="ferocious_strike")
    e = t.do("attack", attacker="Fa", target="Ogre", faces={"attack": [3, 17, 2], "resist": [10]})
    assert e["advantage"] and e["attack_totals"] == [19]
    assert e["damage"][0]["raw"] == 18 and e["damage"][0]["max_damage"]
    assert t.d("Fa")["resources"]["grit"] == 2
    plain = t.turn("Fa").do("attack", attacker="Fa", target="Ogre", faces={"attack": [15, 2], "resist": [10],
                                                                           "damage": [1, 1, 1]})
    assert not plain["advantage"] and plain["damage"][0]["raw"] == 3


def test_double_strike_makes_the_next_attack_a_multi_attack_two(t):
    t.add("Fa", "fighter", weapon="heavy_weapon")
    t.fight({"foe": "ogre", "name": "Ogre"})
    t.do("use", who="Fa", ability="double_strike")
    e = t.do("attack", attacker="Fa", target="Ogre",
             faces={"attack": [15], "attack#2": [2], "bonus": [1], "resist": [10], "damage": [1, 1, 1]})
    assert e["multi"] == 2 and e["results"] == ["hit", "miss"]


def test_second_wind_costs_two_grit_and_heals_d6(t):
    t.add("Fa", "fighter")
    t.do("damage", who="Fa", amount=5)
    before = t.d("Fa")["hearts"]
    e = t.do("use", who="Fa", ability="second_wind", faces={"heal": [4]})
    assert t.d("Fa")["hearts"] == before + 4 and t.d("Fa")["resources"]["grit"] == 1
    assert e["healing"][0]["amount"] == 4


def test_sentry_uses_the_action_ends_the_turn_and_allows_three_attacks(t):
    t.add("Fa", "fighter")
    t.add("Wren", "rogue")
    t.fight({"foe": "ogre", "name": "Ogre"})
    e = t.do("use", who="Fa", ability="sentry")
    assert e["sentry_attacks"] == 3 and e["turn_of"] == "Wren"  # the turn passed on
    hit = {"attack": [2, 1], "resist": [20], "counter_damage": [1, 1, 1]}
    for left in (2, 1, 0):
        a = t.do("attack", attacker="Fa", target="Ogre", sentry=True, faces=dict(hit))
        assert a["sentry_attacks_left"] == left
    assert "no Sentry attack left" in t.refused("attack", attacker="Fa", target="Ogre", sentry=True)
    t.do("next_turn")  # the ogre
    t.do("next_turn")  # Fa's next turn: the watch is over
    assert not t.conditions("Fa", "sentry")


def test_sentry_is_taken_on_the_fighters_own_turn(t):
    t.add("Wren", "rogue")
    t.add("Fa", "fighter")
    assert "in a fight" in t.refused("use", who="Fa", ability="sentry")
    t.fight("goblin")
    assert t.refused("use", who="Fa", ability="sentry") == "it is Wren's turn, not Fa's: Sentry uses Fa's action"


def _commander(t):
    t.add("Fa", "fighter", level=3, specialty="armorer", technique="commander")
    t.add("Wren", "rogue")
    t.fight({"foe": "ogre", "name": "Ogre"})


def test_commander_charge_gives_every_friendly_delver_advantage_this_turn(t):
    _commander(t)
    e = t.do("use", who="Fa", ability="command_charge")
    assert e["hearing"] == ["Fa", "Wren"] and t.d("Fa")["resources"]["grit"] == 6
    assert "action" not in t.state["encounter"]["used"].get("Fa", {})  # an order is shouted, not an action
    t.do("next_turn")  # Wren, still the party's turn
    a = t.do("attack", attacker="Wren", target="Ogre", faces={"attack": [4, 16, 1], "resist": [10],
                                                              "damage": [2]})
    assert a["advantage"]
    e = t.do("next_turn")  # the ogre: the party's turn, and the order, are over
    assert not t.conditions("Wren", "command_charge") and e["conditions_ended"][0]["kind"] == "command_charge"


def test_commander_fire_gives_max_damage_on_ranged_attacks(t):
    _commander(t)
    t.do("use", who="Fa", ability="command_fire")
    t.turn("Wren")
    a = t.do("attack", attacker="Wren", target="Ogre", weapon="Bow", faces={"attack": [15, 1], "resist": [10]})
    assert a["damage"][0]["raw"] == 6 and a["damage"][0]["max_damage"]


def test_commander_hold_the_line_adds_two_armor_value(t):
    _commander(t)
    t.do("use", who="Fa", ability="command_hold_the_line")
    e = t.do("damage", who="Wren", amount=5, armor=True)
    assert e["damage"][0]["av"] == 2 and e["damage"][0]["dealt"] == 3


def test_commander_retreat_doubles_movement_of_those_who_hear(t):
    _commander(t)
    e = t.do("use", who="Fa", ability="command_retreat", hearing=["Wren"])
    assert e["hearing"] == ["Wren"]
    assert t.conditions("Wren", "command_retreat")[0]["data"]["movement_multiplier"] == 2
    assert not t.conditions("Fa", "command_retreat")


def test_blood_magic_sword_is_charged_by_a_kill_once_and_spends_the_charge_to_cast(t):
    t.add("Fa", "fighter", level=3, weapon="sword_and_shield", specialty="armorer", technique="blood_magic")
    t.do("use", who="Fa", ability="blood_magic_sword", trace="magic_missile")
    assert "already traced" in t.refused("use", who="Fa", ability="blood_magic_sword", trace="firebolt")
    t.fight({"foe": "giant_rat", "name": "Rat 1"}, {"foe": "giant_rat", "name": "Rat 2"}, {"foe": "ogre", "name": "Ogre"})
    assert "not charged" in t.refused("cast", who="Fa", spell="magic_missile", target="Ogre", via="sword")
    kill = {"attack": [15, 1], "resist": [2], "damage": [3, 3]}
    e = t.do("attack", attacker="Fa", target="Rat 1", weapon="Sword", faces=dict(kill))
    assert e["blood_magic_charged"] == "magic_missile"
    t.turn("Fa").do("attack", attacker="Fa", target="Rat 2", weapon="Sword", faces=dict(kill))
    assert len(t.conditions("Fa", "blood_magic_charge")) == 1  # charges do not stack
    c = t.turn("Fa").do("cast", who="Fa", spell="magic_missile", target="Ogre", via="sword")
    assert c["via"] == "sword" and t.foe("Ogre")["hearts"] == 20 - 6
    assert not t.conditions("Fa", "blood_magic_charge")


def test_blood_magic_sword_charge_is_lost_on_rest(t):
    t.add("Fa", "fighter", level=3, weapon="sword_and_shield", specialty="armorer", technique="blood_magic")
    t.do("use", who="Fa", ability="blood_magic_sword", trace="light")
    t.fight({"foe": "giant_rat", "name": "Rat"})
    t.do("attack", attacker="Fa", target="Rat", weapon="Sword", faces={"attack": [15, 1], "resist": [2],
                                                                       "damage": [3, 3]})
    t.do("end_encounter")
    t.do("rest")
    assert not t.conditions("Fa", "blood_magic_charge") and not t.conditions("Fa", "blood_magic_trace")


def _blood_fighter(t):
    """Fa, a level-3 fighter with a sword and Magic Missile traced on it, in a fight with a giant rat."""
    t.add("Fa", "fighter", level=3, weapon="sword_and_shield", specialty="armorer", technique="blood_magic")
    t.do("use", who="Fa", ability="blood_magic_sword", trace="magic_missile")
    t.fight({"foe": "giant_rat", "name": "Rat"}, {"foe": "ogre", "name": "Ogre"}, first="foes")


def test_blood_magic_a_kill_made_by_hitting_back_with_the_sword_charges_it(t):
    _blood_fighter(t)
    e = t.turn("Rat").do("attack", attacker="Rat", target="Fa", faces={"attack": [4], "resist": [15],
                                                                        "counter_damage": [1, 2]})
    assert e["results"] == ["miss"] and e["counter"]["weapon"] == "Sword" and e["counter"]["damage"]["vanquished"]
    assert t.conditions("Fa", "blood_magic_charge")[0]["data"]["spell"] == "magic_missile"
    assert e["blood_magic_charged"] == "magic_missile"
    c = t.turn("Fa").do("cast", who="Fa", spell="magic_missile", target="Ogre", via="sword")
    assert c["via"] == "sword" and t.foe("Ogre")["hearts"] == 20 - 6


def test_blood_magic_a_kill_on_a_tie_charges_the_sword_whoever_attacked(t):
    _blood_fighter(t)
    e = t.turn("Rat").do("attack", attacker="Rat", target="Fa", faces={"attack": [9], "resist": [9],
                                                                        "counter_damage": [1, 1]})
    assert e["results"] == ["tie"] and e["counter"]["damage"]["vanquished"]  # both hit: Fa's sword slays the rat
    assert t.conditions("Fa", "blood_magic_charge")
    t.do("end_encounter")
    t.do("rest")  # charges are lost on a rest; the trace too: traced again, and Fa's own tie this time
    t.do("use", who="Fa", ability="blood_magic_sword", trace="firebolt")
    t.fight({"foe": "giant_rat", "name": "Rat 2"})
    e = t.turn("Fa").do("attack", attacker="Fa", target="Rat 2", weapon="Sword",
                        faces={"attack": [7, 1], "resist": [8], "damage": [1, 1]})
    assert e["results"] == ["tie"] and e["damage"][0]["vanquished"] and e["blood_magic_charged"] == "firebolt"


def test_blood_magic_a_kill_by_hitting_back_with_fists_charges_nothing(t):
    _blood_fighter(t)
    t.do("drop", who="Fa", item="Sword")
    e = t.turn("Rat").do("attack", attacker="Rat", target="Fa", faces={"attack": [4], "resist": [15]})
    assert e["counter"]["weapon"] == "Unarmed" and e["counter"]["damage"]["vanquished"]
    assert not t.conditions("Fa", "blood_magic_charge") and "blood_magic_charged" not in e


def test_smite_is_declared_with_an_attack(t):
    t.add("Fa", "fighter", level=3, specialty="armorer", technique="oath", oath="truth")
    assert "attack(..., smite=True)" in t.refused("use", who="Fa", ability="smite")


# ---------------------------------------------------------------- cleric

def test_lay_on_hands_spends_a_healing_point_a_heart(t):
    t.add("Cy", "cleric")
    t.add("Bo", "rogue")
    t.do("damage", who="Bo", amount=5)
    t.do("use", who="Cy", ability="lay_on_hands", target="Bo", hearts=3)
    assert t.d("Bo")["hearts"] == 10 and t.d("Cy")["resources"]["healing_points"] == 7
    assert t.refused("use", who="Cy", ability="lay_on_hands", target="Bo", hearts=3) == \
        "Bo is missing 2 hearts; Lay on Hands cannot heal 3"
    t.do("damage", who="Bo", amount=8)
    t.do("use", who="Cy", ability="lay_on_hands", target="Bo", hearts=7)
    assert t.d("Bo")["hearts"] == 9
    assert t.refused("use", who="Cy", ability="lay_on_hands", target="Bo", hearts=1) == \
        "Cy has 0 healing points; Lay on Hands needs 1"


def test_lay_on_hands_repeats_death_save_within_an_hour(t):
    t.add("Cy", "cleric")
    t.add("Bo", "rogue")
    t.do("damage", who="Bo", amount=20)
    t.do("death_save", who="Bo", faces={"death_save": [2]})
    assert t.d("Bo")["status"] == "dead"
    t.do("advance_time", minutes=30)
    e = t.do("use", who="Cy", ability="lay_on_hands_revive", target="Bo", faces={"death_save": [6]})
    assert e["revived"] and t.d("Bo")["status"] == "alive" and t.d("Bo")["hearts"] == 0
    assert t.d("Cy")["resources"]["healing_points"] == 9


def test_lay_on_hands_repeats_a_death_save_once_for_each_death(t):
    t.add("Cy", "cleric")
    t.add("Bo", "rogue")
    t.do("damage", who="Bo", amount=20)
    t.do("death_save", who="Bo", faces={"death_save": [2]})
    t.do("advance_time", minutes=30)
    failed = t.do("use", who="Cy", ability="lay_on_hands_revive", target="Bo", faces={"death_save": [5]})
    assert failed["revived"] is False and t.d("Bo")["died_at"] == 0  # died then, not now
    assert "once for each death" in t.refused("use", who="Cy", ability="lay_on_hands_revive", target="Bo")
    assert t.d("Cy")["resources"]["healing_points"] == 9  # one healing point, one repeat
    t.undo()
    t.do("use", who="Cy", ability="lay_on_hands_revive", target="Bo", faces={"death_save": [6]})
    t.do("damage", who="Bo", amount=1)  # it lives, and falls again: a new death ...
    t.do("death_save", who="Bo", faces={"death_save": [1]})
    again = t.do("use", who="Cy", ability="lay_on_hands_revive", target="Bo", faces={"death_save": [6]})
    assert again["revived"]  # ... may be revisited once more


def test_lay_on_hands_cannot_repeat_a_death_save_after_an_hour(t):
    t.add("Cy", "cleric")
    t.add("Bo", "rogue")
    t.do("damage", who="Bo", amount=20)
    t.do("death_save", who="Bo", faces={"death_save": [2]})
    t.do("advance_time", minutes=61)
    msg = t.refused("use", who="Cy", ability="lay_on_hands_revive", target="Bo")
    assert msg == "Bo died 61 minutes ago; Lay on Hands repeats a death save only within 60 minutes"


def test_bless_adds_blessing_die_to_all_d20_rolls_for_a_minute(t):
    t.add("Cy", "cleric")
    t.add("Bo", "rogue")
    t.do("use", who="Cy", ability="bless", target="Bo")
    assert t.d("Cy")["resources"]["blessings"] == 1
    e = t.do("check", who="Bo", target=10, faces={"check": [6, 4]})
    assert e["expr"] == "d20+d6" and e["success"]
    t.fight({"foe": "ogre", "name": "Ogre"})
    a = t.turn("Bo").do("attack", attacker="Bo", target="Ogre", weapon="Bow",
                        faces={"attack": [5, 1, 6], "resist": [11], "damage": [1]})
    assert a["attack_expr"] == "d20+d6+d6" and a["attack_totals"] == [12]
    t.do("end_encounter")
    t.do("advance_time", minutes=1)
    assert not t.conditions("Bo", "blessed")
    assert t.do("check", who="Bo", target=10, faces={"check": [6]})["expr"] == "d20"


def test_bless_one_creature_at_a_time(t):
    t.add("Cy", "cleric")
    t.add("Bo", "rogue")
    t.add("Fa", "fighter")
    t.do("use", who="Cy", ability="bless", target="Bo")
    e = t.do("use", who="Cy", ability="bless", target="Fa")
    assert e["no_longer_blessed"] == ["Bo"]
    assert not t.conditions("Bo", "blessed") and t.conditions("Fa", "blessed")
    assert t.refused("use", who="Cy", ability="bless", target="Bo") == "Cy has 0 blessings; Bless needs 1"


def test_exorcist_holy_water_deals_3d6_to_the_unholy_only(t):
    t.add("Cy", "cleric", level=2, specialty="exorcist")
    t.fight({"foe": "zombie", "name": "Zed"}, {"foe": "goblin", "name": "Gob"})
    e = t.do("use", who="Cy", ability="holy_water", target="Zed", faces={"damage": [3, 3, 3]})
    assert e["unholy"] == ["undead"] and t.foe("Zed")["hearts"] == 10 - 9
    g = t.turn("Cy").do("use", who="Cy", ability="holy_water", target="Gob")
    assert g["damage"] == [] and t.foe("Gob")["hearts"] == 4
    assert t.d("Cy")["resources"]["blessings"] == 2


def test_holy_water_lifts_curses(t):
    t.add("Cy", "cleric", level=2, specialty="exorcist")
    t.add("Bo", "rogue")
    t.do("condition", who="Bo", name="cursed", what="a witch's curse")
    e = t.do("use", who="Cy", ability="holy_water", target="Bo")
    assert e["curses_lifted"] and not t.conditions("Bo", "cursed") and t.d("Bo")["hearts"] == 12


def test_holy_water_may_be_kept_in_a_flask(t):
    t.add("Cy", "cleric", level=2, specialty="exorcist")
    t.do("use", who="Cy", ability="holy_water")
    assert {"item": "holy_water", "name": "Holy water", "count": 1} in t.d("Cy")["items"]
    t.fight({"foe": "skeleton", "name": "Skel"})
    t.do("use", who="Cy", ability="holy_water", target="Skel", flask=True, faces={"damage": [1, 1, 1]})
    assert t.d("Cy")["resources"]["blessings"] == 3 and t.foe("Skel")["hearts"] == 3


def test_healer_heals_2d6_by_touch_or_d6_at_range(t):
    t.add("Cy", "cleric", level=2, specialty="healer")
    t.add("Bo", "rogue")
    t.do("damage", who="Bo", amount=10)
    t.do("use", who="Cy", ability="heal_by_touch", target="Bo", faces={"heal": [3, 4]})
    assert t.d("Bo")["hearts"] == 9
    t.do("use", who="Cy", ability="heal_at_range", target="Bo", faces={"heal": [2]})
    assert t.d("Bo")["hearts"] == 11 and t.d("Cy")["resources"]["blessings"] == 2


def test_holy_weapon_flying_sword_attacks_with_2d6_bonus_and_2d6_damage_for_a_minute(t):
    t.add("Cy", "cleric", level=2, specialty="holy_weapon")
    t.fight({"foe": "ogre", "name": "Ogre"})
    assert "no holy weapon" in t.refused("attack", attacker="Cy", target="Ogre", weapon="holy weapon")
    t.do("use", who="Cy", ability="holy_weapon")
    e = t.do("attack", attacker="Cy", target="Ogre", weapon="holy weapon",
             faces={"attack": [5, 3, 4], "resist": [11], "damage": [6, 5]})
    assert e["attack_expr"] == "d20+2d6" and e["attack_totals"] == [12] and t.foe("Ogre")["hearts"] == 20 - 11
    m = t.turn("Cy").do("attack", attacker="Cy", target="Ogre", weapon="holy weapon",
                        faces={"attack": [1, 1, 1], "resist": [18]})
    assert m["counter"] is None  # a miss by the flying sword draws no counter on the cleric
    for _ in range(20):  # ten rounds: a minute
        t.do("next_turn")
    assert not t.conditions("Cy", "holy_weapon")


# ---------------------------------------------------------------- divine spells

def _divine(t):
    t.add("Cy", "cleric", level=3, specialty="healer")
    t.add("Bo", "rogue")


def test_divine_spells_come_at_level_three_for_a_blessing(t):
    t.add("Cy", "cleric")
    assert t.refused("cast", who="Cy", spell="aid") == "Cy is level 1; Divine spellcasting comes at level 3"


def test_aid_heals_d6_and_may_exceed_max_hearts(t):
    _divine(t)
    e = t.do("cast", who="Cy", spell="aid", target="Bo", faces={"heal": [5]})
    assert t.d("Bo")["hearts"] == 17 and t.d("Cy")["resources"]["blessings"] == 5
    assert e["healing"][0]["hearts_after"] == 17


def test_dispel_magic_ends_a_condition(t):
    _divine(t)
    t.do("use", who="Cy", ability="bless", target="Bo")
    t.do("cast", who="Cy", spell="dispel_magic", target="Bo", condition="blessed")
    assert not t.conditions("Bo", "blessed")


def test_dispel_magic_is_resisted_with_a_contested_magic_check(t):
    _divine(t)
    t.add("Mo", "mage")
    t.do("condition", who="Mo", name="invisible", duration="hour", source="Mo")
    held = t.do("cast", who="Cy", spell="dispel_magic", target="Mo", condition="invisible", resist=True,
                faces={"check": [10, 2], "opposed": [9, 3]})
    assert held["contest"]["result"] == "tie" and held["dispelled"] is None and t.conditions("Mo", "invisible")
    won = t.do("cast", who="Cy", spell="dispel_magic", target="Mo", condition="invisible", resist=True,
               faces={"check": [10, 3], "opposed": [9, 3]})
    assert won["dispelled"]["kind"] == "invisible" and not t.conditions("Mo", "invisible")


def test_inflict_wounds_deals_4d6_halved_on_a_save(t):
    _divine(t)
    t.fight({"foe": "ogre", "name": "Ogre"})
    full = t.do("cast", who="Cy", spell="inflict_wounds", target="Ogre",
                faces={"save": [10], "damage": [3, 3, 3, 3]})
    assert full["save"]["target"] == 11 and not full["save"]["success"] and t.foe("Ogre")["hearts"] == 8
    half = t.turn("Cy").do("cast", who="Cy", spell="inflict_wounds", target="Ogre", save_target=15,
                faces={"save": [15], "damage": [2, 2, 2, 1]})
    assert half["save"]["success"] and half["damage"][0]["raw"] == 3 and t.foe("Ogre")["hearts"] == 5


def test_locate_creature_lasts_an_hour(t):
    _divine(t)
    t.do("cast", who="Cy", spell="locate_creature", creature="the lich")
    assert t.conditions("Cy", "locating")[0]["data"]["creature"] == "the lich"
    t.do("advance_time", hours=1)
    assert not t.conditions("Cy", "locating")


def test_truth_compels_for_an_hour_or_a_save_gives_immunity_for_a_day(t):
    _divine(t)
    t.fight({"foe": "bandit", "name": "Bandit"}, {"foe": "cultist", "name": "Cultist"})
    t.do("cast", who="Cy", spell="truth", target="Bandit", faces={"save": [4]})
    assert t.conditions("Bandit", "compelled_truth")[0]["ends_at"] == 3600
    now = t.turn("Cy").state["clock"]  # Cy's next turn: a round later
    t.do("cast", who="Cy", spell="truth", target="Cultist", faces={"save": [12]})
    assert t.conditions("Cultist", "truth_immune")[0]["ends_at"] == now + 86400
    assert "immune" in t.turn("Cy").refused("cast", who="Cy", spell="truth", target="Cultist")


def test_guiding_bolt_deals_3d6_and_marks_the_target_until_the_clerics_next_turn(t):
    _divine(t)
    t.fight({"foe": "ogre", "name": "Ogre"})
    e = t.do("cast", who="Cy", spell="guiding_bolt", target="Ogre",
             faces={"attack": [12, 2], "resist": [9], "damage": [4, 4, 4]})
    assert e["spell_attack"]["result"] == "hit" and t.foe("Ogre")["hearts"] == 8
    assert t.conditions("Ogre", "marked")[0]["ends_on"] == "turn:Cy"
    t.do("next_turn")  # Bo
    a = t.do("attack", attacker="Bo", target="Ogre", faces={"attack": [3, 15, 1], "resist": [10], "damage": [2]})
    assert a["advantage"]
    t.do("next_turn")  # the ogre
    t.do("next_turn")  # Cy: the mark ends
    assert not t.conditions("Ogre", "marked")


def test_guiding_bolt_mark_ends_when_the_dead_clerics_next_turn_would_have_come(t):
    _divine(t)
    t.fight({"foe": "ogre", "name": "Ogre"})
    t.do("cast", who="Cy", spell="guiding_bolt", target="Ogre",
         faces={"attack": [12, 2], "resist": [9], "damage": [4, 4, 4]})
    t.do("next_turn")  # Bo
    t.do("next_turn")  # the ogre's turn: Cy falls and dies
    t.do("damage", who="Cy", amount=40)
    t.do("death_save", who="Cy", faces={"death_save": [1]})
    assert t.d("Cy")["status"] == "dead" and t.conditions("Ogre", "marked"), "Cy's next turn has not come yet"
    e = t.do("next_turn")  # round 2: Cy's turn is skipped, and the mark ends where it would have begun
    assert e["turn_of"] == "Bo" and e["round"] == 2 and not t.conditions("Ogre", "marked")
    assert {"kind": "marked", "who": "Ogre"}.items() <= e["conditions_ended"][0].items()
    a = t.do("attack", attacker="Bo", target="Ogre", faces={"attack": [15, 1], "resist": [10], "damage": [2]})
    assert not a["advantage"]


def test_guiding_bolt_that_misses_marks_nothing(t):
    _divine(t)
    t.fight({"foe": "ogre", "name": "Ogre"})
    e = t.do("cast", who="Cy", spell="guiding_bolt", target="Ogre", faces={"attack": [2, 1], "resist": [19]})
    assert e["damage"] == [] and not t.conditions("Ogre", "marked")
    assert t.d("Cy")["resources"]["blessings"] == 5  # the blessing is spent all the same


# ---------------------------------------------------------------- mage

def _mage(t, level=1, spells=None):
    t.add("Mo", "mage", level=level)
    if spells is not None:  # the three random spells, made known for the test
        t.state["delvers"]["Mo"]["spells"] = list(spells)
        t.setup = clone(t.state)
        t.log = []


def test_grimoire_spells_are_cast_once_each_until_a_rest(t):
    _mage(t, spells=["light", "magic_missile", "minor_illusion"])
    t.do("cast", who="Mo", spell="light", item="staff")
    assert t.d("Mo")["spellbook_used"] == ["light"]
    assert t.refused("cast", who="Mo", spell="light") == \
        "Mo has already cast Light from the book since the last rest (each spell once a charge; the wand may still cast it)"
    t.do("cast", who="Mo", spell="minor_illusion", description="a chest")
    t.do("rest")
    assert t.d("Mo")["spellbook_used"] == []
    t.do("cast", who="Mo", spell="light")


def test_a_mage_casts_only_spells_in_the_book(t):
    _mage(t, spells=["light", "magic_missile", "minor_illusion"])
    assert "not 'firebolt'" in t.refused("cast", who="Mo", spell="firebolt", target="x")


def test_mage_cannot_cast_in_armor(t):
    _mage(t, spells=["light", "magic_missile", "minor_illusion"])
    _wear(t, "Mo", LEATHER)
    assert t.refused("cast", who="Mo", spell="light") == \
        "Mo wears Leather armor: grimoire magic cannot be cast in physical armor"


def test_grimoire_magic_needs_both_hands(t):
    _mage(t, spells=["light", "magic_missile", "minor_illusion"])
    _wear(t, "Mo", SHIELD)
    assert "needs both hands" in t.refused("cast", who="Mo", spell="light")


def test_magic_missile_fires_three_darts_of_two_that_always_hit_armor_meeting_each(t):
    _mage(t, spells=["light", "magic_missile", "minor_illusion"])
    t.add("Fa", "fighter")  # leather armor, AV 1
    t.fight({"foe": "ogre", "name": "Ogre"})
    e = t.do("cast", who="Mo", spell="magic_missile", target="Ogre")
    assert [d["dealt"] for d in e["damage"]] == [2, 2, 2] and "rolls" not in e
    assert t.foe("Ogre")["hearts"] == 20 - 6


def test_magic_missile_darts_may_split_and_armor_meets_each_dart(t):
    _mage(t, spells=["light", "magic_missile", "minor_illusion"])
    t.add("Fa", "fighter")  # leather armor, AV 1
    t.fight({"foe": "ogre", "name": "Ogre"})
    e = t.do("cast", who="Mo", spell="magic_missile", target=["Ogre", "Fa", "Fa"])
    assert [d["dealt"] for d in e["damage"]] == [2, 1, 1] and t.d("Fa")["armor"][0]["dv"] == 8


def test_firebolt_three_or_more_keeps_the_spell(t):
    _mage(t, spells=["firebolt", "light", "magic_missile"])
    t.fight({"foe": "ogre", "name": "Ogre"})
    e = t.do("cast", who="Mo", spell="firebolt", target="Ogre",
             faces={"attack": [12, 1], "resist": [10], "damage": [3, 4], "keep": [3]})
    assert e["spell_attack"]["result"] == "hit" and t.foe("Ogre")["hearts"] == 13
    assert e["keep"]["kept"] and t.d("Mo")["spellbook_used"] == []
    spent = t.turn("Mo").do("cast", who="Mo", spell="firebolt", target="Ogre",
                 faces={"attack": [2, 1], "resist": [10], "keep": [2]})
    assert spent["damage"] == [] and not spent["keep"]["kept"] and t.d("Mo")["spellbook_used"] == ["firebolt"]


def test_firebolt_tie_lands(t):
    _mage(t, spells=["firebolt", "light", "magic_missile"])
    t.fight({"foe": "ogre", "name": "Ogre"})
    e = t.do("cast", who="Mo", spell="firebolt", target="Ogre",
             faces={"attack": [9, 1], "resist": [10], "damage": [1, 1], "keep": [6]})
    assert e["spell_attack"]["result"] == "tie" and t.foe("Ogre")["hearts"] == 18


def test_wand_casts_any_book_spell_three_times_from_level_two(t):
    _mage(t, level=1, spells=["firebolt", "light", "magic_missile"])
    assert "level 2" in t.refused("cast", who="Mo", spell="light", via="wand")
    t.do("level_up", who="Mo")
    assert sorted(t.d("Mo")["spells"]) == sorted(t.eng.rules.spell_lists["grimoire"]["spells"])  # the remaining list
    t.fight({"foe": "ogre", "name": "Ogre"})
    t.do("cast", who="Mo", spell="magic_missile", target="Ogre")
    for left in (2, 1, 0):  # a cast a turn
        t.turn("Mo").do("cast", who="Mo", spell="magic_missile", target=["Ogre", "Ogre", "Ogre"], via="wand")
        assert t.d("Mo")["resources"]["wand_charges"] == left
    assert t.turn("Mo").refused("cast", who="Mo", spell="magic_missile", target="Ogre", via="wand") == \
        "Mo has 0 wand charges; Magic Missile from the wand needs 1"


def test_find_familiar_one_familiar_per_mage(t):
    _mage(t, spells=["find_familiar", "light", "magic_missile"])
    t.do("cast", who="Mo", spell="find_familiar", name="Pip", form="rat")
    pip = t.state["creatures"]["Pip"]
    assert (pip["hearts"], pip["damage"], pip["owner"], pip["role"]) == (1, "1", "Mo", "familiar")
    t.do("rest")
    assert "only one" in t.refused("cast", who="Mo", spell="find_familiar")


def test_invisibility_lasts_an_hour(t):
    _mage(t, spells=["invisibility", "light", "magic_missile"])
    t.add("Bo", "rogue")
    t.do("cast", who="Mo", spell="invisibility", target="Bo")
    assert t.conditions("Bo", "invisible")[0]["ends_at"] == 3600
    t.do("advance_time", minutes=59)
    assert t.conditions("Bo", "invisible")
    t.do("advance_time", minutes=1)
    assert not t.conditions("Bo", "invisible")


def test_invisibility_ends_when_the_creature_attacks(t):
    _mage(t, spells=["invisibility", "light", "magic_missile"])
    t.add("Bo", "rogue")
    t.do("cast", who="Mo", spell="invisibility", target="Bo")
    t.fight({"foe": "ogre", "name": "Ogre"})
    e = t.turn("Bo").do("attack", attacker="Bo", target="Ogre", faces={"attack": [15, 1], "resist": [2], "damage": [1]})
    assert not t.conditions("Bo", "invisible") and e["conditions_ended"][-1]["kind"] == "invisible"


def test_invisibility_ends_when_the_creature_hits_back(t):
    _mage(t, spells=["invisibility", "light", "magic_missile"])
    t.add("Bo", "rogue")
    t.do("cast", who="Mo", spell="invisibility", target="Bo")
    t.fight({"foe": "giant_rat", "name": "Rat"}, first="foes")
    e = t.turn("Rat").do("attack", attacker="Rat", target="Bo", faces={"attack": [3], "resist": [16],
                                                                        "counter_damage": [1]})
    assert e["counter"]["possible"] and not t.conditions("Bo", "invisible")
    assert {"kind": "invisible", "who": "Bo"}.items() <= e["conditions_ended"][-1].items()


def test_invisibility_holds_when_the_creature_is_hit_and_does_not_hit_back(t):
    _mage(t, spells=["invisibility", "light", "magic_missile"])
    t.add("Bo", "rogue")
    t.do("cast", who="Mo", spell="invisibility", target="Bo")
    t.fight({"foe": "giant_rat", "name": "Rat"}, first="foes")
    e = t.turn("Rat").do("attack", attacker="Rat", target="Bo", faces={"attack": [16], "resist": [3]})
    assert e["results"] == ["hit"] and t.conditions("Bo", "invisible")


def test_invisibility_ends_when_the_creature_casts(t):
    _mage(t, spells=["invisibility", "light", "magic_missile"])
    t.do("cast", who="Mo", spell="invisibility")
    assert t.conditions("Mo", "invisible")
    t.do("cast", who="Mo", spell="light")
    assert not t.conditions("Mo", "invisible")


def test_light_blinds_on_a_touch_that_hits(t):
    _mage(t, spells=["light", "magic_missile", "minor_illusion"])
    t.fight({"foe": "goblin", "name": "Gob"})
    e = t.do("cast", who="Mo", spell="light", target="Gob", blind=True, faces={"attack": [14], "resist": [9]})
    assert t.conditions("Gob", "blinded")[0]["ends_at"] == 3600 and e["blinded"]


# ---------------------------------------------------------------- namer

def test_naming_magic_deducts_the_keeper_set_cost(t):
    t.add("Nia", "namer")
    names = t.d("Nia")["true_names"]
    e = t.do("cast", who="Nia", spell="naming", names=names[:2], description="a wall of something", cost=4)
    assert e["names"] == names[:2] and e["cost"] == 4 and t.d("Nia")["resources"]["soul_points"] == 3
    assert t.refused("cast", who="Nia", spell="naming", names=names[:1], description="more", cost=4) == \
        "Nia has 3 soul points; this spell needs 4"


def test_naming_magic_uses_only_known_true_names(t):
    t.add("Nia", "namer")
    unknown = next(n for n in ("Spirit", "Fire", "Water", "Air", "Earth") if n not in t.d("Nia")["true_names"])
    assert f"does not know the true name {unknown}" in t.refused(
        "cast", who="Nia", spell="naming", names=[unknown], description="x", cost=1)


def test_naming_magic_cost_is_set_by_the_keeper(t):
    t.add("Nia", "namer")
    assert "the keeper sets" in t.refused("cast", who="Nia", spell="naming",
                                          names=t.d("Nia")["true_names"][:1], description="x")


def test_namer_signature_spell_has_a_fixed_cost(t):
    t.add("Nia", "namer", level=3)
    names = t.d("Nia")["true_names"][:2]
    t.do("use", who="Nia", ability="signature_spell", name="Stormcall", names=names, description="a storm", cost=5)
    assert t.refused("cast", who="Nia", spell="Stormcall", cost=3) == \
        "Stormcall is a signature spell: its cost is fixed at 5"
    e = t.do("cast", who="Nia", spell="Stormcall")
    assert e["cost"] == 5 and t.d("Nia")["resources"]["soul_points"] == 13 - 5


def test_blood_magic_trades_a_heart_for_d6_soul_points(t):
    t.add("Nia", "namer", level=2)
    t.do("cast", who="Nia", spell="naming", names=t.d("Nia")["true_names"][:1], description="x", cost=6)
    e = t.do("use", who="Nia", ability="blood_magic", faces={"soul_points": [5]})
    assert t.d("Nia")["hearts"] == 13 and t.d("Nia")["resources"]["soul_points"] == 9
    assert e["paid"] == {"hearts": 1}


def test_blood_magic_bans_healing_until_rest(t):
    t.add("Nia", "namer", level=2)
    t.add("Cy", "cleric")
    t.do("use", who="Nia", ability="blood_magic", faces={"soul_points": [2]})
    assert t.refused("use", who="Cy", ability="lay_on_hands", target="Nia", hearts=1) == \
        "Nia gave blood for magic and cannot be healed until a rest"
    assert t.conditions("Nia", "blood_magic_healing_ban")[0]["ends_on"] == "rest"
    t.do("rest")
    t.do("damage", who="Nia", amount=1)
    t.do("use", who="Cy", ability="lay_on_hands", target="Nia", hearts=1)
    assert t.d("Nia")["hearts"] == 13  # the heart given stays given: a rest heals nothing by itself


# ---------------------------------------------------------------- rests, replay, undo

def test_rest_restores_grit_soul_points_healing_points_blessings_spellbook_and_wand(t):
    t.add("Wren", "rogue")
    t.add("Cy", "cleric")
    t.add("Nia", "namer")
    _mage(t, level=2)
    t.do("use", who="Wren", ability="sprint")
    t.do("use", who="Cy", ability="bless", target="Wren")
    t.do("damage", who="Wren", amount=2)
    t.do("use", who="Cy", ability="lay_on_hands", target="Wren", hearts=2)
    t.do("cast", who="Nia", spell="naming", names=t.d("Nia")["true_names"][:1], description="x", cost=2)
    t.do("cast", who="Mo", spell="light")
    t.do("cast", who="Mo", spell="minor_illusion", via="wand")
    t.do("rest")
    assert t.d("Wren")["resources"] == {"grit": 3}
    assert t.d("Cy")["resources"] == {"healing_points": 10, "blessings": 2}
    assert t.d("Nia")["resources"] == {"soul_points": 7}
    assert t.d("Mo")["resources"] == {"spellbook": 1, "wand_charges": 3} and t.d("Mo")["spellbook_used"] == []


def test_undo_of_an_ability_restores_the_exact_prior_state(t):
    t.add("Cy", "cleric", level=3, specialty="holy_weapon")
    t.add("Bo", "rogue")
    t.fight({"foe": "ogre", "name": "Ogre"})
    for kind, args, faces in [
        ("use", {"who": "Cy", "ability": "bless", "target": "Bo"}, None),
        ("use", {"who": "Cy", "ability": "holy_weapon"}, None),
        ("cast", {"who": "Cy", "spell": "guiding_bolt", "target": "Ogre"},
         {"attack": [15, 1], "resist": [2], "damage": [1, 1, 1]}),
        ("use", {"who": "Bo", "ability": "dodge"}, None),
    ]:
        t.turn(args["who"])  # each on its own turn
        before = clone(t.state)
        t.do(kind, faces=faces, **args)
        assert t.state != before
        t.undo()
        assert t.state == before
        t.do(kind, faces=faces, **args)


def test_luck_die_rerolls_an_abilitys_roll(t):
    t.add("Fa", "fighter")
    t.do("damage", who="Fa", amount=6)
    t.do("use", who="Fa", ability="second_wind", faces={"heal": [2]})
    hearts = t.d("Fa")["hearts"]
    t.seq += 1
    e = t.eng.decide_luck("Fa", +1, t.rng, t.seq, roll="heal", face=3)
    t.eng.apply(e)
    t.log.append(e)
    assert t.d("Fa")["hearts"] == hearts + 3 and t.d("Fa")["resources"]["grit"] == 1


def test_a_random_mix_of_legal_and_illegal_ability_commands_replays_and_undoes_exactly(t):
    t.add("Wren", "rogue", level=2, specialty="bows")
    t.add("Fa", "fighter", level=3, weapon="sword_and_shield", specialty="armorer", technique="commander")
    t.add("Cy", "cleric", level=3, specialty="holy_weapon")
    t.add("Nia", "namer", level=2)
    t.fight({"foe": "ogre", "name": "Ogre"}, "goblin", "skeleton")
    pick = random.Random(11)
    menu = [
        ("use", {"who": "Wren", "ability": "bow_volley", "target": "Ogre"}),
        ("use", {"who": "Wren", "ability": "dodge"}),
        ("use", {"who": "Fa", "ability": "ferocious_strike"}),
        ("use", {"who": "Fa", "ability": "command_charge"}),
        ("use", {"who": "Fa", "ability": "second_wind"}),
        ("attack", {"attacker": "Fa", "target": "Ogre", "weapon": "Sword"}),
        ("attack", {"attacker": "Ogre", "target": "Wren", "dodge": True}),
        ("use", {"who": "Cy", "ability": "bless", "target": "Fa"}),
        ("use", {"who": "Cy", "ability": "holy_weapon"}),
        ("attack", {"attacker": "Cy", "target": "Goblin 1", "weapon": "holy weapon"}),
        ("cast", {"who": "Cy", "spell": "guiding_bolt", "target": "Skeleton 1"}),
        ("cast", {"who": "Cy", "spell": "inflict_wounds", "target": "Ogre"}),
        ("use", {"who": "Nia", "ability": "blood_magic"}),
        ("cast", {"who": "Nia", "spell": "naming", "names": t.d("Nia")["true_names"][:1], "description": "x",
                  "cost": 2}),
        ("next_turn", {}),
    ]
    history = [clone(t.state)]
    for _ in range(80):
        kind, args = pick.choice(menu)
        try:
            t.do(kind, **args)
            history.append(clone(t.state))
        except Refused:
            assert t.state == history[-1]
    assert replay(t.setup, t.log).state == t.state
    for _ in range(min(10, len(history) - 1)):
        t.undo()
        history.pop()
        assert t.state == history[-1]
