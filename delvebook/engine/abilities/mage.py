"""The mage: grimoire magic (the spellbook, charged each night), the wand, continued research, and the six
spells of the mage spell list (which a bard or a Blood Magic sword may cast too).

How delvebook reads the text where it is silent (each is in the rules data too):
- Firebolt's D6 of 3+ keeps the spell in the book; cast from a wand, a sword, a scroll or a bard's song there is
  no book to keep it in, so no keep roll is made (labelled in spells.yaml).
- Continued Research copies a spell from a book or a scroll the mage carries (a book it carries if one holds the
  spell, else a scroll, which is destroyed); a spell a namer wrote carries its words into the book.
- Copying a spell out onto a new scroll or book costs the same 20 coins of ink; the signature spell copied out
  leaves the book ("Copying it to a new spellbook or scroll removes it from yours") and is not chosen again.
- A mage may read a scroll it carries to cast its spell (``via="scroll"``): no book charge, and the scroll is used
  up.
- Magic Missile's darts may be split between targets (one target per dart); armor meets each dart
  (``core.spell_damage``).
- Light's blinding touch is an unarmed attack (it is rolled as one, may be countered, and deals the unarmed 2
  damage), blinding for an hour on a hit.
- The familiar is a creature (1 heart, an attack of 1 damage) that acts in its mage's turn; below 1 heart it is
  lost, and Find Familiar may be cast again.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from ...core.declared import Chance, Record, Text, field
from ...core.distribution import odds
from ...core.model import STATUS_ALIVE, familiar_of, is_dead
from ...core.records import Damage
from .. import combat, effects
from ..base import Ctx, Reader
from ..combat import Struck
from ..creatures import names_in_play, require_name
from ..effects import Input
from ..queries import (SpellChoice, copyable, cost_text, scrolls_of, signature_choice, spell_inputs, spell_spec,
                       writings)
from .shared import (TARGET, SpellHit, begin_cast, cost_paid, damage_with, end_kind, pay, require_ability,
                     spell_attack, spell_effect, written_item)

__all__: list[str] = []


# ---------------------------------------------------------------- grimoire magic

def _offers_book(r: Reader, who: str, d: dict, aid: str, a) -> list[SpellChoice]:
    """Each spell in the book (used ones said so: the wand may still cast them), a signature spell, and each
    spell on a scroll carried (read: the scroll is used up)."""
    used = set(d.get("spellbook_used", ()))
    out = []
    for sid in d.get("spells", ()):
        s = spell_spec(r.rules, sid, d)
        label = f"{s['name']} (spellbook{', used' if sid in used else ''})"
        out.append(SpellChoice(sid, s["name"], "spellbook", a["cost"], cost_text(a["cost"]), s["effect"],
                               spell_inputs(sid), sid in used, label))
    sig = signature_choice(d)
    scrolls = [SpellChoice(w.spell, w.name, "scroll", {}, f"the {w.item_name} (used up)", w.spec["effect"],
                           spell_inputs(w.spell), False, f"{w.name} (from the {w.item_name})")
               for w in {w.spell: w for w in reversed(scrolls_of(r.state, r.rules, who))}.values()]
    return out + ([sig] if sig else []) + scrolls


def _scroll(ctx: Ctx, who: str, spell: str):
    """The first scroll ``who`` carries with ``spell`` on it (refused if none)."""
    for w in scrolls_of(ctx.state, ctx.rules, who):
        if w.spell == spell:
            return w
    held = ", ".join(w.name for w in scrolls_of(ctx.state, ctx.rules, who)) or "none"
    ctx.refuse(f"{who} carries no scroll of {spell!r} (scrolls: {held})")


def _use_up(ctx: Ctx, who: str, w) -> None:
    """One scroll of a stack is gone (copied from, or read)."""
    items = ctx.state["delvers"][who]["items"]
    left = items[w.item].get("count", 1) - 1
    if left > 0:
        ctx.set(["delvers", who, "items", w.item, "count"], left)
    else:
        ctx.set(["delvers", who, "items"], items[:w.item] + items[w.item + 1:])


class Kept(Record):
    """Firebolt's keep roll: its total against the number, whether the spell stays in the book, the chance."""

    total: int
    target: int
    kept: bool
    chance: Chance


