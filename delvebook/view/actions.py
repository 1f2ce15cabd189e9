"""Abilities and spells of the action bar (``action`` in actor.js): each a button, target chips or a small form,
with its cost, its description and, for a spell attack, the odds on each target.

Nothing is offered that the rules would refuse without saying why before the click: a button and each target chip
is played on the state and taken back (``engine.refusal``), and a chip or a form that would be refused shows
greyed with the reason; a form's choices are the ones its rule takes (``Input.choices``: the spells a bard may
choose, the dead a cleric may touch, what Continued Research may copy)."""

from __future__ import annotations

from typing import Mapping

from ..core.dice import DiceError
from ..engine import Reader, Refused, effects, queries, refusal
from ..core.model import is_dead, present
from .shared import UI, creature_names, field_, hearts_label, odds_text, option

__all__ = ["abilities", "spells", "gather_darts"]


def _creature_options(camp, ui: UI, who: str, *, self_first: bool, foes_first: bool, optional: bool) -> list[dict]:
    """Who an ability or a spell may be aimed at: the party, the named creatures (NPCs, familiars) and the foes
    standing; something that harms (an attack, damage) lists the foes first, and in a fight only them. The user
    of an optional target is its empty choice, listed once."""
    s = camp.state
    party = [n for n in s["seats"] if not is_dead(s["delvers"][n])] + creature_names(s)
    enc = s["encounter"]
    foes = [n for n, f in enc["foes"].items() if not is_dead(f)] if enc else []
    if foes_first and foes:
        party = []
    if who in party and (optional and self_first):
        party.remove(who)
    elif self_first and who in party:
        party.remove(who)
        party.insert(0, who)
    names = foes + party if foes_first else party + foes
    out = [option(n, hearts_label(camp, n, ui) + (" (self)" if n == who else "")) for n in names]
    if optional:
        out.insert(0, option("", f"{who} (self)" if self_first else "no one"))
    return out


def _offered(camp, who: str, inp) -> list[tuple] | None:
    """The values an input's rule takes now (``Input.choices``), or None when it says nothing."""
    if inp.choices is None:
        return None
    return inp.choices(Reader(camp.state, camp.rules), who)


def _input_field(camp, ui: UI, who: str, inp, *, attack: bool) -> dict:
    s, rules = camp.state, camp.rules
    d = s["delvers"].get(who) or {}
    label = inp.name.replace("_", " ")
    offered = _offered(camp, who, inp)
    if inp.kind == "creature":
        if offered is not None:
            opts = [option(v, hearts_label(camp, v, ui)) for v, _ in offered]
        else:
            opts = _creature_options(camp, ui, who, self_first=not inp.required, foes_first=attack,
                                     optional=not inp.required)
        if "target number" in inp.what:  # a number or a creature (Hide: against a number, or who is looking)
            opts = [option(str(ui.target), f"the target number {ui.target}")] + [o for o in opts if o["value"] != who]
        return field_(inp.name, "choice", label, opts[0]["value"] if opts else None, opts, required=inp.required,
                      hint=inp.what)
    if inp.kind == "creatures":
        opts = [option(v, lab) for v, lab in offered] if offered is not None else [option(n, n) for n in present(s)]
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
        if offered is not None:
            opts = [option(v, lab) for v, lab in offered]
        else:
            ids = list(d.get("spells", ())) or list(rules.spells)
            opts = [option(sid, (queries.spell_spec(rules, sid, d) or {"name": sid})["name"]) for sid in ids]
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


def gather_darts(args: Mapping) -> dict:
    """A form's ``dart_1`` ... ``dart_N`` fields as the spell takes them: ``darts``, a target for each dart."""
    darts = sorted((k for k in args if k.startswith("dart_") and k[5:].isdigit()), key=lambda k: int(k[5:]))
    if not darts:
        return dict(args)
    out = {k: v for k, v in args.items() if k not in darts}
    out["darts"] = [args[k] for k in darts]
    out.pop("target", None)
    return out


def _args(intent: Mapping) -> dict:
    """The command an intent of the action bar means (what ``engine.refusal`` is asked about)."""
    args = {k: v for k, v in intent.items() if k not in ("do", "where", "args")}
    return gather_darts({**args, **dict(intent.get("args") or {})})


