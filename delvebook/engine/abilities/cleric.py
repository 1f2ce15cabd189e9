"""The cleric: Lay on Hands, Bless, the specialties (Exorcist's holy water, the Healer, Holy Weapon), and
divine spellcasting for a blessing each.

How delvebook reads the text where it is silent:
- A blessing die is added to every D20 the blessed creature rolls (checks, saves, attacks, resisting).
- Holy Weapon's flying sword attacks as the cleric (``attack(cleric, target, weapon="holy weapon")``) and cannot
  be countered; it "shares your turn": once in each of the cleric's turns, without the cleric's action.
- Guiding Bolt's mark gives advantage to every attack against the target, weapon or spell.
- Dispel magic: a target that resists makes a contested Magic check, and the defender holds a tie.
- Lay on Hands repeats a death save once for each death (``once_per_death``), within the hour.
- Every spell that targets a creature works on a named NPC outside a fight as well as on a foe; its durations
  (Truth's hour, its 24-hour immunity) run on the game clock, across fights.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Literal

from ...core.declared import Chance, Record
from ...core.model import STATUS_ALIVE, STATUS_DEAD, is_dead, is_dying
from ...core.records import Damage
from .. import combat, effects
from ..base import Ctx, Reader, data_items
from ..effects import Boost, Input
from ..checks import resolve_death_save
from ..queries import SpellChoice, ability_ready, cost_text, d20_in, spell_inputs
from .shared import (TARGET, Heals, Saved, SpellHit, begin_cast, cost_paid, damage_with, end_kind, heal_with, pay,
                     require_ability, save, save_target, spell_attack, spell_effect)

__all__ = ["revive_problem"]


# ---------------------------------------------------------------- Lay on Hands

@effects.uses("lay_on_hands", inputs=(TARGET, Input("hearts", "number", True, "hearts healed, a healing point "
                                                                            "each")),
              records=Heals)
def _use_lay_on_hands(ctx, who, d, aid, a, target, opts):
    """Touch a creature: one healing point a heart."""
    n = opts.take("hearts")
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        ctx.refuse(f"Lay on Hands heals 1 or more hearts: say how many (hearts=3), not {n!r}")
    target = target or who
    _, t = ctx.require_living(target, "be healed")
    if is_dying(t) and not ctx.core["death_save"]["heal_dying"]:
        ctx.refuse(f"{target} is dying and must make a death save before being healed")
    missing = t["max_hearts"] - t["hearts"]
    if missing <= 0:
        ctx.refuse(f"{target} has {t['hearts']} of {t['max_hearts']} hearts: there is nothing to heal")
    if n > missing:
        ctx.refuse(f"{target} is missing {missing} hearts; Lay on Hands cannot heal {n}")
    out = cost_paid(ctx, who, a, times=n)
    out["healing"] = [combat.heal(ctx, target, n, "Lay on Hands", by=who)]
    return out


def revive_problem(r: Reader, who: str, target: str) -> str | None:
    """Why ``who``'s Lay on Hands cannot repeat ``target``'s death save now (not dead, dead too long, already
    repeated for this death), or None."""
    t = r.delver(target)
    if not is_dead(t):
        return f"{target} is not dead ({t['status']}): Lay on Hands repeats the death save of the dead"
    a = r.class_abilities(r.delver(who))["lay_on_hands_revive"]
    within = r.rules.duration_seconds(a["mechanics"]["within"])
    died_at = t.get("died_at")
    if died_at is None or r.state["clock"] - died_at > within:
        ago = "at an unknown time" if died_at is None else f"{(r.state['clock'] - died_at) // 60} minutes ago"
        return f"{target} died {ago}; Lay on Hands repeats a death save only within {within // 60} minutes"
    if a["mechanics"].get("once_per_death") and t.get("death_save_repeated") == died_at:
        return f"{target}'s death save was already repeated by Lay on Hands: it is repeated once for each death"
    return None


def _the_dead(r: Reader, who: str) -> list[tuple[str, str]]:
    """The dead whose death save Lay on Hands may repeat now."""
    return [(n, n) for n, d in r.state["delvers"].items() if is_dead(d) and revive_problem(r, who, n) is None]


def _no_dead(r: Reader, who: str) -> str | None:
    return None if _the_dead(r, who) else "no one has died in the last hour whose death save it may repeat"


class Revived(Record):
    """Lay on Hands' repeated death save: its total, whether it held, the chance, and whether the dead lives."""

    revived: bool
    total: int
    success: bool
    chance: Chance


