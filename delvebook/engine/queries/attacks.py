"""Weapons and attacks: which weapon a combatant attacks with, what an attack rolls (``plan_attack``, the plan the
attack command rolls too), its exact odds and what stands in its way now; spell attacks alike.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping, NamedTuple

from ...core.distribution import Distribution, Opposed, distribution, odds
from ...core.model import combatant
from ...core.rules import Rules
from .. import effects
from ..base import Reader, Refused
from ..effects import AttackPlan
from .acting import turn_problem
from .gear import attack_ready
from .rolls import _d20_parts, _fmt_dice, _text, d20_in

__all__ = ["unarmed", "weapon_of", "ANY_WEAPON_SKILL", "weapon_skill", "weapons", "plan_attack", "plan_attack_on",
           "attack_exprs", "attack_odds", "AttackChances", "each_attack", "chances_of", "attack_chances", "attack_problem", "hit_chance", "SpellAttack", "plan_spell_attack",
           "spell_attack_odds", "dark", "cannot_see", "attack_result", "countered_after"]


def unarmed(r: Reader) -> dict:
    """Fists: the damage the rules give an unarmed attack, with the unarmed skill."""
    return {"name": "Unarmed", "item": "unarmed", "damage": str(r.core["unarmed"]["damage"]), "skill": "unarmed",
            "ranged": False, "bonus": 0}


def _foe_attack(c: Mapping) -> dict:
    return {"name": "attack", "damage": c["damage"], "skill": None, "ranged": c["ranged"], "bonus": 0,
            "attack_bonus": c["attack_bonus"]}


def weapon_of(r: Reader, who: str, c: Mapping, weapon: Any = None) -> dict:
    """The weapon ``who`` attacks with: a foe's (or a named creature's) own attack; a conjured weapon (Holy
    Weapon); by index, item or name among its weapons; its first weapon if none is named; else fists."""
    if "class_id" not in c:
        return _foe_attack(c)
    for conjure in effects.CONJURED_WEAPONS.now(r.state):
        w = conjure(r, who, c, weapon)
        if w is not None:
            return w
    if weapon in (None, "") and c["weapons"]:
        return c["weapons"][0]
    if weapon in (None, "", "unarmed", "Unarmed"):
        return unarmed(r)
    if isinstance(weapon, int) and not isinstance(weapon, bool) and 0 <= weapon < len(c["weapons"]):
        return c["weapons"][weapon]
    for w in c["weapons"]:
        if weapon in (w.get("item"), w.get("name")) or str(weapon).lower() == str(w.get("name", "")).lower():
            return w
    names = ", ".join(w["name"] for w in c["weapons"]) or "none"
    r.refuse(f"{who} has no weapon {weapon!r} (weapons: {names}, or unarmed)")


ANY_WEAPON_SKILL = "weapons"
"""The fighter's Weapons skill: 'If you can kill with it, your skill applies' (a class with a skill of this id
gets it on every weapon)."""


def weapon_skill(r: Reader, c: Mapping, w: Mapping) -> str | None:
    """The best skill that applies: the weapon's own skill, or Weapons (anything it can kill with)."""
    best, rank = None, 0
    skills = c.get("skills", _NO_SKILLS)
    for s in (w.get("skill"), ANY_WEAPON_SKILL):
        if s:
            k = _RANKS.get(skills.get(s), 0)
            if k > rank:
                best, rank = s, k
    return best


_RANKS = {"proficient": 1, "expert": 2}


_NO_SKILLS: Mapping = {}


