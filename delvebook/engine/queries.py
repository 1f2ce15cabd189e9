"""The questions views and the danger forecast ask, answered from ``(state, rules)`` without changing anything.

What a check or an attack rolls, its exact odds, which weapons a combatant can attack with, whose turn it is,
which abilities and spells a delver has now with their costs and inputs, the options of a level-up choice,
the death save. The commands ask the same functions before they roll (an attack builds its expressions with
``plan_attack``, the one the odds come from), so a button's odds are always the rules' odds.

Each public function takes the state and the rules; the ``*_in`` / ``plan_*`` helpers take a ``Reader`` (a
command's ``Ctx`` is one). A question about someone who is not there answers None (or an empty list).

Standard library only: part of the pure core.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping, NamedTuple

from ..dice import DiceError, parse
from ..distribution import Opposed, odds
from ..model import (CREATURE, combatant, current_actor, is_dead, is_dying, owner_of, present,
                     used_this_turn)
from ..rules import Rules, RulesError
from . import effects
from .base import Reader, Refused, data_items
from .effects import AttackPlan, Input

__all__ = [
    "D20", "SpellAttack", "AbilityChoice", "SpellChoice", "DeathSave", "ANY_WEAPON_SKILL",
    "skill_id", "skill_bonus", "skill_label", "d20_in", "check_expr", "opposed_expr", "check_odds",
    "unarmed", "weapon_of", "weapon_skill", "weapons", "plan_attack", "plan_attack_on", "attack_exprs", "attack_odds",
    "hit_chance",
    "plan_spell_attack", "spell_attack_odds", "save_roll", "death_save", "luck_die_sides", "coin_talons",
    "current_actor", "present", "able", "can_act", "Acting", "may_act", "ACTION", "FREE", "REACTION",
    "ability_timing", "turn_problem", "acting_problem", "armor_in", "armor_value", "healing_banned", "ammo_of", "reloads", "ammo_left",
    "free_reload", "attack_ready", "attack_problem", "Reload", "reloadable", "Carried", "carried",
    "ability_refusal", "ability_ready", "abilities_available", "ability_available", "spells_available",
    "spell_inputs",
    "signature_choice", "cost_text", "option_name",
    "find_choice", "raisable_skills", "choice_options",
]


# ---------------------------------------------------------------- skills and D20 rolls

def skill_id(r: Reader, c: Mapping, skill: str | None) -> str | None:
    """A skill named by id or by its display name ('Sleight of hand'), as the delver's class knows it."""
    if skill is None:
        return None
    if skill in c.get("skills", {}):
        return skill
    wanted = skill.strip().lower().replace(" ", "_")
    for sid in c.get("skills", {}):
        if sid == wanted:
            return sid
    if "class_id" in c:
        for sid, spec in data_items(r.rules.class_(c["class_id"])["skills"]):
            if spec["name"].lower() == skill.strip().lower() or sid == wanted:
                return sid
    return wanted


def skill_bonus(r: Reader, c: Mapping, skill: str | None) -> str | None:
    """The skill's bonus dice for this combatant: +D6 proficient, +2d6 expert (not both), else None."""
    if skill is None:
        return None
    level = c.get("skills", {}).get(skill)
    if level is None:
        return None
    return str(r.core["skill_bonus"][level])


def _fmt_dice(expr: str) -> str:
    """'d6' -> 'D6', '2d6' stays '2d6' (the game writes a lone die in capitals)."""
    return expr.upper() if expr.startswith("d") else expr


def skill_label(state: dict, rules: Rules, who: str, sid: str) -> str:
    """'Stealth +D6': the class's name for the delver's skill (a creature's by its id), and its bonus dice."""
    found = combatant(state, who)
    d = found[1] if found is not None else state["delvers"][who]
    spec = rules.class_(d["class_id"])["skills"].get(sid) if "class_id" in d else None
    name = spec["name"] if spec is not None else None
    bonus = rules.core["skill_bonus"].get(d["skills"][sid], "")
    return f"{name or sid.replace('_', ' ').capitalize()} +{str(bonus).upper()}"


class D20(NamedTuple):
    """A D20 roll as the rules build it: the expression, the parts in words, and what taking it costs."""

    expr: str
    said: list
    spends: list
    parts: list


