"""The rogue: grit (Dodge, Sprint, Focus, Hide), the Daggers and Bows specialties, and Bard Magic.

How delvebook reads the text where it is silent (each is in the rules data too):
- Sprint and Hide are taken on the rogue's turn without its action; Dodge and Focus are reactions (any moment).
- Bard Magic's spell changes once between one rest and the next; the first choice is no change.
- Dodge is declared before the damage lands: ``use(who, "dodge")`` leaves a ``dodging`` condition that the
  next damage reaching the delver spends, or ``attack(..., dodge=True)`` / ``damage(..., dodge=True)`` spends
  the grit when a hit lands. The D6 comes off before armor; damage dodged to nothing does not touch armor.
- Focus paid with a roll (``focus=True``) or readied by ``use`` adds its D6 to the next roll using a skill.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from ...core.declared import Record, extend
from ...core.model import is_alive
from ...core.records import Damage
from .. import effects
from ..base import Ctx, Reader, data_items
from ..checks import Checked, check as check_cmd
from ..combat import Struck
from ..effects import Boost, Input, Reduction
from ..gear import INSTRUMENT_WORDS, is_instrument
from ..queries import SpellChoice, ability_ready, cost_text, skill_bonus, spell_inputs
from . import Cast
from .shared import (ATTACK_INPUTS, attack_now, begin_cast, cost_paid, dual_wield, end_kind, in_fight,
                     pay, require_ability, spell_effect, until_next_turn, weapon_for)

__all__ = ["INSTRUMENTS", "dodge_reduction", "bard_problem"]

INSTRUMENTS = INSTRUMENT_WORDS
"""Words in an item's name that make it an instrument to play Bard Magic on (``gear.is_instrument``)."""


# ---------------------------------------------------------------- Dodge

@effects.uses("dodge")
def _use_dodge(ctx, who, d, aid, a, target, opts):
    """Dodge declared before the damage: the next damage reaching the delver loses D6."""
    if ctx.conditions(who, "dodging"):
        ctx.refuse(f"{who} is already dodging the next damage")
    out = cost_paid(ctx, who, a)
    end = {"ends_on": f"turn:{who}"} if in_fight(ctx) else {"ends_on": "rest"}
    ctx.add_condition("dodging", who, who, **end, die=str(a["mechanics"]["damage_reduction"]))
    return out


def dodge_reduction(ctx: Ctx, target: str, *, pay_now: bool) -> int:
    """A rogue's Dodge against damage reaching ``target``: a ``dodging`` condition is spent, or (``pay_now``)
    the grit is paid now. Returns the D6 rolled (subtracted before armor)."""
    if ctx.state["delvers"].get(target) is None:
        ctx.refuse(f"{target} cannot Dodge: only a delver with Dodge can")
    d = ctx.delver(target)
    ability = ctx.class_abilities(d).get("dodge")
    declared = ctx.conditions(target, "dodging")
    if declared:
        first = declared[0]["id"]
        ctx.end_conditions(lambda c: c["id"] != first, f"{target} dodged")
        die = declared[0]["data"]["die"]
    else:
        if ability is None:
            ctx.refuse(f"{target} ({d['class_name']}) cannot Dodge")
        require_ability(ctx, target, d, "dodge", ability)
        if not is_alive(d):
            ctx.refuse(f"{target} is {d['status']} and cannot Dodge")
        pay(ctx, target, ability["cost"], ability["name"])
        die = str(ability["mechanics"]["damage_reduction"])
    return ctx.roll("dodge", die, who=target, why="Dodge").total


class Dodged(Record):
    """What a Dodge took off a blow before armor met it."""

    dodged: int = 0


extend(Damage, Dodged)


@effects.damage_reducer("dodge", readied_by="dodging")
def _dodge(ctx: Ctx, target: str, raw: int, asked) -> Reduction | None:
    """``dodge=True`` pays one Dodge in the action (the first hit that lands); a readied Dodge is spent by the
    next damage."""
    paying = bool(asked.get("dodge")) and "dodge" not in ctx.used
    if not (paying or ctx.conditions(target, "dodging")):
        return None
    n = dodge_reduction(ctx, target, pay_now=paying)
    if paying:
        ctx.used.add("dodge")
    return Reduction(n, "dodged", spares_armor=False)


# ---------------------------------------------------------------- Sprint, Hide, Focus

class Sprinted(Record):
    """A Sprint: how much farther the rogue moves, and that it took no action."""

    movement_multiplier: int
    uses_action: bool


@effects.uses("sprint", records=Sprinted)
def _use_sprint(ctx, who, d, aid, a, target, opts):
    out = cost_paid(ctx, who, a)
    mult = a["mechanics"]["movement_multiplier"]
    ctx.add_condition("sprinting", who, who, **until_next_turn(ctx, who), movement_multiplier=mult)
    return {**out, "movement_multiplier": mult, "uses_action": False}