@effects.uses("lay_on_hands_revive", problem=_no_dead, records=Revived,
              inputs=(Input("target", "creature", True, "the delver who died", _the_dead),))
def _use_revive(ctx, who, d, aid, a, target, opts):
    """1 healing point: repeat the death save of a delver who died within the hour (once for each death)."""
    if target is None:
        ctx.refuse("Lay on Hands on the dead: name the delver who died")
    why = revive_problem(ctx, who, target)
    if why:
        ctx.refuse(why)
    t = ctx.delver(target)
    died_at = t["died_at"]
    out = cost_paid(ctx, who, a)
    resolve_death_save(ctx, target, t, why=f"death save repeated by {who}'s Lay on Hands")
    if ctx.state["delvers"][target]["status"] == STATUS_DEAD:
        ctx.set(["delvers", target, "died_at"], died_at)  # still dead since then: the hour does not restart
        ctx.set(["delvers", target, "death_save_repeated"], died_at)
    else:
        enc = ctx.state["encounter"]
        if enc is not None and enc["round"] > 0 and target not in enc["order"]["party"]:
            ctx.set(["encounter", "order", "party"], enc["order"]["party"] + [target])  # back in the fight
    return {**out, "revived": ctx.state["delvers"][target]["status"] == STATUS_ALIVE}


# ---------------------------------------------------------------- Bless

class Blessing(Record):
    """Bless: the blessing die, and who is no longer blessed (one creature at a time)."""

    blessing_die: str
    no_longer_blessed: list[str]


@effects.uses("bless", inputs=(TARGET,), records=Blessing)
def _use_bless(ctx, who, d, aid, a, target, opts):
    """A blessing die on all the creature's D20 rolls for a minute; one blessed creature at a time."""
    target = target or who
    ctx.require_living(target, "be blessed")
    out = cost_paid(ctx, who, a)
    ended = ctx.end_conditions(lambda c: not (c["kind"] == "blessed" and c["source"] == who),
                               f"{who} blessed {target}: one creature at a time")
    mech = a["mechanics"]
    ctx.add_condition("blessed", target, who, duration=mech["duration"], die=str(mech["blessing_die"]))
    return {**out, "blessing_die": str(mech["blessing_die"]),
            "no_longer_blessed": [c["who"] for c in ended if c["who"] != target]}


@effects.roll_bonus(reads="blessed")
def _blessing(r: Reader, who: str) -> Boost | None:
    """A blessed creature adds its blessing die to every D20 roll it makes."""
    for cond in r.conditions(who, "blessed"):
        die = cond["data"].get("die")  # (a "blessed" the keeper typed by hand carries no die: nothing to add)
        if die:
            return Boost(str(die), f"blessing {die}")
    return None


# ---------------------------------------------------------------- specialties

class HolyWater(Record):
    """Holy water: a flask made, or splashed on the unholy (its tags) with its damage and the curses it lifted."""

    made: str | None = None
    damage: list[Damage] = ()
    unholy: list[str] = ()
    curses_lifted: list[int] = ()


@effects.uses("holy_water", inputs=(Input("target", "creature", False, "who is splashed (none: kept in a flask)"),
                                    Input("flask", "flag", False, "splash a kept flask instead of a blessing")),
              records=HolyWater)