def _join(parts: list[str]) -> str:
    return parts[0] + "".join(p if p[0] in "+-" else "+" + p for p in parts[1:])


def _text(parts: list[str]) -> str:
    """The canonical notation of ``parts`` joined (``parse``'s text)."""
    return parse(_join(parts)).text


def d20_in(r: Reader, who: str, c: Mapping, skill: str | None, *, die: str | None = None, advantage: bool = False,
           bonus: Any = None, extra: list[str] = (), asked: Mapping[str, Any] | None = None) -> D20:
    """A D20 roll by ``who``: the die (or advantage), the skill's bonus, skill boosts when the roller acts
    (``asked`` is given: Focus, asked for or readied), every roll bonus on ``who`` (a blessing die), ``extra``
    dice and the keeper's ``bonus``."""
    parts, said, spends = _d20_parts(r, who, c, skill, die, advantage, bonus, extra, asked)
    return D20(_text(parts), said, spends, parts)


def _d20_parts(r: Reader, who: str, c: Mapping, skill: str | None, die: str | None, advantage: bool, bonus: Any,
               extra: list[str], asked: Mapping[str, Any] | None) -> tuple[list, list, list]:
    """``d20_in``'s (parts, words, spends), before the parts are joined into one roll."""
    core = r.core
    parts = [str(core["advantage"]["dice"]) if advantage else str(die or core["check"]["die"])]
    said = ["advantage" if advantage else "D20"]
    spends: list = []
    sb = skill_bonus(r, c, skill)
    if sb:
        parts.append(sb)
        said.append(f"{skill} {sb}")
    if asked is not None and "class_id" in c:  # the actor's own boosts: a foe has no grit to focus with
        for boost, given in effects.SKILL_BOOSTS.now(r.state, asked):
            b = boost(r, who, c, skill, given)
            if b is not None:
                parts.append(b.dice)
                said.append(b.said)
                if b.spend is not None:
                    spends.append(b.spend)
    for bonus_of in effects.ROLL_BONUSES.now(r.state):
        b = bonus_of(r, who)
        if b is not None:
            parts.append(b.dice)
            said.append(b.said)
    for e in extra:
        parts.append(e)
        said.append(e)
    if bonus not in (None, 0, ""):
        b = str(bonus)
        parse(b)  # a bad bonus is the keeper's typo: a DiceError says where
        parts.append(b if b[0] in "+-" else "+" + b)
        said.append(f"bonus {b}")
    return parts, said, spends


def check_expr(state: dict, rules: Rules, who: str, skill: str | None = None) -> str | None:
    """What ``who`` rolls for a check with ``skill`` (by id or name), as things stand."""
    found = combatant(state, who)
    if found is None:
        return None
    r = Reader(state, rules)
    return d20_in(r, who, found[1], skill_id(r, found[1], skill), asked={}).expr


def opposed_expr(r: Reader, vs: str, c: Mapping, skill: str | None = None, bonus: Any = None) -> str:
    """What an opponent rolls against a check."""
    return d20_in(r, vs, c, skill_id(r, c, skill), die=r.core["opposed_check"]["die"], bonus=bonus).expr


def check_odds(state: dict, rules: Rules, who: str, skill: str | None = None, target: int | None = None,
               vs: str | None = None, vs_skill: str | None = None) -> Fraction | None:
    """The exact chance that a check by ``who`` succeeds: meets or beats ``target``, or beats ``vs`` (on a tie
    the defender holds)."""
    expr = check_expr(state, rules, who, skill)
    if expr is None:
        return None
    if vs:
        found = combatant(state, vs)
        if found is None or vs == who:
            return None
        return odds(expr, vs=opposed_expr(Reader(state, rules), vs, found[1], vs_skill)).win
    if target is None:
        return None
    return odds(expr, target=target)


# ---------------------------------------------------------------- weapons and attacks

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
    for conjure in effects.CONJURED_WEAPONS:
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
    if asked and any(asked.values()):  # (most attacks are asked for nothing but the attack's defaults)
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
    plan.advantage = advantage = bool(get("advantage") or plan.advantage or edge_adv or _against(r, target))
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
                                  plan.attack_bonus, asked)
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