def _why_not(camp, intent: Mapping) -> str | None:
    """Why the click ``intent`` would be refused now (the command played and taken back), or None."""
    kind, args = (intent["kind"], dict(intent["given"])) if intent["do"] == "act" else (intent["do"], _args(intent))
    try:
        return refusal(camp.state, camp.rules, kind, args)
    except (Refused, DiceError, TypeError, ValueError) as err:
        return str(err)


def _action(camp, ui: UI, who: str, kind: str, ident: str, name: str, cost: str, effect: str, inputs: tuple,
            *, ready: bool, note: str = "", via: str | None = None, attack_odds: bool = False,
            harmful: bool = False, problem: str | None = None, key: str | None = None,
            submit: str | None = None) -> dict:
    """One ability or spell: a button (no inputs), target chips (one creature to pick), or a small form. Each is
    asked whether the rules would take it now; what would be refused shows greyed, with the reason."""
    s, rules = camp.state, camp.rules
    key = key or f"{kind}:{who}:{ident}" + (f":{via}" if via else "")
    base = {"do": kind, "who": who, ("ability" if kind == "use" else "spell"): ident, "where": key}
    if via:
        base["via"] = via
    if problem:
        ready, note = False, problem
    out = {"key": key, "name": name, "cost": cost, "effect": effect, "ready": ready, "note": note}
    creature = [i for i in inputs if i.kind == "creature"]
    rest = [i for i in inputs if i.kind != "creature"]
    attacky = harmful or attack_odds or any("attack" in i.what for i in creature)
    if not inputs:
        why = problem or _why_not(camp, base)
        out.update(kind="button", intent=base, ready=ready and why is None, note=note or why or "")
    elif len(creature) == 1 and not rest and creature[0].name == "target" and attacky and not _foes_standing(s):
        out.update(kind="chips", chips=[], ready=False,
                   note=(note + "; " if note else "") + "an attack: in a fight, on a foe")
    elif len(creature) == 1 and not rest and creature[0].name == "target":
        inp = creature[0]
        chips = []
        for o in _input_field(camp, ui, who, inp, attack=attacky)["options"]:
            chip = {"label": o["label"].split(" (")[0] + (" (self)" if o["value"] in ("", who) and not inp.required
                                                          else ""),
                    "intent": {**base, "target": o["value"] or None}}
            why = problem or _why_not(camp, chip["intent"])
            chip.update(ready=why is None, note=why or "")
            if attack_odds and o["value"]:
                try:
                    odd = queries.spell_attack_odds(s, rules, who, o["value"])
                except (Refused, DiceError):
                    odd = None
                chip["odds"] = odds_text(odd.win + odd.tie) if odd else None
            chips.append(chip)
        if not chips and not note:
            out.update(ready=False, note=f"no one for {name} now")
        elif chips and not any(c["ready"] for c in chips):
            out.update(ready=False, note=note or chips[0]["note"])
        out.update(kind="chips", chips=chips)
    else:
        fields = []
        for i in inputs:
            if i.kind == "darts":
                fields += _dart_fields(camp, ui, who, ident)
            else:
                fields.append(_input_field(camp, ui, who, i, attack=attacky))
        if any(i.kind == "spell" for i in inputs) and not creature and kind == "cast":
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
        empty = [f for f in fields if f["kind"] == "choice" and f["required"] and not f.get("options")]
        if empty and out["ready"]:
            out.update(ready=False, note=f"nothing to pick as {empty[0]['label']} now")
        elif out["ready"] and all(f["kind"] in ("choice", "multi") for f in fields):
            # every field is a choice the rule offers: the form as it opens is what would be sent
            why = _why_not(camp, {**base, "args": {f["name"]: f["value"] for f in fields
                                                   if f["value"] not in (None, "", [])}})
            out.update(ready=why is None, note=why or "")
        label = submit or ({"use": "Use", "cast": "Cast"}[kind] + f" {name}")
        out.update(kind="form", form={"id": key, "fields": fields, "submit": {"label": label, "intent": base}},
                   open=ui.form == key, toggle={"do": "form", "id": key, "where": key})
    return out