class Hid(Checked):
    """A Hide: its Stealth check (``Checked``), whether the rogue is hidden, and that it took no action."""

    hidden: bool
    uses_action: bool


@effects.uses("hide", inputs=(Input("target", "creature", True, "a target number, or who is looking"),
                              Input("vs_skill", "text", False, "the looker's skill (perception)")), records=Hid)
def _use_hide(ctx, who, d, aid, a, target, opts):
    """Hide without an action: a Stealth check against a target number, or opposed by who is looking."""
    vs_skill = opts.take("vs_skill", "perception")
    bonus = opts.take("bonus")
    if isinstance(target, bool) or target is None:
        ctx.refuse("Hide is a Stealth check: give a target number (target=12) or who is looking (target='Goblin 1')")
    out = cost_paid(ctx, who, a)
    if isinstance(target, int):
        check_cmd(ctx, who=who, skill="stealth", target=target, bonus=bonus, why="Hide (Stealth)")
    else:
        check_cmd(ctx, who=who, skill="stealth", vs=target, vs_skill=vs_skill, bonus=bonus, why="Hide (Stealth)")
    hidden = bool(ctx.fields.get("success"))
    if hidden:
        end_kind(ctx, who, "hidden", "hid again")
        ctx.add_condition("hidden", who, who, ends_when=["attack", "cast"])
    return {**out, "hidden": hidden, "uses_action": False}


@effects.uses("focus")
def _use_focus(ctx, who, d, aid, a, target, opts):
    """Focus paid now: the next roll using a skill (a check or an attack) adds D6."""
    if ctx.conditions(who, "focus"):
        ctx.refuse(f"{who} is already focused: the next roll using a skill gets the D6")
    out = cost_paid(ctx, who, a)
    ctx.add_condition("focus", who, who, ends_on="rest", die=str(a["mechanics"]["roll_bonus"]))
    return out


@effects.skill_boost("focus", readied_by="focus")
def _focus(r: Reader, who: str, c, skill, asked: bool) -> Boost | None:
    """Focus's D6 on a roll already using a skill: paid with the roll (``focus=True``), or a readied Focus
    spent by the next roll that uses a skill."""
    if asked:
        if "class_id" not in c:
            r.refuse(f"{who} has no grit to focus with")
        ability = r.class_abilities(c).get("focus")
        if ability is None:
            r.refuse(f"{who} ({c['class_name']}) has no Focus")
        if skill is None or skill not in c["skills"]:
            r.refuse(f"Focus adds to a roll already using a skill; {who} is not using one")
        return Boost(str(ability["mechanics"]["roll_bonus"]), "focus",
                     lambda ctx: pay(ctx, who, ability["cost"], "Focus"))
    readied = r.conditions(who, "focus")
    if readied and skill and skill_bonus(r, c, skill):
        return Boost(str(readied[0]["data"]["die"]), "focus",
                     lambda ctx: ctx.end_conditions(lambda x: not (x["who"] == who and x["kind"] == "focus"),
                                                    f"{who} focused a roll"))
    return None


# ---------------------------------------------------------------- Daggers and Bows

effects.uses("dagger_dual_wield", inputs=ATTACK_INPUTS, records=Struck)(dual_wield)


@effects.uses("bow_volley", inputs=ATTACK_INPUTS, records=Struck)
def _use_volley(ctx, who, d, aid, a, target, opts):
    """1 grit: a multi-attack(2) with a bow, made now."""
    mech = a["mechanics"]
    weapon = weapon_for(ctx, who, d, mech["weapon"], a["name"])
    out = cost_paid(ctx, who, a)
    attack_now(ctx, who, target, weapon, int(mech["multi_attack"]), opts, a["name"])
    return out


@effects.uses("dagger_ambush", inputs=ATTACK_INPUTS, records=Struck)
def _use_ambush(ctx, who, d, aid, a, target, opts):
    """A dagger attack on a surprised target, made now, with the extra D6."""
    weapon = weapon_for(ctx, who, d, a["mechanics"]["weapon"], a["name"])
    out = cost_paid(ctx, who, a)
    attack_now(ctx, who, target, weapon, 1, opts, a["name"], surprised=True)
    return out


def _ambush(r: Reader, plan) -> None:
    """``surprised=True``: the attacker's abilities that add damage against a surprised target, with their
    weapon (a rogue's Ambush with a dagger)."""
    a = plan.a
    for aid in a.get("abilities", ()):
        mech = r.rules.ability(a["class_id"], aid).get("mechanics", {})
        if "surprised" in str(mech.get("when", "")) and mech.get("extra_damage") \
                and mech.get("weapon") in (None, plan.weapon.get("skill")):
            plan.extra_damage.append(str(mech["extra_damage"]))


effects.attack_option("surprised", shape=_ambush, what="the target is surprised (Ambush's extra damage)")


# ---------------------------------------------------------------- Bard Magic