def plan_spell_attack(r: Reader, who: str, c: Mapping, target: str, t: Mapping,
                      asked: Mapping[str, Any], *, ranged: bool = True) -> SpellAttack:
    """A spell attack (Firebolt, Guiding Bolt): D20 + Magic (and any blessing die, Focus) against the target's
    D20; what gives attack rolls advantage or max damage (a mark, Charge!, Fire) gives it to these too."""
    edge_adv, edge_max = _edges(r, who, ranged=ranged, spell=True)
    advantage = bool(asked.get("advantage")) or edge_adv or _against(r, target)
    skill = "magic" if "magic" in c.get("skills", {}) else None
    roll = d20_in(r, who, c, skill, die=r.core["attack"]["die"], advantage=advantage, bonus=asked.get("bonus"),
                  asked=asked)
    resist = d20_in(r, target, t, None, die=r.core["attack"]["resist_die"], bonus=asked.get("target_bonus")).expr
    return SpellAttack(roll.expr, resist, advantage, roll.spends, edge_max)


def spell_attack_odds(state: dict, rules: Rules, who: str, target: str, **asked: Any) -> Opposed | None:
    """The exact odds of ``who``'s spell attack on ``target`` (a tie lands)."""
    a, t = combatant(state, who), combatant(state, target)
    if a is None or t is None or who == target:
        return None
    s = plan_spell_attack(Reader(state, rules), who, a[1], target, t[1], asked)
    return odds(s.expr, vs=s.resist)


def save_roll(r: Reader, who: str, c: Mapping, skill: str | None = None, *, advantage: bool = False,
              bonus: Any = None, asked: Mapping[str, Any] | None = None) -> D20:
    """What ``who`` rolls to save ("a check made to prevent something"): the save's die (``core.save.die``), a
    skill's bonus where the keeper names one, any blessing die. A save the keeper calls for and a save against a
    spell roll the same."""
    return d20_in(r, who, c, skill, die=r.core["save"]["die"], advantage=advantage, bonus=bonus, asked=asked)


# ---------------------------------------------------------------- death and luck

class DeathSave(NamedTuple):
    """The death save: the die, the number it must meet or beat, and the exact chance it does."""

    die: str
    target: int
    chance: Fraction


def death_save(state: dict, rules: Rules) -> DeathSave:
    """What a dying delver rolls, what it needs, and its chance (before luck dice)."""
    rule = rules.core["death_save"]
    return DeathSave(str(rule["die"]), rule["target"], odds(str(rule["die"]), target=rule["target"]))


def luck_die_sides(rules: Rules) -> int:
    """The sides of the luck die: one die of N sides (d4, d6, d8...), the only kind a luck die can be (it is
    rolled and added to, or subtracted from, a roll already made). Anything else is a RulesError."""
    text = rules.core["luck_dice"]["die"]
    try:
        e = parse(str(text))
    except DiceError as err:
        raise RulesError(f"core.luck_dice.die: {err}") from None
    terms = e.terms
    if len(terms) != 1 or terms[0].is_constant or terms[0].d66 or terms[0].count != 1 or terms[0].keep \
            or terms[0].sign < 0:
        raise RulesError(f"core.luck_dice.die: a luck die is one die (d4, d6, d8...), not {text!r}")
    return terms[0].sides


def coin_talons(rules: Rules) -> int:
    """Talons in the coin that earns XP (``core.xp.coin``, a unit of the currency table); a RulesError names it
    when the currency table has no such unit."""
    coin = rules.core["xp"]["coin"]
    units = dict(data_items(rules.core["currency"]["units"]))
    if coin not in units:
        raise RulesError(f"core.xp.coin: {coin!r} is not a currency unit (units: {', '.join(units)})")
    return units[coin]["talons"]


# ---------------------------------------------------------------- who may act

def able(state: dict) -> list[str]:
    """Everyone in play who can act now (neither dying nor dead): the party in seat order, then the foes."""
    out = [n for n in state["seats"] if not (is_dead(state["delvers"][n]) or is_dying(state["delvers"][n]))]
    enc = state["encounter"]
    if enc is not None:
        out += [n for n, f in enc["foes"].items() if not is_dead(f)]
    return out


