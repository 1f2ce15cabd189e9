"""The fighter: grit (Ferocious strike, Double Strike, Second Wind, Sentry), the specialties, and the
techniques (Oath's smite, Blood Magic's sword, Commander's orders).

How delvebook reads the text where it is silent:
- Ferocious strike and Double Strike shape the next attack and are used up by it (two that both add attacks:
  the larger holds).
- A Commander's order lasts until the start of the fighter's next turn and reaches every able delver (or those
  named in ``hearing=``).
- A smite is declared with the attack (``attack(..., smite=True)``) and paid on its first melee hit.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Mapping

from ...model import current_actor, present, is_alive
from .. import combat, effects
from ..base import Ctx, Reader
from ..effects import AttackPlan, Input
from ..queries import SpellChoice, ability_ready, spell_inputs
from .shared import (ATTACK_INPUTS, TARGET, attack_now, begin_cast, cost_paid, dual_wield, end_kind,
                     heal_with, not_used_alone, pay, require_ability, spell_effect, until_next_turn, weapon_for)

__all__ = ["ORDERS", "is_sword"]


# ---------------------------------------------------------------- grit

@effects.uses("ferocious_strike", "double_strike")
def _use_next_attack(ctx, who, d, aid, a, target, opts):
    """Shapes the fighter's next attack (advantage and max damage; or multi-attack 2)."""
    if any(c["data"].get("ability") == aid for c in ctx.conditions(who, "next_attack")):
        ctx.refuse(f"{who}'s next attack already has {a['name']}")
    out = cost_paid(ctx, who, a)
    mech = a["mechanics"]
    data = {k: mech[k] for k in ("advantage", "max_damage", "multi_attack") if k in mech}
    ctx.add_condition("next_attack", who, who, ends_on="rest", ability=aid, **data)
    return {**out, "next_attack": data}


@effects.attack_modifier
def _next_attack(r: Reader, plan: AttackPlan) -> None:
    """What readies the next attack (Ferocious strike, Double Strike, a campaign's own) is used up by it."""
    who = plan.attacker
    conds = r.conditions(who, "next_attack")
    if not conds:
        return
    riders: dict = {}
    for cond in conds:
        for k, v in cond["data"].items():
            if k == "multi_attack":  # two riders that both add attacks: the larger holds
                v = max(int(v), int(riders.get(k, 1)))
            riders[k] = v
    plan.advantage = plan.advantage or bool(riders.get("advantage"))
    plan.max_damage = plan.max_damage or bool(riders.get("max_damage"))
    if riders.get("multi_attack"):
        plan.multi = int(riders["multi_attack"])
    plan.spend(lambda ctx: ctx.end_conditions(lambda c: not (c["who"] == who and c["kind"] == "next_attack"),
                                              f"{who} attacked"))


@effects.uses("second_wind")
def _use_second_wind(ctx, who, d, aid, a, target, opts):
    if target not in (None, who):
        ctx.refuse(f"{a['name']} heals only {who}")
    out = cost_paid(ctx, who, a)
    out["healing"] = [heal_with(ctx, who, who, str(a["mechanics"]["heal"]), a["name"])]
    return out


@effects.uses("sentry")
def _use_sentry(ctx, who, d, aid, a, target, opts):
    """Uses the action and ends the turn; up to three attacks (attack(..., sentry=True)) before the next turn."""
    enc = ctx.state["encounter"]
    if enc is None or enc["side"] is None:
        ctx.refuse(f"{a['name']} is taken on {who}'s turn in a fight")
    actor = current_actor(ctx.state)
    if actor != who:
        ctx.refuse(f"it is {actor}'s turn, not {who}'s: {a['name']} uses {who}'s action")
    out = cost_paid(ctx, who, a)
    attacks = int(a["mechanics"]["attacks"])
    end_kind(ctx, who, "sentry", "a new watch")
    ctx.add_condition("sentry", who, who, ends_on=f"turn:{who}", attacks_left=attacks)
    detail = {**out, "sentry_attacks": attacks}
    combat.next_turn(ctx)  # Sentry ends the turn
    return detail


def _sentry(r: Reader, plan: AttackPlan) -> None:
    """``sentry=True``: one of the (up to three) attacks a fighter on Sentry makes before its next turn."""
    who = plan.attacker
    for i, cond in enumerate(r.state["conditions"]):
        if cond["who"] == who and cond["kind"] == "sentry":
            left = cond["data"]["attacks_left"]
            if left < 1:
                break

            def take(ctx: Ctx, i=i, left=left) -> None:
                ctx.set(["conditions", i, "data", "attacks_left"], left - 1)
                ctx.out(sentry_attacks_left=left - 1)
            plan.spend(take)
            return
    r.refuse(f"{who} has no Sentry attack left before its next turn")


