"""Encounters: foes, initiative by side, turns and rounds, attacks with counters, armor, damage, healing.

How delvebook reads the text where it is silent (each is in the rules data too):
- Turns (``core.turns``): each combatant has its action on its turn; ``turns.take`` refuses an action out of
  turn or a second one, naming whose turn it is, unless the keeper overrides.
- The party's order may change at any moment: it changes who acts next, and no one who has had their turn
  this round gets another (a delver who has done nothing yet on its turn hands it to the new first).
- An order set before initiative is kept; a delver who joins a running fight acts at the end of the party.
- A counter-attack is made with a weapon that fits the exchange: a melee weapon (or fists) against a melee
  attack, a ranged weapon ready to shoot in a duel with bows; the defender may name it (``counter_weapon``).
- A choice made once a hit is seen (a smite) is offered in the outcome (``on_hit_options``); choosing it re-runs
  the attack with the same dice, as an action that replaces it.
"""

from __future__ import annotations

from typing import Any, Callable, Literal, Mapping

from ..core.declared import ROLE, Action, Record, Text, field, rename
from ..core.dice import parse
from ..core.distribution import odds
from ..core.events import clone
from ..core.model import (CREATURE, FOES, PARTY, STATUS_ALIVE, STATUS_DEAD, STATUS_DYING, current_actor, is_alive, is_dead,
                     is_dying, present, used_this_turn)
from ..core.names import NameIndex
from ..core.records import Ammo, Chances, Counter, Damage, Healing, Result
from ..core.roles import KEEPER
from . import effects, turns
from .base import Ctx, Reader, command, path_in
from .creatures import creature_from, names_in_play
from .gear import fired, spend_ammo
from .progress import Awarded, award
from .queries import (armor_in, attack_ready, attack_result, countered_after, healing_banned, plan_attack_on,
                      unarmed, weapon_of)

__all__ = ["PARTY", "FOES", "current_actor", "deal_damage", "damage_roll", "heal", "attack",
           "strike", "prepare_attack", "resolve_attack", "ATTACK_WORDS", "CLASS_OPTIONS", "Struck", "OnHitOption",
           "Encounter", "AddFoes", "Initiative", "SetOrder", "NextTurn", "EndEncounter", "Attack", "DamageByHand",
           "HealByHand"]


# ---------------------------------------------------------------- foes and encounters

def _new_foe(ctx: Ctx, spec: Any, taken: NameIndex, numbered: dict | None = None) -> dict:
    if isinstance(spec, str):
        spec = {"foe": spec}
    if not isinstance(spec, Mapping) or not ("foe" in spec or "npc" in spec):
        ctx.refuse(f"a foe is a bestiary id like 'goblin', {{foe: goblin, name: ...}}, or a named NPC "
                   f"{{npc: Grak}}; got {spec!r}")
    if "npc" in spec:  # a named creature joins the fight, and comes back out of it when the fight ends
        name = spec["npc"]
        c = ctx.state.get("creatures", {}).get(name)
        if c is None or c.get("role") == "familiar":
            ctx.refuse(f"there is no NPC named {name!r} to join the fight")
        if is_dead(c):
            ctx.refuse(f"{name} is dead")
        foe = clone(c)
        foe["npc"] = True
        return foe
    # a prepared encounter may give one foe its own name and hearts
    return creature_from(ctx, spec.get("name"), {"foe": spec["foe"], "hearts": spec.get("hearts")}, taken,
                         "a foe's name", numbered)


class FoeJoined(Record):
    """A foe who joins a fight as it begins: its name, its kind (a bestiary id) and hearts."""

    name: str
    kind: str
    hearts: int


class Encounter(Action, kind="encounter", targets=("foes",)):
    """A fight begins: its name and the foes in it, and whether it is fought in darkness."""

    name: str
    foes: list[FoeJoined]
    dark: bool = False


