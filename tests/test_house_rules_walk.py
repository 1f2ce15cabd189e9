"""House rules do what they say, by construction: every field of the rules data a campaign may set is changed, one
at a time, and a small scenario that plays that part of the rules is played with the shipped value and with the
changed one: the outcome (each event, the state, what the table shows) differs. A field that is no house rule
(``rules.fixed``) is refused, at its line in ``campaign.yaml``, as not overridable.

The scenarios (``walkkit.Walk``) play in memory with a seeded RNG: the core rules with typed faces; each class with a
delver for every option it offers, each checking, attacking, using every ability and casting every spell it has;
each foe of the bestiary fought and smitten; each piece of gear given, bought and used; each spell cast; a namer
for each D66 true name.
"""

from __future__ import annotations

import copy
import functools
import re
from typing import Any, Callable

import pytest

import delvebook as db
from delvebook.core.rules.fixed import fixed_reason
from delvebook.core.rules.load import base_rules
from delvebook.core.rules.schema.data import _CORE_CHOICES  # the readings a core field may name

from walkkit import OVERRIDE, Walk, leaves

BASE = base_rules()
LEAVES = list(leaves(BASE.data))
FIXED = [(p, v) for p, v in LEAVES if fixed_reason(p, BASE.data)]
FREE = [(p, v) for p, v in LEAVES if not fixed_reason(p, BASE.data)]


# ---------------------------------------------------------------- a changed value for each field

_CHOICES = {("core", block, field): allowed for block, field, allowed in _CORE_CHOICES}

_CHANGED: dict[tuple, Any] = {
    ("core", "armor", "broken_at_dv"): 9,            # a shield at DV 9 after one hit is broken
    ("core", "hearts", "floor"): 1,
    ("core", "death_save", "target"): 5,
    ("core", "sight", "melee_ft"): 15,               # out of a Tunnel Fighter's 10 ft
    ("core", "rest", "restores"): ["grit"],
    ("core", "rest", "ends"): ["blood_magic_charge"],
    ("core", "currency", "units", "crown", "talons"): 12,
    ("core", "xp", "coin"): "talon",
    ("core", "levels", "thresholds", 2): 150,
    ("core", "levels", "thresholds", 3): 250,
    ("core", "luck_dice", "die"): "d8",
    ("core", "advantage", "dice"): "3d20kh1",
    ("core", "disadvantage", "dice"): "3d20kl1",
    ("core", "initiative", "die"): "d8",
    ("classes", "fighter", "abilities", "blind_fighting", "mechanics", "range_ft"): 4,   # nearer than a melee's 5 ft
    ("spells", "divine", "spells", "guiding_bolt", "marks", "duration"): "minute",
    ("spells", "grimoire", "random_pick"): "d4",     # one face a spell -> only the first four are ever picked
}
"""A value for the fields a generic change would make invalid or leave unplayed."""


def _dice(v: str) -> str:
    m = re.fullmatch(r"(\d*)d(\d+)(.*)", v)
    if m is None:
        return v + "+1"
    count, sides, rest = m.groups()
    if rest.startswith("+") and rest[1:].isdigit():
        return f"{count}d{sides}+{int(rest[1:]) + 1}"
    if rest:
        return f"{int(count or 1) + 1}d{sides}{rest}"
    if count:
        return f"{int(count) + 1}d{sides}"
    return {"6": "d8", "20": "d12", "4": "d6", "8": "d10"}.get(sides, "d6")


_ENUMS = {"kind": ("worn", "shield"), "duration": ("minute", "hour", "day", "until_caster_next_turn"),
          "within": ("round", "hour"), "immunity_after_save": ("hour", "day"),
          "raise_to": ("proficient", "expert"), "ammo": ("arrow", "bolt"), "bonus": ("proficient", "expert")}
"""Fields that hold one word of a few: the change is another of them."""

_SKILL_LEVELS = ("proficient", "expert")