def _dart_fields(camp, ui: UI, who: str, spell: str) -> list[dict]:
    """One target for each dart of a spell that fires several (Magic Missile: a dart each, split as the caster
    likes): ``dart_1`` ... ``dart_N``, each among the foes standing (anyone here outside a fight)."""
    spec = queries.spell_spec(camp.rules, spell, camp.state["delvers"].get(who) or {}) or {}
    opts = _creature_options(camp, ui, who, self_first=False, foes_first=True, optional=False)
    opts = [o for o in opts if o["value"] != who]
    return [field_(f"dart_{k}", "choice", f"dart {k}", opts[(k - 1) % len(opts)]["value"] if opts else None, opts,
                   required=True, hint="the dart's target") for k in range(1, int(spec.get("darts", 1)) + 1)]


def _foes_standing(state: Mapping) -> list[str]:
    enc = state["encounter"]
    return [n for n, f in enc["foes"].items() if not is_dead(f)] if enc else []


def _problem(camp, who: str, aid: str) -> str | None:
    handler = effects.USES.get(aid)
    if handler is None or handler.problem is None:
        return None
    return handler.problem(Reader(camp.state, camp.rules), who)


def abilities(camp, ui: UI, who: str) -> list[dict]:
    """The delver's abilities; a way of casting lists its spells with the spells, and here only what sets it up (a
    bard's spell chosen or changed, a spell traced on a Blood Magic sword)."""
    s, rules = camp.state, camp.rules
    out = []
    for a in queries.abilities_available(s, rules, who):
        note = "" if a.affordable else "cannot pay now"
        if a.id in effects.CASTINGS:
            setup = tuple(i for i in a.inputs if i.kind == "spell" and i.name != "spell" and i.choices is not None)
            if setup:
                verb = setup[0].name.capitalize()
                out.append(_action(camp, ui, who, "use", a.id, f"{a.name}: {setup[0].name} a spell", "", a.effect, setup,
                                   ready=True, problem=_problem(camp, who, a.id), key=f"use:{who}:{a.id}:setup",
                                   submit=verb))
            continue  # its spells are listed with the spells
        out.append(_action(camp, ui, who, "use", a.id, a.name, a.cost_text, a.effect, a.inputs,
                           ready=a.affordable, note=note, problem=_problem(camp, who, a.id)))
    if s["encounter"] is not None and any(rules.abilities(s["delvers"][who]["class_id"])[a.id].get("mechanics", {})
                                          .get("still") for a in queries.abilities_available(s, rules, who)):
        intent = {"do": "act", "kind": "moved", "given": {"who": who}, "where": f"moved:{who}"}
        why = _why_not(camp, intent)
        out.append({"key": f"moved:{who}", "name": "Moved this turn", "cost": "free", "ready": why is None,
                    "note": why or "", "kind": "button", "intent": intent,
                    "effect": f"say {who} moved this turn: what is only for a turn it does not move (Steady volley) "
                              "is not offered until its next turn"})
    return out


def spells(camp, ui: UI, who: str) -> list[dict]:
    s, rules = camp.state, camp.rules
    d = s["delvers"].get(who) or {}
    out = []
    for sp in queries.spells_available(s, rules, who):
        spec = queries.spell_spec(rules, sp.id, d) or {}
        attack = spec.get("attack") in ("ranged_spell", "ranged")
        harmful = bool(attack or spec.get("damage") is not None)
        via = sp.via if sp.via in ("wand", "sword", "scroll") else None
        how = {"spellbook": "from the book", "blessing": "a blessing", "bard": "a bard's song",
               "sword": "the sword", "signature": "signature", "naming": "naming magic"}.get(sp.via, sp.via)
        cost = sp.cost_text if sp.via not in ("spellbook",) else f"{how}, {sp.cost_text}"
        darts = tuple(i for i in sp.inputs if i.kind == "darts")
        inputs = tuple(i for i in sp.inputs if i.kind != "darts")
        note = "used since the last rest" if sp.used else ""
        out.append(_action(camp, ui, who, "cast", sp.id, sp.name, cost, sp.effect, inputs, ready=not sp.used,
                           note=note, via=via, attack_odds=attack, harmful=harmful))
        if darts and _foes_standing(s):
            out.append(_action(camp, ui, who, "cast", sp.id, f"{sp.name}: split the darts", cost, darts[0].what,
                               darts, ready=not sp.used, note=note, via=via, harmful=True,
                               key=f"cast:{who}:{sp.id}:darts" + (f":{via}" if via else "")))
    return out