def can_act(state: dict, name: str) -> str | None:
    """Why ``name`` cannot act now (not here, dead, dying: a death save first), or None if it can."""
    found = combatant(state, name)
    if found is None:
        return f"no one named {name!r} is here"
    return _blocked(name, found[1])


def _blocked(name: str, c: Mapping) -> str | None:
    """``can_act`` for a combatant found."""
    if is_dead(c):
        return f"{name} is dead"
    if is_dying(c):
        return f"{name} is dying and must make a death save before anything else"
    return None


# ---------------------------------------------------------------- turns and actions

ACTION, FREE, REACTION = "action", "free", "reaction"
"""How a deed sits in the turn economy: it uses the action; it is taken on one's own turn without it (Sprint,
Hide); it answers at any moment (a Sentry's attacks, a Dodge, a counter). A companion's deed names its slot in
its owner's turn (``holy_weapon``)."""


class Acting(NamedTuple):
    """Whether ``who`` may act now, and with what.

    ``tracked``: the turn economy holds now (a fight with turns, rules that enforce them); ``actor``: whose turn
    it is; ``on_turn``: it is ``who``'s turn (a familiar's: its owner's); ``left``: what ``who`` still has this
    turn (``"action"``, and a companion's slot such as ``"holy_weapon"``); ``used``: what it used, by slot;
    ``why``: why ``who`` cannot take an action now, naming whose turn it is (None when it can)."""

    who: str
    tracked: bool
    actor: str | None
    on_turn: bool
    left: tuple
    used: Mapping
    why: str | None

    @property
    def action(self) -> bool:
        """It may take an action now."""
        return self.why is None and (not self.tracked or "action" in self.left)


def _slots(state: dict, rules: Rules, who: str) -> list[str]:
    """The slots ``who`` has in its own turn besides the action (``effects.turn_slots``: a conjured sword's)."""
    hooks = effects.TURN_SLOTS.now(state)
    if not hooks:
        return []
    r = Reader(state, rules)
    return [slot for slots_of in hooks for slot in slots_of(r, who)]


def may_act(state: dict, rules: Rules, who: str) -> Acting:
    """May ``who`` act now, and with what: the one answer the commands refuse by and a view shows (whose turn
    it is, whether ``who`` still has its action, what it used). Outside a fight, or where the rules do not
    enforce turns, anyone able may act; the dead and the dying may not (a death save first)."""
    found = combatant(state, who)
    if found is None:
        return Acting(who, False, None, False, (), {}, f"no one named {who!r} is here")
    side, c = found
    blocked = _blocked(who, c)
    enc = state["encounter"]
    turns = rules.core["turns"]
    if enc is None or not turns["enforced"]:
        return Acting(who, False, None, blocked is None, ("action",) if blocked is None else (), {}, blocked)
    if blocked is not None:
        return Acting(who, True, current_actor(state), False, (), {}, blocked)
    if enc["side"] is None:
        return Acting(who, True, None, False, (), {}, "no turns yet in this fight: roll initiative (or say who "
                                                       "goes first) before anyone acts")
    actor = current_actor(state)
    owner = owner_of(state, who) if side == CREATURE else None
    holder = owner or who
    in_fight = side != CREATURE or owner is not None
    used = used_this_turn(state, who)
    on_turn = in_fight and actor == holder
    left: list[str] = []
    if on_turn:
        count = sum(1 for k in used if k == "action" or k.startswith("action#")) if used else 0
        if count < turns["actions"]:
            left.append("action")
        left += [s for s in _slots(state, rules, who) if s not in used]
    if not in_fight:
        why = f"{who} is not in the fight (add it to the fight, or the keeper may override)"
    elif not on_turn:
        whose = f"{actor}'s" if actor else "nobody's"
        why = f"it is {whose} turn, not {holder}'s" + (f" ({who} acts in {owner}'s turn)" if owner else "")
    elif "action" not in left:
        did = used.get("action", "")
        why = f"{who} has used its action this turn{f' ({did})' if did else ''}, and it is still {holder}'s turn"
    else:
        why = None
    return Acting(who, True, actor, on_turn, tuple(left), used, why)