def changed(path: tuple, value: Any) -> Any:
    """A different value of the same kind for the field at ``path``, one the schema takes."""
    if path in _CHANGED:
        return _CHANGED[path]
    if path in _CHOICES:
        return next(a for a in _CHOICES[path] if a != value)
    if path[-1] in _ENUMS and value in _ENUMS[path[-1]]:
        return next(a for a in _ENUMS[path[-1]] if a != value)
    if value in _SKILL_LEVELS and "skills" in path:
        return next(a for a in _SKILL_LEVELS if a != value)
    if path[-1] == "spells_from":
        return list(value[1:]) if len(value) > 1 else ["grimoire" if value[0] != "grimoire" else "divine"]
    if path[-1] == "level" and path[-3] == "abilities":
        return value + 1 if value < BASE.level_cap else value - 1
    if path[-1] == "spells_known":
        return value - 2 if isinstance(value, int) else 4  # all of the list -> four of it
    if path[-1] == "number" and path[0] == "spells":
        return value + 1 if value < len(BASE.spell_lists[path[1]]["spells"]) else value - 1
    if path[-1] == "resource" and path[-2] == "variable_cost":
        return "spirit"
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if value is None:
        return {"price": {"talon": 3}, "armor": {"av": 2, "dv": 3}, "skill": "daggers", "ammo": "arrow",
                "random_pick": "d6"}[path[-1]]
    if isinstance(value, str):
        if re.fullmatch(r"\d*d\d+.*", value):
            return _dice(value)
        return f"{value} (house)"
    if isinstance(value, (list, tuple)):
        if value and isinstance(value[0], dict):  # a list of gear: one more of the first
            return [{**value[0], "count": value[0]["count"] + 1}] + [dict(v) for v in value[1:]]
        if path[-1] == "tags":
            return list(value) + ["undead"] if "undead" not in value else [v for v in value if v != "undead"]
        return list(value[1:])
    raise AssertionError(f"no change known for {path}: {value!r}")


def override(path: tuple, value: Any) -> dict:
    """The house rules that set ``path`` to ``value`` (a spell's number swapped with another's: numbers run once each)."""
    if path[-1] == "number" and path[0] == "spells":
        other = next(sid for sid, s in BASE.spell_lists[path[1]]["spells"].items()
                     if hasattr(s, "get") and s.get("number") == value)
        return {"spells": {path[1]: {"spells": {path[3]: {"number": value},
                                                 other: {"number": BASE.spell(path[3])["number"]}}}}}
    if path[-1] == "resource" and path[-2] == "variable_cost":  # a new resource to pay with, and the cost on it
        cls = path[1]
        return {"classes": {cls: {"resources": {value: {"name": "Spirit", "max": {1: 4, 2: 5, 3: 6},
                                                        "restores_on": "rest"}},
                                  "abilities": {path[3]: {"variable_cost": {"resource": value}}}}},
                "core": {"rest": {"restores": list(BASE.core["rest"]["restores"]) + [value]}}}
    out: Any = value
    for key in reversed(path):
        out = {key: out}
    return out


# ---------------------------------------------------------------- the scenarios

FIGHTER = {"weapon": "sword_and_shield"}


def _level(w: Walk, who: str, *choices: tuple) -> None:
    """Level ``who`` up, looking at each choice before it is made."""
    from delvebook.engine import queries
    for level_choices in choices:
        w.do("level_up", who=who)
        w.look(who)
        for choice, option in level_choices:
            if option == "first":
                spec = w.state["delvers"][who]["pending_choices"]
                offered = queries.choice_options(w.state, w.rules, who, spec[0]) if spec else []
                option = offered[0][1] if offered else None
            w.do("choose", who=who, choice=choice, option=option)
            w.look(who)


def _fight(w: Walk, *foes: str) -> None:
    if w.state["encounter"] is not None:
        w.do("end_encounter", keep=None)
    w.do("encounter", foes=list(foes) or ["goblin", "ogre"])
    w.do("initiative", first="party")


