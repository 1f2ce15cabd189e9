"""Attacks with counters, armor, damage, healing (a fight's course, from its start to its end: ``encounters``).

How delvebook reads the text where it is silent (each is in the rules data too):
- A counter-attack is made with a weapon that fits the exchange: a melee weapon (or fists) against a melee
  attack, a ranged weapon ready to shoot in a duel with bows; the defender may name it (``counter_weapon``).
- A choice made once a hit is seen (a smite) is offered in the outcome (``on_hit_options``); choosing it re-runs
  the attack with the same dice, as an action that replaces it.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from ..core.declared import ROLE, Action, Record, Text, field
from ..core.dice import parse
from ..core.model import CREATURE, FOES, PARTY, STATUS_ALIVE, STATUS_DEAD, STATUS_DYING, current_actor, is_alive, \
    is_dead, is_dying
from ..core.records import Ammo, Chances, Counter, Damage, Healing, Result
from ..core.roles import KEEPER
from . import effects, turns
from .base import Ctx, Reader, command, path_in
from .gear import fired, spend_ammo
from .queries import (armor_in, attack_ready, attack_result, countered_after, each_attack, healing_banned,
                      plan_attack_on, unarmed, weapon_of)

__all__ = ["PARTY", "FOES", "current_actor", "deal_damage", "damage_roll", "heal", "attack",
           "strike", "prepare_attack", "attack_sides", "resolve_attack", "ATTACK_WORDS", "CLASS_OPTIONS", "Struck",
           "OnHitOption", "Attack", "DamageByHand", "HealByHand"]


# ---------------------------------------------------------------- damage and armor

def deal_damage(ctx: Ctx, target: str, raw: int, source: str, *, by: str, armor: bool = True,
                asked: Mapping[str, Any] | None = None, attack: bool = False) -> dict:
    """Damage dealt by ``by`` (a combatant, the keeper, a hazard) with ``source`` (what: a weapon, a spell, the
    keeper's words) reaches ``target``: reducers take theirs first (a Dodge, asked for in ``asked`` or readied), then
    armor absorbs its AV and loses 1 DV a hit; hearts never go below 0. A delver left below 1 heart owes a death
    save (after any harm, or only an ``attack``'s, as ``core.death_save.after`` says); a foe or a named creature
    is vanquished (a familiar is lost)."""
    side, c = ctx.combatant(target)
    path = path_in(side, target)
    core = ctx.core
    reductions = []
    if raw > 0:
        asked = asked or {}
        for reduce, _ in effects.DAMAGE_REDUCERS.now(ctx.state, asked):
            red = reduce(ctx, target, raw, asked)
            if red is not None:
                reductions.append(red)
    reduced = sum(red.amount for red in reductions) if reductions else 0
    incoming = raw - min(raw, reduced)
    av, intact = armor_in(ctx, target, c) if armor else (0, [])
    if incoming == 0 and any(not red.spares_armor for red in reductions):
        intact = []  # dodged down to nothing: the blow never reached the armor
    armor_rules = core["armor"]
    dealt = max(armor_rules["damage_floor"], incoming - av)
    dv_lost = []
    for i in intact:
        piece = c["armor"][i]
        left = max(0, piece["dv"] - armor_rules["dv_per_hit"])
        ctx.set(path + ["armor", i, "dv"], left)
        dv_lost.append({"piece": piece["name"], "dv": left, "broken": left <= armor_rules["broken_at_dv"]})
    before = c["hearts"]
    after = max(core["hearts"]["floor"], before - dealt)
    ctx.set(path + ["hearts"], after)
    result = {"target": target, "by": by, "source": source, "raw": raw, "av": av, "absorbed": incoming - dealt,
              "dealt": dealt, "hearts_before": before, "hearts_after": after, "dv": dv_lost}
    for red in reductions:
        result[red.field] = red.amount
    if dealt > 0 and before - dealt < core["death_save"]["retrigger_below"]:
        if side == "delver":
            if attack or core["death_save"]["after"] == "any_harm":
                if is_alive(c):
                    ctx.set(path + ["status"], STATUS_DYING)
                result["death_save_due"] = not is_dead(c)
        elif not is_dead(c):
            ctx.set(path + ["status"], STATUS_DEAD)
            if side == "foe":
                ctx.append(["encounter", "vanquished"], target)
            ctx.end_conditions(lambda cond: cond["who"] != target, f"{target} was vanquished")
            result["vanquished"] = True
            if side == CREATURE and c.get("role") == "familiar":
                result["lost"] = True  # the spirit leaves: its mage may find a familiar again
    return result


def _damage_expr(damage: Any, extra: tuple, bonus: Any):
    """The parsed damage of a hit: the weapon's dice, any extra dice and its bonus, joined."""
    if not extra and not bonus:
        return parse(str(damage))
    parts = [str(damage)] + [str(x) for x in extra]
    if bonus:
        parts.append(str(bonus))
    return parse("+".join(p.lstrip("+") for p in parts))


def damage_roll(ctx: Ctx, who: str, w: Mapping, *, max_damage: bool, extra: list[str] = (),
                name="damage") -> tuple[int, str]:
    """The damage of one hit with ``w`` (and any extra dice): rolled, or its maximum; flat damage is not rolled."""
    e = _damage_expr(w["damage"], tuple(extra), w.get("bonus"))
    expr = e.text
    if max_damage or e.dice_count == 0:  # flat damage (unarmed 2) needs no roll
        return e.max, expr
    return ctx.roll(name, e, who=who, why=f"damage ({w['name']})").total, expr


# ---------------------------------------------------------------- attacks

ATTACK_WORDS = ("advantage", "multi", "bonus", "target_bonus", "counter", "counter_weapon", "max_damage",
                "extra_damage")
"""The attack's own options, whoever attacks."""

CLASS_OPTIONS = ("smite", "sentry", "surprised", "thrown", "focus", "dodge")
"""What classes bring to an attack, each answered by a hook in ``effects``: an Oath's smite, a Sentry's attack, a
surprised target (Ambush), a thrown weapon, Focus on the roll, the target's Dodge."""


_TAKES = frozenset(ATTACK_WORDS + CLASS_OPTIONS)


def _check_options(ctx: Ctx, options: Mapping) -> None:
    """An attack made as part of another deed (``strike``) takes what the attack command takes."""
    if _TAKES.issuperset(options):
        return
    unknown = [k for k in options if k not in _TAKES]
    if unknown:
        ctx.refuse(f"attack takes no option {', '.join(map(repr, sorted(unknown)))} "
                   f"(its options: {', '.join(ATTACK_WORDS + CLASS_OPTIONS)})")


def _thrown(r: Reader, plan) -> None:
    """``thrown=True``: a melee weapon thrown is a ranged attack (no melee counter); it is not ammunition, and
    whether it is lost is the keeper's call (``drop``)."""
    w = plan.weapon
    if w.get("ranged") or w.get("item") == "unarmed" or w.get("conjured") or plan.attacker_side != "delver":
        r.refuse(f"{plan.attacker} cannot throw {w['name'] if w.get('item') != 'unarmed' else 'fists'}")
    plan.ranged = True


effects.attack_option("thrown", shape=_thrown, what="a melee weapon thrown (a ranged attack; the keeper says if "
                                                    "it is lost)")


def prepare_attack(ctx: Ctx, attacker: str, target: str, weapon: Any = None, **asked: Any):
    """An attack as the rules shape it, before any die: the options checked, the attacker able, the target
    there and living (``queries.plan_attack``)."""
    _check_options(ctx, asked)
    a_side, a, t_side, t = attack_sides(ctx, attacker, target)
    return plan_attack_on(ctx, attacker, a_side, a, target, t_side, t, weapon,
                          {k: v for k, v in asked.items() if v is not None})


def attack_sides(ctx: Ctx, attacker: str, target: str) -> tuple[str, dict, str, dict]:
    """(attacker's side, attacker, target's side, target): the attacker able, the target there and living, and not
    the attacker (what an attack refuses before it is planned)."""
    a_side, a = ctx.able_combatant(attacker, "attack")  # (no one by that name is refused first, as combatant refuses)
    t_side, t = ctx.combatant(target)
    if is_dead(t):
        ctx.refuse(f"{target} is already dead")
    if attacker == target:
        ctx.refuse("a combatant cannot attack itself")
    return a_side, a, t_side, t


def _counter_weapon(ctx: Ctx, target: str, t: Mapping, plan) -> tuple[dict | None, str | None]:
    """The weapon ``target`` counters with: a foe's attack; for a delver, the one it names, else its first that
    fits the exchange (melee against melee, fists if none; a ranged weapon ready to shoot in a duel with bows). A foe
    type that never counters (``counters: false``) answers with none."""
    if t.get("counters") is False:
        return None, f"{target} never counter-attacks"
    if "class_id" not in t:
        return weapon_of(ctx, target, t, None), None
    ranged = plan.ranged

    def fits(w) -> bool:
        return bool(w.get("ranged")) == ranged and not w.get("conjured")

    named = plan.asked.get("counter_weapon")
    if named not in (None, ""):
        w = weapon_of(ctx, target, t, named)
        problem = attack_ready(ctx.state, ctx.rules, target, w, 1)
        if problem:
            ctx.refuse_unless_overridden(problem)
        return w, None
    for w in t["weapons"]:
        if fits(w) and attack_ready(ctx.state, ctx.rules, target, w, 1) is None:
            return w, None
    if not ranged:
        return unarmed(ctx), None
    return None, f"{target} has no ranged weapon ready to answer with"


def resolve_attack(ctx: Ctx, plan, on_landed: Callable | None = None) -> None:
    """Roll the planned attack: D20 + skill against the target's D20; higher hits, lower is countered, a tie
    both hit. ``on_landed(ctx, plan, results)`` runs once the hits are dealt (a spell riding on the attack)."""
    attacker, target, t, w, n = plan.attacker, plan.target, plan.t, plan.weapon, plan.n
    problem = attack_ready(ctx.state, ctx.rules, attacker, w, n)
    if problem:
        ctx.refuse_unless_overridden(problem)
    named = plan.asked.get("counter_weapon")
    if named not in (None, "") and "class_id" in t:
        cw = weapon_of(ctx, target, t, named)
        if bool(cw.get("ranged")) != plan.ranged or cw.get("conjured"):
            ctx.refuse(f"{target} answers a {'ranged' if plan.ranged else 'melee'} attack with a "
                       f"{'ranged' if plan.ranged else 'melee'} weapon, not the {cw['name']}")
    for spend in plan.spends:
        spend(ctx)
    ammo = spend_ammo(ctx, attacker, w, n)
    fired(ctx, attacker, w)
    multi = ctx.core["multi_attack"]
    if n == 1:
        r = ctx.roll("attack", plan.expr, who=attacker, why=f"attack {target} ({w['name']})")
        totals = [r.total]
    elif multi["bonus_rolled_once"]:
        d20s = [ctx.roll("attack", plan.base, who=attacker, why=f"attack {k + 1} of {n} on {target}")
                for k in range(n)]
        b = ctx.roll("bonus", plan.bonus, who=attacker, why="attack bonus, once for every attack").total \
            if plan.bonus else 0
        totals = [d.total + b for d in d20s]
    else:  # each attack rolls its own bonus dice
        totals = [ctx.roll("attack", plan.expr, who=attacker, why=f"attack {k + 1} of {n} on {target}").total
                  for k in range(n)]
    resists = [ctx.roll("resist", plan.resist, who=target, why=f"resist {attacker}").total
               for _ in range(min(n, multi["target_rolls"]))]  # one D20 against them all, or one an attack
    results = [attack_result(ctx.core, x, resists[min(k, len(resists) - 1)]) for k, x in enumerate(totals)]

    damage = []
    asked = plan.asked
    hooks = plan.options
    for k, outcome in enumerate(results):
        if outcome == "miss":
            continue
        if is_dead(t):
            break
        extras = []
        for opt in hooks:
            if opt.on_hit is not None:
                dice = opt.on_hit(ctx, plan, k)
                if dice:
                    extras.append((opt.name, dice))
        amount, dexpr = damage_roll(ctx, attacker, w, max_damage=plan.max_damage, extra=plan.extra_damage,
                                    name="damage")
        added = []
        for name, dice in extras:  # an on-hit option's dice are their own roll: the weapon's stay as rolled
            e = parse("+".join(str(x).lstrip("+") for x in dice))
            expr = e.text
            total = e.max if plan.max_damage else ctx.roll(name, expr, who=attacker, why=f"{name} damage").total
            added.append({"option": name, "expr": expr, "total": total})
            amount += total
        d = deal_damage(ctx, target, amount, w["name"], by=attacker, asked=plan.asked, attack=True)
        d.update(attack=k + 1, expr=dexpr, max_damage=plan.max_damage)
        if added:
            d["added"] = added
        damage.append(d)
    if any(d.get("vanquished") for d in damage):
        _slain(ctx, effects.Kill(attacker, plan.attacker_side, w, target))
    for opt in hooks:
        if opt.after is not None:
            opt.after(ctx, plan, results)
    if on_landed is not None:
        on_landed(ctx, plan, results)
    offers = []  # what may be chosen now the hits are seen (a smite): read-only words for the event alone
    if ctx.records:
        for name, opt in effects.ATTACK_OPTIONS.items():
            if opt.offer is not None and not plan.asked.get(name):
                o = opt.offer(ctx, plan, results)
                if o:
                    offers.append({"option": name, **o})

    countered = None
    if plan.counter and countered_after(ctx.core, results):
        if is_dead(t) or is_dying(t):
            countered = {"by": target, "possible": False, "why": f"{target} is down"}
        else:
            tw, why = _counter_weapon(ctx, target, t, plan)
            if tw is None:
                countered = {"by": target, "possible": False, "why": why}
            else:
                spent = spend_ammo(ctx, target, tw, 1)
                fired(ctx, target, tw)
                amount, dexpr = damage_roll(ctx, target, tw, max_damage=False, name="counter_damage")
                d = deal_damage(ctx, attacker, amount, tw["name"], by=target, attack=True)
                d.update(expr=dexpr)
                countered = {"by": target, "possible": True, "weapon": tw["name"], "damage": d}
                if spent:
                    countered["ammo"] = spent
                ctx.end_on_action(target, "attack")  # hitting back is an attack: it ends what an attack ends
                if d.get("vanquished"):
                    _slain(ctx, effects.Kill(target, plan.target_side, tw, attacker))
    ctx.end_on_action(attacker, "attack")
    if not ctx.records:  # a simulated attack: the odds and the offers below are words for the record only
        return
    each = each_attack(plan)  # the odds the attack's button is worked out from (``chances_of``)
    extra = {}
    if ammo:
        extra["ammo"] = ammo
    if offers:
        extra["on_hit_options"] = offers
    if plan.asked.get("thrown"):
        extra["thrown"] = True
    if plan.disadvantage:
        extra["disadvantage"] = True
    if len(resists) > 1:
        extra["resist_totals"] = resists
    ctx.out(attacker=attacker, target=target, weapon=w["name"], multi=n, advantage=plan.advantage,
            attack_totals=totals, resist_total=resists[0], results=results, damage=damage, counter=countered,
            attack_expr=plan.expr, resist_expr=plan.resist,
            chance={"win": str(each.win), "tie": str(each.tie), "lose": str(each.lose)}, **extra)


def _slain(ctx: Ctx, kill: effects.Kill) -> None:
    """A blow slew a creature: what that does for whoever struck it (a Blood Magic sword is charged)."""
    for vanquished in effects.ON_VANQUISH.now(ctx.state):
        vanquished(ctx, kill)


def strike(ctx: Ctx, attacker: str, target: str, weapon: Any = None, *, on_landed: Callable | None = None,
           **asked: Any) -> None:
    """An attack made as part of another deed (an ability's multi-attack, Light's blinding touch): planned and
    rolled, its action already paid for by the deed."""
    resolve_attack(ctx, prepare_attack(ctx, attacker, target, weapon, **asked), on_landed)


class OnHitOption(Record):
    """A choice the hit allows once it is seen (a smite): its option and name, its cost, the dice it adds, the hit
    it would ride, and whether it can be paid (``why`` not)."""

    option: str
    name: str
    cost: dict[str, int] = field({})
    cost_text: Text | None = None
    adds: str | None = None
    hit: int | None = None
    affordable: bool = True
    why: Text | None = None


class Struck(Record):
    """An attack rolled, wherever it is made (an attack, an ability's, a spell's touch): who attacked whom with
    what, how many attacks (``multi``) with or without advantage, each attack's total against the resist roll
    (``resist_totals`` when each attack had its own) and how it went, the damage of each hit, the counter-attack,
    the rolls' dice and exact odds, the ammunition spent, and the choices the hit allows now it is seen."""

    attacker: str
    target: str = field(column=ROLE)
    weapon: str
    multi: int
    advantage: bool
    disadvantage: bool = False
    attack_totals: list[int]
    resist_total: int
    resist_totals: list[int] = field(())
    results: list[Result]
    damage: list[Damage]
    counter: Counter | None
    attack_expr: str
    resist_expr: str
    chance: Chances
    ammo: Ammo | None = None
    thrown: bool = False
    on_hit_options: list[OnHitOption] = field(())


class Attack(Struck, Action, kind="attack", actor="attacker", targets=("target",)):
    """An attack: the attacker's D20 and skill against the target's D20 (``Struck``), and what the attacker's
    class brings to it (each declared where it plugs in: ``declared.extend``)."""


@command(Attack, options=CLASS_OPTIONS)
def attack(ctx: Ctx, attacker: str, target: str, weapon: Any = None, advantage: bool = False,
           multi: int | None = None, bonus=None, target_bonus=None, counter: bool | None = None,
           counter_weapon: Any = None, max_damage: bool = False, extra_damage: str | None = None,
           **options: Any) -> None:
    """Attacker's D20 + skill against the target's D20: higher hits, lower is countered, a tie both hit.

    A multi-attack rolls an extra D20 per extra attack, all bonus dice once; the target rolls one D20
    against them all and counters only if every attack fails, with a weapon that fits the exchange
    (``counter_weapon`` names it). ``options`` are what classes bring (a smite, a surprised target, a Sentry
    attack, Focus, the target's Dodge, a thrown weapon): see ``effects``. It uses the attacker's action (a
    Sentry's attack is a reaction; the Holy Weapon's sword has its own slot in the cleric's turn)."""
    plan = prepare_attack(ctx, attacker, target, weapon, advantage=advantage, multi=multi, bonus=bonus,
                          target_bonus=target_bonus, counter=counter, counter_weapon=counter_weapon,
                          max_damage=max_damage, extra_damage=extra_damage, **options)
    turns.take(ctx, attacker, plan.timing, f"attack {target}")
    resolve_attack(ctx, plan)


class DamageByHand(Action, kind="damage", targets=("who",)):
    """Damage the keeper deals outside an attack (a fall), credited to ``by`` (the keeper, or a hazard named)."""

    BY_HAND = True
    damage: list[Damage]


@command(DamageByHand, options=("dodge",))
def damage_cmd(ctx: Ctx, who: str, amount: int, source: str = "keeper", armor: bool = False, by: str = KEEPER,
               **options: Any) -> None:
    """The keeper deals damage outside an attack (a trap, a fall); armor applies only if asked. ``source`` is
    what, in the keeper's words; ``by`` who or what dealt it: the keeper's hand, someone here, or a hazard named
    (``by="Falling block"``: credited to it). ``options`` are what may take damage off first (``dodge=True``: a
    rogue spends grit to Dodge it)."""
    _dealer(ctx, by)
    if not isinstance(amount, int) or amount < 0:
        ctx.refuse(f"damage is a whole number of hearts, not {amount!r}")
    _, c = ctx.combatant(who)
    if is_dead(c):
        ctx.refuse(f"{who} is already dead")
    ctx.out(damage=[deal_damage(ctx, who, amount, source, by=by, armor=armor, asked=options)])


def heal(ctx: Ctx, who: str, amount: int, source: str, *, by: str, above_max: bool = False) -> dict:
    """Hearts restored by ``by`` with ``source`` (what: a spell, an ability, the keeper's words), up to the maximum
    (Aid may go above it); a heal never lowers hearts that are above the maximum (they stay until damage takes
    them). Refused while healing is banned, and for a dying delver until its death save unless the rules say
    healing lifts the dying (``core.death_save.heal_dying``)."""
    side, c = ctx.combatant(who)
    if is_dead(c):
        ctx.refuse(f"{who} is dead: hearts cannot be restored")
    if is_dying(c) and not ctx.core["death_save"]["heal_dying"]:
        ctx.refuse(f"{who} is dying and must make a death save before being healed")
    banned = healing_banned(ctx, who)
    if banned:
        ctx.refuse(banned)
    path = ctx.path_of(who)
    if is_dying(c) and amount > 0:
        ctx.set(path + ["status"], STATUS_ALIVE)  # healed, the dying delver owes no death save
    before = c["hearts"]
    cap = c["max_hearts"] if not above_max else max(c["max_hearts"], before + amount)
    after = max(before, min(cap, before + amount))
    ctx.set(path + ["hearts"], after)
    return {"who": who, "by": by, "source": source, "amount": amount, "hearts_before": before, "hearts_after": after}


class HealByHand(Action, kind="heal", targets=("who",)):
    """Hearts the keeper restores (a potion), credited to ``by``."""

    BY_HAND = True
    healing: list[Healing]


@command(HealByHand)
def heal_cmd(ctx: Ctx, who: str, amount: int, source: str = "keeper", by: str = KEEPER) -> None:
    """The keeper restores hearts (a potion, a rest the table agreed on); ``by`` as for ``damage``."""
    _dealer(ctx, by)
    if not isinstance(amount, int) or amount < 0:
        ctx.refuse(f"healing is a whole number of hearts, not {amount!r}")
    ctx.out(healing=[heal(ctx, who, amount, source, by=by)])


def _dealer(ctx: Ctx, by: Any) -> None:
    if not (isinstance(by, str) and by.strip()):
        ctx.refuse(f"by names who or what dealt it (the keeper, someone here, a trap), not {by!r}")
