"""What a click's message must be before any handler reads it: the page is input, and a forged or garbled message
(a player sent as a list, a number as text) is refused next to the click and changes nothing, instead of reaching
a handler or the UI state the view draws."""

from __future__ import annotations

from typing import Any, Callable, Mapping

__all__ = ["FormError", "FIELDS", "SHAPES", "check_shape"]


class FormError(ValueError):
    """What the keeper typed cannot be read (a number that is not one), or a click's message is not one the page
    sends: nothing was done."""


_SCALAR = (str, int, float, bool, type(None))


def _number(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


SHAPES: dict[str, Callable[[Any], bool]] = {
    "a name": lambda v: isinstance(v, str),
    "a whole number": _number,
    "a name or a number": lambda v: isinstance(v, str) or _number(v),
    "one value": lambda v: isinstance(v, _SCALAR),
    "a list of names": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
    "a set of fields": lambda v: isinstance(v, Mapping),
    "yes or no": lambda v: isinstance(v, bool),
}
FIELDS: dict[str, str] = {
    **dict.fromkeys(("who", "player", "attacker", "skill", "ability", "spell", "via", "choice", "option",
                     "roll", "panel", "name", "vs", "prepared", "first", "foe", "item", "keeper_override", "tab",
                     "table", "kind"), "a name"),
    **dict.fromkeys(("seq", "sign", "minutes", "hours", "hit", "n", "ask", "on", "delta", "count", "session"),
                    "a whole number"),
    **dict.fromkeys(("target", "id", "weapon"), "a name or a number"),  # the target number, a condition, a slot
    "value": "one value",  # an attack option: a flag, a number or a bonus
    "order": "a list of names", "keep": "a list of names", "args": "a set of fields", "given": "a set of fields",
    "intent": "a set of fields",
    "confirmed": "yes or no",
}
"""What each field a click carries at the top of its intent must be when it is there (a form's fields, ``args``,
each one value or a list of them)."""


def check_shape(i: Mapping) -> None:
    """Refuse (``FormError``) an intent whose fields are not what a click sends: a forged or garbled message is
    said next to the click and changes nothing, instead of reaching a handler or the UI state."""
    for key, value in i.items():
        kind = FIELDS.get(key)
        if kind is not None and value is not None and not SHAPES[kind](value):
            raise FormError(f"the click sent {key!r} as {type(value).__name__}, not {kind}: nothing was done")
    for key, value in [*(i.get("args") or {}).items(), *(i.get("given") or {}).items()]:
        if not isinstance(key, str) or not (isinstance(value, _SCALAR) or isinstance(value, list)
                                            and all(isinstance(x, _SCALAR) for x in value)):
            raise FormError(f"the form sent {key!r} as {type(value).__name__}, not what a field holds: nothing "
                            "was done")