effects.attack_option("sentry", shape=_sentry, what="one of a Sentry's attacks")


# ---------------------------------------------------------------- specialties

effects.uses("sword_dual_wield", "fist_dual_wield", inputs=ATTACK_INPUTS)(dual_wield)
effects.uses("blind_fighting")(not_used_alone("nothing to spend or roll: attack creatures within 10 ft as usual, "
                                              "even without sight"))


@effects.uses("steady_volley", inputs=ATTACK_INPUTS)
def _use_steady_volley(ctx, who, d, aid, a, target, opts):
    """A fighter's bow multi-attack(2), only in a turn it does not move."""
    if opts.take("moved", False) or ctx.conditions(who, "sprinting") or ctx.conditions(who, "command_retreat"):
        ctx.refuse(f"{a['name']} is for a turn {who} does not move")
    mech = a["mechanics"]
    weapon = weapon_for(ctx, who, d, mech["weapon"], a["name"])
    out = cost_paid(ctx, who, a)
    attack_now(ctx, who, target, weapon, int(mech["multi_attack"]), opts, a["name"])
    return out


# ---------------------------------------------------------------- Oath: smite

effects.uses("smite")(not_used_alone("declare it with a melee attack that hits: attack(..., smite=True)"))


def _smite_on_hit(ctx: Ctx, plan: AttackPlan, k: int) -> list[str]:
    """The first melee hit pays the smite and adds its dice (more against the unholy)."""
    if plan.state.get("smite") or plan.ranged:
        return []
    who, a = plan.attacker, plan.a
    abilities = ctx.class_abilities(a)
    if "smite" not in abilities:
        ctx.refuse(f"{who} cannot smite (it comes with a fighter's Oath at level 3)")
    ability = abilities["smite"]
    require_ability(ctx, who, a, "smite", ability)
    pay(ctx, who, ability["cost"], "a smite")
    plan.state["smite"] = True
    mech = ability["mechanics"]
    special = mech.get("extra_damage_against")
    if special and set(special["tags"]) & set(plan.t["tags"]):
        return [str(special["dice"])]
    return [str(mech["extra_damage"])]


def _smite_after(ctx: Ctx, plan: AttackPlan, results: list) -> None:
    if not plan.state.get("smite"):
        ctx.refuse(f"{plan.attacker} can smite only on a melee hit" if not plan.ranged or "miss" in results
                   else "smite needs a melee weapon")


effects.attack_option("smite", on_hit=_smite_on_hit, after=_smite_after, what="an Oath's smite on the first melee hit")


# ---------------------------------------------------------------- Commander

ORDERS = {"command_retreat": "command_retreat", "command_charge": "command_charge",
          "command_fire": "command_fire", "command_hold_the_line": "hold_the_line"}
"""A Commander's orders: ability id -> the condition it puts on everyone who hears it."""


@effects.uses(*ORDERS, inputs=(Input("hearing", "creatures", False, "who hears the order (every able delver if "
                                                                  "none)"),))
def _use_order(ctx, who, d, aid, a, target, opts):
    """A Commander's order (1 grit): every friendly delver who hears it benefits until the fighter's next turn."""
    hearing = opts.take("hearing")
    party = [n for n in present(ctx.state) if is_alive(ctx.state["delvers"][n])]
    if hearing is not None:
        unknown = [n for n in hearing if n not in party]
        if unknown:
            ctx.refuse(f"{', '.join(unknown)} cannot take an order (the able party: {', '.join(party)})")
        party = [n for n in party if n in hearing]
    out = cost_paid(ctx, who, a)
    mech = a["mechanics"]
    data = {}
    if "movement_multiplier" in mech:
        data["movement_multiplier"] = mech["movement_multiplier"]
    if mech.get("advantage"):
        data["advantage"] = True
    if mech.get("max_damage"):
        data["max_damage"] = True
    if "av_bonus" in mech:
        data["av"] = mech["av_bonus"]
    kind = ORDERS[aid]
    for name in party:
        end_kind(ctx, name, kind, "a new order")
        ctx.add_condition(kind, name, who, **until_next_turn(ctx, who), **data)
    return {**out, "order": a["name"], "hearing": party}


@effects.attack_modifier
def _orders(r: Reader, plan: AttackPlan) -> None:
    """Charge!: advantage on attack rolls. Fire: max damage on ranged attacks."""
    if r.conditions(plan.attacker, "command_charge"):
        plan.advantage = True
    if plan.ranged and r.conditions(plan.attacker, "command_fire"):
        plan.max_damage = True


