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

Each kind of event is told in one place, where it registers (``words.tells``): ``fight`` (attacks, damage, healing,
a fight's course), ``deeds`` (abilities and spells), ``keeping`` (the rest of play), ``preparing`` (the party's
seats, the bestiary, prepared encounters, roll tables). A kind no teller knows is said
by its name. ``narrate.luck`` tells what a luck die would change (where the table offers one). Text only: callers set it as text or escape it. Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Any, Mapping

from . import deeds, fight, keeping, preparing  # noqa: F401  (each registers its tellers)
from .words import TELLERS, dealer, fight_name, money, names, pct, plural, roll_title, spaced, story, tells

__all__ = ["tell", "title", "step", "describe", "tells", "pct", "plural", "money", "fight_name", "roll_title",
           "dealer"]


def title(e: Mapping | None, ctx: Any = None) -> str:
    """An action as a noun phrase: what undo takes back, what a luck die lands on."""
    if e is None:
        return "nothing"
    k = e.get("kind")
    teller = TELLERS.get(k) if isinstance(k, str) else None
    if teller is not None and teller.title is not None:
        try:
            return teller.title(e, ctx)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            pass  # an event a hand edited: named by its kind
    return spaced(k)


def step(e: Mapping | None, ctx: Any = None) -> str:
    """What undoing ``e`` takes back (and redoing it puts back), as a noun phrase: the action itself, or, for an
    action a luck die, real dice or a choice on the hit re-ran (it replaced the action as it stood), only that:
    undoing it brings the action back as it was before."""
    if e is None:
        return "nothing"
    what = title(e, ctx)
    if not e.get("replaces"):
        return what
    luck = e.get("luck")
    if isinstance(luck, Mapping) and luck.get("player"):
        sign = "+" if luck.get("sign", 1) > 0 else "\u2212"
        face = f" ({sign}{luck['face']})" if isinstance(luck.get("face"), int) else ""
        return f"{luck['player']}'s luck die{face} on {what}"
    if e.get("amended"):
        return f"the real dice for {what}"
    if e.get("on_hit"):
        return f"{spaced(e['on_hit'])} on {what}"
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
    k = e.get("kind")
    teller = TELLERS.get(k) if isinstance(k, str) else None
    try:
        if teller is not None:
            return teller.tell(e, ctx, _prefix(e), hidden)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        pass  # an event a hand edited: it is still told, by its kind
    return story(str(k))


def _override(e: Mapping) -> tuple[str, list[str]] | None:
    override = e.get("keeper_override")
    if isinstance(override, Mapping) and override.get("reason"):
        return str(override["reason"]), [str(w) for w in override.get("waived") or ()]
    return None


def _prefix(e: Mapping) -> str:
    """What re-ran the action, said first: a luck die, real dice typed, a choice on the hit."""
    luck = e.get("luck")
    if luck:
        rec = (e.get("rolls") or {}).get(luck["roll"])
        return f"{luck['player']} spends a luck die on {roll_title(luck['roll'], rec)}: " \
               f"{'+' if luck['sign'] > 0 else '-'}{luck['face']}. "
    if e.get("amended"):
        rolls = e.get("rolls") or {}
        return f"Real dice for {names([roll_title(a, rolls.get(a)) for a in e['amended']])}. "
    if e.get("on_hit"):
        return f"{spaced(e['on_hit']).capitalize()} chosen on the hit. "
    return ""


# ---------------------------------------------------------------- undo and redo

def _undone(e: Mapping, ctx: Any) -> Mapping | None:
    seq = e.get("undoes") if e["kind"] == "undo" else e.get("redoes")
    find = getattr(ctx, "event", None)
    if find is None:
        return None
    try:
        return find(seq)
    except (KeyError, TypeError, IndexError):
        return None


@tells("undo", "redo")
def _undo(e: Mapping, ctx: Any, pre: str, hidden: tuple) -> dict:
    undo = e["kind"] == "undo"
    target = _undone(e, ctx)
    what = step(target, ctx) if target is not None else spaced(e.get("what"))
    seq = target["seq"] if target is not None else e.get("undoes" if undo else "redoes")
    return story(f"{'Undo' if undo else 'Redo'} {what}",
                 [f"(event {seq} is {'taken back; redo puts it back' if undo else 'in force again'})"])