def weapons(state: dict, rules: Rules, who: str) -> list[tuple[str, Any]]:
    """(label, weapon argument) for each distinct weapon ``who`` carries ('Sword 2d6', 0); fists when it carries
    none; a foe has its one attack ('Attack D6', None)."""
    found = combatant(state, who)
    if found is None:
        return []
    c = found[1]
    if "class_id" not in c:
        return [(f"Attack {_fmt_dice(str(c['damage']))}", None)]
    out, seen = [], set()
    for i, wpn in enumerate(c["weapons"]):
        key = (wpn["name"], wpn["damage"], wpn.get("bonus"))
        if key in seen:
            continue
        seen.add(key)
        out.append((f"{wpn['name']} {_fmt_dice(str(wpn['damage']))}", i))
    if not out:
        out.append((f"Unarmed {rules.core['unarmed']['damage']}", "unarmed"))
    r = Reader(state, rules)
    for names_of in effects.CONJURED_NAMES.now(state):  # a weapon a condition conjures (the Holy Weapon's flying sword)
        for arg in names_of(r, who):
            w = weapon_of(r, who, c, arg)
            out.append((f"{w['name']} {_fmt_dice(str(w['damage']))}", arg))
    return out


def _against(r: Reader, target: str) -> bool:
    """Whether attacks against ``target`` have advantage (a Guiding Bolt's mark)."""
    for against in effects.ATTACKS_AGAINST.now(r.state):
        if against(r, target):
            return True
    return False


def attack_result(core: Mapping, total: int, resist: int) -> str:
    """One attack roll (a weapon's or a spell's) against the resist roll it meets: higher hits, lower misses, a tie
    as ``core.attack.tie`` says (both sides hit; or it favours the attacker, a hit, or the defender, a miss)."""
    if total > resist:
        return "hit"
    if total < resist:
        return "miss"
    tie = core["attack"]["tie"]
    return "tie" if tie == "both_hit" else "hit" if tie == "attacker" else "miss"


def countered_after(core: Mapping, results: list) -> bool:
    """Whether the target may hit back (once, whatever the number of attacks): after a miss (every attack missed,
    for a multi-attack, unless ``core.multi_attack.counter_only_if_all_fail`` is false: any miss), unless
    ``core.attack.counter_attack_on_miss`` is false; and after a tie, where both sides hit."""
    if "tie" in results:
        return True
    if not core["attack"]["counter_attack_on_miss"]:
        return False
    missed = all if core["multi_attack"]["counter_only_if_all_fail"] else any
    return missed(x == "miss" for x in results)


def dark(r: Reader) -> bool:
    """Whether the fight is in darkness: the keeper marked it dark, and no Light shines in it
    (``core.sight.light_ends_darkness``)."""
    enc = r.state["encounter"]
    if enc is None or not enc.get("dark"):
        return False
    return not (r.core["sight"]["light_ends_darkness"] and any(c["kind"] == "light" for c in r.state["conditions"]))


def cannot_see(r: Reader, who: str) -> bool:
    """Whether ``who`` cannot see: blinded (Light's touch), or fighting in darkness."""
    return any(c["who"] == who and c["kind"] == "blinded" for c in r.state["conditions"]) or dark(r)


def _sight(r: Reader, attacker: str, target: str, *, ranged: bool) -> tuple[bool, bool]:
    """(advantage, disadvantage) what sight gives an attack (``core.sight``): a creature that cannot see attacks
    with disadvantage, unless it fights without sight (a Tunnel Fighter, near enough), and attacks against it
    have advantage."""
    sight = r.core["sight"]
    dis = sight["blind_attacker"] == "disadvantage" and cannot_see(r, attacker) \
        and not any(sees(r, attacker, ranged=ranged) for sees in effects.SIGHTLESS.now(r.state))
    adv = sight["against_blind"] == "advantage" and cannot_see(r, target)
    return adv, dis


def plan_attack(r: Reader, attacker: str, target: str, weapon: Any = None,
                asked: Mapping[str, Any] | None = None) -> AttackPlan:
    """An attack as the rules shape it before any die: the weapon, advantage, max damage, the number of attacks,
    whether the target may counter, the attack roll and the target's resist roll. Refuses what the rules do not
    allow (a weapon ``attacker`` lacks, an option it cannot take); pays nothing (``plan.spends`` does)."""
    a_side, a = r.combatant(attacker)
    t_side, t = r.combatant(target)
    return plan_attack_on(r, attacker, a_side, a, target, t_side, t, weapon, dict(asked) if asked else {})