def ability_timing(rules: Rules, a: Mapping) -> str:
    """How an ability sits in the turn economy: the text's 'use your action' (``action``), 'without using an
    action' (``free``), an answer at any moment (``reaction``: Dodge, Focus, a Commander's order); an ability
    the text does not mark is the rules' ``turns.unmarked`` (an action)."""
    mech = a.get("mechanics", {})
    if mech.get("uses_action"):
        return ACTION
    # a rider on damage or on a roll (a Dodge, a Focus) answers at any moment; one on the next attack (Ferocious
    # strike, a campaign's own) is no deed of its own: the attack it shapes takes the action
    if mech.get("reaction") or "damage_reduction" in mech or "roll_bonus" in mech:
        return REACTION
    if mech.get("free_action") or mech.get("applies_to") == "next_attack":
        return FREE
    return str(rules.core["turns"]["unmarked"])


def turn_problem(state: dict, rules: Rules, who: str, timing: str, what: str) -> str | None:
    """Why ``who`` may not do ``what`` (of ``timing``: action, free, reaction, or a companion's slot) now, or
    None; what a command is refused with (unless the keeper overrides) and what a view greys a button by."""
    if timing == REACTION:
        return can_act(state, who)
    return acting_problem(may_act(state, rules, who), who, timing, what)


def acting_problem(acting: Acting, who: str, timing: str, what: str) -> str | None:
    """``turn_problem`` from ``may_act``'s answer (a command that goes on to mark the action asks once)."""
    if not acting.tracked:
        return acting.why
    if not acting.on_turn:
        if acting.actor is None or acting.why is None or acting.why.startswith(("no turns", f"{who} is not")):
            return acting.why
        tail = "uses" if timing == ACTION else "is taken on"
        return f"{acting.why}: {what} {tail} {who}'s {'action' if timing == ACTION else 'own turn'}"
    if timing == FREE:
        return None
    if timing in acting.left:
        return None
    if timing == ACTION:
        return f"{acting.why}: {what} needs an action (end the turn, or the keeper may override)"
    return f"{who}'s {timing.replace('_', ' ')} has already acted this turn ({acting.used.get(timing, timing)})"


# ---------------------------------------------------------------- armor and gear in play

def armor_in(r: Reader, who: str, c: Mapping) -> tuple[int, list[int]]:
    """The armor that meets damage reaching ``who`` now: the AV of its intact pieces as worn (an Armorer's bonus
    included) and what conditions add (Hold the line), and the intact pieces' indexes (each loses DV on a hit)."""
    intact = []
    av = 0
    for i, a in enumerate(c.get("armor", ())):
        if a["dv"] > 0:
            intact.append(i)
            av += a["av"] + a.get("bonus_av", 0)
    for bonus in effects.ARMOR_BONUSES.now(r.state):
        av += bonus(r, who)
    return av, intact


def healing_banned(r: Reader, who: str) -> str | None:
    """Why ``who`` cannot be healed now (Blood Magic's ban until a rest), or None."""
    for guard in effects.HEAL_GUARDS.now(r.state):
        banned = guard(r, who)
        if banned:
            return banned
    return None


def armor_value(state: dict, rules: Rules, who: str) -> int | None:
    """The AV that applies to damage reaching ``who`` now (``armor_in``); None when no one is called that."""
    found = combatant(state, who)
    if found is None:
        return None
    return armor_in(Reader(state, rules), who, found[1])[0]


def ammo_of(rules: Rules, w: Mapping) -> str | None:
    """The ammunition a weapon shoots (``arrow``, ``bolt``), from the weapon or its gear entry; None if none."""
    if "ammo" in w:
        return w["ammo"]
    item = w.get("item")
    if item is None:  # a foe's own attack
        return None
    found = rules.gear.get(item)
    return found.get("ammo") if found is not None else None


def reloads(rules: Rules, w: Mapping) -> bool:
    """Whether reloading the weapon takes an action (a crossbow)."""
    if "reload_action" in w:
        return bool(w["reload_action"])
    item = w.get("item")
    if item is None:  # a foe's own attack
        return False
    found = rules.gear.get(item)
    return bool(found.get("reload_action")) if found is not None else False


