"""The limits every event and every state keeps, and how a value and a place are shown in a refusal.

One set of limits for the writer and the reader alike: the writer refuses, before it acknowledges an event, what
the reader would refuse. Standard library only.
"""

from __future__ import annotations

import math
import re
from typing import Any, Iterator, Mapping

__all__ = ["MAX_INT", "MAX_TEXT", "MAX_NAME", "MAX_ITEMS", "MAX_FOES", "MAX_DEPTH", "value_problem",
           "event_problems", "dotted_path", "show"]

MAX_INT = 2 ** 53 - 1
"""The largest whole number anywhere in an event or the state: what a browser reads back exactly from JSON."""
MAX_TEXT = 20_000
"""Characters in one text of the state (a note, a name of a thing)."""
MAX_NAME = 200
"""Characters in a name (a delver, a player, a foe, a class id)."""
MAX_ITEMS = 100_000
"""Entries in any one list or mapping of the state or of an event."""
MAX_FOES = 500
"""Foes in one fight."""
MAX_DEPTH = 64
"""Lists and mappings nested deeper than this are refused in an event (the engine's deepest is 8)."""

SURROGATE = re.compile("[\ud800-\udfff]")
"""A character that is not UTF-8 text (a lone surrogate: bytes from a file name read as text)."""


def show(value: Any) -> str:
    """A value as a refusal shows it: short, and never the whole of a long text or a huge number."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else repr(value[:37] + "...")
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, int):
        return str(value) if abs(value) < 10 ** 30 else f"a number of {len(str(abs(value)))} digits"
    return type(value).__name__


def dotted_path(path) -> str:
    """A state path as messages write it: ``delvers.Wren.armor[0].dv`` (a key longer than a name may be is cut)."""
    out = ""
    for p in path:
        if isinstance(p, int) and not isinstance(p, bool):
            out += f"[{p}]"
        else:
            p = str(p)
            if len(p) > 40:
                p = p[:37] + "..."
            out += ("." if out else "") + p
    return out or "(the whole state)"


def value_problem(value: Any, *, max_depth: int = MAX_DEPTH) -> tuple[tuple, str] | None:
    """The first place in ``value`` that an event may not hold, as (path inside it, reason), or None.

    Text (UTF-8, keys too), whole numbers within ``MAX_INT`` either way, finite numbers, true/false, null, lists
    and mappings of at most ``MAX_ITEMS`` entries, nested at most ``max_depth`` deep. Iterative: no depth of
    input can overflow the stack."""
    stack = [((), value)]
    while stack:
        path, v = stack.pop()
        cls = v.__class__
        if cls is str:
            if not v.isascii() and SURROGATE.search(v):
                return path, "holds characters that are not UTF-8 text"
            continue
        if cls is int:
            if not -MAX_INT <= v <= MAX_INT:
                return path, f"{show(v)}: whole numbers are at most {MAX_INT:,} either way (what a browser " \
                             f"reads exactly)"
            continue
        if v is None or cls is bool:
            continue
        if cls is float:
            if not math.isfinite(v):
                return path, f"{v} is not a number an event holds (no NaN or infinity)"
            continue
        if cls is dict or cls is list:
            if len(path) >= max_depth:
                return path, f"nested more than {max_depth} levels deep"
            if len(v) > MAX_ITEMS:
                return path, f"{len(v):,} entries; at most {MAX_ITEMS:,}"
            if cls is dict:
                for k, x in v.items():
                    if k.__class__ is not str:
                        return path, f"key {show(k)} is not text"
                    if not k.isascii() and SURROGATE.search(k):
                        return path + (k,), "a key holds characters that are not UTF-8 text"
                    stack.append((path + (k,), x))
            else:
                for i, x in enumerate(v):
                    stack.append((path + (i,), x))
            continue
        return path, f"{type(v).__name__} is not JSON data (text, numbers, true/false, null, lists, mappings)"
    return None


def event_problems(event: Mapping) -> Iterator[tuple[str, str]]:
    """The JSON limits every event keeps, as (field, reason): see ``value_problem``."""
    found = value_problem(event)
    if found is not None:
        yield dotted_path(found[0]) if found[0] else "", found[1]
