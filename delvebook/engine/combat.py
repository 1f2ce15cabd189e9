"""Encounters: foes, initiative by side, turns and rounds, attacks with counters, armor, damage, healing."""

from __future__ import annotations

from typing import Any, Mapping

from ..dice import parse
from ..distribution import distribution, odds
from ..model import (FOES, PARTY, STATUS_ALIVE, STATUS_DEAD, STATUS_DYING, current_actor, is_alive, is_dead,
                     is_dying, present)
from . import effects
from .base import Ctx, Reader, command
from .progress import award
from .queries import plan_attack, weapon_of

__all__ = ["PARTY", "FOES", "current_actor", "armor_value", "deal_damage", "damage_roll", "heal", "attack"]


# ---------------------------------------------------------------- foes and encounters

def _new_foe(ctx: Ctx, spec: Any, taken: set) -> dict:
    if isinstance(spec, str):
        spec = {"foe": spec}
    if not isinstance(spec, Mapping) or "foe" not in spec:
        ctx.refuse(f"a foe is a bestiary id like 'goblin', or {{foe: goblin, name: ...}}; got {spec!r}")
    kind = spec["foe"]
    if kind not in ctx.rules.bestiary:
        ctx.refuse(f"there is no {kind!r} in the bestiary (known: {', '.join(ctx.rules.bestiary)})")
    b = ctx.rules.foe(kind)
    name = spec.get("name")
    if name is None:
        k = 1
        while f"{b['name']} {k}" in taken:
            k += 1
        name = f"{b['name']} {k}"
    if name in taken:
        ctx.refuse(f"{name!r} is already a name in this fight")
    armor = []
    if b.get("armor"):
        armor.append({"item": "natural", "name": "armor", "av": b["armor"]["av"], "dv": b["armor"]["dv"],
                      "dv_max": b["armor"]["dv"], "shield": False, "bonus_av": 0})
    hearts = int(spec.get("hearts", b["hearts"]))  # a prepared encounter may give one foe its own hearts
    return {"name": name, "kind": kind, "hearts": hearts, "max_hearts": hearts, "status": STATUS_ALIVE,
            "attack_bonus": str(b["attack_bonus"]), "damage": str(b["damage"]),
            # optional in a bestiary entry: absent means one plain melee attack
            "multi_attack": int(b.get("multi_attack") or 1), "ranged": bool(b.get("ranged")),
            "armor": armor, "tags": list(b["tags"]), "skills": {}}


@command("encounter")
def start_encounter(ctx: Ctx, foes: list, name: str | None = None) -> None:
    """A fight begins: foes from the bestiary join; initiative comes next."""
    if ctx.state["encounter"] is not None:
        ctx.refuse("a fight is already running: end it before starting another")
    if not foes:
        ctx.refuse("an encounter needs at least one foe")
    taken = set(ctx.state["delvers"])
    made = {}
    for spec in foes:
        f = _new_foe(ctx, spec, taken | set(made))
        made[f["name"]] = f
    number = ctx.state["encounters_fought"] + 1
    enc = {"number": number, "name": name or f"Encounter {number}", "foes": made, "round": 0, "side": None,
           "turn": 0, "first": None, "order": {PARTY: [], FOES: list(made)}, "started_at": ctx.state["clock"],
           "vanquished": []}
    ctx.set(["encounter"], enc)
    ctx.out(name=enc["name"], foes=[{"name": f["name"], "kind": f["kind"], "hearts": f["hearts"]}
                                    for f in made.values()])


@command("add_foes")
def add_foes(ctx: Ctx, foes: list) -> None:
    """Foes join a running fight; they act at the end of the foes' order."""
    enc = _encounter(ctx)
    taken = set(ctx.state["delvers"]) | set(enc["foes"])
    joined = []
    for spec in foes:
        f = _new_foe(ctx, spec, taken)
        taken.add(f["name"])
        ctx.set(["encounter", "foes", f["name"]], f)
        joined.append(f["name"])
    ctx.set(["encounter", "order", FOES], enc["order"][FOES] + joined)
    ctx.out(foes=joined)