def _bard_list(r: Reader, who: str) -> dict:
    """The spells a bard may choose from: the lists its Bard Magic names (``spells_from``: the mage spell list)."""
    d = r.state["delvers"].get(who)
    a = r.class_abilities(d).get("bard_magic") if d is not None else None
    out: dict = {}
    for src in (a["mechanics"]["spells_from"] if a else ()):
        if src in r.rules.spell_lists:
            out.update(data_items(r.rules.spell_lists[src]["spells"]))
    return out


def _bard_choices(r: Reader, who: str) -> list[tuple[str, str]]:
    d = r.state["delvers"].get(who) or {}
    now = d.get("choices", {}).get("bard_spell")
    return [(sid, s["name"]) for sid, s in _bard_list(r, who).items() if sid != now]


def bard_problem(r: Reader, who: str) -> str | None:
    """Why ``who`` may not choose (or change) its bard spell now, or None: the first choice is free, then one
    change between one rest and the next."""
    d = r.delver(who)
    if d["choices"].get("bard_spell") is not None and r.conditions(who, "bard_spell_changed"):
        return f"{who} already changed the bard spell since the last rest (it changes once each rest)"
    return None


class BardMagic(Cast):
    """Bard Magic: the spell chosen (``bard_spell``) and the one it replaced (``was``), or the spell cast (``Cast``)."""

    bard_spell: str | None = None
    was: str | None = None


@effects.uses("bard_magic", problem=bard_problem, records=BardMagic,
              inputs=(Input("choose", "spell", False, "the mage spell the bard plays (once a rest)", _bard_choices),
                                    Input("target", "creature", False, "the spell's target"),
                                    Input("instrument", "item", False, "what the bard plays")))
def _use_bard_magic(ctx, who, d, aid, a, target, opts):
    """Choose the bard's spell (``choose=``: once, then one change a rest), or cast it for 1 grit."""
    chosen = opts.take("choose")
    if chosen is None:
        spell = opts.take("spell") or d["choices"].get("bard_spell")
        return _cast_bard(ctx, who, d, spell, target, None, opts)
    offered = _bard_list(ctx, who)
    if chosen not in offered:
        ctx.refuse(f"Bard Magic takes a spell from the mage spell list ({', '.join(offered)}), not {chosen!r}")
    before = d["choices"].get("bard_spell")
    if before == chosen:
        ctx.refuse(f"{who}'s bard spell is already {offered[chosen]['name']}")
    if before is not None:
        why = bard_problem(ctx, who)
        if why:
            ctx.refuse(why)
        ctx.add_condition("bard_spell_changed", who, who, ends_on="rest", was=before)
    ctx.set(["delvers", who, "choices", "bard_spell"], chosen)
    return {"bard_spell": chosen, "was": before}


def _offers_song(r: Reader, who: str, d: dict, aid: str, a) -> list[SpellChoice]:
    """The bard's chosen spell, once there is one."""
    chosen = d["choices"].get("bard_spell")
    if not (chosen and ability_ready(r.rules, who, d, aid, a)):
        return []
    s = r.rules.spell(chosen)
    return [SpellChoice(chosen, s["name"], "bard", a["cost"], cost_text(a["cost"]), s["effect"],
                        spell_inputs(chosen), False, f"{s['name']} (bard, {cost_text(a['cost'])})")]


class Played(Record):
    """The instrument a bard's spell was played on."""

    instrument: str


@effects.casting("bard_magic", offers=_offers_song, records=Played)
def _cast_bard(ctx: Ctx, who: str, d: dict, spell: str | None, target, via, opts) -> dict:
    """A bard's one spell, for 1 grit, played on an instrument."""
    ability = ctx.class_abilities(d).get("bard_magic")
    if ability is None:
        ctx.refuse(f"{who} has no Bard Magic")
    require_ability(ctx, who, d, "bard_magic", ability)
    chosen = d["choices"].get("bard_spell")
    if chosen is None:
        ctx.refuse(f"{who} has not chosen a bard spell yet: use(who, 'bard_magic', choose=...)")
    if spell not in (None, chosen):
        ctx.refuse(f"{who}'s bard spell is {ctx.rules.spell(chosen)['name']}, not {spell!r}")
    instrument = opts.take("instrument")
    if instrument is None:
        carried = [it["name"] for it in d["items"] if is_instrument(it) and it.get("count", 1) > 0]
        if not carried:
            ctx.refuse(f"Bard Magic is cast by playing music: {who} carries no instrument "
                       f"(say which, instrument='lute')")
        instrument = carried[0]
    paid = pay(ctx, who, ability["cost"], "Bard Magic")
    begin_cast(ctx, who, ctx.rules.spell(chosen)["name"])
    return {"spell": chosen, "via": "bard", "instrument": instrument, "paid": paid,
            **spell_effect(ctx, who, d, chosen, target, opts)}
