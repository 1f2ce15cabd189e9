"""Abilities and spells of the action bar (``action`` in table.js): each a button, target chips or a small form,
with its cost and, for a spell attack, the odds on each target."""

from __future__ import annotations

from typing import Mapping

from ...dice import DiceError
from ...engine import Refused, effects, queries
from ...model import is_dead, present
from .shared import UI, creature_names, field_, hearts_label, odds_text, option

__all__ = ["abilities", "spells"]


def _creature_options(camp, ui: UI, who: str, *, self_first: bool, foes_first: bool, optional: bool) -> list[dict]:
    """Who an ability or a spell may be aimed at: the party, the named creatures (NPCs, familiars) and the foes
    standing; something that harms (an attack, damage) lists the foes first, and in a fight only them."""
    s = camp.state
    party = [n for n in s["seats"] if not is_dead(s["delvers"][n])] + creature_names(s)
    enc = s["encounter"]
    foes = [n for n, f in enc["foes"].items() if not is_dead(f)] if enc else []
    if foes_first and foes:
        party = []
    if self_first and who in party:
        party.remove(who)
        party.insert(0, who)
    names = foes + party if foes_first else party + foes
    out = [option(n, hearts_label(camp, n, ui) + (" (self)" if n == who else "")) for n in names]
    if optional:
        out.insert(0, option("", f"{who} (self)" if self_first else "no one"))
    return out


def _input_field(camp, ui: UI, who: str, inp, *, attack: bool) -> dict:
    s, rules = camp.state, camp.rules
    d = s["delvers"].get(who) or {}
    label = inp.name.replace("_", " ")
    if inp.kind == "creature":
        opts = _creature_options(camp, ui, who, self_first=not inp.required, foes_first=attack,
                                 optional=not inp.required)
        if inp.name == "target" and "dead" in inp.what:
            opts = [option(n, hearts_label(camp, n, ui)) for n in s["seats"] if is_dead(s["delvers"][n])]
        if "target number" in inp.what:  # a number or a creature (Hide: against a number, or who is looking)
            opts = [option(str(ui.target), f"the target number {ui.target}")] + [o for o in opts if o["value"] != who]
        return field_(inp.name, "choice", label, opts[0]["value"] if opts else None, opts, required=inp.required,
                      hint=inp.what)
    if inp.kind == "creatures":
        opts = [option(n, n) for n in present(s)]
        return field_(inp.name, "multi", label, [], opts, required=inp.required, hint=inp.what)
    if inp.kind == "names":
        opts = [option(n, n) for n in d.get("true_names", ())]
        return field_(inp.name, "multi", label, [], opts, required=inp.required, hint=inp.what)
    if inp.kind == "number":
        return field_(inp.name, "number", label, 1 if inp.required else None, required=inp.required, hint=inp.what,
                      min=0)
    if inp.kind == "flag":
        return field_(inp.name, "flag", label, False, hint=inp.what)
    if inp.kind == "spell":
        book = list(d.get("spells", ()))
        ids = book or list(rules.spells)
        opts = [option(sid, rules.spell(sid)["name"]) for sid in ids]
        return field_(inp.name, "choice", label, opts[0]["value"] if opts else None, opts, required=inp.required,
                      hint=inp.what)
    if inp.kind == "item":
        opts = [option(it.get("item"), it.get("name", it.get("item"))) for it in d.get("items", ())]
        return field_(inp.name, "choice", label, None, [option("", "-")] + opts, hint=inp.what)
    if inp.kind == "condition":
        opts = [option(c["id"], f"{c['kind'].replace('_', ' ')} on {c['who']}") for c in s["conditions"]]
        return field_(inp.name, "choice", label, opts[0]["value"] if opts else None, opts, required=inp.required,
                      hint=inp.what)
    return field_(inp.name, "text", label, "", required=inp.required, hint=inp.what)