def _encounter(ctx: Ctx) -> dict:
    enc = ctx.state["encounter"]
    if enc is None:
        ctx.refuse("no fight is running")
    return enc


def _party_order(ctx: Ctx) -> list[str]:
    return present(ctx.state)


@command("initiative")
def initiative(ctx: Ctx, first: str | None = None) -> None:
    """Each side rolls D6 and the higher goes first (ties re-rolled), unless one side obviously goes first."""
    enc = _encounter(ctx)
    if enc["round"] > 0:
        ctx.refuse("initiative is rolled once, at the start of the fight")
    rolls = []
    if first is None:
        die = str(ctx.core["initiative"]["die"])
        while True:
            p = ctx.roll("initiative_party", die, who="party", why="initiative")
            f = ctx.roll("initiative_foes", die, who="foes", why="initiative")
            rolls.append([p.total, f.total])
            if p.total != f.total:
                break
            if len(rolls) > 100:
                ctx.refuse("initiative tied a hundred times: the keeper should say who goes first")
        first = PARTY if rolls[-1][0] > rolls[-1][1] else FOES
    elif first not in (PARTY, FOES):
        ctx.refuse(f"the side that goes first is 'party' or 'foes', not {first!r}")
    ctx.set(["encounter", "first"], first)
    ctx.set(["encounter", "order", PARTY], _party_order(ctx))
    ctx.set(["encounter", "side"], first)
    ctx.set(["encounter", "turn"], 0)
    ctx.set(["encounter", "round"], 1)
    ctx.out(first=first, initiative_rolls=rolls, order=ctx.state["encounter"]["order"])
    _start_turn(ctx)


def _takes_a_turn(ctx: Ctx, name: str) -> bool:
    """The dead are skipped; the dying still take their turn (for the death save)."""
    _, c = ctx.combatant(name)
    return not is_dead(c)


def _start_turn(ctx: Ctx) -> None:
    actor = current_actor(ctx.state)
    if actor is not None:
        ctx.end_conditions(lambda c: c["ends_on"] != f"turn:{actor}", f"{actor}'s turn began")
        ctx.out(actor=actor)


@command("set_order")
def set_order(ctx: Ctx, order: list[str]) -> None:
    """The party changes its order (the default is clockwise around the table)."""
    enc = _encounter(ctx)
    current = enc["order"][PARTY] or _party_order(ctx)
    if sorted(order) != sorted(current):
        ctx.refuse(f"the new order must name each delver in the fight once: {', '.join(current)}")
    ctx.set(["encounter", "order", PARTY], list(order))
    ctx.out(order=list(order))


@command("next_turn")
def next_turn(ctx: Ctx) -> None:
    """The current actor is done; the next able combatant acts (a new round when both sides have acted)."""
    enc = _encounter(ctx)
    if enc["side"] is None:
        ctx.refuse("roll initiative (or say who goes first) before taking turns")
    side, turn, rnd = enc["side"], enc["turn"] + 1, enc["round"]
    for _ in range(len(enc["order"][PARTY]) + len(enc["order"][FOES]) + 2):
        order = enc["order"][side]
        while turn < len(order) and not _takes_a_turn(ctx, order[turn]):
            turn += 1
        if turn < len(order):
            break
        other = FOES if side == PARTY else PARTY
        if other == enc["first"]:
            rnd += 1
        side, turn = other, 0
    new_round = rnd != enc["round"]
    ctx.set(["encounter", "side"], side)
    ctx.set(["encounter", "turn"], turn)
    if new_round:
        ctx.set(["encounter", "round"], rnd)
        ctx.advance_clock(ctx.core["time"]["round_seconds"])
    ctx.out(side=side, round=rnd, new_round=new_round)
    _start_turn(ctx)


