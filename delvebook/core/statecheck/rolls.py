"""Roll records: an event's ``rolls`` are rolls of their dice (faces each die can show, the total they come to, luck
dice that are dice), or the views that draw them would break.

``Roll.from_dict`` (what every view reads a record with) is the reference. Plain notation without luck dice (most
records) is checked here first, from its plan (each die's sides and sign, the constant), so a wrong face is named
(``faces[1]: a d6 shows 1..6, not 9``); anything else goes through ``Roll.from_dict``. Standard library only.
"""

from __future__ import annotations

from typing import Any

from ..dice import DiceError, Roll, parse as parse_dice
from .limits import MAX_NAME, show

__all__ = ["roll_problem", "rolls_problem", "plan", "from_dict_problem", "PLANS"]

PLANS: dict[str, Any] = {}
"""Notation -> its plan (``plan``): each notation of the log is parsed once. Bounded: cleared past 4,096 kinds of
notation (a log holds a few dozen)."""


def plan(expr: str) -> Any:
    """For notation without keep or d66: (faces' sides in order, the dice terms' signs per face, the constant);
    for other notation False (checked through ``Roll.from_dict``); a DiceError's message for bad notation."""
    found = PLANS.get(expr)
    if found is not None:
        return found
    try:
        e = parse_dice(expr)
    except DiceError as err:
        found = f"expr: {err}"
    else:
        if any(t.keep or t.d66 for t in e.terms):
            found = False
        else:
            sides, signs, constant = [], [], 0
            for t in e.terms:
                if t.is_constant:
                    constant += t.sign * t.constant
                else:
                    sides += [t.sides] * t.count
                    signs += [t.sign] * t.count
            found = (tuple(sides), tuple(signs), constant)
    if len(PLANS) > 4096:
        PLANS.clear()
    PLANS[expr] = found
    return found


def roll_problem(record: Any) -> str | None:
    """Why a roll record (``{"expr", "faces", "total", ...}``) is not a roll of its dice: faces that its dice
    cannot show, too many or too few, a total that is not theirs, a bad luck die; or None."""
    if record.__class__ is not dict:
        return f"expected a roll record (expr, faces, total), got {show(record)}"
    expr, faces = record.get("expr"), record.get("faces")
    if expr.__class__ is not str:
        return f"expr: expected dice notation (text), got {show(expr)}"
    found = PLANS.get(expr)
    if found is None:
        if len(expr) > MAX_NAME:
            return f"expr: dice notation of {len(expr):,} characters; at most {MAX_NAME}"
        found = plan(expr)
    if found.__class__ is str:
        return found
    if faces.__class__ is not list:
        return f"faces: expected the list of faces shown, got {show(faces)}"
    if not found or "luck" in record or "base_total" in record:
        return from_dict_problem(record)
    sides, signs, total = found
    if len(faces) != len(sides):
        return f"faces: {expr} rolls {len(sides)} dice, the record shows {len(faces)} faces"
    for i, face in enumerate(faces):
        n = sides[i]
        if face.__class__ is not int or not 1 <= face <= n:
            return f"faces[{i}]: a d{n} shows 1..{n}, not {show(face)}"
        total += signs[i] * face
    if record.get("total") != total:
        return f"total: the faces of {expr} come to {total}, the record says {show(record.get('total'))}"
    return None


def from_dict_problem(record: Any) -> str | None:
    """What ``Roll.from_dict`` (what every view reads a record with) says of a record: the reference that
    ``roll_problem``'s check of plain notation is held to."""
    try:
        r = Roll.from_dict(record)
    except DiceError as err:
        return str(err)
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        return f"not a roll record ({type(err).__name__}: {err})"
    if "total" not in record:
        return f"total: missing (the faces come to {r.total})"
    return None


def rolls_problem(rolls: Any) -> tuple[str | None, str] | None:
    """The first bad record of an event's ``rolls`` (name -> record) as (its name, reason), or None."""
    if rolls.__class__ is not dict:
        return None, f"expected a mapping of roll names to records, got {show(rolls)}"
    for name, record in rolls.items():
        why = roll_problem(record)
        if why is not None:
            return name, why
    return None
