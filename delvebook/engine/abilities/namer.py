"""The namer: naming magic (true names, a spell described, a cost agreed with the keeper), Blood Magic, and
the signature spell with its fixed cost.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from ...core.declared import Record, Text
from .. import effects
from ..base import Ctx, Reader, data_items
from ..effects import Input
from ..queries import SpellChoice, signature_choice
from .shared import begin_cast, check_names_and_cost, cost_paid, pay

__all__: list[str] = []


_NAMING_INPUTS = (Input("names", "names", True, "the true names the spell uses"),
                  Input("description", "text", True, "the spell, described for the keeper to price"),
                  Input("cost", "number", True, "the soul points agreed with the keeper"))


def _offers_names(r: Reader, who: str, d: dict, aid: str, a) -> list[SpellChoice]:
    """A signature spell at its fixed cost, and naming magic: true names, a description, a cost agreed."""
    sig = signature_choice(d)
    resource = a["variable_cost"]["resource"].replace("_", " ")
    naming = SpellChoice("naming", a["name"], "naming", {}, f"{resource}: the keeper sets the cost", a["effect"],
                         _NAMING_INPUTS, False, f"{a['name']} (the keeper sets the cost)")
    return ([sig] if sig else []) + [naming]


class Named(Record):
    """Naming magic: the true names used, the spell as described, and the cost the keeper set."""

    names: list[str] = ()
    description: Text | None = None
    cost: int | None = None


@effects.casting("naming_magic", offers=_offers_names, records=Named)
def _cast_naming(ctx: Ctx, who: str, d: dict, spell: str, target, via, opts) -> dict:
    """Names chosen, a spell described, a cost agreed with the keeper: soul points paid, the spell cast."""
    ability = ctx.class_abilities(d)["naming_magic"]
    resource = ability["variable_cost"]["resource"]
    sig = d.get("signature_spell") or {}
    if sig and spell in (sig.get("name"), "signature"):
        cost = opts.take("cost")
        if cost not in (None, sig["cost"]):
            ctx.refuse(f"{sig['name']} is a signature spell: its cost is fixed at {sig['cost']}")
        paid = pay(ctx, who, {resource: sig["cost"]}, sig["name"])
        begin_cast(ctx, who, sig["name"])
        return {"spell": "signature", "names": sig["names"], "description": sig["description"],
                "cost": sig["cost"], "paid": paid}
    if spell != "naming":
        ctx.refuse(f"{who} casts by naming: cast(who, 'naming', names=[...], description=..., cost=N)")
    names, cost = check_names_and_cost(ctx, who, d, opts.take("names"), opts.take("cost"))
    description = opts.take("description")
    if not description:
        ctx.refuse("describe the spell (description=...) so the keeper can price it")
    paid = pay(ctx, who, {resource: cost}, "this spell")
    begin_cast(ctx, who, "naming magic")
    return {"spell": "naming", "names": names, "description": description, "cost": cost, "paid": paid}


class Gain(Record):
    """A resource Blood Magic gained: the roll, what it added (up to the maximum), and what there is now."""

    rolled: int
    gained: int
    now: int


class Sacrificed(Record):
    """Blood Magic: what each resource gained."""

    gained: dict[str, Gain]


@effects.uses("blood_magic", records=Sacrificed)
def _use_blood_magic(ctx, who, d, aid, a, target, opts):
    """Sacrifice 1 heart for D6 soul points (up to the maximum); no healing until a rest."""
    out = cost_paid(ctx, who, a)
    mech = a["mechanics"]
    gains = {}
    for res, dice in data_items(mech["resource_gain"]):
        r = ctx.roll(res, str(dice), who=who, why=a["name"])
        have, top = d["resources"].get(res, 0), d["resource_max"].get(res, 0)
        new = min(top, have + r.total)
        ctx.set(["delvers", who, "resources", res], new)
        gains[res] = {"rolled": r.total, "gained": new - have, "now": new}
    for ban in mech.get("bans", ()):
        if not ctx.conditions(who, ban):
            ctx.add_condition(ban, who, who, ends_on="rest")
    return {**out, "gained": gains}


@effects.heal_guard(reads="blood_magic_healing_ban")
def _healing_banned(r: Reader, who: str) -> str | None:
    """After Blood Magic, no healing until a rest."""
    if r.conditions(who, "blood_magic_healing_ban"):
        return f"{who} gave blood for magic and cannot be healed until a rest"
    return None