@command("end_encounter")
def end_encounter(ctx: Ctx) -> None:
    """The fight ends: XP for the vanquished (their maximum hearts), split across the party."""
    enc = _encounter(ctx)
    vanquished = [f for f in enc["foes"].values() if is_dead(f)]
    xp = sum(f["max_hearts"] for f in vanquished) * ctx.core["xp"]["per_heart_vanquished"]
    ctx.out(name=enc["name"], rounds=enc["round"], vanquished=[f["name"] for f in vanquished], xp=xp)
    ctx.end_conditions(lambda c: not (c["ends_on"] or "").startswith("turn:") and c["who"] not in enc["foes"],
                       "the fight ended")
    ctx.set(["encounter"], None)
    ctx.set(["encounters_fought"], enc["number"])
    if xp:
        award(ctx, xp, f"vanquished: {', '.join(f['name'] for f in vanquished)}", "vanquished")


# ---------------------------------------------------------------- attacks

_ATTACK_WORDS = ("advantage", "multi", "bonus", "target_bonus", "counter", "max_damage", "extra_damage")


def armor_value(ctx: Reader, name: str, c: Mapping) -> tuple[int, list[int]]:
    """Total AV of intact armor (and what conditions add, like Hold the line), and the intact pieces' indexes."""
    intact = [i for i, a in enumerate(c.get("armor", ())) if a["dv"] > 0]
    av = sum(c["armor"][i]["av"] + c["armor"][i].get("bonus_av", 0) for i in intact)
    for bonus in effects.ARMOR_BONUSES:
        av += bonus(ctx, name)
    return av, intact


def deal_damage(ctx: Ctx, target: str, raw: int, source: str, *, armor: bool = True,
                asked: Mapping[str, Any] | None = None) -> dict:
    """Damage reaches ``target``: reducers take theirs first (a Dodge, asked for in ``asked`` or readied), then
    armor absorbs its AV and loses 1 DV a hit; hearts never go below 0."""
    side, c = ctx.combatant(target)
    path = ["delvers", target] if side == "delver" else ["encounter", "foes", target]
    reductions = []
    if raw > 0:
        for reduce in effects.DAMAGE_REDUCERS.values():
            red = reduce(ctx, target, raw, asked or {})
            if red is not None:
                reductions.append(red)
    reduced = sum(red.amount for red in reductions)
    incoming = raw - min(raw, reduced)
    av, intact = armor_value(ctx, target, c) if armor else (0, [])
    if incoming == 0 and any(not red.spares_armor for red in reductions):
        intact = []  # dodged down to nothing: the blow never reached the armor
    dealt = max(ctx.core["armor"]["damage_floor"], incoming - av)
    dv_lost = []
    for i in intact:
        piece = c["armor"][i]
        left = max(0, piece["dv"] - ctx.core["armor"]["dv_per_hit"])
        ctx.set(path + ["armor", i, "dv"], left)
        dv_lost.append({"piece": piece["name"], "dv": left, "broken": left <= ctx.core["armor"]["broken_at_dv"]})
    before = c["hearts"]
    after = max(ctx.core["hearts"]["floor"], before - dealt)
    ctx.set(path + ["hearts"], after)
    result = {"target": target, "source": source, "raw": raw, "av": av, "absorbed": incoming - dealt, "dealt": dealt,
              "hearts_before": before, "hearts_after": after, "dv": dv_lost}
    for red in reductions:
        result[red.field] = red.amount
    if dealt > 0 and before - dealt < ctx.core["death_save"]["retrigger_below"]:
        if side == "delver":
            if is_alive(c):
                ctx.set(path + ["status"], STATUS_DYING)
            result["death_save_due"] = not is_dead(c)
        elif not is_dead(c):
            ctx.set(path + ["status"], STATUS_DEAD)
            ctx.append(["encounter", "vanquished"], target)
            ctx.end_conditions(lambda cond: cond["who"] != target, f"{target} was vanquished")
            result["vanquished"] = True
    return result