class FromTheBook(Record):
    """What grimoire magic records of a cast: the scroll read (used up), the keep roll, the signature spell's
    words when it was the one cast."""

    scroll: str | None = None
    keep: Kept | None = None
    signature: Text | None = None


@effects.casting("grimoire_magic", via=("book", "spellbook", "wand", "scroll"), offers=_offers_book,
                 records=FromTheBook)
def _cast_grimoire(ctx: Ctx, who: str, d: dict, spell: str, target, via, opts) -> dict:
    """A spell from the book (once a charge), from the wand (``via="wand"``: a wand charge), or read from a scroll
    carried (``via="scroll"``: the scroll is used up)."""
    abilities = ctx.class_abilities(d)
    grimoire = abilities["grimoire_magic"]
    require_ability(ctx, who, d, "grimoire_magic", grimoire)
    sig = d.get("signature_spell") or {}
    if spell not in d["spells"] and spell == sig.get("name"):
        spell = sig["spell"]
    scroll = _scroll(ctx, who, spell) if via == "scroll" else None
    if scroll is None and spell not in d["spells"]:
        ctx.refuse(f"{who}'s spellbook holds {', '.join(d['spells']) or 'nothing'}; not {spell!r}")
    worn = [a["name"] for a in d["armor"] if not a.get("shield")]
    if worn:
        ctx.refuse(f"{who} wears {', '.join(worn)}: grimoire magic cannot be cast in physical armor")
    held = [a["name"] for a in d["armor"] if a.get("shield")]
    if held or opts.take("hands_free", True) is False:
        ctx.refuse(f"casting grimoire magic needs both hands; {who} holds {', '.join(held) or 'something'}")
    spec = scroll.spec if scroll is not None else spell_spec(ctx.rules, spell, d)
    name = spec["name"]
    out: dict = {"spell": spell, "via": "wand" if via == "wand" else "scroll" if scroll else "spellbook"}
    if scroll is not None:
        _use_up(ctx, who, scroll)
        out["scroll"] = scroll.item_name
    elif via == "wand":
        wand = abilities.get("wand_magic")
        if wand is None:
            ctx.refuse(f"{who} has no wand magic")
        require_ability(ctx, who, d, "wand_magic", wand)
        if not any(it.get("item") == "wand" and it.get("count", 1) > 0 for it in d["items"]):
            ctx.refuse(f"{who} carries no wand")
        out["paid"] = pay(ctx, who, wand["cost"], f"{name} from the wand")
    else:
        if d["resources"].get("spellbook", 0) < 1:
            ctx.refuse(f"{who}'s spellbook is not charged: it charges at night (a rest)")
        if spell in d["spellbook_used"]:
            ctx.refuse(f"{who} has already cast {name} from the book since the last rest "
                       f"(each spell once a charge; the wand may still cast it)")
    begin_cast(ctx, who, name)
    out.update(spell_effect(ctx, who, d, spell, target, opts, spec))
    if sig.get("spell") == spell and not sig.get("copied_to"):
        out["signature"] = sig["description"]
    if via != "wand" and scroll is None:
        keep = spec.get("keep_on")
        kept = False
        if keep:
            r = ctx.roll("keep", str(keep["die"]), who=who, why=f"is {name} consumed?")
            kept = r.total >= keep["target"]
            out["keep"] = {"total": r.total, "target": keep["target"], "kept": kept,
                           "chance": str(odds(str(keep["die"]), target=keep["target"]))}
        if not kept:
            ctx.append(["delvers", who, "spellbook_used"], spell)
    return out


def _copyable(r: Reader, who: str) -> list[tuple[str, str]]:
    """The spells Continued Research may copy now, each from where it would be copied."""
    return [(w.spell, f"{w.name} (from the {w.item_name}{', destroyed' if w.scroll else ''})")
            for w in copyable(r.state, r.rules, who)]


