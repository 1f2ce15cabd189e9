"""The fighter: grit (Ferocious strike, Double Strike, Second Wind, Sentry), the specialties, and the
techniques (Oath's smite, Blood Magic's sword, Commander's orders).

How delvebook reads the text where it is silent (each is in the rules data too):
- Ferocious strike and Double Strike shape the next attack and are used up by it (two that both add attacks:
  the larger holds); readying them uses no action, and Ferocious strike's max damage on a hit is no choice.
- A Commander's order costs grit, not an action, may be shouted at any moment of the fight, and lasts the
  side's turn it is shouted in ("this turn": ``core.turns.orders_last``); it reaches every friendly creature that
  can hear: the able delvers and their familiars, or those named in ``hearing=`` (a named NPC beside the party
  too; the keeper may leave one out). Charge! and Fire reach spell attack rolls too (unless the order's
  ``spell_attacks`` is false).
- Tunnel Fighter: a creature that cannot see attacks with disadvantage (``core.sight``); a Tunnel Fighter attacks
  creatures within 10 ft normally: a melee attack is made within ``core.sight.melee_ft`` (5 ft).
- A smite is chosen once the hit is seen: the attack outcome offers it (``on_hit_options``) and choosing it
  re-runs the attack with the same dice (``Engine.decide_on_hit``); declared with the attack
  (``attack(..., smite=True)``) it is paid on the first melee hit only, and a miss spends nothing.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Mapping

from ...core.declared import Record, Text, extend, field
from .. import effects, encounters
from ..combat import Struck
from ..base import Ctx, Reader, data_items
from ..effects import AttackPlan, Edge, Input, Kill
from ..queries import (SpellChoice, ability_ready, ability_refusal, cost_text, hearers, spell_inputs, spell_spec,
                       traceable)
from . import Cast
from .shared import (ATTACK_INPUTS, TARGET, Heals, attack_now, begin_cast, cost_paid, dual_wield, end_kind,
                     heal_with, not_used_alone, pay, require_ability, spell_effect, until_next_turn, weapon_for)

__all__ = ["ORDERS", "is_sword", "trace_problem"]


# ---------------------------------------------------------------- grit

class Rider(Record):
    """What a rider puts on the fighter's next attack."""

    advantage: bool = False
    max_damage: bool = False
    multi_attack: int | None = None


class Readied(Record):
    """Ferocious strike or Double Strike: what the next attack gets."""

    next_attack: Rider


@effects.uses("ferocious_strike", "double_strike", records=Readied)
def _use_next_attack(ctx, who, d, aid, a, target, opts):
    """Shapes the fighter's next attack (advantage and max damage; or multi-attack 2)."""
    if any(c["data"].get("ability") == aid for c in ctx.conditions(who, "next_attack")):
        ctx.refuse(f"{who}'s next attack already has {a['name']}")
    out = cost_paid(ctx, who, a)
    mech = a["mechanics"]
    data = {k: mech[k] for k in ("advantage", "max_damage", "multi_attack") if k in mech}
    ctx.add_condition("next_attack", who, who, ends_on="rest", ability=aid, **data)
    return {**out, "next_attack": data}


@effects.attack_modifier(reads="next_attack")
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


@effects.uses("second_wind", records=Heals)
def _use_second_wind(ctx, who, d, aid, a, target, opts):
    if target not in (None, who):
        ctx.refuse(f"{a['name']} heals only {who}")
    out = cost_paid(ctx, who, a)
    out["healing"] = [heal_with(ctx, who, who, str(a["mechanics"]["heal"]), a["name"])]
    return out


class OnWatch(Record):
    """Sentry: how many attacks the fighter may make before its next turn, and the next turn it hands on to (the
    side, whether a round began, whose turn)."""

    sentry_attacks: int
    side: str | None = None
    new_round: bool | None = None
    turn_of: str | None = None


class SentryAttack(Record):
    """A Sentry's attack: how many are left before the fighter's next turn."""

    sentry_attacks_left: int | None = None


extend(Struck, SentryAttack)


@effects.uses("sentry", records=OnWatch)
def _use_sentry(ctx, who, d, aid, a, target, opts):
    """Uses the action and ends the turn; up to three attacks (attack(..., sentry=True)) before the next turn."""
    enc = ctx.state["encounter"]
    if enc is None or enc["side"] is None:
        ctx.refuse(f"{a['name']} is taken on {who}'s turn in a fight")
    out = cost_paid(ctx, who, a)  # the action was taken by use (Sentry: 'use your action')
    attacks = int(a["mechanics"]["attacks"])
    end_kind(ctx, who, "sentry", "a new watch")
    ctx.add_condition("sentry", who, who, ends_on=f"turn:{who}", attacks_left=attacks)
    detail = {**out, "sentry_attacks": attacks}
    if a["mechanics"].get("ends_turn", True):
        encounters.next_turn(ctx)  # Sentry ends the turn
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
            plan.timing = "reaction"  # made at creatures that enter range, whoever's turn it is
            return
    r.refuse(f"{who} has no Sentry attack left before its next turn")