@command(Encounter)
def start_encounter(ctx: Ctx, foes: list, name: str | None = None, dark: bool = False) -> None:
    """A fight begins: foes from the bestiary (or named NPCs) join; initiative comes next. ``dark``: it is fought in
    darkness (``core.sight``: whoever cannot see attacks with disadvantage)."""
    if not isinstance(dark, bool):
        ctx.refuse(f"dark is true or false, not {dark!r}")
    if ctx.state["encounter"] is not None:
        ctx.refuse("a fight is already running: end it before starting another")
    if not foes:
        ctx.refuse("an encounter needs at least one foe")
    taken = NameIndex(names_in_play(ctx))
    made: dict = {}
    numbered: dict = {}  # the last number given each bestiary name: naming n foes is linear, not quadratic
    for spec in foes:
        f = _new_foe(ctx, spec, taken, numbered)
        if f["name"] in made:
            ctx.refuse(f"{f['name']!r} is already a name in this fight")
        made[f["name"]] = f
        taken.add(f["name"], "a foe in this fight")
    joining = [n for n, f in made.items() if f.get("npc")]
    if joining:
        ctx.set(["creatures"], {n: c for n, c in ctx.state["creatures"].items() if n not in joining})
    number = ctx.state["encounters_fought"] + 1
    enc = {"number": number, "name": name or f"Encounter {number}", "foes": made, "round": 0, "side": None,
           "turn": 0, "first": None, "order": {PARTY: [], FOES: list(made)}, "started_at": ctx.state["clock"],
           "vanquished": [], "acted": [], "used": {}}
    if dark:
        enc["dark"] = True
    ctx.set(["encounter"], enc)
    ctx.out(name=enc["name"], foes=[{"name": f["name"], "kind": f["kind"], "hearts": f["hearts"]}
                                    for f in made.values()], **({"dark": True} if dark else {}))


class AddFoes(Action, kind="add_foes", targets=("foes",)):
    """Foes who join a running fight, by name."""

    foes: list[str]


@command(AddFoes)
def add_foes(ctx: Ctx, foes: list) -> None:
    """Foes join a running fight; they act at the end of the foes' order."""
    enc = _encounter(ctx)
    taken = NameIndex(names_in_play(ctx))
    joined = []
    numbered: dict = {}
    for spec in foes:
        f = _new_foe(ctx, spec, taken, numbered)
        if f["name"] in enc["foes"]:
            ctx.refuse(f"{f['name']!r} is already a name in this fight")
        taken.add(f["name"], "a foe in this fight")
        if f.get("npc"):
            ctx.set(["creatures"], {n: c for n, c in ctx.state["creatures"].items() if n != f["name"]})
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
    """The party's order for a fight: one the players set (before initiative too), then anyone present it does not
    name, in seat order (clockwise)."""
    enc = ctx.state["encounter"]
    here = present(ctx.state)
    chosen = [n for n in (enc["order"][PARTY] if enc else ()) if n in here]
    return chosen + [n for n in here if n not in chosen]


class _TurnBegins(Action):
    """An event after which someone's turn begins (``turn_of``); version 1 called it ``actor``."""

    turn_of: str | None = None

    @classmethod
    def upcast_v1_v2(cls, event: dict, state_before: Mapping) -> dict:
        if "actor" in event:
            rename(event, "actor", "turn_of")
        return super().upcast_v1_v2(event, state_before)


class Sides(Record):
    """The order of each side in a fight."""

    party: list[str]
    foes: list[str]


class Initiative(_TurnBegins, kind="initiative", targets=("turn_of",)):
    """Which side goes first: each side's D6 until they differ (none: the keeper said), and the order."""

    first: Literal["party", "foes"]
    initiative_rolls: list[list[int]]
    order: Sides = field(column="sides_order")


@command(Initiative)
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
    ctx.set(["encounter", "round"], 1)
    ctx.set(["encounter", "acted"], [])
    order = ctx.state["encounter"]["order"][first]
    nxt = _next_in(ctx, order, [])
    ctx.set(["encounter", "turn"], order.index(nxt) if nxt is not None else 0)
    ctx.out(first=first, initiative_rolls=rolls, order=ctx.state["encounter"]["order"])
    _start_turn(ctx)