def _nothing_to_copy(r: Reader, who: str) -> str | None:
    return None if copyable(r.state, r.rules, who) else \
        f"{who} carries no book or scroll with a spell its book lacks"


class Copied(Record):
    """Continued Research: the spell copied into the book (its name), from a book or a scroll (``source``: which
    kind; ``from_``: the item), and whether the scroll was destroyed."""

    copied: str
    spell_name: str
    source: str
    from_: str = field(key="from", column="copied_from")
    scroll_destroyed: bool


@effects.uses("continued_research", problem=_nothing_to_copy, records=Copied,
              inputs=(Input("spell", "spell", True, "the spell copied, from a book or a scroll carried", _copyable),
                                            Input("source", "text", False, "book or scroll, or the item's name (a "
                                                                           "book if one holds it)")))
def _use_research(ctx, who, d, aid, a, target, opts):
    """Copy a spell from a book or a scroll the mage carries, for 20 coins of ink; a scroll is destroyed."""
    spell = opts.take("spell")
    source = opts.take("source")
    if spell in d["spells"]:
        ctx.refuse(f"{who}'s book already holds {spell_spec(ctx.rules, spell, d)['name']}")
    held = [w for w in writings(ctx.state, ctx.rules, who) if w.spell == spell]
    if source is not None:
        held = [w for w in held if source == ("scroll" if w.scroll else "book")
                or str(source).strip().lower() == w.item_name.lower()]
    if not held:
        where = f" ({source})" if source is not None else ""
        ctx.refuse(f"{who} carries no book or scroll{where} with {spell!r} written in it: Continued Research "
                   f"copies from a book or a scroll the mage carries")
    w = min(held, key=lambda x: x.scroll)  # a book, if one holds it: copying from a book destroys nothing
    out = cost_paid(ctx, who, a)
    ctx.append(["delvers", who, "spells"], spell)
    if spell not in ctx.rules.spells:  # a namer's spell: its words go into the book with it
        ctx.set(["delvers", who, "written_spells"], {**d.get("written_spells", {}), spell: dict(w.spec)})
    if w.scroll:
        _use_up(ctx, who, w)
    return {**out, "copied": spell, "spell_name": w.name, "source": "scroll" if w.scroll else "book",
            "from": w.item_name, "scroll_destroyed": w.scroll}


def _copy_out_choices(r: Reader, who: str) -> list[tuple[str, str]]:
    """The spells of ``who``'s book it may copy out, the signature spell said so (it leaves the book)."""
    d = r.state["delvers"].get(who) or {}
    sig = d.get("signature_spell") or {}
    out = []
    for sid in d.get("spells", ()):
        name = (spell_spec(r.rules, sid, d) or {"name": sid})["name"]
        mine = sig.get("spell") == sid and not sig.get("copied_to")
        out.append((sid, f"{sig['name']} (signature: it leaves your book)" if mine else name))
    return out


def _nothing_to_copy_out(r: Reader, who: str) -> str | None:
    return None if (r.state["delvers"].get(who) or {}).get("spells") else f"{who}'s book holds no spell to copy out"


class CopiedOut(Record):
    """Copying a spell out: the spell (its id and the name it is written under), the new scroll or book it is
    written on, and whether it left the book (the signature spell)."""

    copied_out: str
    spell_name: str
    onto: str
    left_the_book: bool


@effects.uses("copy_out", problem=_nothing_to_copy_out, records=CopiedOut,
              inputs=(Input("spell", "spell", True, "the spell of your book copied out", _copy_out_choices),
                      Input("book", "flag", False, "onto a new spellbook (a new scroll if not ticked)")))
