"""The keeper's conditions: a curse, a poison, anything the table rules on, put on someone and taken off.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Any

from ..core.declared import Action
from .base import Ctx, command

__all__ = ["add_condition_cmd", "end_condition_cmd", "AddCondition", "EndCondition"]


class AddCondition(Action, kind="condition", targets=("who",)):
    """A condition the keeper puts on someone (``name``: its kind), and its id."""

    who: str
    name: str
    condition: int


@command(AddCondition)
def add_condition_cmd(ctx: Ctx, who: str, name: str, duration: str | None = None, ends_on: str | None = None,
                      source: str = "keeper", **data: Any) -> None:
    """The keeper puts a condition on someone (a curse, a poison): it lasts until it ends or is lifted."""
    ctx.combatant(who)
    kind = name
    if not isinstance(kind, str) or not kind.strip():
        ctx.refuse("a condition needs a kind, e.g. 'cursed'")
    if duration is not None:
        try:
            ctx.rules.duration_seconds(duration)
        except ValueError as err:
            ctx.refuse(str(err))
    cond = ctx.add_condition(kind, who, source, duration=duration, ends_on=ends_on, **data)
    ctx.out(who=who, name=kind, condition=cond["id"])


def _ended(event) -> list:
    """Whom an ended condition was on."""
    ended = event.get("conditions_ended")
    return [c.get("who") for c in ended if isinstance(c, dict)] if isinstance(ended, list) else []


class EndCondition(Action, kind="end_condition", targets=(_ended,)):
    """Conditions the keeper ended (``conditions_ended``)."""


@command(EndCondition)
def end_condition_cmd(ctx: Ctx, id: int | None = None, who: str | None = None, name: str | None = None) -> None:
    """The keeper ends a condition (by id, or every one of a kind on someone)."""
    if id is None and (who is None or name is None):
        ctx.refuse("end a condition by id, or by who and name")
    ended = ctx.end_conditions(lambda c: not (c["id"] == id if id is not None else
                                              (c["who"] == who and c["kind"] == name)), "the keeper ended it")
    if not ended:
        ctx.refuse("there is no such condition")
