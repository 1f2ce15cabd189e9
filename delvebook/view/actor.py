"""The action bar (``actor`` in actor.js): whoever acts, with the turn economy's word on it, the sheet, a death
save, checks, attacks, abilities, spells, gear and level-up choices."""

from __future__ import annotations

from ..core.distribution import percent
from ..engine import queries
from ..core.model import combatant, current_actor, is_dead, is_dying, owner_of
from .actions import abilities, spells
from .attacks import attacks
from .checks import checks
from .choices import choices
from .phones import ask_form
from .sheets import sheet
from ..narrate import money
from .shared import UI, field_, hearts_hidden, option, wound

__all__ = ["actor_bar"]


def _turn(camp, who: str) -> dict | None:
    """What the turn economy says of ``who`` now (``queries.may_act``): whose turn it is, whether ``who`` still
    has its action, and why not. Shown, not enforced: the keeper may override."""
    a = queries.may_act(camp.state, camp.rules, who)
    if not a.tracked:
        return None
    left = [x.replace("_", " ") for x in a.left]
    return {"why": a.why, "action": a.action, "left": left,
            "text": a.why or ("left this turn: " + ", ".join(left) if left else "")}


def _gear(camp, ui: UI, who: str) -> list[dict]:
    """What a delver does with its gear: reload a crossbow (its action in a fight), drop something (a thrown
    dagger lost), have something taken away or handed to another delver. What can be reloaded, and why not, is
    ``queries.reloadable``; what it carries, ``queries.carried``."""
    s, rules = camp.state, camp.rules
    out = []
    uses = rules.core["ammunition"]["reload_uses"]
    for r in queries.reloadable(s, rules, who):
        what = f"reloading the {r.name}"
        why = r.why if r.why is not None else queries.turn_problem(s, rules, who, uses, what)
        out.append({"key": f"gear:{who}:reload:{r.weapon}", "name": f"Reload {r.name}",
                    "cost": "an action" if uses == queries.ACTION else uses.replace("_", " "),
                    "effect": "" if r.loaded else "empty: it shoots again once reloaded",
                    "ready": why is None, "note": why or "", "kind": "button",
                    "intent": {"do": "reload", "who": who, "weapon": r.weapon, "where": f"gear:{who}:reload:{r.weapon}"}})
    out += _buy(camp, ui, who)
    things = queries.carried(s, rules, who)
    if not things:
        return out
    items = [option(t.name, t.label) for t in things]
    others = [option(n, n) for n in s["seats"] if n != who and not is_dead(s["delvers"][n])]
    for do, name, effect, fields in (
            ("drop", "Drop", f"{who} drops it (a thrown weapon lost, a broken shield): it leaves the sheet",
             [field_("item", "choice", "item", items[0]["value"], items, required=True),
              field_("count", "number", "how many", 1, min=1)]),
            ("take", "Take", f"the keeper takes it from {who} (lost, broken, stolen), or hands it to another "
                             f"delver (armor leaves {who}'s specialty bonus behind)",
             [field_("item", "choice", "item", items[0]["value"], items, required=True),
              field_("count", "number", "how many", 1, min=1),
              field_("to", "choice", "to", "", [option("", "no one (it is gone)")] + others)])):
        key = f"gear:{who}:{do}"
        out.append({"key": key, "name": name, "cost": "", "effect": effect, "ready": True, "note": "",
                    "kind": "form", "open": ui.form == key, "toggle": {"do": "form", "id": key, "where": key},
                    "form": {"id": key, "fields": fields,
                             "submit": {"label": name, "intent": {"do": do, "who": who, "where": key}}}})
    return out


def _buy(camp, ui: UI, who: str) -> list[dict]:
    """Gear the rules price (arrows, bolts, a sling...), bought from the purse: the form offers what the purse pays
    for, and says what it does not."""
    s, rules = camp.state, camp.rules
    d = s["delvers"][who]
    things = queries.priced(s, rules, who)
    if not things or is_dead(d):
        return []
    def label(p):
        return f"{p.name}{f' x{p.bundle}' if p.bundle > 1 else ''}, {money(rules, p.talons) if p.talons else 'free'}"
    can = [option(p.item, label(p)) for p in things if p.affordable]
    dear = [label(p) for p in things if not p.affordable]
    key = f"gear:{who}:buy"
    note = f"{who}'s purse: {money(rules, d['purse'])}" + (f"; not enough for {', '.join(dear)}" if dear else "")
    return [{"key": key, "name": "Buy", "cost": "", "ready": bool(can), "note": note, "kind": "form",
             "effect": f"{who} buys gear at the price the rules give (a bundle counts once: 20 arrows for a crown)",
             "open": ui.form == key, "toggle": {"do": "form", "id": key, "where": key},
             "form": {"id": key, "fields": [field_("item", "choice", "item", can[0]["value"] if can else None, can,
                                                   required=True),
                                            field_("count", "number", "how many", 1, min=1)],
                      "submit": {"label": "Buy", "intent": {"do": "buy", "who": who, "where": key}}}}]


def actor_bar(camp, ui: UI, who: str | None) -> dict | None:
    if who is None:
        return None
    s, rules = camp.state, camp.rules
    found = combatant(s, who)
    if found is None:
        return None
    side, c = found
    hide = hearts_hidden(camp, ui, who)
    out = {"name": who, "side": side, "status": c["status"],
           "hearts_text": wound(c) if hide else f"{c['hearts']}/{c['max_hearts']} hearts",
           "acting": who == current_actor(s), "why_not": queries.can_act(s, who), "turn": _turn(camp, who)}
    if side == "creature":
        owner = owner_of(s, who)
        out["role"] = f"{owner}'s familiar: acts in {owner}'s turn" if owner else "NPC"
        out["acting"] = owner is not None and owner == current_actor(s)
    if ui.mode != "keeper":
        return out
    if side == "delver":
        out["sheet"] = sheet(camp, ui, who)
    if is_dying(c) and side == "delver":
        ds = queries.death_save(s, rules)
        out["death_save"] = {"label": f"Death save: {ds.die.upper()}, needs {ds.target}: {percent(ds.chance, 0)}",
                             "intent": {"do": "death_save", "who": who, "where": "actor"}}
    if is_dead(c):
        return out
    out["checks"] = checks(camp, ui, who)
    out["ask"] = ask_form(camp, ui, who) if side == "delver" else None
    out["attacks"] = attacks(camp, ui, who, side)
    if side == "delver":
        out["abilities"] = abilities(camp, ui, who)
        out["spells"] = spells(camp, ui, who)
        out["gear"] = _gear(camp, ui, who)
        out["choices"] = choices(camp, ui, who)
    return out