effects.attack_option("sentry", shape=_sentry, what="one of a Sentry's attacks")


# ---------------------------------------------------------------- specialties

effects.uses("sword_dual_wield", "fist_dual_wield", inputs=ATTACK_INPUTS, records=Struck)(dual_wield)
effects.uses("blind_fighting")(not_used_alone("nothing to spend or roll: attack creatures within 10 ft as usual, "
                                              "even without sight"))


@effects.sightless
def _tunnel_fighting(r: Reader, attacker: str, *, ranged: bool) -> bool:
    """Tunnel Fighter: 'attack creatures within 10ft normally even without sight': a melee attack is made within
    ``core.sight.melee_ft``, inside the ability's ``range_ft``."""
    d = r.state["delvers"].get(attacker)
    a = r.class_abilities(d).get("blind_fighting") if d is not None else None
    if a is None or not ability_ready(r.rules, attacker, d, "blind_fighting", a):
        return False
    return not ranged and r.core["sight"]["melee_ft"] <= a["mechanics"]["range_ft"]


def moved(r: Reader, who: str) -> str | None:
    """Whether ``who`` moved this turn, and how (it said so, sprinted, retreated on an order); None if not."""
    for kind, how in (("moved", "moved"), ("sprinting", "sprinted"), ("command_retreat", "retreated")):
        if r.conditions(who, kind):
            return how
    return None


def _still_problem(r: Reader, who: str) -> str | None:
    """Steady volley: 'if you do not move that turn'."""
    how = moved(r, who)
    return f"{who} {how} this turn: Steady volley is for a turn it does not move" if how else None


@effects.uses("steady_volley", inputs=ATTACK_INPUTS, problem=_still_problem, records=Struck)
def _use_steady_volley(ctx, who, d, aid, a, target, opts):
    """A fighter's bow multi-attack(2), only in a turn it does not move (``mechanics.still``)."""
    mech = a["mechanics"]
    if mech.get("still") and (opts.take("moved", False) or moved(ctx, who)):
        ctx.refuse(f"{a['name']} is for a turn {who} does not move ({who} {moved(ctx, who) or 'moved'} this turn)")
    weapon = weapon_for(ctx, who, d, mech["weapon"], a["name"])
    out = cost_paid(ctx, who, a)
    attack_now(ctx, who, target, weapon, int(mech["multi_attack"]), opts, a["name"])
    return out


# ---------------------------------------------------------------- Oath: smite

effects.uses("smite")(not_used_alone("declare it with a melee attack that hits: attack(..., smite=True)"))


def _smite_dice(ability, t) -> str:
    mech = ability["mechanics"]
    special = mech.get("extra_damage_against")
    if special and set(special["tags"]) & set(t.get("tags", ())):
        return str(special["dice"])
    return str(mech["extra_damage"])


def _smite_ability(r: Reader, who: str, a) -> tuple[dict | None, str | None]:
    """(the smite ability, why it cannot be taken now)."""
    ability = r.class_abilities(a).get("smite")
    if ability is None:
        return None, f"{who} cannot smite (it comes with a fighter's Oath at level 3)"
    return ability, ability_refusal(r.rules, who, a, "smite", ability)


def _affords(a, cost) -> str | None:
    for res, n in data_items(cost):
        have = a["resources"].get(res, 0)
        if have < n:
            return f"{a['name']} has {have} {res.replace('_', ' ')}"
    return None


def _smite_shape(r: Reader, plan: AttackPlan) -> None:
    """A smite declared with the attack: known before any die that it can be paid, with a melee weapon."""
    ability, why = _smite_ability(r, plan.attacker, plan.a)
    if why:
        r.refuse(why)
    if plan.ranged:
        r.refuse("a smite is made with a melee weapon")
    short = _affords(plan.a, ability["cost"])
    if short:
        r.refuse(f"{short}; a smite needs {cost_text(ability['cost'])}")


def _smite_on_hit(ctx: Ctx, plan: AttackPlan, k: int) -> list[str]:
    """The hit it names (``smite=2``: the second attack's; the first that lands by default) pays the smite and adds
    its dice (more against the unholy): one smite an attack."""
    wanted = plan.asked.get("smite")
    if plan.state.get("smite") or plan.ranged or (not isinstance(wanted, bool) and wanted != k + 1):
        return []
    ability, why = _smite_ability(ctx, plan.attacker, plan.a)
    if why:
        ctx.refuse(why)
    pay(ctx, plan.attacker, ability["cost"], "a smite")
    plan.state["smite"] = True
    return [_smite_dice(ability, plan.t)]