@effects.armor_bonus
def _hold_the_line(r: Reader, who: str) -> int:
    """Hold the line: +2 armor value while the order lasts."""
    return sum(cond["data"].get("av", 0) for cond in r.conditions(who, "hold_the_line"))


# ---------------------------------------------------------------- Blood Magic

def is_sword(w: Mapping) -> bool:
    """A sword, by its skill or its name (the Blood Magic technique traces its spell on one)."""
    return w.get("skill") == "swords" or "sword" in str(w.get("name", "")).lower() \
        or "sword" in str(w.get("item", "")).lower()


@effects.uses("blood_magic_sword", inputs=(Input("trace", "spell", False, "the spell traced on the sword (once a "
                                                                          "rest)"), TARGET))
def _use_blood_sword(ctx, who, d, aid, a, target, opts):
    """Trace a spell on the sword (``trace=``, once each rest), or cast the charged spell."""
    spell = opts.take("trace")
    if spell is None:
        return _cast_sword(ctx, who, d, opts.take("spell"), target, None, opts)
    if spell not in ctx.rules.spells:
        ctx.refuse(f"there is no spell {spell!r} to trace (spells: {', '.join(ctx.rules.spells)})")
    if ctx.conditions(who, "blood_magic_trace"):
        ctx.refuse(f"{who} already traced a spell on the sword since the last rest")
    if not any(is_sword(w) for w in d["weapons"]):
        ctx.refuse(f"{who} has no sword to trace a spell on")
    ctx.add_condition("blood_magic_trace", who, who, ends_on="rest", spell=spell)
    return {"traced": spell}


@effects.on_vanquish
def _charge_blood_sword(ctx: Ctx, plan: AttackPlan) -> None:
    """A kill with a sword charges a traced Blood Magic spell: one charge, never more."""
    who, w = plan.attacker, plan.weapon
    if plan.attacker_side != "delver" or w.get("conjured") or not is_sword(w):
        return
    traced = ctx.conditions(who, "blood_magic_trace")
    if not traced or ctx.conditions(who, "blood_magic_charge"):
        return
    spell = traced[0]["data"]["spell"]
    ctx.add_condition("blood_magic_charge", who, who, ends_on="rest", spell=spell)
    ctx.out(blood_magic_charged=spell)


def _offers_sword(r: Reader, who: str, d: dict, aid: str, a) -> list[SpellChoice]:
    """The spell traced on the sword, said not charged until a kill charges it."""
    traced = r.conditions(who, "blood_magic_trace")
    if not (traced and ability_ready(r.rules, who, d, aid, a)):
        return []
    sid = traced[0]["data"]["spell"]
    s = r.rules.spell(sid)
    charged = bool(r.conditions(who, "blood_magic_charge"))
    return [SpellChoice(sid, s["name"], "sword", {}, "a charge", s["effect"], spell_inputs(sid), not charged,
                        f"{s['name']} (sword{'' if charged else ', not charged'})")]


@effects.casting("blood_magic_sword", forced_by=("sword",), offers=_offers_sword)
def _cast_sword(ctx: Ctx, who: str, d: dict, spell: str | None, target, via, opts) -> dict:
    """The Blood Magic sword casts its traced spell once per charge; the charge is spent."""
    ability = ctx.class_abilities(d).get("blood_magic_sword")
    if ability is None:
        ctx.refuse(f"{who} has no Blood Magic sword")
    require_ability(ctx, who, d, "blood_magic_sword", ability)
    traced = ctx.conditions(who, "blood_magic_trace")
    if not traced:
        ctx.refuse(f"{who} has traced no spell on the sword since the last rest")
    traced_spell = traced[0]["data"]["spell"]
    if spell not in (None, traced_spell):
        ctx.refuse(f"the sword carries {ctx.rules.spell(traced_spell)['name']}, not {spell!r}")
    charge = ctx.conditions(who, "blood_magic_charge")
    if not charge:
        ctx.refuse(f"{who}'s sword is not charged: a kill with it charges it")
    cid = charge[0]["id"]
    ctx.end_conditions(lambda c: c["id"] != cid, f"{who} cast the sword's spell")
    begin_cast(ctx, who, ctx.rules.spell(traced_spell)["name"])
    return {"spell": traced_spell, "via": "sword", "paid": {"blood_magic_charge": 1},
            **spell_effect(ctx, who, d, traced_spell, target, opts)}