def plan_attack_on(r: Reader, attacker: str, a_side: str, a: Mapping, target: str, t_side: str, t: Mapping,
                   weapon: Any, asked: dict) -> AttackPlan:
    """``plan_attack`` for combatants already found (``Reader.combatant``'s answers), with ``asked`` a dict of
    its own that the plan keeps (an attack command looked both up to check them first)."""
    w = weapon_of(r, attacker, a, weapon)
    plan = AttackPlan(attacker, a_side, a, target, t_side, t, w, asked)
    plan.ranged = bool(w.get("ranged"))
    if w.get("turn_slot"):  # a companion weapon acts in its own slot of the owner's turn (the Holy Weapon's sword)
        plan.timing = w["turn_slot"]
    get = asked.get
    if get("extra_damage"):
        plan.extra_damage.append(str(asked["extra_damage"]))
    plan.options = [opt for name, opt in effects.ATTACK_OPTIONS.items() if get(name)]
    for opt in plan.options:
        if opt.shape is not None:
            opt.shape(r, plan)
    state = r.state
    for modify in effects.ATTACK_MODIFIERS.now(state):
        modify(r, plan)
    edge_adv, edge_max = _edges(r, attacker, ranged=plan.ranged, spell=False)
    sight_adv, sight_dis = _sight(r, attacker, target, ranged=plan.ranged)
    advantage = bool(get("advantage") or plan.advantage or edge_adv or _against(r, target) or sight_adv)
    if advantage and sight_dis:  # advantage and disadvantage cancel: one D20
        advantage = sight_dis = False
    plan.advantage, plan.disadvantage = advantage, sight_dis
    plan.max_damage = bool(get("max_damage") or plan.max_damage or edge_max)
    plan.n = int(get("multi") or plan.multi or (a.get("multi_attack", 1) if "class_id" not in a else 1))
    if plan.n < 1:
        r.refuse("a multi-attack makes at least one attack")
    counter = get("counter")
    plan.counter = (not plan.ranged and w.get("counter", True)) if counter is None else counter
    skill = plan.skill = weapon_skill(r, a, w)
    if w.get("attack_bonus") not in (None, "0", 0):
        plan.attack_bonus.append(str(w["attack_bonus"]))
    attack_rule = r.core["attack"]
    parts, _, spends = _d20_parts(r, attacker, a, skill, attack_rule["die"], advantage, get("bonus"),
                                  plan.attack_bonus, asked, disadvantage=sight_dis)
    if spends:
        plan.spends += spends
    plan.expr = _text(parts)
    if plan.n > 1:  # a multi-attack rolls the die once an attack and the bonus once for all
        plan.base = _text(parts[:1])
        plan.bonus = _text(parts[1:]).lstrip("+") if len(parts) > 1 else None
    plan.resist = _text(_d20_parts(r, target, t, None, attack_rule["resist_die"], False, get("target_bonus"), (),
                                   None)[0])
    return plan


def attack_exprs(state: dict, rules: Rules, attacker: str, target: str, weapon: Any = None,
                 **asked: Any) -> tuple[str, str] | None:
    """(what the attacker rolls, what the target rolls to resist), as the attack command would roll them."""
    try:
        plan = plan_attack(Reader(state, rules), attacker, target, weapon, asked)
    except Refused:
        return None
    return plan.expr, plan.resist


def attack_odds(state: dict, rules: Rules, attacker: str, target: str, weapon: Any = None,
                **asked: Any) -> Opposed | None:
    """The exact odds of one attack: ``.win`` (it hits), ``.tie`` (both sides hit), ``.lose`` (it misses; a
    target that can counter hits back). None when there is no such attack."""
    if attacker == target:
        return None
    exprs = attack_exprs(state, rules, attacker, target, weapon, **asked)
    return None if exprs is None else odds(exprs[0], vs=exprs[1])