def ammo_left(c: Mapping, ammo: str | None) -> int:
    """How many of ``ammo`` a delver carries."""
    if ammo is None:
        return 0
    return sum(int(it.get("count", 1)) for it in c.get("items", ()) if it.get("item") == ammo)


def free_reload(c: Mapping, w: Mapping) -> bool:
    """The Crossbows specialty: reloading is part of firing a weapon of its skill."""
    skill = c.get("free_reload")
    return bool(skill) and skill in (w.get("skill"), w.get("item"))


def attack_ready(state: dict, rules: Rules, who: str, w: Mapping, shots: int = 1) -> str | None:
    """Why ``who`` cannot shoot ``w`` ``shots`` times now (no arrows left, a crossbow not loaded or shooting more
    than once before a reload), or None. A foe's attack needs nothing."""
    found = combatant(state, who)
    if found is None or "class_id" not in found[1] or w.get("conjured"):
        return None
    c = found[1]
    if reloads(rules, w) and not free_reload(c, w):
        if not w.get("loaded", rules.core["ammunition"]["loaded_when_gained"]):
            return f"{who}'s {w['name']} is not loaded: reloading it takes an action (reload)"
        if shots > 1:
            return f"a {w['name']} shoots once before it must be reloaded (the Crossbows specialty reloads as it fires)"
    ammo = ammo_of(rules, w)
    if ammo is not None:
        need = shots * int(rules.core["ammunition"]["per_attack"])
        have = ammo_left(c, ammo)
        if have < need:
            gear = rules.gear
            name = gear[ammo]["name"].lower() if ammo in gear else ammo
            plural = name if name.endswith("s") else name + "s"
            if have == 0:
                return f"{who} has no {plural} left for the {w['name']}"
            return f"{who} has {have} {name if have == 1 else plural}; {shots} shots need {need}"
    return None


class Reload(NamedTuple):
    """A weapon of ``who``'s that reloading is for (a crossbow): its index among the delver's weapons (what
    ``reload`` takes), its name, whether it is loaded, and why it cannot be reloaded now (None when it can):
    ``overridable`` when that is a rule of play the keeper may waive (nothing to load it with)."""

    weapon: int
    name: str
    loaded: bool
    why: str | None
    overridable: bool = False


def reloadable(state: dict, rules: Rules, who: str) -> list[Reload]:
    """The weapons ``who`` carries that take an action to reload (a crossbow), each with why it cannot be
    reloaded now: already loaded, the Crossbows specialty reloads it as it fires, no bolts left. The reload
    command refuses by the same answers (the turn economy aside: ``turn_problem``)."""
    d = state["delvers"].get(who)
    if d is None:
        return []
    out = []
    for i, w in enumerate(d["weapons"]):
        if not reloads(rules, w):
            continue
        loaded = bool(w.get("loaded", rules.core["ammunition"]["loaded_when_gained"]))
        why, overridable = None, False
        if loaded:
            why = f"{who}'s {w['name']} is already loaded"
        elif free_reload(d, w):
            why = f"{who} reloads the {w['name']} as part of firing it (the Crossbows specialty)"
        else:
            ammo = ammo_of(rules, w)
            if ammo is not None and ammo_left(d, ammo) < 1:
                why, overridable = f"{who} has no {ammo}s left to load the {w['name']} with", True
        out.append(Reload(i, w["name"], loaded, why, overridable))
    return out


class Carried(NamedTuple):
    """Gear on a delver's sheet, as ``take`` and ``drop`` name it: where it is on the sheet (``weapons``,
    ``armor``, ``items``), its name (what ``take``/``drop`` take), how many, and a label ('Arrows x20')."""

    kind: str
    name: str
    count: int
    label: str


def carried(state: dict, rules: Rules, who: str) -> list[Carried]:
    """What ``who`` carries that can be taken or dropped: weapons, armor and items by name, with their counts
    (an empty quiver is left out)."""
    d = state["delvers"].get(who)
    if d is None:
        return []
    out = []
    for kind in ("weapons", "armor", "items"):
        counts: dict[str, int] = {}
        for e in d.get(kind, ()):
            counts[e["name"]] = counts.get(e["name"], 0) + (int(e.get("count", 1)) if kind == "items" else 1)
        out += [Carried(kind, name, n, f"{name} x{n}" if n > 1 else name) for name, n in counts.items() if n > 0]
    return out


