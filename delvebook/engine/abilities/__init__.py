"""Class abilities (``use``) and spells (``cast``): each with its cost, its limits and its effect.

``use(who, ability, target=None, **options)`` plays any ability of the delver's class by id (or name);
``cast(who, spell, target=None, via=None, **options)`` casts a mage's grimoire spell (from the book, or
``via="wand"``), a cleric's divine spell, a bard's chosen spell, a Blood Magic sword's traced spell
(``via="sword"``) or a namer's naming magic (``cast(who, "naming", names=[...], description=..., cost=N)``).

One module per class registers what its abilities and spells do (``effects.uses``, ``effects.spell``) and what
they change in rolls, attacks and damage; ``shared`` holds what they have in common. An ability no module
plays (a campaign's own) is paid and played from its ``mechanics`` (a heal, a next-attack rider) or recorded.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Any

from .. import effects, turns
from ..base import Ctx, command
from ..effects import Input
from ..queries import ability_timing
from ..queries import spell_spec
from .shared import (WRITE_ON, Options, cast_with, check_names_and_cost, find_ability, require_ability,
                     use_by_mechanics, written_item)
from . import rogue, fighter, mage, cleric, namer  # noqa: F401  (each registers its abilities and spells)

__all__ = ["use", "cast"]


@command("use", actor="who", targets=("target", "hearing"))
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


@command("cast", actor="who", targets=("target",))
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


@effects.uses("grimoire_magic", "wand_magic", inputs=(Input("spell", "spell", True, "the spell cast", _book),))
@effects.uses("divine_spellcasting", "naming_magic", inputs=(Input("spell", "spell", True, "the spell cast"),))
def _use_spellcasting(ctx, who, d, aid, a, target, opts):
    """A spellcasting ability used by name casts the spell (the wand's, for Wand Magic)."""
    spell = opts.take("spell", "naming" if aid == "naming_magic" else None)
    if spell is None:
        ctx.refuse(f"{a['name']}: name the spell (spell=...)")
    via = "wand" if aid == "wand_magic" else opts.take("via")
    return cast_with(ctx, who, d, spell, target, via, opts)


@effects.uses("signature_spell", inputs=(Input("description", "text", True, "the spell as agreed with the keeper"),
                                         Input("spell", "spell", False, "a mage: the book spell improved", _book),
                                         Input("names", "names", False, "a namer: the true names it uses"),
                                         Input("cost", "number", False, "a namer: its fixed soul point cost"),
                                         Input("name", "text", False, "what it is called"),
                                         Input("write", "text", False, "a namer: written on a scroll or a book "
                                                                       "(scroll if none)")))
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
