"""Class abilities (``use``) and spells (``cast``): each with its cost, its limits and its effect.

``use(who, ability, target=None, **options)`` plays any ability of the delver's class by id (or name);
``cast(who, spell, target=None, via=None, **options)`` casts a mage's grimoire spell (from the book, or
``via="wand"``), a cleric's divine spell, a bard's chosen spell, a Blood Magic sword's traced spell
(``via="sword"``) or a namer's naming magic (``cast(who, "naming", names=[...], description=..., cost=N)``).

One module per class registers what its abilities and spells do (``effects.uses``, ``effects.spell``) and what
they change in rolls, attacks and damage; ``shared`` holds what they have in common. Every module here is found and
imported (a new class's is one file, listed nowhere). An ability no module
plays (a campaign's own) is paid and played from its ``mechanics`` (a heal, a next-attack rider) or recorded.

Standard library only: part of the pure core.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from ...core.declared import ROLE, Action, Record, Text, field
from .. import effects, turns
from ..base import Ctx, command
from ..effects import Input
from ..queries import ability_timing
from ..queries import spell_spec
from .shared import (WRITE_ON, Options, cast_with, check_names_and_cost, find_ability, require_ability,
                     use_by_mechanics, written_item)

__all__ = ["use", "cast", "Use", "Cast", "Paid"]


class Paid(Record):
    """What an ability or a spell cost (by resource, hearts or currency unit), and who its hearts left owing a death
    save."""

    paid: dict[str, int] = field({})
    death_save_due: str | None = None


class Use(Paid, Action, kind="use", actor="who", targets=("target", "hearing")):
    """A class ability used: by whom, which (its id and name), on whom (a target number for a Hide), what it cost,
    and what the ability records (each ability's record, declared where it is registered: ``effects.uses``)."""

    who: str
    ability: str
    ability_name: str
    target: str | int | None = field(None, column=ROLE)
    VARIANTS = effects.USE_RECORDS


@command(Use)
def use(ctx: Ctx, who: str, ability: str, target: str | None = None, **options: Any) -> None:
    """A class ability: the delver must have it (level, specialty or technique), pays its cost, and it acts. In
    a fight it uses the delver's action, unless the text says it is taken without one (Sprint, Hide) or it
    answers at any moment (Dodge, Focus, a Commander's order): ``queries.ability_timing``."""
    d = ctx.delver(who)
    aid, a = find_ability(ctx, who, d, ability)
    ctx.require_able(who, f"use {a['name']}")
    require_ability(ctx, who, d, aid, a)
    turns.take(ctx, who, ability_timing(ctx.rules, a), a["name"])
    opts = Options(options)
    handler = effects.USES.get(aid)
    detail = (handler.fn if handler is not None else use_by_mechanics)(ctx, who, d, aid, a, target, opts) or {}
    opts.done(ctx, a["name"])
    ctx.out(who=who, ability=aid, ability_name=a["name"], target=target, **detail)


class Cast(Paid, Action, kind="cast", actor="who", targets=("target",)):
    """A spell cast: by whom, which (its id and name), at whom (one target, or one a Magic Missile dart), how
    (``via``: the book, the wand, a blessing, the bard's song, the sword), what it cost, and what the spell and the
    way of casting record (declared where each is registered: ``effects.spell``, ``effects.casting``)."""

    who: str
    spell: str
    spell_name: str
    target: str | list[str] | None = field(None, column=ROLE)
    via: str | None = None
    VARIANTS = effects.SPELL_RECORDS


@command(Cast)
def cast(ctx: Ctx, who: str, spell: str, target: str | None = None, via: str | None = None,
         **options: Any) -> None:
    """A spell: a mage's from the book or wand, a cleric's divine spell, a bard's song, a Blood Magic
    sword's charge (``via="sword"``), or a namer's naming magic."""
    d = ctx.delver(who)
    ctx.require_able(who, "cast a spell")
    turns.take(ctx, who, turns.ACTION, f"casting {spell}")
    opts = Options(options)
    detail = cast_with(ctx, who, d, spell, target, via, opts)
    opts.done(ctx, f"casting {spell}")
    ctx.out(who=who, target=target, **detail)


def _book(r, who: str) -> list[tuple[str, str]]:
    """The spells in ``who``'s book."""
    d = r.state["delvers"].get(who) or {}
    return [(sid, (spell_spec(r.rules, sid, d) or {"name": sid})["name"]) for sid in d.get("spells", ())]


@effects.uses("grimoire_magic", "wand_magic", inputs=(Input("spell", "spell", True, "the spell cast", _book),),
              records=Cast)
@effects.uses("divine_spellcasting", "naming_magic", inputs=(Input("spell", "spell", True, "the spell cast"),),
              records=Cast)
def _use_spellcasting(ctx, who, d, aid, a, target, opts):
    """A spellcasting ability used by name casts the spell (the wand's, for Wand Magic)."""
    spell = opts.take("spell", "naming" if aid == "naming_magic" else None)
    if spell is None:
        ctx.refuse(f"{a['name']}: name the spell (spell=...)")
    via = "wand" if aid == "wand_magic" else opts.take("via")
    return cast_with(ctx, who, d, spell, target, via, opts)


class SignatureSpell(Record):
    """A signature spell: its name and the words agreed with the keeper; a mage's improves a book spell
    (``spell``), a namer's has its true names, fixed cost and the resource it is paid in."""

    name: str
    description: Text
    spell: str | None = None
    names: list[str] = ()
    cost: int | None = None
    resource: str | None = None


class Signature(Record):
    """Signature Spell: the spell recorded, and (a namer's) the scroll or book it is written on."""

    signature_spell: SignatureSpell
    written: str | None = None


@effects.uses("signature_spell", inputs=(Input("description", "text", True, "the spell as agreed with the keeper"),
                                         Input("spell", "spell", False, "a mage: the book spell improved", _book),
                                         Input("names", "names", False, "a namer: the true names it uses"),
                                         Input("cost", "number", False, "a namer: its fixed soul point cost"),
                                         Input("name", "text", False, "what it is called"),
                                         Input("write", "text", False, "a namer: written on a scroll or a book "
                                                                       "(scroll if none)")),
              records=Signature)
def _use_signature(ctx, who, d, aid, a, target, opts):
    """Record the signature spell: a mage improves a book spell with the keeper; a namer writes one spell with a
    fixed soul point cost, "written as a mage spell onto a scroll or spell book": an item on the namer's sheet
    that a mage may copy (Continued Research) or read (cast from the scroll)."""
    sig = d.get("signature_spell")
    if sig:
        gone = f", copied out onto the {sig['copied_to']}" if sig.get("copied_to") else ""
        ctx.refuse(f"{who} already has a signature spell ({sig['name']}{gone})")
    description = opts.take("description")
    if not description:
        ctx.refuse("a signature spell needs the description agreed with the keeper (description=...)")
    if "true_names_known" in ctx.rules.class_(d["class_id"]):
        names, cost = check_names_and_cost(ctx, who, d, opts.take("names"), opts.take("cost"))
        name = str(opts.take("name") or f"{who}'s signature").strip()
        clash = [s["name"] for sid, s in ctx.rules.spells.items()
                 if name.lower() in (sid.lower(), str(s["name"]).lower())]
        if clash:
            ctx.refuse(f"{name!r} is the name of a spell of the rules ({clash[0]}): name the signature spell "
                       f"otherwise")
        write = opts.take("write") or "scroll"
        if write not in WRITE_ON:
            ctx.refuse(f"a signature spell is written on a scroll or a book, not {write!r}")
        sig = {"name": name, "names": names, "description": description,
               "cost": cost, "resource": a["variable_cost"]["resource"]}
        words = {"name": name, "effect": description, "by": who, "cost": cost, "names": names}
        item = written_item(write, name, name, words)
        ctx.append(["delvers", who, "items"], item)
        ctx.set(["delvers", who, "signature_spell"], sig)
        return {"signature_spell": sig, "written": item["name"]}
    else:
        spell = opts.take("spell")
        if spell not in d["spells"]:
            ctx.refuse(f"a signature spell improves a spell in {who}'s book ({', '.join(d['spells'])}), "
                       f"not {spell!r}")
        sig = {"name": opts.take("name") or spell, "spell": spell, "description": description}
    ctx.set(["delvers", who, "signature_spell"], sig)
    return {"signature_spell": sig}


for _module in pkgutil.iter_modules(__path__):  # each class's module registers its abilities and spells: found,
    importlib.import_module(f"{__name__}.{_module.name}")  # not listed (a new class is one module)