# ---------------------------------------------------------------- abilities and spells

def option_name(rules: Rules, class_id: str, choice: str, option: str | None) -> str:
    """The display name of a level choice's option ('bows' -> 'Bows'), nested choices included."""
    def search(choices: Mapping) -> str | None:
        for cid, spec in data_items(choices):
            for oid, opt in data_items(spec.get("options", {})):
                if cid == choice and oid == option:
                    return opt["name"]
                found = search(opt.get("choices", {}))
                if found:
                    return found
        return None
    for lv in range(1, rules.level_cap + 1):
        found = search(rules.level(class_id, lv).get("choices", {}))
        if found:
            return found
    return str(option)


def ability_refusal(rules: Rules, who: str, d: Mapping, aid: str, a: Mapping) -> str | None:
    """Why ``who`` does not have ability ``aid`` now (its level, or the specialty or technique it comes with),
    or None when it does."""
    if aid in d.get("abilities", ()):
        return None
    level = a["level"]
    if d["level"] < level:
        return f"{who} is level {d['level']}; {a['name']} comes at level {level}"
    req = a.get("requires")
    if req and d["choices"].get(req["choice"]) != req["option"]:
        needs = option_name(rules, d["class_id"], req["choice"], req["option"])
        chose = d["choices"].get(req["choice"])
        said = (f"{who} chose {option_name(rules, d['class_id'], req['choice'], chose)}" if chose
                else f"{who} has not chosen a {req['choice'].replace('_', ' ')} yet")
        return f"{a['name']} comes with the {needs} {req['choice'].replace('_', ' ')}; {said}"
    return None


def cost_text(cost: Mapping, per: str | None = None) -> str:
    """A cost in words: '1 grit', '1 blessing', '2 grit', '20 crown'; 'free' for none."""
    words = []
    for res, n in data_items(cost):
        name = res.replace("_", " ")
        if n == 1 and name.endswith("s") and not name.endswith("ss"):
            name = name[:-1]
        words.append(f"{n} {name}" + (f" a {per}" if per else ""))
    return ", ".join(words) or "free"


def _affordable(d: Mapping, cost: Mapping, rules: Rules) -> bool:
    units = dict(data_items(rules.core["currency"]["units"]))
    for res, n in data_items(cost):
        if res == "hearts":
            have = d["hearts"]
        elif res in units:
            have, n = d["purse"], n * units[res]["talons"]
        else:
            have = d["resources"].get(res, 0)
        if have < n:
            return False
    return True


class AbilityChoice(NamedTuple):
    """An ability a delver has now: its id, name, cost (and the cost in words), what it does (the rules'
    ``effect``), the inputs ``use`` takes for it, whether the delver can pay now, a label for a picker, and how
    it sits in the turn economy (``timing``: action, free, reaction)."""

    id: str
    name: str
    cost: Mapping
    cost_text: str
    effect: str
    inputs: tuple
    affordable: bool
    label: str
    timing: str = ACTION


_TARGET = Input("target", "creature", False, "who it is used on (the delver itself if none)")


def _ability_inputs(aid: str, a: Mapping) -> tuple:
    handler = effects.USES.get(aid)
    if handler is not None:
        return handler.inputs
    mech = a.get("mechanics", {})
    return (_TARGET,) if mech.get("heal") else ()


def _ability_choice(rules: Rules, d: Mapping, aid: str, a: Mapping) -> AbilityChoice:
    cost = a["cost"]
    words = cost_text(cost, a.get("cost_per"))
    return AbilityChoice(aid, a["name"], cost, words, a["effect"], _ability_inputs(aid, a),
                         _affordable(d, cost, rules), f"{a['name']} ({words})", ability_timing(rules, a))


def abilities_available(state: dict, rules: Rules, who: str) -> list[AbilityChoice]:
    """The abilities ``who`` has now (level and specialty met), in the class's order, with what each costs."""
    d = state["delvers"].get(who)
    if d is None:
        return []
    return [_ability_choice(rules, d, aid, a) for aid, a in rules.abilities(d["class_id"]).items()
            if ability_refusal(rules, who, d, aid, a) is None]