def _takes_a_turn(ctx: Reader, name: str) -> bool:
    """The dead are skipped; the dying still take their turn (for the death save)."""
    _, c = ctx.combatant(name)
    return not is_dead(c)


def _next_in(ctx: Reader, order: list, acted: list) -> str | None:
    """The first in ``order`` who has not had their turn this round and takes one."""
    for n in order:
        if n not in acted and _takes_a_turn(ctx, n):
            return n
    return None


def _start_turn(ctx: Ctx) -> None:
    """A turn begins: its action is fresh, and what lasted until the start of this one's next turn ends."""
    enc = ctx.state["encounter"]
    if enc.get("used") or "used" not in enc:
        ctx.set(["encounter", "used"], {})
    actor = current_actor(ctx.state)
    if actor is not None:
        ctx.end_conditions(lambda c: c["ends_on"] != f"turn:{actor}", f"{actor}'s turn began")
        ctx.out(turn_of=actor)


class SetOrder(_TurnBegins, kind="set_order", targets=("turn_of",)):
    """The party's new order in the fight."""

    order: list[str] = field(column="party_order")


@command(SetOrder)
def set_order(ctx: Ctx, order: list[str]) -> None:
    """The party changes its order (the default is clockwise around the table): it changes who acts next; no one
    gets a second turn in a round, and a delver who has done nothing yet on its turn hands it to the new first."""
    enc = _encounter(ctx)
    current = enc["order"][PARTY] or _party_order(ctx)
    if not isinstance(order, (list, tuple)) or sorted(order) != sorted(current):
        ctx.refuse(f"the new order must name each delver in the fight once: {', '.join(current)}")
    actor = current_actor(ctx.state) if enc["side"] == PARTY else None
    ctx.set(["encounter", "order", PARTY], list(order))
    if actor is not None:
        acted = enc.get("acted", [])
        nxt = actor
        if not used_this_turn(ctx.state, actor):  # it has done nothing yet: the new first in line acts
            nxt = _next_in(ctx, list(order), acted) or actor
        ctx.set(["encounter", "turn"], list(order).index(nxt))
        if nxt != actor:
            _start_turn(ctx)
    ctx.out(order=list(order))


class NextTurn(_TurnBegins, kind="next_turn", targets=("turn_of",)):
    """The next turn: the side whose it is, and whether a new round began (the event's ``round``)."""

    side: Literal["party", "foes"]
    new_round: bool


@command(NextTurn)
def next_turn(ctx: Ctx) -> None:
    """The current actor is done; the next in the side's order who has not had a turn this round acts (the other
    side when all have; a new round when both sides have acted)."""
    enc = _encounter(ctx)
    if enc["side"] is None:
        ctx.refuse("roll initiative (or say who goes first) before taking turns")
    actor = current_actor(ctx.state)
    acted = list(enc.get("acted", []))
    if actor is not None and actor not in acted:
        acted.append(actor)
    side, rnd = enc["side"], enc["round"]
    nxt = _next_in(ctx, enc["order"][side], acted)
    sides_ended = []
    for _ in range(2):
        if nxt is not None:
            break
        sides_ended.append(side)
        other = FOES if side == PARTY else PARTY
        if other == enc["first"]:
            rnd += 1
        side, acted = other, []
        nxt = _next_in(ctx, enc["order"][side], acted)
    order = enc["order"][side]
    new_round = rnd != enc["round"]
    ctx.set(["encounter", "side"], side)
    ctx.set(["encounter", "turn"], order.index(nxt) if nxt is not None else len(order))
    ctx.set(["encounter", "acted"], acted)
    for ended in sides_ended:  # what lasted this side's turn (a Commander's order) ends with it
        ctx.end_conditions(lambda c, s=ended: c["ends_on"] != f"side:{s}", f"the {ended}' turn ended")
    if new_round:
        ctx.set(["encounter", "round"], rnd)
        ctx.advance_clock(ctx.core["time"]["round_seconds"])
    ctx.out(side=side, round=rnd, new_round=new_round)
    _start_turn(ctx)


