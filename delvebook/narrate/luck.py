"""What a luck die would change, told: a luck die is offered on a roll where it can change the outcome, and says
what it would change ('a 3 or more: miss becomes hit'); where no face can (a foe's attack that already
missed, taken further down), it says so instead of being offered.

The latest action is played again with a face of the die (``Engine.luck_would``: the very re-run a luck die makes),
the biggest first and then halving towards the smallest that matters (a bigger face moves the total further), and
its outcome compared with the action as it stands: what it changed in the state (luck dice left aside)
and its verdict as the narrator tells it (a hit or a miss, a success or a failure). An action with neither (a plain
roll, a roll on a table) has only its totals for an outcome: every luck die may change it.
"""

from __future__ import annotations

from typing import Any, Mapping, NamedTuple

from ..core.declared import Action, view
from ..engine.queries import luck_die_sides
from . import tell

__all__ = ["Reach", "luck_reach"]


class Reach(NamedTuple):
    """What a luck die on a roll can do: ``face``, the smallest face that changes the outcome (None: no face does),
    and ``said``, what it would change in words ('' where any face simply changes it)."""

    face: int | None
    said: str


def _outcome(e: Mapping, camp: Any) -> tuple:
    a = view(e)
    changes = tuple((tuple(path), repr(value)) for path, value in (a.changes if isinstance(a, Action) else ()) or ()
                    if not (path and path[0] == "luck"))
    verdict = tell(e, camp).get("verdict") or {}
    return changes, verdict.get("word")


def luck_reach(camp: Any, player: str, roll: str, sign: int) -> Reach:
    """What one of ``player``'s luck dice added (``sign`` +1) to or taken off (-1) ``roll`` of the latest action
    would change (``camp``: a campaign, its engine and rules)."""
    action = camp.latest_action
    before = _outcome(action, camp)
    if before == ((), None):
        return Reach(1, "")  # only totals: any face changes it
    sides = luck_die_sides(camp.rules)

    def outcome(face: int):
        e = camp.engine.luck_would(player, sign, roll, face)
        return None if e is None else _outcome(e, camp)

    top = outcome(sides)  # a bigger face moves the total further: if the biggest changes nothing, none does
    if top is None or top == before:
        word = before[1]
        return Reach(None, "" if top is None else
                     f"cannot change the outcome: {word}" if word else "cannot change the outcome")
    lo, hi, found = 1, sides, top  # hi: the smallest face known to change it, with what it changes to
    while lo < hi:
        mid = (lo + hi) // 2
        at = outcome(mid)
        if at is not None and at != before:
            hi, found = mid, at
        else:
            lo = mid + 1
    return Reach(hi, _changed(hi, sides, before[1], found[1]))


def _changed(face: int, sides: int, was: str | None, now: str | None) -> str:
    what = f"{was} becomes {now}" if was and now and was != now else "it changes what happens"
    if face == 1:
        return "" if not (was and now and was != now) else f"any face: {what}"
    return f"a {face} or more: {what}" if face < sides else f"only a {face}: {what}"