def _action(camp, ui: UI, who: str, kind: str, ident: str, name: str, cost: str, effect: str, inputs: tuple,
            *, ready: bool, note: str = "", via: str | None = None, attack_odds: bool = False,
            harmful: bool = False) -> dict:
    """One ability or spell: a button (no inputs), target chips (one creature to pick), or a small form."""
    s, rules = camp.state, camp.rules
    key = f"{kind}:{who}:{ident}" + (f":{via}" if via else "")
    base = {"do": kind, "who": who, ("ability" if kind == "use" else "spell"): ident, "where": key}
    if via:
        base["via"] = via
    out = {"key": key, "name": name, "cost": cost, "effect": effect, "ready": ready, "note": note}
    creature = [i for i in inputs if i.kind == "creature"]
    rest = [i for i in inputs if i.kind != "creature"]
    attacky = harmful or attack_odds or any("attack" in i.what for i in creature)
    if not inputs:
        out.update(kind="button", intent=base)
    elif len(creature) == 1 and not rest and creature[0].name == "target" and attacky and not _foes_standing(s):
        out.update(kind="chips", chips=[], note=(note + "; " if note else "") + "an attack: in a fight, on a foe")
    elif len(creature) == 1 and not rest and creature[0].name == "target":
        inp = creature[0]
        chips = []
        for o in _input_field(camp, ui, who, inp, attack=attacky)["options"]:
            chip = {"label": o["label"].split(" (")[0] + (" (self)" if o["value"] in ("", who) and not inp.required
                                                          else ""),
                    "intent": {**base, "target": o["value"] or None}}
            if attack_odds and o["value"]:
                try:
                    odd = queries.spell_attack_odds(s, rules, who, o["value"])
                except (Refused, DiceError):
                    odd = None
                chip["odds"] = odds_text(odd.win + odd.tie) if odd else None
            chips.append(chip)
        out.update(kind="chips", chips=chips)
    else:
        fields = [_input_field(camp, ui, who, i, attack=attacky) for i in inputs]
        if any(i.kind == "spell" for i in inputs) and not creature:
            opts = _creature_options(camp, ui, who, self_first=False, foes_first=True, optional=True)
            fields.append(field_("target", "choice", "target", "", opts, hint="the spell's target, if it has one"))
        if ident == "naming":  # the keeper prices the spell, the table negotiates: the agreed cost is paid
            for f in fields:
                if f["name"] == "cost":
                    f.update(label="agreed cost", value=None, hint="the soul points the table agreed (the keeper's "
                                                                    "price if left empty)", required=False)
            fields.insert([f["name"] for f in fields].index("cost"),
                          field_("price", "number", "keeper's price", None, required=True, min=0,
                                 hint="the soul points the keeper asks for this spell"))
        label = {"use": "Use", "cast": "Cast"}[kind] + f" {name}"
        out.update(kind="form", form={"id": key, "fields": fields, "submit": {"label": label, "intent": base}},
                   open=ui.form == key, toggle={"do": "form", "id": key, "where": key})
    return out


def _foes_standing(state: Mapping) -> list[str]:
    enc = state["encounter"]
    return [n for n, f in enc["foes"].items() if not is_dead(f)] if enc else []


def abilities(camp, ui: UI, who: str) -> list[dict]:
    s, rules = camp.state, camp.rules
    out = []
    for a in queries.abilities_available(s, rules, who):
        if a.id in effects.CASTINGS:
            continue  # a way of casting: its spells are listed with the spells
        out.append(_action(camp, ui, who, "use", a.id, a.name, a.cost_text, a.effect, a.inputs,
                           ready=a.affordable, note="" if a.affordable else "cannot pay now"))
    return out


def spells(camp, ui: UI, who: str) -> list[dict]:
    s, rules = camp.state, camp.rules
    out = []
    for sp in queries.spells_available(s, rules, who):
        spec = rules.spells.get(sp.id) if sp.id in rules.spells else None
        attack = bool(spec and spec.get("attack") in ("ranged_spell", "ranged"))
        harmful = bool(spec and (attack or spec.get("damage") is not None))
        via = sp.via if sp.via in ("wand", "sword") else None
        how = {"spellbook": "from the book", "blessing": "a blessing", "bard": "a bard's song",
               "sword": "the sword", "signature": "signature", "naming": "naming magic"}.get(sp.via, sp.via)
        cost = sp.cost_text if sp.via not in ("spellbook",) else f"{how}, {sp.cost_text}"
        out.append(_action(camp, ui, who, "cast", sp.id, sp.name, cost, sp.effect, sp.inputs,
                           ready=not sp.used, note="used since the last rest" if sp.used else "", via=via,
                           attack_odds=attack, harmful=harmful))
    return out