class EndEncounter(Awarded, Action, kind="end_encounter"):
    """The fight ends: its name and rounds, the foes vanquished and their XP (``xp_awards``: how it split), and
    the foes who stay in the story as NPCs (``kept``)."""

    name: str
    rounds: int
    vanquished: list[str]
    xp: int
    kept: list[str] = field(())


@command(EndEncounter)
def end_encounter(ctx: Ctx, keep: list | None = None) -> None:
    """The fight ends: XP for the vanquished (their maximum hearts), split across the party. NPCs who fought go
    back to being NPCs; ``keep`` names foes still standing who stay in the story as NPCs (a prisoner)."""
    enc = _encounter(ctx)
    keep = list(keep or [])
    for n in keep:
        if n not in enc["foes"]:
            ctx.refuse(f"there is no foe named {n!r} to keep ({', '.join(enc['foes'])})")
        if is_dead(enc["foes"][n]):
            ctx.refuse(f"{n} is dead: there is no one to keep")
    vanquished = [f for f in enc["foes"].values() if is_dead(f)]
    xp = sum(f["max_hearts"] for f in vanquished) * ctx.core["xp"]["per_heart_vanquished"]
    staying = {n: f for n, f in enc["foes"].items() if f.get("npc") or n in keep}
    leaving = set(enc["foes"]) - set(staying)
    ctx.out(name=enc["name"], rounds=enc["round"], vanquished=[f["name"] for f in vanquished], xp=xp,
            **({"kept": sorted(staying)} if staying else {}))
    ctx.end_conditions(lambda c: not (c["ends_on"] or "").startswith(("turn:", "side:")) and c["who"] not in leaving,
                       "the fight ended")
    if staying:
        creatures = dict(ctx.state.get("creatures", {}))
        for n, f in staying.items():
            c = clone(f)
            c.pop("npc", None)
            c["role"] = "npc"
            creatures[n] = c
        ctx.set(["creatures"], creatures)
    ctx.set(["encounter"], None)
    ctx.set(["encounters_fought"], enc["number"])
    if xp:
        award(ctx, xp, f"vanquished: {', '.join(f['name'] for f in vanquished)}", "vanquished")


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
    return ctx.roll(name, expr, who=who, why=f"damage ({w['name']})").total, expr


# ---------------------------------------------------------------- attacks

ATTACK_WORDS = ("advantage", "multi", "bonus", "target_bonus", "counter", "counter_weapon", "max_damage",
                "extra_damage")
"""The attack's own options, whoever attacks."""

CLASS_OPTIONS = ("smite", "sentry", "surprised", "thrown", "focus", "dodge")
"""What classes bring to an attack, each answered by a hook in ``effects``: an Oath's smite, a Sentry's attack, a
surprised target (Ambush), a thrown weapon, Focus on the roll, the target's Dodge."""


def _check_options(ctx: Ctx, options: Mapping) -> None:
    """An attack made as part of another deed (``strike``) takes what the attack command takes."""
    unknown = [k for k in options if k not in ATTACK_WORDS and k not in CLASS_OPTIONS]
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
    a_side, a = ctx.able_combatant(attacker, "attack")  # (no one by that name is refused first, as combatant refuses)
    t_side, t = ctx.combatant(target)
    if is_dead(t):
        ctx.refuse(f"{target} is already dead")
    if attacker == target:
        ctx.refuse("a combatant cannot attack itself")
    return plan_attack_on(ctx, attacker, a_side, a, target, t_side, t, weapon,
                          {k: v for k, v in asked.items() if v is not None})


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
    for d in damage:
        if d.get("vanquished"):
            for vanquished in effects.ON_VANQUISH.now(ctx.state):
                vanquished(ctx, plan)
            break
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
    ctx.end_on_action(attacker, "attack")
    if not ctx.records:  # a simulated attack: the odds and the offers below are words for the record only
        return
    chance = odds(plan.expr, vs=plan.resist)
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
            chance={"win": str(chance.win), "tie": str(chance.tie), "lose": str(chance.lose)}, **extra)


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