def _smite_after(ctx: Ctx, plan: AttackPlan, results: list) -> None:
    """A smite declared on an attack that does not land spends nothing; the outcome says so."""
    if not plan.state.get("smite"):
        ctx.out(smite={"spent": False, "why": "no melee hit landed"})
    else:
        ctx.out(smite={"spent": True})


def _smite_offer(r: Reader, plan: AttackPlan, results: list) -> dict | None:
    """Once a melee hit is seen: a smite may be chosen now (2 grit, +2d6, or +4d6 against the unholy)."""
    if plan.ranged or plan.attacker_side != "delver" or all(x == "miss" for x in results):
        return None
    ability, why = _smite_ability(r, plan.attacker, plan.a)
    if ability is None or why:
        return None
    hit = next(k + 1 for k, x in enumerate(results) if x != "miss")
    short = _affords(plan.a, ability["cost"])
    out = {"name": ability["name"], "cost": dict(data_items(ability["cost"])), "cost_text": cost_text(ability["cost"]),
           "adds": _smite_dice(ability, plan.t), "hit": hit, "affordable": short is None}
    if short:
        out["why"] = short
    return out


class SmiteSpent(Record):
    """Whether a smite declared with an attack was paid (``why`` not)."""

    spent: bool
    why: Text | None = None


class Smited(Record):
    """A smite declared with the attack: whether it was spent."""

    smite: SmiteSpent | None = None


extend(Struck, Smited)
effects.attack_option("smite", shape=_smite_shape, on_hit=_smite_on_hit, after=_smite_after, offer=_smite_offer,
                      what="an Oath's smite on a melee hit: declared, or chosen once the hit is seen")


# ---------------------------------------------------------------- Commander

ORDERS = {"command_retreat": "command_retreat", "command_charge": "command_charge",
          "command_fire": "command_fire", "command_hold_the_line": "hold_the_line"}
"""A Commander's orders: ability id -> the condition it puts on everyone who hears it."""


def _order_lasts(ctx: Ctx, who: str) -> dict:
    """'This turn': the side's turn it is shouted in (``core.turns.orders_last: side_turn``), or until the
    fighter's next turn (``until_next_turn``); outside a fight's turns, one round."""
    enc = ctx.state["encounter"]
    if enc is None or enc["side"] is None:
        return {"duration": "round"}
    if ctx.core["turns"]["orders_last"] == "until_next_turn":
        return until_next_turn(ctx, who)
    return {"ends_on": f"side:{enc['side']}"}


class Ordered(Record):
    """A Commander's order: which, and who hears it."""

    order: str = field(column="commander_order")
    hearing: list[str]


@effects.uses(*ORDERS, inputs=(Input("hearing", "creatures", False, "who hears the order (the able party and "
                                                                  "their familiars if none)"),), records=Ordered)
def _use_order(ctx, who, d, aid, a, target, opts):
    """A Commander's order (1 grit): every friendly creature that hears it benefits this turn (the side's turn it
    is shouted in): the able party and their familiars, or those the keeper names (a named NPC beside them)."""
    hearing = opts.take("hearing")
    heard = hearers(ctx.state)
    party = heard.default
    if hearing is not None:
        if isinstance(hearing, str) or not isinstance(hearing, (list, tuple)):
            ctx.refuse(f"hearing names who hears the order (a list of names), not {hearing!r}")
        unknown = [n for n in hearing if n not in heard.friendly]
        if unknown:
            ctx.refuse(f"{', '.join(map(str, unknown))} cannot take an order (friendly and able: "
                       f"{', '.join(heard.friendly)})")
        party = [n for n in heard.friendly if n in hearing]
    out = cost_paid(ctx, who, a)
    mech = a["mechanics"]
    data = {}
    if "movement_multiplier" in mech:
        data["movement_multiplier"] = mech["movement_multiplier"]
    if mech.get("advantage"):
        data["advantage"] = True
    if mech.get("max_damage"):
        data["max_damage"] = True
    if "spell_attacks" in mech:  # said either way: a house rule's false holds
        data["spell_attacks"] = bool(mech["spell_attacks"])
    if "av_bonus" in mech:
        data["av"] = mech["av_bonus"]
    kind = ORDERS[aid]
    lasts = _order_lasts(ctx, who)
    for name in party:
        end_kind(ctx, name, kind, "a new order")
        ctx.add_condition(kind, name, who, **lasts, **data)
    return {**out, "order": a["name"], "hearing": party}


