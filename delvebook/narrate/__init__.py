"""The one teller: every event told in the game's words, for the table, the players' view, the report, the CLI and
an outcome's summary.

- ``tell(event, ctx, hidden=())``: ``{"text": one sentence, "lines": more lines, "verdict": {"word", "good"} or
  None}``, what the table and the players' view show ("Second Wind: Brakka heals 3 (0 -> 3 hearts)");
- ``title(event, ctx)``: the action as a noun phrase, what a luck die lands on ("Brakka's attack on Bog goblin 2");
- ``step(event, ctx)``: what undoing the event takes back and redoing it puts back, the Undo and Redo labels: the
  action, or only the luck die, the real dice or the choice on the hit that re-ran it ("Ana's luck die (+4) on
  Wren's attack on Drowned dead 1");
- ``describe(event, ctx=None, hidden=())``: the story in one line (a notebook's outcome, the CLI, a report);
- ``roll_title(name, record)``: one roll of an action, whose and what ("Bog goblin 2's damage roll hitting back
  (Spear)"), what a roll's row and a luck die's button say; ``dealer(entry)``: who or what dealt a damage entry,
  crediting what the keeper named.

``ctx`` gives what telling needs beyond the event: the rules (skill and option names, money) and the state, and the
log for undo and redo (``ctx.event(seq)``): a campaign, or an ``engine.Reader``; without one, ids are said in words
and money in the text's coins. ``hidden``: names whose hearts are not said (the foes, on the players' screen).

Each kind of event is told in one place, found by the class that declares it (``core.declared``; ``words.tells``):
``fight`` (attacks, damage, healing, a fight's course), ``deeds`` (abilities and spells), ``keeping`` (the rest of
play), ``preparing`` (the party's seats, the bestiary, prepared encounters, roll tables). A teller reads the event
through its declaration (``Attack(event).damage``), never a key by string; a field no telling says is marked so
with why (``words.untold``), and a test fails on a declared field that is neither. What every event may carry is
told here: what re-ran an action (a luck die, real dice, a choice on the hit), the keeper's override, and the
conditions it ended. A kind no teller knows is said by its name. ``narrate.luck`` tells what a luck die would change
(where the table offers one). Text only: callers set it as text or escape it. Standard library only: part of the
pure core.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, Mapping

from ..core.declared import Action, Event, view
from ..engine import Redo, Undo
from .words import (TELLERS, dealer, fight_name, money, names, pct, plural, roll_title, spaced, story, tells,
                    untold)

__all__ = ["tell", "title", "step", "describe", "tells", "pct", "plural", "money", "fight_name", "roll_title",
           "dealer"]

untold(Event, seq="its place in the log: the log shows events in order", kind="said by the teller it finds",
       v="the version it was written in", at="the game clock: the keeper's panel shows the time",
       session="a recap tells a session at a time", encounter="a fight is told from its start to its end",
       round="the turns tell the rounds", actor="each teller names who acts in its own words",
       targets="each teller names whom in its own words", sides="the sides a view colours names by",
       ts="when it was recorded (the wall clock): the log's order says it",
       asked_by="the log marks the action with the player who asked for it")
untold(Action, args="what the command was given: the telling says what it did", changes="what it changed in the "
       "state: the cards and the sheets show it", rolls="every die is drawn beside the telling (the roll panel)",
       replaces="told as what re-ran it: a luck die, real dice, a choice on the hit")

_BROKEN = (KeyError, TypeError, ValueError, AttributeError, IndexError)
"""What telling an event a hand edited may raise: it is then said by its kind."""


def _teller(e: Mapping):
    """(the event read through its declaration, its teller), or (the event, None) for a kind no one tells."""
    v = view(e)
    return v, TELLERS.get(type(v))


def title(e: Mapping | None, ctx: Any = None) -> str:
    """An action as a noun phrase: what undo takes back, what a luck die lands on."""
    if e is None:
        return "nothing"
    v, teller = _teller(e)
    if teller is not None and teller.title is not None:
        try:
            return teller.title(v, ctx)
        except _BROKEN:
            pass  # an event a hand edited: named by its kind
    return spaced(e.get("kind"))


def step(e: Mapping | None, ctx: Any = None) -> str:
    """What undoing ``e`` takes back (and redoing it puts back), as a noun phrase: the action itself, or, for an
    action a luck die, real dice or a choice on the hit re-ran (it replaced the action as it stood), only that:
    undoing it brings the action back as it was before."""
    if e is None:
        return "nothing"
    what = title(e, ctx)
    a = view(e)
    if not isinstance(a, Action) or not a.replaces:
        return what
    try:
        luck = a.luck
        if luck is not None and luck.player:
            sign = "+" if (luck.sign or 1) > 0 else "\u2212"
            face = f" ({sign}{luck.face})" if isinstance(luck.face, int) else ""
            return f"{luck.player}'s luck die{face} on {what}"
    except _BROKEN:
        pass
    if a.amended:
        return f"the real dice for {what}"
    if a.on_hit:
        return f"{spaced(a.on_hit)} on {what}"
    return what


def tell(e: Mapping, ctx: Any = None, hidden=()) -> dict:
    """``{"text": one sentence, "lines": more lines, "verdict": {"word", "good"} | None}`` for an event; an action
    the keeper overrode says so, why, and what the override waived."""
    told = _told(e, ctx, tuple(hidden))
    override = _override(e)
    if override is not None:
        reason, waived = override
        told["lines"].append(f"the keeper's override: {reason}" + (f" (waived: {'; '.join(waived)})" if waived else ""))
    return told


def describe(e: Mapping, ctx: Any = None, hidden=()) -> str:
    """The event's story in one line: its sentence, then its lines; an override in brackets at the end."""
    told = _told(e, ctx, tuple(hidden))
    text = "; ".join([told["text"], *told["lines"]])
    override = _override(e)
    if override is not None:
        reason, waived = override
        text += f" [keeper override: {reason}" + (f"; waived: {'; '.join(waived)}" if waived else "") + "]"
    return text