CLASS_PARTIES: dict[str, list] = {
    "rogue": [("Ash", "daggers", "sleight_of_hand"), ("Bea", "bows", "insight"), ("Cole", "bard_magic", "swords"),
              ("Dirk", "daggers", "magic")],
    "fighter": [("Finn", "swords", ("oath", "vengeance"), {"weapon": "sword_and_shield"}),
                ("Gus", "bows", "blood_magic", {"weapon": "weapon_and_bow"}),
                ("Hal", "pugilist", "commander", {"weapon": "heavy_weapon"}),
                ("Ivo", "armorer", ("oath", "protection"), {"weapon": "sword_and_shield"}),
                ("Jon", "tunnel_fighter", ("oath", "redemption"), {"weapon": "sword_and_shield"}),
                ("Kai", "crossbows", ("oath", "law"), {"weapon": "weapon_and_bow"}),
                ("Lev", "swords", ("oath", "truth"), {"weapon": "sword_and_shield"})],
    "mage": [("Mira", None, None, {"weapon": "dagger"}), ("Nell", None, None, {"weapon": "staff"})],
    "cleric": [("Odo", "exorcist", None, {"weapon": "dagger"}), ("Pia", "healer", None, {"weapon": "staff"}),
               ("Quin", "holy_weapon", None, {"weapon": "dagger"})],
    "namer": [("Rue", None, None, {})],
}


def class_scenario(rules, cid: str) -> str:
    """Delvers of class ``cid`` with every option its levels offer, each seen at every level and playing all it has
    in a fight; a second fight in the dark; a rest."""
    w = Walk(rules)
    w.party(("Zed", "fighter", FIGHTER))
    w.do("add_delver", name="Yan", class_id=cid, choices={"weapon": "no such option"})
    names = []
    for entry in CLASS_PARTIES[cid]:
        name, spec, tech = entry[:3]
        start = entry[3] if len(entry) > 3 else None
        w.party((name, cid, start))
        names.append(name)
        w.look(name)
        w.do("give", who=name, item="scroll", spells=["light"])
        w.do("give", who=name, item="instrument")
        w.do("give", who=name, item="sword", count=2)
        w.do("earn", amount="40C", who=name)
        l2 = [("specialty", spec)] if spec else []
        if isinstance(tech, tuple):
            l3 = [("technique", tech[0]), ("oath", tech[1])]
        elif tech in ("sleight_of_hand", "insight", "swords", "magic"):
            l3 = [("skill", tech), ("expertise", "first")]
        else:
            l3 = [("technique", tech)] if tech else []
        _level(w, name, l2, l3)
        if spec == "bard_magic":
            w.do("use", who=name, ability="bard_magic", choose="light")
    w.do("give", who=names[0], item="scroll", spells=["find_familiar"])
    w.do("give", who=names[0], item="spellbook", spells=["invisibility"], name="A found book")
    _fight(w, "goblin", "skeleton", "ogre")
    for name in names:
        w.everything(name)
        w.look(name)
    w.do("damage", who="Zed", amount=99)
    w.do("death_save", who="Zed", faces={"death_save": [1]})
    for _ in range(25):
        w.do("next_turn")
    if cid == "cleric":  # Lay on Hands on the dead, a repeat that fails, and a second try
        w.standing(names[0])
        for _ in range(2):
            w.do("use", who=names[0], ability="lay_on_hands_revive", target="Zed", faces={"death_save": [1]},
                 keeper_override=OVERRIDE)
    for name in names:
        w.everything(name)
    _fight(w, "zombie", "goblin")
    w.do("lighting", dark=True)
    for name in names:
        w.look(name)
        w.everything(name)
    w.do("end_encounter", keep=None)
    w.do("rest")
    for name in names:
        w.look(name)
    return w.outcome()


def _core_checks(w: Walk) -> None:
    """Checks, saves, opposed checks, skill bonuses, luck dice across two sessions."""
    w.party(("Bo", "rogue"), ("Finn", "fighter", FIGHTER))
    w.do("start_session")
    w.do("check", who="Bo", skill="stealth", target=12, faces={"check": [10, 2]})
    _luck(w, "Bo", 1, 1)
    w.do("check", who="Bo", skill="stealth", target=12, faces={"check": [10, 2]})
    _luck(w, "Bo", -1, 1)
    w.do("check", who="Bo", skill="stealth", vs="Finn", vs_skill="athletics")
    w.do("check", who="Finn", target=11, save=True)
    w.do("end_session")
    w.do("start_session")
    w.do("level_up", who="Bo")
    w.do("choose", who="Bo", choice="specialty", option="daggers")
    w.do("check", who="Bo", skill="daggers", target=15)
    w.look("Bo", "Finn")