def _use_copy_out(ctx, who, d, aid, a, target, opts):
    """Copy a spell of the book onto a new scroll or spellbook for 20 coins of ink (assumed: the text prices only
    copying in); the signature spell copied out leaves the book, its keeper's words going with it."""
    spell = opts.take("spell")
    onto = "book" if opts.take("book", False) else "scroll"
    sig = d.get("signature_spell") or {}
    if spell not in d["spells"] and spell is not None and spell == sig.get("name"):
        spell = sig["spell"]
    if spell not in d["spells"]:
        ctx.refuse(f"{who}'s book holds {', '.join(d['spells']) or 'nothing'}; not {spell!r}")
    spec = spell_spec(ctx.rules, spell, d)
    signature = sig.get("spell") == spell and not sig.get("copied_to")
    out = cost_paid(ctx, who, a)
    name = sig["name"] if signature else spec["name"]
    item = written_item(onto, name, spell, None if spell in ctx.rules.spells else spec,
                        f"{who}'s signature spell: {sig['description']}" if signature else None)
    ctx.append(["delvers", who, "items"], item)
    if signature:  # "Copying it to a new spellbook or scroll removes it from yours"
        ctx.set(["delvers", who, "spells"], [s for s in d["spells"] if s != spell])
        ctx.set(["delvers", who, "spellbook_used"], [s for s in d["spellbook_used"] if s != spell])
        ctx.set(["delvers", who, "signature_spell"], {**sig, "copied_to": item["name"]})
    return {**out, "copied_out": spell, "spell_name": name, "onto": item["name"], "left_the_book": signature}


# ---------------------------------------------------------------- the mage spell list

class Shining(Record):
    """The item Light makes glow, and how far it sheds light."""

    item: str
    ft: int


class Lit(Struck):
    """Light: the glow (``light``), or the blinding touch, an unarmed attack (``Struck``), and whether it blinded."""

    light: Shining | None = None
    blinded: bool | None = None


@effects.spell("light", records=Lit, inputs=(Input("item", "text", False, "what glows"),
                                Input("blind", "flag", False, "instead touch to blind (an unarmed attack)"),
                                TARGET))
def _light(ctx, who, d, spell, s, target, opts):
    if opts.take("blind", False):  # the touch form: an unarmed attack that blinds for an hour on a hit
        if target is None:
            ctx.refuse("Light's blinding touch is an unarmed attack: name its target")
        landed: dict = {}

        def blind(ctx, plan, results) -> None:
            if any(x != "miss" for x in results) and not is_dead(plan.t):
                ctx.add_condition("blinded", target, who, duration=s["duration"], spell=spell)
                landed["blinded"] = True
        asked = {k: opts.take(k) for k in ("advantage", "bonus", "target_bonus", "counter", "focus") if k in opts}
        combat.strike(ctx, who, target, "unarmed", on_landed=blind, **asked)
        return {"blinded": bool(landed.get("blinded"))}
    item = opts.take("item", "an item")
    ctx.add_condition("light", who, who, duration=s["duration"], item=item, light_ft=s["light_ft"])
    return {"light": {"item": item, "ft": s["light_ft"]}}


class Darts(Record):
    """Magic Missile: each dart's damage (a dart at a target already down is wasted)."""

    damage: list[Damage]


@effects.spell("magic_missile", records=Darts, inputs=(Input("target", "creature", True, "one target, or one per dart"),
                                       Input("darts", "darts", False, "a target for each dart (the darts split)")))
def _magic_missile(ctx, who, d, spell, s, target, opts):
    name, darts = s["name"], int(s["darts"])
    split = opts.take("darts")
    if split is not None:
        target = list(split)
    aims = target if isinstance(target, list) else [target] * darts
    if target is None or len(aims) != darts:
        ctx.refuse(f"{name} fires {darts} darts: name one target, or one per dart")
    for t in set(aims):
        ctx.require_living(t, "be hit")
    armor = bool(ctx.core["spell_damage"]["armor"])
    if not ctx.core["spell_damage"]["per_dart"]:  # the darts as one hit: one blow for armor to meet
        by_target: dict = {}
        for t in aims:
            by_target[t] = by_target.get(t, 0) + int(s["damage"])
        return {"damage": [combat.deal_damage(ctx, t, n, name, by=who, armor=armor)
                           for t, n in by_target.items() if not is_dead(ctx.combatant(t)[1])]}
    damage = []
    for k, t in enumerate(aims):  # each dart always hits; armor meets each one
        if is_dead(ctx.combatant(t)[1]):
            damage.append({"target": t, "by": who, "dart": k + 1, "wasted": True})
            continue
        hit = combat.deal_damage(ctx, t, int(s["damage"]), name, by=who, armor=armor)
        hit.update(dart=k + 1)
        damage.append(hit)
    return {"damage": damage}


