"""Abilities and spells told: what each did (heals, hits, saves, orders, conditions), what it cost."""

from __future__ import annotations

from typing import Any

from ..engine.abilities import Cast, Use
from ..engine.abilities.shared import SaveRoll, SpellAttack
from .fight import attack_story, dealt, healed
from .keeping import check_story
from .words import names, paid, pct, plural, spaced, story, tells, untold, verdict

__all__: list[str] = []

Deed = Use | Cast


def _name(e: Deed) -> str:
    if isinstance(e, Use):
        return e.ability_name or spaced(e.ability or "ability")
    if e.spell == "naming":
        return "Naming Magic"
    return e.spell_name or spaced(e.spell or "spell")


def _title(e: Deed, ctx: Any) -> str:
    who, target = e.who, e.target
    if isinstance(e, Cast):
        name = e.spell_name or spaced(e.spell or "spell")
        return f"{who}'s {name}" + (f" at {_targets(target)}" if target else "")
    return f"{who}'s {_name(e)}" + (f" on {target}" if target and target != who else "")


def _targets(target: Any) -> str:
    """A spell's target in words: one name, or each dart's (Magic Missile split)."""
    return names(dict.fromkeys(target)) if isinstance(target, (list, tuple)) else str(target)


_SAID = (lambda e, who: e.invisible and f"{e.invisible} is invisible for an hour",
         lambda e, who: e.illusion and f"an illusion: {e.illusion}",
         lambda e, who: e.light and f"{e.light.item} sheds light {e.light.ft} ft",
         lambda e, who: e.blinded and f"{e.target} is blinded for an hour",
         lambda e, who: e.locating and f"{who} senses the way to {e.locating}",
         lambda e, who: e.scroll and f"read from the {e.scroll}, which is used up",
         lambda e, who: e.instrument and f"played on the {e.instrument}",
         lambda e, who: e.familiar and f"{e.familiar} the {e.form or 'familiar'} answers the call",
         lambda e, who: e.spell == "dispel_magic" and (f"{spaced(e.dispelled.kind)} on {e.dispelled.who} ends"
                                                       if e.dispelled else "the magic holds"),
         lambda e, who: e.contest and (f"contest {e.contest.total} vs {e.contest.vs} {e.contest.vs_total}: "
                                       + {"win": "dispelled", "tie": "it holds (a tie)", "lose": "it holds"}
                                       .get(e.contest.result, e.contest.result)),
         lambda e, who: e.signature and f"the signature spell: {e.signature}",
         lambda e, who: e.death_save_due and f"{e.death_save_due} is below 1 heart: death save!",
         lambda e, who: e.effect and str(e.effect))
"""What a spell (cast, or by an ability) records, said in a line each (in this order); each says nothing when it
is not there."""

_USE_SAID = (lambda e, who: e.traced and f"{spaced(e.traced)} is traced on the sword",
             lambda e, who: e.made and f"{who} makes {e.made}",
             lambda e, who: e.copied and (f"{e.spell_name or spaced(e.copied)} copied into the book"
                                          + (f" from the {e.from_}" if e.from_ else "")
                                          + (", which is destroyed" if e.scroll_destroyed else "")),
             lambda e, who: e.written and f"written on the {e.written}: a mage may copy it or cast it",
             lambda e, who: e.copied_out and (f"{e.spell_name or spaced(e.copied_out)} copied out onto a new "
                                              f"{'book' if str(e.onto or '').startswith('Book') else 'scroll'}, "
                                              f"the {e.onto}" + (f"; as {who}'s signature spell it leaves {who}'s "
                                                                 f"book" if e.left_the_book
                                                                 else f"; it stays in {who}'s book")),
             lambda e, who: e.bard_spell and (f"the bard's spell is now {spaced(e.bard_spell)}"
                                              + (f" (it was {spaced(e.was)})" if e.was else "")),
             lambda e, who: e.sentry_attacks and (f"{who} stands sentry: up to {e.sentry_attacks} attacks before the"
                                                  f" next turn" + (f"; {e.turn_of}'s turn" if e.turn_of else "")),
             lambda e, who: e.movement_multiplier and f"{who} moves {e.movement_multiplier} times as far",
             lambda e, who: e.unholy and f"unholy: {names(e.unholy)}",
             lambda e, who: e.curses_lifted and f"{plural(len(e.curses_lifted), 'curse')} lifted",
             lambda e, who: e.signature_spell and f"signature spell recorded: {e.signature_spell.name}")


untold(Use, ability="its name says it", order="a Commander's order: the ability's own name, said as the deed's",
       source="Continued Research: said as the item it was copied from",
       uses_action="the turn economy shows it (the action stays)",
       side="its turn's side: whose turn it is says it", new_round="the fight panel shows the round")
untold(Cast, via="said for the wand and the sword; the book, a blessing and a song are the caster's own way",
       form="said with the familiar", spell="its name says it")