def _told(e: Mapping, ctx: Any, hidden: tuple) -> dict:
    v, teller = _teller(e)
    try:
        if teller is not None:
            told = teller.tell(v, ctx, _prefix(v), hidden)
            if not teller.ended:
                told["lines"] += _ended(v)
            return told
    except _BROKEN:
        pass  # an event a hand edited: it is still told, by its kind
    return story(str(e.get("kind")))


def _ended(e: Any) -> list[str]:
    """The conditions an action ended, in a line: 'Ended: invisible on Ilse (Ilse attacks)'."""
    ended = e.conditions_ended if isinstance(e, Action) else ()
    if not ended:
        return []
    return ["Ended: " + names(f"{spaced(c.kind)} on {c.who}" + (f" ({c.why})" if c.why else "") for c in ended)]


def _override(e: Mapping) -> tuple[str, list[str]] | None:
    a = view(e)
    override = a.keeper_override if isinstance(a, Action) else None
    try:
        if override is not None and override.reason:
            return str(override.reason), [str(w) for w in override.waived or ()]
    except _BROKEN:
        pass
    return None


def _prefix(e: Any) -> str:
    """What re-ran the action, said first: a luck die, real dice typed, a choice on the hit."""
    if not isinstance(e, Action):
        return ""
    luck = e.luck
    if luck:
        rec = e.rolls.get(luck.roll)
        return f"{luck.player} spends a luck die on {roll_title(luck.roll, rec)}: " \
               f"{'+' if luck.sign > 0 else '-'}{luck.face}. "
    if e.amended:
        return f"Real dice for {names([roll_title(a, e.rolls.get(a)) for a in e.amended])}. "
    if e.on_hit:
        return f"{spaced(e.on_hit).capitalize()} chosen on the hit. "
    return ""


# ---------------------------------------------------------------- undo and redo

def _undone(seq: Any, ctx: Any) -> Mapping | None:
    find = getattr(ctx, "event", None)
    if find is None:
        return None
    try:
        return find(seq)
    except (KeyError, TypeError, IndexError):
        return None


@tells(Undo, Redo)
def _undo(e: Undo | Redo, ctx: Any, pre: str, hidden: tuple) -> dict:
    undo = isinstance(e, Undo)
    seq = e.undoes if undo else e.redoes
    target = _undone(seq, ctx)
    what = step(target, ctx) if target is not None else spaced(e.what)
    seq = target["seq"] if target is not None else seq
    return story(f"{'Undo' if undo else 'Redo'} {what}",
                 [f"(event {seq} is {'taken back; redo puts it back' if undo else 'in force again'})"])


for _module in pkgutil.iter_modules(__path__):  # every module registers its tellers as it is imported
    importlib.import_module(f"{__name__}.{_module.name}")