def damage_roll(ctx: Ctx, who: str, w: Mapping, *, max_damage: bool, extra: list[str] = (),
                name="damage") -> tuple[int, str]:
    """The damage of one hit with ``w`` (and any extra dice): rolled, or its maximum; flat damage is not rolled."""
    parts = [str(w["damage"])] + [str(x) for x in extra]
    if w.get("bonus"):
        parts.append(str(w["bonus"]))
    e = parse("+".join(p.lstrip("+") for p in parts))
    expr = e.text
    if max_damage or e.dice_count == 0:  # flat damage (unarmed 2) needs no roll
        return distribution(expr).max, expr
    return ctx.roll(name, expr, who=who, why=f"damage ({w['name']})").total, expr


def _check_options(ctx: Ctx, options: Mapping) -> None:
    known = set(effects.ATTACK_OPTIONS) | set(effects.SKILL_BOOSTS) | set(effects.DAMAGE_REDUCERS)
    unknown = [k for k in options if k not in known]
    if unknown:
        ctx.refuse(f"attack takes no option {', '.join(map(repr, sorted(unknown)))} "
                   f"(its options: {', '.join(_ATTACK_WORDS + tuple(sorted(known)))})")


@command("attack")
def attack(ctx: Ctx, attacker: str, target: str, weapon: Any = None, advantage: bool = False,
           multi: int | None = None, bonus=None, target_bonus=None, counter: bool | None = None,
           max_damage: bool = False, extra_damage: str | None = None, **options: Any) -> None:
    """Attacker's D20 + skill against the target's D20: higher hits, lower is countered, a tie both hit.

    A multi-attack rolls an extra D20 per extra attack, all bonus dice once; the target rolls one D20
    against them all and counters only if every attack fails. ``options`` are what classes bring (a smite,
    a surprised target, a Sentry attack, Focus, the target's Dodge): see ``effects``."""
    _check_options(ctx, options)
    ctx.combatant(attacker)
    ctx.require_able(attacker, "attack")
    _, t = ctx.combatant(target)
    if is_dead(t):
        ctx.refuse(f"{target} is already dead")
    if attacker == target:
        ctx.refuse("a combatant cannot attack itself")
    asked = {"advantage": advantage, "multi": multi, "bonus": bonus, "target_bonus": target_bonus,
             "counter": counter, "max_damage": max_damage, "extra_damage": extra_damage, **options}
    plan = plan_attack(ctx, attacker, target, weapon, asked)
    for spend in plan.spends:
        spend(ctx)
    w, n = plan.weapon, plan.n
    if n == 1:
        r = ctx.roll("attack", plan.expr, who=attacker, why=f"attack {target} ({w['name']})")
        totals = [r.total]
    else:
        d20s = [ctx.roll("attack", plan.base, who=attacker, why=f"attack {k + 1} of {n} on {target}")
                for k in range(n)]
        b = ctx.roll("bonus", plan.bonus, who=attacker, why="attack bonus, once for every attack").total \
            if plan.bonus else 0
        totals = [d.total + b for d in d20s]
    res = ctx.roll("resist", plan.resist, who=target, why=f"resist {attacker}")
    results = ["hit" if x > res.total else "tie" if x == res.total else "miss" for x in totals]

    damage = []
    hooks = [opt for name, opt in effects.ATTACK_OPTIONS.items() if options.get(name)]
    for k, outcome in enumerate(results):
        if outcome == "miss":
            continue
        if is_dead(t):
            break
        hit_extra = list(plan.extra_damage)
        for opt in hooks:
            if opt.on_hit is not None:
                hit_extra += opt.on_hit(ctx, plan, k)
        amount, dexpr = damage_roll(ctx, attacker, w, max_damage=plan.max_damage, extra=hit_extra)
        d = deal_damage(ctx, target, amount, f"{attacker} ({w['name']})", asked=asked)
        d.update(attack=k + 1, expr=dexpr, max_damage=plan.max_damage)
        damage.append(d)
    if any(d.get("vanquished") for d in damage):
        for vanquished in effects.ON_VANQUISH:
            vanquished(ctx, plan)
    for opt in hooks:
        if opt.after is not None:
            opt.after(ctx, plan, results)

    countered = None
    all_failed = all(x == "miss" for x in results)
    tie_single = n == 1 and results[0] == "tie"
    if plan.counter and (all_failed or tie_single):
        if is_dead(t) or is_dying(t):
            countered = {"by": target, "possible": False, "why": f"{target} is down"}
        else:
            tw = weapon_of(ctx, target, t, None)
            amount, dexpr = damage_roll(ctx, target, tw, max_damage=False, name="counter_damage")
            d = deal_damage(ctx, attacker, amount, f"{target} ({tw['name']}, counter)")
            d.update(expr=dexpr)
            countered = {"by": target, "possible": True, "damage": d}
    ctx.end_on_action(attacker, "attack")
    if not ctx.records:  # a simulated attack: the odds below are words for the record only
        return
    chance = odds(plan.expr, vs=plan.resist)
    ctx.out(attacker=attacker, target=target, weapon=w["name"], multi=n, advantage=plan.advantage,
            attack_totals=totals, resist_total=res.total, results=results, damage=damage, counter=countered,
            attack_expr=plan.expr, resist_expr=plan.resist,
            chance={"win": str(chance.win), "tie": str(chance.tie), "lose": str(chance.lose)})


