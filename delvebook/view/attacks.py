"""The attacks of the action bar (``attacks`` in actor.js): each weapon against each target standing, with the
exact odds and what stands in the way, and the attack's options."""

from __future__ import annotations

from typing import Mapping

from ..core.dice import DiceError
from ..core.distribution import percent
from ..engine import Reader, Refused, effects, queries
from ..core.model import combatant, is_dead, owner_of
from .shared import UI, attack_fields, familiars, fields_key, frac, hearts_hidden, odds_text, wound

__all__ = ["attacks", "asked_of", "odds_on_button", "chances_said"]


def _class_ability_ids(rules) -> set:
    out = set()
    for _, cls in rules.classes.items():
        if isinstance(cls, Mapping) and isinstance(cls.get("abilities"), Mapping):
            out |= set(cls["abilities"])
    return out


def _weapons_of(s, rules, who: str) -> list:
    """What ``who`` attacks with (a foe: its one attack), to say whether it shoots."""
    found = combatant(s, who)
    if found is None:
        return []
    return [queries.weapon_of(Reader(s, rules), who, found[1], arg) for _, arg in queries.weapons(s, rules, who)]


def _attack_options(camp, ui: UI, who: str, side: str, targets: list[str]) -> list[dict]:
    """The attack's options as toggles: the rules' own (advantage, multi-attack, a bonus, no counter), and what
    classes bring to an attack (effects' attack options and skill boosts) when the attacker has that ability;
    a Dodge when a target may dodge. Read from the engine's registries, so a new option appears by itself."""
    s, rules = camp.state, camp.rules
    a = attack_fields(camp, ui)
    out = [{"name": "advantage", "kind": "flag", "label": "advantage", "value": bool(a.get("advantage")),
            "title": "roll two D20s and keep the higher"},
           {"name": "no_counter", "kind": "flag", "label": "no counter", "value": bool(a.get("no_counter")),
            "title": "the target cannot hit back (the keeper's ruling)"},
           {"name": "multi", "kind": "number", "label": "multi-attack", "value": a.get("multi"), "min": 1, "max": 6,
            "title": "an extra D20 per extra attack; the target rolls once against them all"},
           {"name": "bonus", "kind": "text", "label": "bonus", "value": a.get("bonus") or "",
            "title": "dice or a number added to the attack roll (e.g. 2 or d6)"}]
    if any(w.get("ranged") for w in _weapons_of(s, rules, who)):
        out.insert(2, {"name": "duel", "kind": "flag", "label": "a duel (shot back)", "value": bool(a.get("duel")),
                       "title": "a duel with bows: a ranged attack the target answers with a ranged weapon ready "
                                "('if the target can counter-attack (ie ... dueling with bows)')"})
    if side == "delver":
        have = {x.id for x in queries.abilities_available(s, rules, who)}
        known = _class_ability_ids(rules)
        for name, opt in effects.ATTACK_OPTIONS.items():
            if name in have or name not in known:
                out.append({"name": name, "kind": "flag", "label": name.replace("_", " "),
                            "value": bool(a.get(name)), "title": opt.what})
        for name in effects.SKILL_BOOSTS:
            if name in have:
                ab = rules.ability(s["delvers"][who]["class_id"], name)
                out.append({"name": name, "kind": "flag", "label": f"{ab['name']} ({queries.cost_text(ab['cost'])})",
                            "value": bool(a.get(name)), "title": ab["effect"]})
    else:
        for name in effects.DAMAGE_REDUCERS:
            dodgers = [t for t in targets if t in s["delvers"]
                       and name in {x.id for x in queries.abilities_available(s, rules, t)}]
            if dodgers:
                ab = rules.ability(s["delvers"][dodgers[0]]["class_id"], name)
                out.append({"name": name, "kind": "flag",
                            "label": f"target {ab['name'].lower()}s ({queries.cost_text(ab['cost'])})",
                            "value": bool(a.get(name)), "title": ab["effect"]})
    for o in out:
        o["intent"] = {"do": "attack_option", "name": o["name"], "where": "attack"}
    return out