class Familiar(Record):
    """Find Familiar: the familiar's name and form (its sheet is among the creatures)."""

    familiar: str
    form: str


@effects.spell("find_familiar", records=Familiar, inputs=(Input("name", "text", False, "the familiar's name"),
                                        Input("form", "text", False, "its varmint form")))
def _find_familiar(ctx, who, d, spell, s, target, opts):
    """A spirit in varmint form: a creature with its 1 heart and 1 damage that follows its mage and acts in the
    mage's turn; foes may attack it, and once it is lost the spell may find another."""
    have = familiar_of(ctx.state, who)
    if have is not None:
        ctx.refuse(f"{who} already has a familiar ({have.name}); each mage has only one")
    fam = s["familiar"]
    name = opts.take("name", f"{who}'s familiar")
    if not isinstance(name, str) or not name.strip():
        ctx.refuse("a familiar needs a name")
    creatures = ctx.state.get("creatures", {})
    lost = creatures.get(name)
    taken = names_in_play(ctx)
    if lost is not None and lost.get("owner") == who and is_dead(lost):
        del taken[name]  # the familiar it lost: found again under its name
    elif name in taken:
        ctx.refuse(f"{name!r} is already a name in play")
    require_name(ctx, name, "a familiar's name", taken)
    familiar = {"name": name, "kind": "familiar", "hearts": fam["hearts"], "max_hearts": fam["hearts"],
                "status": STATUS_ALIVE, "attack_bonus": "0", "damage": str(fam["damage"]), "multi_attack": 1,
                "ranged": False, "armor": [], "tags": ["familiar", "spirit"], "skills": {}, "role": "familiar",
                "owner": who, "form": opts.take("form", "varmint"), "range_ft": fam["range_ft"]}
    if "creatures" not in ctx.state:
        ctx.set(["creatures"], {})
    ctx.set(["creatures", name], familiar)
    return {"familiar": name, "form": familiar["form"]}  # its hearts and damage are on its sheet (creatures)


@effects.spell("firebolt", records=SpellHit, inputs=(Input("target", "creature", True, "who the bolt is aimed at"),))
def _firebolt(ctx, who, d, spell, s, target, opts):
    name = s["name"]
    if target is None:
        ctx.refuse(f"{name} is a ranged spell attack: name its target")
    a = spell_attack(ctx, who, d, target, name, opts)
    damage = [damage_with(ctx, who, target, str(s["damage"]), name, max_damage=bool(a.get("max_damage")),
                          attack=True)] if a["lands"] else []
    return {"spell_attack": a, "damage": damage}


class Invisible(Record):
    """Invisibility: who turned invisible."""

    invisible: str


@effects.spell("invisibility", inputs=(TARGET,), records=Invisible)
def _invisibility(ctx, who, d, spell, s, target, opts):
    target = target or who
    ctx.require_living(target, "turn invisible")
    end_kind(ctx, target, "invisible", "invisible anew")
    ctx.add_condition("invisible", target, who, duration=s["duration"], ends_when=["attack", "cast"])
    return {"invisible": target}


class Illusion(Record):
    """Minor Illusion: what the illusion shows."""

    illusion: Text


@effects.spell("minor_illusion", inputs=(Input("description", "text", False, "what the illusion shows"),),
               records=Illusion)
def _minor_illusion(ctx, who, d, spell, s, target, opts):
    what = opts.take("description", "an illusion")
    ctx.add_condition("illusion", who, who, duration=s["duration"], description=what, area=s["area"])
    return {"illusion": what}