def _core_progress(w: Walk) -> None:
    """XP, levels, money, time, conditions' durations, rests and the hearts a level adds during a healing ban."""
    w.party(("Bo", "rogue"), ("Finn", "fighter", FIGHTER), ("Mira", "mage"), ("Cy", "cleric"), ("Nim", "namer"))
    w.do("level_up", who="Nim")
    w.do("use", who="Nim", ability="blood_magic")
    w.do("level_up", who="Nim")
    w.do("award_xp", amount=500)
    w.do("award_xp", amount=501)
    w.do("award_xp", amount=7)
    w.do("complete_quest", name="the drowned bell")
    w.do("explore_room", name="the flooded hall")
    w.do("earn", amount="3C 5T", who="Bo")
    w.do("earn", amount="1B")
    w.do("earn", amount="3Q")
    w.do("condition", who="Bo", name="cursed", duration="day")
    w.do("condition", who="Bo", name="hexed", duration="hour")
    w.do("condition", who="Bo", name="dazed", duration="minute")
    w.do("use", who="Cy", ability="bless", target="Bo")
    w.do("use", who="Finn", ability="second_wind")
    w.do("advance_time", minutes=1)
    w.do("rest")
    w.do("advance_time", hours=15)
    w.look("Bo", "Finn", "Nim")


def _core_attacks(w: Walk) -> None:
    """Attacks with typed faces: a tie, a miss, multi-attacks, advantage, fists, armor, a bow and a crossbow."""
    w.party(("Bo", "rogue"), ("Finn", "fighter", FIGHTER))
    w.do("give", who="Finn", item="crossbow")
    w.do("give", who="Finn", item="bolt", count=5)
    w.do("encounter", foes=["ogre", "ogre", "bandit", "giant_rat", "giant_rat", "giant_rat"])
    w.do("initiative")
    w.do("attack", attacker="Finn", target="Giant rat 1", faces={"attack": [10, 2], "resist": [12]},
         keeper_override=OVERRIDE)
    w.do("attack", attacker="Finn", target="Giant rat 2", faces={"attack": [2, 1], "resist": [13]},
         keeper_override=OVERRIDE)
    w.do("attack", attacker="Finn", target="Ogre 1", multi=2, keeper_override=OVERRIDE,
         faces={"attack": [5], "attack#2": [12], "bonus": [2], "resist": [14]})
    w.do("attack", attacker="Finn", target="Ogre 2", multi=2, keeper_override=OVERRIDE,
         faces={"attack": [2], "attack#2": [15], "bonus": [2], "resist": [14]})
    w.do("attack", attacker="Finn", target="Ogre 2", multi=2, keeper_override=OVERRIDE,
         faces={"attack": [2], "attack#2": [3], "bonus": [2], "resist": [14]})
    w.do("attack", attacker="Bo", target="Ogre 2", weapon="bow", multi=2, keeper_override=OVERRIDE)
    w.do("attack", attacker="Bo", target="Ogre 2", advantage=True, keeper_override=OVERRIDE)
    w.do("attack", attacker="Finn", target="Ogre 2", weapon="unarmed", keeper_override=OVERRIDE,
         faces={"attack": [19, 1], "resist": [1]})
    w.do("attack", attacker="Finn", target="Bandit 1", weapon="crossbow", keeper_override=OVERRIDE)
    w.do("reload", who="Finn", keeper_override=OVERRIDE)
    w.do("damage", who="Finn", amount=1, armor=True)
    w.do("attack", attacker="Bandit 1", target="Finn", keeper_override=OVERRIDE, faces={"attack": [19], "resist": [1]})
    w.do("attack", attacker="Ogre 1", target="Finn", keeper_override=OVERRIDE)
    w.do("end_encounter", keep=None)
    w.look("Bo", "Finn")