class AttackChances(NamedTuple):
    """The exact chances of an attack as planned. ``each``: one attack roll against the target's (an ``Opposed``:
    higher, a tie, lower); for the ``n`` attacks together (a multi-attack's, bonus dice rolled once, the target's
    D20s as ``core.multi_attack`` says), ``any``: at least one lands (a hit, or a tie where it lands too),
    ``all``: every one lands; ``countered``: the target hits back (None when it may not)."""

    n: int
    each: Opposed
    any: Fraction
    all: Fraction
    countered: Fraction | None


def each_attack(plan: AttackPlan) -> Opposed:
    """The exact odds of each attack roll of ``plan`` against the target's (what the attack command records)."""
    return odds(plan.expr, vs=plan.resist)


def chances_of(core: Mapping, plan: AttackPlan) -> AttackChances:
    """The exact chances of ``plan`` as ``resolve_attack`` rolls it: the attack command records them and a view
    shows them (``attack_chances``). Conditioned on the bonus rolled once for every attack, then on each resist
    roll, the attack D20s are independent."""
    n = plan.n
    each = each_attack(plan)
    tie = core["attack"]["tie"]
    can_counter = plan.counter and plan.t.get("counters") is not False
    if n == 1:  # one attack: its own win, tie and lose, a tie read as core.attack.tie says
        lands = each.win + (each.tie if tie != "defender" else 0)
        misses = 1 - lands
        countered = None
        if can_counter:
            countered = (each.tie if tie == "both_hit" else 0) + \
                (misses if core["attack"]["counter_attack_on_miss"] else 0)
        return AttackChances(1, each, lands, lands, countered)
    resist = distribution(plan.resist)
    if n > 1 and core["multi_attack"]["bonus_rolled_once"]:
        own = distribution(plan.base)
        shared = distribution(plan.bonus) if plan.bonus else Distribution.constant(0)
    else:
        own, shared = distribution(plan.expr), Distribution.constant(0)
    rolls = max(1, min(n, int(core["multi_attack"]["target_rolls"])))
    groups = [1] * (rolls - 1) + [n - rolls + 1]  # attacks each resist roll meets (the last meets the rest)
    below = [0]  # below[i]: the weight of own totals under own.lo + i
    for w in own.weights:
        below.append(below[-1] + w)
    whole = own.total

    def split(x: int) -> tuple[int, int, int]:
        """(weights of) own beating x, tying it, below it, a tie read as ``core.attack.tie`` says."""
        i = min(max(x - own.lo, 0), len(own.weights))
        lo = below[i]
        eq = own.weights[i] if 0 <= x - own.lo < len(own.weights) else 0
        hi = whole - lo - eq
        return (hi, eq, lo) if tie == "both_hit" else (hi + eq, 0, lo) if tie == "attacker" else (hi, 0, lo + eq)

    none_miss = all_miss = no_tie = clean = Fraction(0)  # every one lands, all miss, no tie, all hit without one
    for s, ws in shared.items():
        p_land = p_miss = p_untied = p_clean = Fraction(ws, shared.total)
        for k in groups:
            land = miss = untied = hit = 0
            for r, wr in resist.items():
                h, t, m = split(r - s)
                land += wr * (h + t) ** k
                miss += wr * m ** k
                untied += wr * (h + m) ** k
                hit += wr * h ** k
            scale = resist.total * whole ** k
            p_land *= Fraction(land, scale)
            p_miss *= Fraction(miss, scale)
            p_untied *= Fraction(untied, scale)
            p_clean *= Fraction(hit, scale)
        none_miss += p_land
        all_miss += p_miss
        no_tie += p_untied
        clean += p_clean
    countered = None
    if can_counter:
        countered = 1 - no_tie  # a tie anywhere: both sides hit
        if core["attack"]["counter_attack_on_miss"]:
            countered += all_miss if core["multi_attack"]["counter_only_if_all_fail"] else no_tie - clean
    return AttackChances(n, each, 1 - all_miss, none_miss, countered)