def asked_of(camp, ui: UI, attacker: str | None = None) -> dict:
    """The attack options picked for ``attacker`` (the actor the bar shows when None) on this turn, as ``attack``
    takes them; none when they were picked for another actor or turn."""
    key = fields_key(camp, ui)
    if attacker is not None and key[0] != attacker or ui.attack_for != key:
        return {}
    asked = {}
    for k, v in ui.attack.items():
        if k == "no_counter":
            if v:
                asked["counter"] = False
        elif k == "duel":
            if v and not ui.attack.get("no_counter"):
                asked["counter"] = True
        elif k == "multi":
            if v:
                asked["multi"] = int(v)
        elif k == "bonus":
            if v not in (None, ""):
                asked["bonus"] = v
        elif v:
            asked[k] = True
    return asked


def attacks(camp, ui: UI, who: str, side: str) -> dict | None:
    """The attacks ``who`` can make: each weapon it has (a conjured one too: the Holy Weapon's sword) against each
    target standing, with the exact odds (``queries.attack_odds``) and what stands in the way now
    (``queries.attack_problem``: the turn, ammunition, a crossbow to reload). A delver and its familiar attack the
    foes; a foe attacks the party and the familiars beside it."""
    s, rules = camp.state, camp.rules
    enc = s["encounter"]
    if enc is None:
        return None
    if side == "creature" and owner_of(s, who) is None:
        return None  # an NPC outside the fight: it joins one as a foe (encounter([{"npc": name}]))
    if side in ("delver", "creature"):
        targets = [n for n, f in enc["foes"].items() if not is_dead(f)]
    else:
        targets = [n for n in s["seats"] if not is_dead(s["delvers"][n])] + familiars(s)
    asked = asked_of(camp, ui, who)
    weapons = queries.weapons(s, rules, who)
    rows = []
    note = None
    for t in targets:
        c = combatant(s, t)[1]
        buttons = []
        for label, arg in weapons:
            try:
                o = queries.attack_chances(s, rules, who, t, arg, **asked)
            except (Refused, DiceError) as err:
                o, note = None, str(err)
            try:
                problem = queries.attack_problem(s, rules, who, t, arg, **asked)
            except DiceError as err:
                problem = str(err)
            intent = {"do": "attack", "attacker": who, "target": t, "weapon": arg, "where": "attack"}
            said = f"{who} attacks {t} with {label}" + (f": {chances_said(o, t)}" if o else "")
            buttons.append({"label": label, "odds": odds_on_button(o) if o else None,
                            "tie": odds_text(o.each.tie) if o else None, "intent": intent, "ready": problem is None,
                            "note": problem or "", "title": said + (f" ({problem})" if problem else "")})
        hide = hearts_hidden(camp, ui, t)
        rows.append({"name": t, "hearts_text": wound(c) if hide else f"{c['hearts']}/{c['max_hearts']}",
                     "frac": frac(c["hearts"], c["max_hearts"]), "status": c["status"], "buttons": buttons})
    return {"rows": rows, "options": _attack_options(camp, ui, who, side, targets), "note": note}


def odds_on_button(o: queries.AttackChances) -> str:
    """What an attack's button says of its odds: one attack's chance to hit ('64%'); a multi-attack's, what they
    are the chances of ('≥1 hit 82%, both 53%': at least one lands, every one lands)."""
    if o.n == 1:
        return odds_text(o.each.win)
    return f"\u22651 hit {odds_text(o.any)}, {'both' if o.n == 2 else 'all'} {odds_text(o.all)}"


def chances_said(o: queries.AttackChances, target: str) -> str:
    """The attack's chances in words, for the button's title."""
    if o.n == 1:
        said = f"{percent(o.each.win, 0)} to hit, {percent(o.each.tie, 0)} a tie (both hit), " \
               f"{percent(o.each.lose, 0)} a miss"
    else:
        said = f"multi-attack {o.n}: {percent(o.any, 0)} at least one hits, {percent(o.all, 0)} " \
               f"{'both' if o.n == 2 else 'all ' + str(o.n)} hit; each attack {percent(o.each.win, 0)}" \
               f" to hit, {percent(o.each.tie, 0)} a tie"
    if o.countered:
        said += f"; {target} hits back {percent(o.countered, 0)}"
    return said