def _core_turns(w: Walk) -> None:
    """The turn economy without overrides, a Commander's order, and rounds passing."""
    w.party(("Bo", "rogue"), ("Finn", "fighter", FIGHTER))
    _level(w, "Finn", [("specialty", "tunnel_fighter")], [("technique", "commander")])
    w.do("encounter", foes=["ogre"])
    w.do("initiative", first="party")
    w.do("attack", attacker="Bo", target="Ogre 1")
    w.do("attack", attacker="Bo", target="Ogre 1")
    w.do("use", who="Bo", ability="sprint")
    w.do("next_turn")
    w.do("attack", attacker="Finn", target="Ogre 1")
    w.do("use", who="Finn", ability="second_wind")
    w.do("use", who="Finn", ability="command_charge")
    w.do("next_turn")
    for _ in range(6):
        w.do("next_turn")
    w.look("Bo", "Finn")


def _core_sight(w: Walk) -> None:
    """A blinded foe, a dark fight, a Tunnel Fighter, a Light, spells against armor."""
    w.party(("Bo", "rogue"), ("Finn", "fighter", FIGHTER))
    w.do("add_delver", name="Mira", class_id="mage", faces=_BOOK)  # (its spells typed: the dice that follow are
    #                                                                 the same however long the mage's list is)
    _level(w, "Finn", [("specialty", "tunnel_fighter")], [])
    w.do("give", who="Mira", item="scroll", spells=["light"], count=3)
    w.do("give", who="Mira", item="scroll", spells=["magic_missile"])
    w.do("encounter", foes=["ogre", "ogre", "orc"])
    w.do("initiative", first="party")
    w.do("cast", who="Mira", spell="light", via="scroll", blind=True, target="Ogre 1", keeper_override=OVERRIDE,
         faces={"attack": [15], "resist": [2]})
    w.do("attack", attacker="Ogre 1", target="Finn", keeper_override=OVERRIDE)
    w.do("attack", attacker="Bo", target="Ogre 1", keeper_override=OVERRIDE)
    w.do("cast", who="Mira", spell="magic_missile", via="scroll", target="Orc 1", keeper_override=OVERRIDE)
    w.do("lighting", dark=True)
    w.do("attack", attacker="Finn", target="Ogre 2", keeper_override=OVERRIDE)
    w.do("attack", attacker="Bo", target="Ogre 2", keeper_override=OVERRIDE)
    w.do("cast", who="Mira", spell="light", via="scroll", item="a pebble", keeper_override=OVERRIDE)
    w.do("attack", attacker="Finn", target="Ogre 2", keeper_override=OVERRIDE)  # a Tunnel Fighter: lit or not, it
    w.do("attack", attacker="Bo", target="Ogre 2", keeper_override=OVERRIDE)    # tells (advantage in the dark)


def _core_death(w: Walk) -> None:
    """Dying, death saves, healing the dying, harm by hand."""
    w.party(("Bo", "rogue"), ("Cy", "cleric"), ("Mira", "mage"))
    w.do("damage", who="Bo", amount=99)
    w.do("heal", who="Bo", amount=2)
    w.do("death_save", who="Bo", faces={"death_save": [6]})
    w.do("damage", who="Cy", amount=w.state["delvers"]["Cy"]["hearts"] - 1)
    w.do("damage", who="Mira", amount=99)
    w.do("death_save", who="Mira", faces={"death_save": [5]})
    w.look("Bo", "Cy", "Mira")


def core_scenario(rules) -> str:
    """The core numbers, each met in a small table of its own, with typed faces where a number decides."""
    out = []
    for part in (_core_checks, _core_progress, _core_attacks, _core_turns, _core_sight, _core_death):
        w = Walk(rules)
        part(w)
        out.append(w.outcome())
    return "\n".join(out)


def _luck(w: Walk, who: str, sign: int, face: int) -> None:
    from delvebook.engine import Refused
    player = w.state["delvers"][who]["player"]
    try:
        e = w.engine.decide_luck(player, sign, w.rng, len(w.seen) + 1, face=face)
    except Refused as err:
        w.seen.append(["refused", "luck", str(err)])
        return
    w.engine.apply(e)
    w.seen.append({k: v for k, v in e.items() if k != "ts"})