def attack_chances(state: dict, rules: Rules, attacker: str, target: str, weapon: Any = None,
                   **asked: Any) -> AttackChances | None:
    """The exact chances of this attack with these options, all its attacks together (``chances_of``); None when
    there is no such attack."""
    if attacker == target:
        return None
    try:
        plan = plan_attack(Reader(state, rules), attacker, target, weapon, asked)
    except Refused:
        return None
    return chances_of(rules.core, plan)


def attack_problem(state: dict, rules: Rules, attacker: str, target: str, weapon: Any = None,
                   **asked: Any) -> str | None:
    """Why ``attacker`` may not make this attack now, or None: whose turn it is or its action used (the weapon's
    slot: the Holy Weapon's sword has its own), no arrows left, a crossbow not loaded. What the attack command
    refuses with unless the keeper overrides, and what a view says beside the attack's button."""
    if attacker == target:
        return "a combatant cannot attack itself"
    try:
        plan = plan_attack(Reader(state, rules), attacker, target, weapon, asked)
    except Refused as err:
        return str(err)
    return (turn_problem(state, rules, attacker, plan.timing, f"attack {target}")
            or attack_ready(state, rules, attacker, plan.weapon, plan.n))


def hit_chance(state: dict, rules: Rules, attacker: str, target: str, weapon: Any = None) -> Fraction | None:
    """The chance an attack hits (beats the target's resist roll); a tie, where both hit, is not counted."""
    o = attack_odds(state, rules, attacker, target, weapon)
    return None if o is None else o.win


def _edges(r: Reader, attacker: str, *, ranged: bool, spell: bool) -> tuple[bool, bool]:
    """(advantage, max damage) what the attacker's state gives every attack roll it makes, weapon or spell (a
    Commander's Charge! and Fire)."""
    adv = mx = False
    for edge in effects.ATTACK_EDGES.now(r.state):
        e = edge(r, attacker, ranged=ranged, spell=spell)
        if e is not None:
            adv = adv or bool(e.advantage)
            mx = mx or bool(e.max_damage)
    return adv, mx


class SpellAttack(NamedTuple):
    expr: str
    resist: str
    advantage: bool
    spends: list
    max_damage: bool = False
    disadvantage: bool = False


def plan_spell_attack(r: Reader, who: str, c: Mapping, target: str, t: Mapping,
                      asked: Mapping[str, Any], *, ranged: bool = True) -> SpellAttack:
    """A spell attack (Firebolt, Guiding Bolt): D20 + Magic (and any blessing die, Focus) against the target's
    D20; what gives attack rolls advantage or max damage (a mark, Charge!, Fire) gives it to these too."""
    edge_adv, edge_max = _edges(r, who, ranged=ranged, spell=True)
    sight_adv, sight_dis = _sight(r, who, target, ranged=ranged)
    advantage = bool(asked.get("advantage")) or edge_adv or _against(r, target) or sight_adv
    if advantage and sight_dis:  # advantage and disadvantage cancel: one D20
        advantage = sight_dis = False
    skill = "magic" if "magic" in c.get("skills", {}) else None
    roll = d20_in(r, who, c, skill, die=r.core["attack"]["die"], advantage=advantage, bonus=asked.get("bonus"),
                  asked=asked, disadvantage=sight_dis)
    resist = d20_in(r, target, t, None, die=r.core["attack"]["resist_die"], bonus=asked.get("target_bonus")).expr
    return SpellAttack(roll.expr, resist, advantage, roll.spends, edge_max, sight_dis)


def spell_attack_odds(state: dict, rules: Rules, who: str, target: str, **asked: Any) -> Opposed | None:
    """The exact odds of ``who``'s spell attack on ``target`` (a tie lands)."""
    a, t = combatant(state, who), combatant(state, target)
    if a is None or t is None or who == target:
        return None
    s = plan_spell_attack(Reader(state, rules), who, a[1], target, t[1], asked)
    return odds(s.expr, vs=s.resist)