def _use_holy_water(ctx, who, d, aid, a, target, opts):
    """Holy water: 3d6 to the unholy (demon, devil, undead, fae, evil); lifts curses.
    Without a target it is kept as a flask; ``flask=True`` splashes a kept flask instead of a blessing."""
    from_flask = bool(opts.take("flask", False))
    flasks = [i for i, it in enumerate(d["items"]) if it.get("item") == "holy_water" and it.get("count", 0) > 0]
    if from_flask:
        if target is None:
            ctx.refuse("a flask of holy water is splashed on someone: name the target")
        if not flasks:
            ctx.refuse(f"{who} carries no holy water")
        i = flasks[0]
        ctx.set(["delvers", who, "items", i, "count"], d["items"][i]["count"] - 1)
        out = {"paid": {"holy_water": 1}}
    else:
        out = cost_paid(ctx, who, a)
    if target is None:
        if flasks:
            i = flasks[0]
            ctx.set(["delvers", who, "items", i, "count"], d["items"][i]["count"] + 1)
        else:
            ctx.append(["delvers", who, "items"], {"item": "holy_water", "name": "Holy water", "count": 1})
        return {**out, "made": "holy water"}
    _, t = ctx.require_living(target, "be splashed")
    special = a["mechanics"]["extra_damage_against"]
    unholy = set(special["tags"]) & set(t.get("tags", ()))
    if unholy:
        out["damage"] = [damage_with(ctx, who, target, str(special["dice"]), "holy water", armor=False)]
    else:
        out["damage"] = []
    out["unholy"] = sorted(unholy)
    lifted = ctx.end_conditions(lambda c: not (c["who"] == target and c["kind"] == "cursed"), "holy water lifts curses")
    out["curses_lifted"] = [c["id"] for c in lifted]
    return out


@effects.uses("heal_by_touch", "heal_at_range", inputs=(TARGET,), records=Heals)
def _use_healer(ctx, who, d, aid, a, target, opts):
    """The Healer: a blessing heals 2d6 by touch, or D6 within 60 ft."""
    out = cost_paid(ctx, who, a)
    out["healing"] = [heal_with(ctx, who, target or who, str(a["mechanics"]["heal"]), a["name"])]
    return out


@effects.uses("holy_weapon")
def _use_holy_weapon(ctx, who, d, aid, a, target, opts):
    """A flying sword for a minute: attack(attacker=cleric, weapon="holy weapon"), +2d6 to hit, 2d6 damage."""
    out = cost_paid(ctx, who, a)
    end_kind(ctx, who, "holy_weapon", "a new holy weapon")
    mech = a["mechanics"]
    ctx.add_condition("holy_weapon", who, who, duration=mech["duration"],
                      attack_bonus=str(mech["attack_bonus"]), damage=str(mech["damage"]))
    return out


@effects.turn_slots(reads="holy_weapon")
def _holy_weapon_slot(r: Reader, who: str) -> list[str]:
    """The flying sword 'shares your turn': it attacks once in each of the cleric's turns, without its action."""
    return ["holy_weapon"] if r.conditions(who, "holy_weapon") else []


@effects.conjured_names(reads="holy_weapon")
def _holy_weapon_names(r: Reader, who: str) -> list[str]:
    """The flying sword, while Holy Weapon lasts: attacked with as ``weapon="holy weapon"``."""
    return ["holy weapon"] if r.conditions(who, "holy_weapon") else []


@effects.conjured_weapon
def _holy_weapon(r: Reader, who: str, c, weapon) -> dict | None:
    """``weapon="holy weapon"``: the flying sword, while it lasts (it shares the cleric's turn, and is not
    countered)."""
    if not (isinstance(weapon, str) and weapon.strip().lower().replace("_", " ") == "holy weapon"):
        return None
    for cond in r.conditions(who, "holy_weapon"):
        return {"name": "Holy weapon", "item": "holy_weapon", "damage": str(cond["data"]["damage"]),
                "skill": None, "ranged": False, "bonus": 0, "attack_bonus": str(cond["data"]["attack_bonus"]),
                "counter": False, "conjured": True, "turn_slot": "holy_weapon"}
    r.refuse(f"{who} has no holy weapon conjured (Holy Weapon calls one for a minute)")


# ---------------------------------------------------------------- divine spellcasting

def _divine(r: Reader, a) -> dict:
    """The spells divine spellcasting casts: the lists it names (``spells_from``: the divine list)."""
    out: dict = {}
    for src in a["mechanics"]["spells_from"]:
        if src in r.rules.spell_lists:
            out.update(data_items(r.rules.spell_lists[src]["spells"]))
    return out