untold(SaveRoll, expr="the roll panel draws it")
untold(SpellAttack, attack_expr="the roll panel draws it", resist_expr="the roll panel draws it",
       lands="said as the result", advantage="the roll panel draws both dice", disadvantage="the roll panel draws "
       "both dice", max_damage="its damage says what it dealt")


@tells(Cast, title=_title)
def _cast(e: Cast, ctx: Any, pre: str, hidden: tuple) -> dict:
    return _deed(e, ctx, pre, hidden, [], [])


@tells(Use, title=_title)
def _use(e: Use, ctx: Any, pre: str, hidden: tuple) -> dict:
    """An ability: what a spell it casts records (``_deed``), and what abilities record beside."""
    heads, lines = [], []
    who = e.who
    if e.blessing_die:
        heads.append(f"{e.target or who} adds {e.blessing_die.upper()} to every D20 for a minute")
    if e.no_longer_blessed:
        lines.append(f"no longer blessed: {names(e.no_longer_blessed)}")
    if e.next_attack:
        na = e.next_attack
        bits = [b for b, on in (("advantage", na.advantage), ("max damage", na.max_damage)) if on]
        if na.multi_attack:
            bits.append(f"multi-attack {na.multi_attack}")
        heads.append(f"{who}'s next attack: {', '.join(bits)}")
    if e.hearing is not None:  # a Commander's order
        heads.append(f"{names(e.hearing)} hear the order until {who}'s next turn")
    if e.gained:
        for res, g in e.gained.items():
            heads.append(f"{who} gains {g.gained} {spaced(res)} (rolled {g.rolled}, now {g.now})")
    if e.revived is not None:
        heads.append(f"the death save is repeated: {e.total}" + (f" ({pct(e.chance)} to live)" if e.chance else "")
                     + (": defies death" if e.revived else ": still dead"))
    if e.hidden is not None:  # a Hide: its Stealth check
        told = check_story(e, ctx, "")
        heads.append(f"{who} is {'hidden' if e.hidden else 'seen'} ({told['text']})")
    for say in _USE_SAID:
        line = say(e, who)
        if line:
            heads.append(line)
    return _deed(e, ctx, pre, hidden, heads, lines)


def _deed(e: Deed, ctx: Any, pre: str, hidden: tuple, more: list, later: list) -> dict:
    """A deed told: what it healed, its spell attack or save, its damage, naming magic, what the spell records;
    ``more``: the ability's own heads, ``later``: its own lines; the attack it made, and what it cost."""
    cast = isinstance(e, Cast)
    who = e.who
    name = _name(e)
    lines: list[str] = []
    found = None
    heads: list[str] = []
    for h in e.healing or ():
        heads.append(healed(h, hidden))
    sa = e.spell_attack
    if sa:
        res = sa.result
        word = {"hit": "hit", "tie": "a tie: it lands", "miss": "miss"}[res]
        heads.append(f"{sa.attack_total} vs {sa.resist_total} at {sa.target}, {word}")
        found = verdict("hit" if res != "miss" else "miss", res != "miss")
        if sa.chance is not None and sa.chance.win:
            lines.append(f"odds were {pct(sa.chance.win)} to hit, {pct(sa.chance.tie)} a tie")
    if isinstance(e.save, SaveRoll):
        s = e.save
        heads.append(f"{s.who} saves {s.total} vs {s.target}: {'saved' if s.success else 'failed'} "
                     f"({pct(s.chance)} to save)")
    attacked = e.attack_totals is not None  # an ability or a spell that makes an attack (a Dual Wield, Light's touch)
    for d in () if attacked else e.damage or ():
        (heads if not sa else lines).append(dealt(d, hidden))
    if e.spell == "naming" or (cast and e.names):
        heads.append(f"{names(e.names or [])}: {e.description!r} for {plural(e.cost or 0, 'soul point')}")
    if e.keep:
        kp = e.keep
        lines.append(f"keep roll {kp.total} (needs {kp.target}: {pct(kp.chance)}): "
                     + ("the spell stays in the book" if kp.kept else "the spell is used up until a rest"))
    if e.marked:
        lines.append(f"{e.marked} is marked: attacks against it have advantage")
    heads += more
    lines += later
    for say in _SAID:
        line = say(e, who)
        if line:
            heads.append(line)
    cost = paid(ctx, e.paid)
    via = f" from the {e.via}" if cast and e.via in ("wand", "sword") else ""
    if attacked:  # the attack told, the deed named
        told = attack_story(e, "", hidden, ctx)
        text = f"{pre}{name}{via}: " + "; ".join(heads + [told["text"]])
        lines = told["lines"] + lines
        found = told["verdict"]
    elif heads:
        text = f"{pre}{name}{via}: " + "; ".join(heads)
    else:
        target = f" on {_targets(e.target)}" if e.target and e.target != who and not e.healing else ""
        text = f"{pre}{who} {'casts' if cast else 'uses'} {name}{via}{target}"
    if cost:
        lines.insert(0, f"paid {cost}")
    return story(text, lines, found)