@effects.attack_edge(reads=("command_charge", "command_fire"))
def _orders(r: Reader, attacker: str, *, ranged: bool, spell: bool) -> Edge | None:
    """Charge!: advantage on attack rolls. Fire: max damage on ranged attacks. A spell attack roll is an attack
    roll too (unless a campaign's order says ``spell_attacks: false``)."""
    def holds(kind: str) -> bool:
        return any(not spell or c["data"].get("spell_attacks", True) for c in r.conditions(attacker, kind))
    adv = holds("command_charge")
    mx = ranged and holds("command_fire")
    return Edge(adv, mx) if adv or mx else None


@effects.armor_bonus(reads="hold_the_line")
def _hold_the_line(r: Reader, who: str) -> int:
    """Hold the line: +2 armor value while the order lasts."""
    return sum(cond["data"].get("av", 0) for cond in r.conditions(who, "hold_the_line"))


# ---------------------------------------------------------------- Blood Magic

def is_sword(w: Mapping) -> bool:
    """A sword, by its skill or its name (the Blood Magic technique traces its spell on one)."""
    return w.get("skill") == "swords" or "sword" in str(w.get("name", "")).lower() \
        or "sword" in str(w.get("item", "")).lower()


def _traceable(r: Reader, who: str) -> list[tuple[str, str]]:
    """What Blood Magic may trace: the ability's ``spells_from`` (the mage spell list, a spell book or a scroll
    carried)."""
    d = r.state["delvers"].get(who)
    a = r.class_abilities(d).get("blood_magic_sword") if d is not None else None
    return traceable(r.state, r.rules, who, tuple(a["mechanics"]["spells_from"])) if a else []


def trace_problem(r: Reader, who: str) -> str | None:
    """Why ``who`` cannot trace a spell on its sword now (once each rest, on a sword it carries), or None."""
    d = r.delver(who)
    if r.conditions(who, "blood_magic_trace"):
        return f"{who} already traced a spell on the sword since the last rest"
    if not any(is_sword(w) for w in d["weapons"]):
        return f"{who} has no sword to trace a spell on"
    return None


class Traced(Cast):
    """The Blood Magic sword: the spell traced on it, or the charged spell cast (``Cast``)."""

    traced: str | None = None


@effects.uses("blood_magic_sword", problem=trace_problem, records=Traced,
              inputs=(Input("trace", "spell", False, "the spell traced on the sword (once a rest)", _traceable),
                      TARGET))
def _use_blood_sword(ctx, who, d, aid, a, target, opts):
    """Trace a spell on the sword (``trace=``, once each rest), from the mage spell list or a book or a scroll
    carried, or cast the charged spell."""
    spell = opts.take("trace")
    if spell is None:
        return _cast_sword(ctx, who, d, opts.take("spell"), target, None, opts)
    offered = dict(_traceable(ctx, who))
    if spell not in offered:
        ctx.refuse(f"{who} may trace {', '.join(offered) or 'nothing'} (the mage spell list, or a book or a scroll "
                   f"carried); not {spell!r}")
    why = trace_problem(ctx, who)
    if why:
        ctx.refuse(why)
    words = {} if spell in ctx.rules.spells else {"written": {spell: dict(spell_spec(ctx.rules, spell,
                                                                                     *d["items"]))}}
    ctx.add_condition("blood_magic_trace", who, who, ends_on="rest", spell=spell, **words)
    return {"traced": spell}


class Charged(Record):
    """The spell a kill with the sword charged."""

    blood_magic_charged: str | None = None


extend(Struck, Charged)


@effects.on_vanquish(reads="blood_magic_trace")
def _charge_blood_sword(ctx: Ctx, kill: Kill) -> None:
    """'Every time you slay a creature with your sword, it is charged': a kill with a sword, attacking, hitting
    back, or on a tie, charges a traced Blood Magic spell: one charge, never more."""
    who, w = kill.who, kill.weapon
    if kill.side != "delver" or w.get("conjured") or not is_sword(w):
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
    s = spell_spec(r.rules, sid, traced[0]["data"])
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
    spec = spell_spec(ctx.rules, traced_spell, traced[0]["data"])
    if spell not in (None, traced_spell):
        ctx.refuse(f"the sword carries {spec['name']}, not {spell!r}")
    charge = ctx.conditions(who, "blood_magic_charge")
    if not charge:
        ctx.refuse(f"{who}'s sword is not charged: a kill with it charges it")
    cid = charge[0]["id"]
    ctx.end_conditions(lambda c: c["id"] != cid, f"{who} cast the sword's spell")
    begin_cast(ctx, who, spec["name"])
    return {"spell": traced_spell, "via": "sword", "paid": {"blood_magic_charge": 1},
            **spell_effect(ctx, who, d, traced_spell, target, opts, spec)}