@command("damage")
def damage_cmd(ctx: Ctx, who: str, amount: int, source: str = "keeper", armor: bool = False,
               **options: Any) -> None:
    """The keeper deals damage outside an attack (a trap, a fall); armor applies only if asked.
    ``options`` are what may take damage off first (``dodge=True``: a rogue spends grit to Dodge it)."""
    unknown = [k for k in options if k not in effects.DAMAGE_REDUCERS]
    if unknown:
        ctx.refuse(f"damage takes no option {', '.join(map(repr, sorted(unknown)))} "
                   f"(its options: {', '.join(sorted(effects.DAMAGE_REDUCERS)) or 'none'})")
    if not isinstance(amount, int) or amount < 0:
        ctx.refuse(f"damage is a whole number of hearts, not {amount!r}")
    _, c = ctx.combatant(who)
    if is_dead(c):
        ctx.refuse(f"{who} is already dead")
    ctx.out(damage=[deal_damage(ctx, who, amount, source, armor=armor, asked=options)])


def heal(ctx: Ctx, who: str, amount: int, source: str, *, above_max: bool = False) -> dict:
    """Hearts restored, up to the maximum (Aid may go above it); refused while healing is banned."""
    side, c = ctx.combatant(who)
    if is_dead(c):
        ctx.refuse(f"{who} is dead: hearts cannot be restored")
    if is_dying(c):
        ctx.refuse(f"{who} is dying and must make a death save first")
    for guard in effects.HEAL_GUARDS:
        banned = guard(ctx, who)
        if banned:
            ctx.refuse(banned)
    path = ctx.path_of(who)
    before = c["hearts"]
    cap = c["max_hearts"] if not above_max else max(c["max_hearts"], before + amount)
    after = min(cap, before + amount)
    ctx.set(path + ["hearts"], after)
    return {"who": who, "source": source, "amount": amount, "hearts_before": before, "hearts_after": after}


@command("heal")
def heal_cmd(ctx: Ctx, who: str, amount: int, source: str = "keeper") -> None:
    """The keeper restores hearts (a potion, a rest the table agreed on)."""
    if not isinstance(amount, int) or amount < 0:
        ctx.refuse(f"healing is a whole number of hearts, not {amount!r}")
    ctx.out(healing=[heal(ctx, who, amount, source)])