def _offers_divine(r: Reader, who: str, d: dict, aid: str, a) -> list[SpellChoice]:
    """Every divine spell, for a blessing each, once the cleric reaches divine spellcasting."""
    if not ability_ready(r.rules, who, d, aid, a):
        return []
    words = cost_text(a["cost"])
    return [SpellChoice(sid, s["name"], "blessing", a["cost"], words, s["effect"], spell_inputs(sid), False,
                        f"{s['name']} ({words})") for sid, s in _divine(r, a).items()]


@effects.casting("divine_spellcasting", offers=_offers_divine)
def _cast_divine(ctx: Ctx, who: str, d: dict, spell: str, target, via, opts) -> dict:
    """A cleric's divine spell for one blessing."""
    ability = ctx.class_abilities(d)["divine_spellcasting"]
    require_ability(ctx, who, d, "divine_spellcasting", ability)
    divine = _divine(ctx, ability)
    if spell not in divine:
        ctx.refuse(f"divine spells are {', '.join(divine)}; not {spell!r}")
    s = divine[spell]
    out: dict = {"spell": spell, "via": "blessing"}
    handler = effects.SPELLS.get(spell)
    if handler is not None and handler.ready is not None:
        handler.ready(ctx, who, d, spell, s, target)
    out["paid"] = pay(ctx, who, ability["cost"], s["name"])
    begin_cast(ctx, who, s["name"])
    out.update(spell_effect(ctx, who, d, spell, target, opts))
    return out


@effects.spell("aid", inputs=(TARGET,), records=Heals)
def _aid(ctx, who, d, spell, s, target, opts):
    return {"healing": [heal_with(ctx, who, target or who, str(s["heal"]), s["name"],
                                  above_max=bool(s.get("heal_above_max")))]}


class Contest(Record):
    """A contested Magic check: the caster's roll and total against the resister's (``vs``), and how it went."""

    expr: str
    total: int
    vs: str
    vs_expr: str
    vs_total: int
    result: Literal["win", "tie", "lose"]


class Effect(Record):
    """The effect a Dispel magic ended: the condition's id, its kind, whom it was on."""

    id: int
    kind: str
    who: str


class Dispelled(Record):
    """Dispel magic: the effect it ended (none: the magic held), and the contest when its holder resisted."""

    dispelled: Effect | None
    contest: Contest | None = None


@effects.spell("dispel_magic", inputs=(Input("condition", "condition", True, "the effect: its id, or its kind on "
                                                                          "the target"),
                                       TARGET, Input("resist", "flag", False, "its holder resists (a contested "
                                                                             "Magic check)")),
               records=Dispelled)
def _dispel(ctx, who, d, spell, s, target, opts):
    """End one spell or magic effect (a condition, by id or by kind on the target); a target that
    resists makes a contested Magic check, and the defender holds a tie."""
    which = opts.take("condition")
    if isinstance(which, int) and not isinstance(which, bool):
        found = [c for c in ctx.state["conditions"] if c["id"] == which]
    else:
        if target is None or which is None:
            ctx.refuse("Dispel magic: name the effect (condition=<id>, or target= and condition=<kind>)")
        found = ctx.conditions(target, which)
    if not found:
        ctx.refuse(f"there is no such effect to dispel ({which!r}{' on ' + target if target else ''})")
    cond = found[0]
    resister = opts.take("resister", cond["who"] if opts.take("resist", False) else None)
    out: dict = {"dispelled": None}
    if resister is not None:
        _, rc = ctx.require_living(resister, "resist")
        mine = d20_in(ctx, who, d, "magic" if "magic" in d["skills"] else None).expr
        theirs = d20_in(ctx, resister, rc, "magic" if "magic" in rc.get("skills", {}) else None,
                        die=ctx.core["opposed_check"]["die"]).expr
        a = ctx.roll("check", mine, who=who, why="Dispel magic")
        b = ctx.roll("opposed", theirs, who=resister, why="resists Dispel magic")
        out["contest"] = {"expr": mine, "total": a.total, "vs": resister, "vs_expr": theirs, "vs_total": b.total,
                          "result": "win" if a.total > b.total else "tie" if a.total == b.total else "lose"}
        if a.total <= b.total:
            return out
    ctx.end_conditions(lambda c: c["id"] != cond["id"], f"{who} dispelled it")
    out["dispelled"] = {"id": cond["id"], "kind": cond["kind"], "who": cond["who"]}
    return out


