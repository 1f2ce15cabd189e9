"""What a D20 roll is made of: a skill by id or name and its bonus dice, the roll a check, an opposed check, a
save or an attack builds (``d20_in``), its exact odds, the death save and the luck die.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping, NamedTuple

from ...core.dice import DiceError, parse
from ...core.distribution import odds
from ...core.model import combatant
from ...core.rules import Rules, RulesError
from .. import effects
from ..base import Reader, data_items

__all__ = ["skill_id", "skill_bonus", "skill_label", "D20", "d20_in", "check_expr", "opposed_expr", "check_odds", "save_roll", "DeathSave", "death_save", "luck_die_sides", "luck_sign_refused"]


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
    """The skill's bonus dice for this combatant: +D6 proficient, +2d6 expert (instead, unless
    ``core.skill_bonus.expert_replaces_proficient`` is false: then both), else None."""
    if skill is None:
        return None
    level = c.get("skills", {}).get(skill)
    if level is None:
        return None
    return _bonus_dice(r.core["skill_bonus"], level)


def _bonus_dice(rule: Mapping, level: str) -> str:
    if level == "expert" and not rule["expert_replaces_proficient"]:
        return f"{rule['proficient']}+{str(rule['expert']).lstrip('+')}"
    return str(rule[level])


def _fmt_dice(expr: str) -> str:
    """'d6' -> 'D6', '2d6' stays '2d6' (the game writes a lone die in capitals)."""
    return expr.upper() if expr.startswith("d") else expr


def skill_label(state: dict, rules: Rules, who: str, sid: str) -> str:
    """'Stealth +D6': the class's name for the delver's skill (a creature's by its id), and its bonus dice."""
    found = combatant(state, who)
    d = found[1] if found is not None else state["delvers"][who]
    spec = rules.class_(d["class_id"])["skills"].get(sid) if "class_id" in d else None
    name = spec["name"] if spec is not None else None
    level = d["skills"][sid]
    bonus = _bonus_dice(rules.core["skill_bonus"], level) if level in rules.core["skill_bonus"] else ""
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
           bonus: Any = None, extra: list[str] = (), asked: Mapping[str, Any] | None = None,
           disadvantage: bool = False) -> D20:
    """A D20 roll by ``who``: the die (or advantage, or disadvantage), the skill's bonus, skill boosts when the
    roller acts (``asked`` is given: Focus, asked for or readied), every roll bonus on ``who`` (a blessing die),
    ``extra`` dice and the keeper's ``bonus``."""
    parts, said, spends = _d20_parts(r, who, c, skill, die, advantage, bonus, extra, asked, disadvantage=disadvantage)
    return D20(_text(parts), said, spends, parts)


def _d20_parts(r: Reader, who: str, c: Mapping, skill: str | None, die: str | None, advantage: bool, bonus: Any,
               extra: list[str], asked: Mapping[str, Any] | None, *,
               disadvantage: bool = False) -> tuple[list, list, list]:
    """``d20_in``'s (parts, words, spends), before the parts are joined into one roll."""
    core = r.core
    if advantage:
        parts, said = [str(core["advantage"]["dice"])], ["advantage"]
    elif disadvantage:
        parts, said = [str(core["disadvantage"]["dice"])], ["disadvantage"]
    else:
        parts, said = [str(die or core["check"]["die"])], ["D20"]
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


def save_roll(r: Reader, who: str, c: Mapping, skill: str | None = None, *, advantage: bool = False,
              bonus: Any = None, asked: Mapping[str, Any] | None = None) -> D20:
    """What ``who`` rolls to save ("a check made to prevent something"): the save's die (``core.save.die``), a
    skill's bonus where the keeper names one, any blessing die. A save the keeper calls for and a save against a
    spell roll the same."""
    return d20_in(r, who, c, skill, die=r.core["save"]["die"], advantage=advantage, bonus=bonus, asked=asked)


class DeathSave(NamedTuple):
    """The death save: the die, the number it must meet or beat, and the exact chance it does."""

    die: str
    target: int
    chance: Fraction


def death_save(state: dict, rules: Rules) -> DeathSave:
    """What a dying delver rolls, what it needs, and its chance (before luck dice)."""
    rule = rules.core["death_save"]
    return DeathSave(str(rule["die"]), rule["target"], odds(str(rule["die"]), target=rule["target"]))


def luck_sign_refused(rules: Rules, sign: int) -> str | None:
    """Why a luck die may not be spent with ``sign`` (+1 added, -1 subtracted) under these rules
    (``core.luck_dice.may_add`` / ``may_subtract``), or None."""
    luck = rules.core["luck_dice"]
    if sign > 0 and not luck["may_add"]:
        return "the house rules let a luck die only be subtracted from a roll"
    if sign < 0 and not luck["may_subtract"]:
        return "the house rules let a luck die only be added to a roll"
    return None


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
