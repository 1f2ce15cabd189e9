"""An event written in an older format, read in today's: ``upgrade_event(event, state_before)``.

Version 1 (or an event with no ``v``) named no roles: version 2 adds ``actor``, ``targets`` and ``sides`` from
the command's declared roles (``roles.fill``, the very step the engine takes as it decides an event), names the
dealer of every damage and healing entry in ``by`` and keeps in ``source`` only what dealt it (v1 wrote both in
one text: ``"Brakka (Sword)"``, ``"Bog goblin 2 (Spear, counter)"``, ``"Ilse (Magic Missile, dart 2)"``), and
calls whose turn begins ``turn_of`` (v1 called it ``actor``). The upgrade is exact, because it sees the state the
event was decided on: a v1 event upgraded is the event today's engine makes of the same action. Nothing it
changes is folded (its ``changes`` stay as they are), so a v1 log replays to the same state.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..core.events import EVENT_VERSION
from ..core.roles import KEEPER, KEEPERS, fill
from .base import ROLES

__all__ = ["upgrade_event"]

_BY_HAND = frozenset({"damage", "heal"})  # the keeper's own damage and healing: by the keeper, in the keeper's words
_TURN = frozenset({"initiative", "set_order", "next_turn"})  # v1's "actor": whose turn begins


def upgrade_event(event: dict, state_before: Mapping) -> dict:
    """``event`` in today's format (upgraded in place, and returned), given the state just before it. An event
    already in today's format, or of a version this delvebook does not know (the reader refuses those), is
    returned as it is; a v1 event a hand has broken is upgraded as far as it can be, never refused here."""
    v = event.get("v", 1)
    if v == EVENT_VERSION or v != 1 or v is True:
        return event
    kind = event.get("kind")
    if kind in _TURN and "actor" in event:
        _rename(event, "actor", "turn_of")
    by_hand = kind in _BY_HAND
    who = [event.get("attacker"), event.get("who")]
    damage = event.get("damage")
    if isinstance(damage, list):
        event["damage"] = [_dealt_by(d, "target", who, by_hand) for d in damage]
    counter = event.get("counter")
    if isinstance(counter, dict) and isinstance(counter.get("damage"), Mapping):
        counter["damage"] = _dealt_by(counter["damage"], "target", [counter.get("by")], False, ", counter")
    healing = event.get("healing")
    if isinstance(healing, list):
        event["healing"] = [_dealt_by(h, "who", [event.get("who")], by_hand) for h in healing]
    event["v"] = EVENT_VERSION
    return fill(event, ROLES.get(kind, KEEPERS), state_before)


def _rename(event: dict, old: str, new: str) -> None:
    items = [(new if k == old else k, v) for k, v in event.items()]
    event.clear()
    event.update(items)


def _dealt_by(entry: Any, anchor: str, candidates: list, by_hand: bool, suffix: str = "") -> Any:
    """A v1 damage or healing entry with its dealer in ``by`` (after ``anchor``, as the engine writes it) and
    ``source`` reduced to what dealt it: v1 wrote ``"NAME (WHAT)"``, NAME one of ``candidates``."""
    if not isinstance(entry, Mapping) or "by" in entry:
        return entry
    source = entry.get("source")
    names = [c for c in candidates if isinstance(c, str)]
    by = KEEPER if by_hand or not names else names[0]
    if not by_hand and isinstance(source, str):
        for name in names:
            if source.startswith(name + " (") and source.endswith(")"):
                by, what = name, source[len(name) + 2:-1]
                dart = entry.get("dart")
                for tail in (suffix, f", dart {dart}" if dart is not None else ""):
                    if tail and what.endswith(tail):
                        what = what[:-len(tail)]
                source = what
                break
    out = {}
    for k, v in entry.items():
        out[k] = source if k == "source" else v
        if k == anchor:
            out["by"] = by
    if "by" not in out:
        out["by"] = by
    return out