@effects.spell("inflict_wounds", records=Saved, inputs=(Input("target", "creature", True, "who is touched"),
                                         Input("save_target", "number", False, "the save's number (the rules' if "
                                                                               "none)")))
def _inflict_wounds(ctx, who, d, spell, s, target, opts):
    if target is None:
        ctx.refuse("Inflict wounds needs a target to touch")
    _, t = ctx.require_living(target, "be touched")
    saved = save(ctx, target, t, save_target(ctx, s, opts), f"save against {s['name']}")
    return {"save": saved,
            "damage": [damage_with(ctx, who, target, str(s["damage"]), s["name"], halve=saved["success"])]}


class Locating(Record):
    """Locate Creature: what the cleric senses the way to."""

    locating: str


@effects.spell("locate_creature", inputs=(Input("creature", "text", True, "a creature, or a type of creature"),),
               records=Locating)
def _locate(ctx, who, d, spell, s, target, opts):
    creature = opts.take("creature", target)
    if not creature:
        ctx.refuse("Locate Creature: name a creature, or a type of creature (creature=...)")
    ctx.add_condition("locating", who, who, duration=s["duration"], creature=creature)
    return {"locating": creature}


def _truth_ready(ctx, who, d, spell, s, target) -> None:
    """Before the blessing is spent: a creature to question, not immune since its last save."""
    if target is None:
        ctx.refuse("Truth needs a creature to question")
    ctx.require_living(target, "be questioned")
    immune = ctx.conditions(target, "truth_immune")
    if immune:
        ctx.refuse(f"{target} saved against Truth and is immune to it until the clock reads "
                   f"{immune[0]['ends_at']} s")


@effects.spell("truth", ready=_truth_ready, records=Saved,
               inputs=(Input("target", "creature", True, "who is questioned"),
                       Input("save_target", "number", False, "the save's number (the rules' if none)")))
def _truth(ctx, who, d, spell, s, target, opts):
    _, t = ctx.combatant(target)
    saved = save(ctx, target, t, save_target(ctx, s, opts), f"save against {s['name']}")
    if saved["success"]:
        ctx.add_condition("truth_immune", target, who, duration=s["immunity_after_save"])
    else:
        ctx.add_condition("compelled_truth", target, who, duration=s["duration"])
    return {"save": saved}


class Marked(SpellHit):
    """Guiding Bolt: its spell attack and damage (``SpellHit``), and whom it marked."""

    marked: str | None = None


@effects.spell("guiding_bolt", records=Marked, inputs=(Input("target", "creature", True, "who the bolt is aimed at"),))
def _guiding_bolt(ctx, who, d, spell, s, target, opts):
    name = s["name"]
    if target is None:
        ctx.refuse("Guiding Bolt is a ranged attack: name its target")
    a = spell_attack(ctx, who, d, target, name, opts)
    out = {"spell_attack": a,
           "damage": [damage_with(ctx, who, target, str(s["damage"]), name, max_damage=bool(a.get("max_damage")),
                                  attack=True)] if a["lands"] else []}
    if a["lands"] and not is_dead(ctx.combatant(target)[1]):
        marks = s["marks"]
        ends = {"ends_on": f"turn:{who}"} if marks["duration"] == "until_caster_next_turn" \
            else {"duration": marks["duration"]}
        ctx.add_condition("marked", target, who, **ends, advantage_against=bool(marks["advantage_against"]))
        out["marked"] = target
    return out


@effects.attacks_against(reads="marked")
def _marked(r: Reader, target: str) -> bool:
    """A marked target: attacks against it have advantage (until the mark ends)."""
    for cond in r.conditions(target, "marked"):
        if cond["data"].get("advantage_against"):
            return True
    return False