def foe_scenario(rules, foe: str) -> str:
    """A foe fought: attacked, smitten, splashed with holy water, attacking a fighter, vanquished for XP."""
    w = Walk(rules)
    w.party(("Finn", "fighter", FIGHTER), ("Odo", "cleric"), ("Bo", "rogue"))
    _level(w, "Finn", [("specialty", "swords")], [("technique", "oath"), ("oath", "vengeance")])
    _level(w, "Odo", [("specialty", "exorcist")], [])
    w.do("encounter", foes=[foe, foe])
    w.do("initiative", first="party")
    name = next(iter(w.state["encounter"]["foes"]))
    w.do("attack", attacker="Finn", target=name, smite=True, keeper_override=OVERRIDE,
         faces={"attack": [18, 1, 1], "resist": [2]})
    w.do("use", who="Odo", ability="holy_water", target=name, keeper_override=OVERRIDE)
    w.do("attack", attacker="Bo", target=name, weapon="bow", keeper_override=OVERRIDE)
    for _ in range(3):
        w.do("attack", attacker=name, target="Finn", keeper_override=OVERRIDE)
        w.do("attack", attacker="Bo", target=name, keeper_override=OVERRIDE, faces={"attack": [20, 6], "resist": [1]})
    w.do("end_encounter", keep=None)
    return w.outcome()


def gear_scenario(rules, item: str) -> str:
    """A piece of gear given, bought, worn or wielded, and used in a fight."""
    w = Walk(rules)
    w.party(("Finn", "fighter", FIGHTER), ("Lark", "rogue"))
    _level(w, "Lark", [("specialty", "bard_magic")], [])
    w.do("use", who="Lark", ability="bard_magic", choose="light")
    w.do("earn", amount="30C", who="Finn")
    w.do("buy", who="Finn", item=item)
    w.do("give", who="Finn", item=item)
    w.do("give", who="Lark", item=item)
    w.look("Finn")
    w.do("cast", who="Lark", spell="light", keeper_override=OVERRIDE)
    _fight(w, "goblin", "goblin")
    for _ in range(2):
        w.do("attack", attacker="Finn", target="Goblin 1", weapon=item, keeper_override=OVERRIDE)
        w.do("attack", attacker="Goblin 2", target="Finn", keeper_override=OVERRIDE, faces={"attack": [20],
                                                                                             "resist": [1]})
    return w.outcome()


_BOOK = {"spell": [1], "spell#2": [2], "spell#3": [3]}
"""A level-1 mage's three random spells, typed: the first three of the list."""


def spell_scenario(rules, spell: str) -> str:
    """A spell cast from a scroll by a mage and, a divine one, by a cleric; copied into a book and cast from it; a
    mage whose first random spell is the one this spell's number picks (its number, as shipped)."""
    w = Walk(rules)
    number = BASE.spell(spell).get("number")
    if number is not None:
        others = [n for n in range(1, len(BASE.spell_lists["grimoire"]["spells"]) + 1) if n != number][:2]
        w.do("add_delver", name="Nim", class_id="mage",
             faces={"spell": [number], "spell#2": [others[0]], "spell#3": [others[1]]})
    w.do("add_delver", name="Mira", class_id="mage", faces=_BOOK)
    w.party(("Cy", "cleric"), ("Finn", "fighter", FIGHTER))
    _level(w, "Cy", [("specialty", "healer")], [])
    _level(w, "Mira", [], [])
    w.do("give", who="Mira", item="scroll", spells=[spell], count=2)
    w.do("give", who="Mira", item="spellbook", spells=[spell], name="A found book")
    w.look("Mira", "Cy")
    w.do("earn", amount="20C", who="Mira")
    w.do("use", who="Mira", ability="continued_research", spell=spell)
    _fight(w, "skeleton", "goblin")
    w.do("damage", who="Finn", amount=4)
    for target in ("Skeleton 1", "Finn"):
        for caster, via in (("Mira", "scroll"), ("Mira", None), ("Cy", None)):
            w.do("condition", who=target, name="warded")
            w.do("cast", who=caster, spell=spell, target=target, via=via, keeper_override=OVERRIDE,
                 **({"condition": "warded"} if spell == "dispel_magic" else {}),
                 **({"save_target": 20} if spell == "truth" and via is None else {}),
                 **({"creature": "a wolf"} if spell == "locate_creature" else {}))
    for _ in range(12):
        w.do("next_turn")
    w.do("end_encounter", keep=None)
    w.do("advance_time", hours=2)
    w.do("rest")
    w.do("advance_time", hours=20)
    return w.outcome()


