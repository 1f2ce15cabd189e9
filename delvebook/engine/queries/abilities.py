"""A delver's abilities and spells now (level, specialty, cost, inputs, whether it can pay) and the options of a
level-up choice.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Mapping, NamedTuple

from ...core.rules import Rules
from .. import effects
from ..base import Reader, data_items
from ..effects import Input
from .acting import ACTION, ability_timing

__all__ = ["option_name", "ability_refusal", "cost_text", "AbilityChoice", "abilities_available", "ability_available", "SpellChoice", "spell_inputs", "ability_ready", "signature_choice", "spells_available", "find_choice", "raisable_skills", "choice_options"]


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


def _has(d: Mapping, aid: str, a: Mapping) -> bool:
    """``ability_refusal(...) is None``, without the words."""
    if d["level"] < a["level"]:
        return False
    if aid in d.get("abilities", ()):
        return True
    req = a.get("requires")
    return not req or d["choices"].get(req["choice"]) == req["option"]


def ability_refusal(rules: Rules, who: str, d: Mapping, aid: str, a: Mapping) -> str | None:
    """Why ``who`` does not have ability ``aid`` now (its level, or the specialty or technique it comes with),
    or None when it does."""
    if _has(d, aid, a):
        return None
    level = a["level"]
    if d["level"] < level:
        return f"{who} is level {d['level']}; {a['name']} comes at level {level}"
    if aid in d.get("abilities", ()):  # granted by the option chosen
        return None
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
    return [_ability_choice(rules, d, aid, a) for aid, a in rules.abilities(d["class_id"]).items() if _has(d, aid, a)]


def ability_available(state: dict, rules: Rules, who: str, aid: str) -> AbilityChoice | None:
    """``abilities_available``'s answer for one ability ``aid`` (None when ``who`` does not have it now): what a
    question about one ability asks (may this delver Dodge, and can it pay?)."""
    d = state["delvers"].get(who)
    if d is None:
        return None
    a = rules.abilities(d["class_id"]).get(aid)
    if a is None or not _has(d, aid, a):
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
    return _has(d, aid, a)


def signature_choice(d: Mapping) -> SpellChoice | None:
    """A delver's signature spell, if it has recorded one (and not copied it out of its book)."""
    sig = d.get("signature_spell")
    if not (sig and sig.get("name")) or sig.get("copied_to"):
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