def ability_available(state: dict, rules: Rules, who: str, aid: str) -> AbilityChoice | None:
    """``abilities_available``'s answer for one ability ``aid`` (None when ``who`` does not have it now): what a
    question about one ability asks (may this delver Dodge, and can it pay?)."""
    d = state["delvers"].get(who)
    if d is None:
        return None
    a = rules.abilities(d["class_id"]).get(aid)
    if a is None or ability_refusal(rules, who, d, aid, a) is not None:
        return None
    return _ability_choice(rules, d, aid, a)


class SpellChoice(NamedTuple):
    """A spell a delver can cast now: its id (what ``cast`` takes), name, how it is cast (``via``: spellbook,
    blessing, bard, sword, signature, naming), its cost, what it does, the inputs ``cast`` takes, whether it was
    used since the last rest, and a label for a picker."""

    id: str
    name: str
    via: str
    cost: Mapping
    cost_text: str
    effect: str
    inputs: tuple
    used: bool
    label: str


def spell_inputs(spell_id: str) -> tuple:
    """The inputs ``cast`` takes for a spell (a target, if its handler says nothing)."""
    handler = effects.SPELLS.get(spell_id)
    return handler.inputs if handler is not None else (_TARGET,)


def ability_ready(rules: Rules, who: str, d: Mapping, aid: str, a: Mapping) -> bool:
    """Whether ``who`` has ability ``aid`` now (see ``ability_refusal``)."""
    return ability_refusal(rules, who, d, aid, a) is None


def signature_choice(d: Mapping) -> SpellChoice | None:
    """A delver's signature spell, if it has recorded one."""
    sig = d.get("signature_spell")
    if not (sig and sig.get("name")):
        return None
    cost = {sig["resource"]: sig["cost"]} if "cost" in sig else {}
    return SpellChoice(sig["name"], sig["name"], "signature", cost, cost_text(cost), sig["description"], (), False,
                       f"{sig['name']} (signature, {sig.get('cost', '?')})")


def spells_available(state: dict, rules: Rules, who: str) -> list[SpellChoice]:
    """The spells ``who`` could cast now, from each way of casting its class has (in the class's order): the
    spellbook's, the divine list, a bard's song, a Blood Magic sword's traced spell, a signature spell, naming
    magic (which asks for true names, a description and a cost)."""
    d = state["delvers"].get(who)
    if d is None:
        return []
    r = Reader(state, rules)
    out: list[SpellChoice] = []
    for aid, a in r.class_abilities(d).items():
        way = effects.CASTINGS.get(aid)
        if way is not None and way.offers is not None:
            out += way.offers(r, who, d, aid, a)
    return out


# ---------------------------------------------------------------- level-up choices

def find_choice(rules: Rules, d: Mapping, pending: Mapping) -> Mapping:
    """The rules of a level-up choice waiting on a delver (``pending`` from its ``pending_choices``)."""
    choices = rules.level(d["class_id"], pending["level"]).get("choices", {})
    if "within" in pending:
        outer = choices[pending["within"]]
        opt = outer["options"][d["choices"][pending["within"]]]
        return opt["choices"][pending["choice"]]
    return choices[pending["choice"]]


def raisable_skills(rules: Rules, d: Mapping, spec: Mapping) -> list[str]:
    """For a choice among the delver's own skills (``from_skills``): the skills it may raise."""
    wanted = spec["from_skills"]
    class_skills = rules.class_(d["class_id"])["skills"]
    return [s for s, bonus in d["skills"].items()
            if bonus == wanted["bonus"] and bool(class_skills[s]["weapon"]) == bool(wanted["weapon"])]


def choice_options(state: dict, rules: Rules, who: str, pending: Mapping) -> list[tuple[str, str]]:
    """(label, option id) for a level-up choice waiting on ``who``."""
    d = state["delvers"][who]
    spec = find_choice(rules, d, pending)
    if "from_skills" in spec:
        return [(s, s) for s in raisable_skills(rules, d, spec)]
    return [(str(opt["name"]), oid) for oid, opt in data_items(spec["options"])]