def names_scenario(rules) -> str:
    """A namer for each three of the 36 D66 results, rolled with typed faces."""
    w = Walk(rules)
    results = [10 * a + b for a in range(1, 7) for b in range(1, 7)]
    for k in range(12):
        rolls = results[3 * k: 3 * k + 3]
        faces = {("true_name" if i == 0 else f"true_name#{i + 1}"): [r // 10, r % 10] for i, r in enumerate(rolls)}
        w.do("add_delver", name=f"Namer {k}", class_id="namer", faces=faces)
    return w.outcome()


def scenario_for(path: tuple) -> tuple[str, Callable]:
    """The scenario that plays the field at ``path``: (its key, a function of the rules)."""
    top = path[0]
    if top == "core":
        return "core", core_scenario
    if top == "classes":
        return f"class:{path[1]}", functools.partial(class_scenario, cid=path[1])
    if top == "bestiary":
        return f"foe:{path[1]}", functools.partial(foe_scenario, foe=path[1])
    if top == "gear":
        return f"gear:{path[2]}", functools.partial(gear_scenario, item=path[2])
    if top == "spells":
        spell = path[3] if len(path) > 3 else next(iter(BASE.spell_lists[path[1]]["spells"]))
        return f"spell:{spell}", functools.partial(spell_scenario, spell=spell)
    if top == "true_names":
        return "names", names_scenario
    raise AssertionError(f"no scenario plays {path}")


@functools.lru_cache(maxsize=None)
def _shipped(key: str) -> str:
    path = _KEYS[key]
    return scenario_for(path)[1](BASE)


_KEYS: dict[str, tuple] = {}


def _dotted(path: tuple) -> str:
    return ".".join(map(str, path))


# ---------------------------------------------------------------- the walk

def _walked(path: tuple):
    """A field to walk; a class's (each plays a party of that class through three levels and two fights, about
    0.1 s a field) in the slow tier, the rest (core, spells, gear, foes, true names) in the fast one."""
    marks = [pytest.mark.slow] if path[0] == "classes" else []
    return pytest.param(path, marks=marks, id=_dotted(path))


@pytest.mark.parametrize("path", [_walked(p) for p, _ in FREE])
def test_a_house_rule_changing_this_field_changes_play(path):
    value = dict(FREE)[path]
    key, play = scenario_for(path)
    _KEYS.setdefault(key, path)
    house = override(path, changed(path, value))
    rules = BASE.with_overrides(house)
    assert play(rules) != _shipped(key), f"{_dotted(path)} changed to {changed(path, value)!r} changes nothing"


def test_every_field_that_is_no_house_rule_is_refused_at_its_line_as_not_overridable(tmp_path):
    import yaml
    camp = db.Campaign.create(tmp_path / "c", name="Walk", seed=1)
    camp.close()
    file = tmp_path / "c" / "campaign.yaml"
    data = yaml.safe_load(file.read_text())
    for path, value in FIXED:
        data["house_rules"] = override(path, changed(path, value) if value not in ([], ()) else ["x"])
        file.write_text(yaml.safe_dump(data, sort_keys=False))
        with pytest.raises(db.store.StoreError) as err:
            db.Campaign.open(tmp_path / "c", read_only=True)
        said = str(err.value)
        assert re.search(rf"campaign\.yaml:\d+: house_rules\.{re.escape(_dotted(path))}: not overridable: ", said), said


def test_every_field_of_the_rules_data_is_walked_or_refused():
    assert len(FREE) + len(FIXED) == len(LEAVES) and FREE and FIXED
