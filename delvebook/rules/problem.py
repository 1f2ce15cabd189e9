"""A problem found in rules data, a house rule, a campaign file or a form: where, and what was expected; and a
value as a problem's reason shows it. What ``rules.schema`` and ``rules.prepared`` both report in.

Standard library only: part of the pure core.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from typing import Any, NamedTuple

__all__ = ["Problem", "show"]


class Problem(NamedTuple):
    """One thing wrong: where (keys and list indexes from the top of the data), and what was expected."""

    path: tuple
    reason: str


def show(value: Any) -> str:
    """A value as a problem's reason shows it: text quoted, true/false and null in YAML's words."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "nothing (null)"
    if isinstance(value, str):
        return repr(value) if len(value) <= 60 else repr(value[:57] + "...")
    if isinstance(value, Mapping):
        return "a mapping" if value else "an empty mapping"
    if isinstance(value, (list, tuple)):
        return "a list" if value else "an empty list"
    if isinstance(value, (_dt.date, _dt.datetime)):
        return f"a date ({value})"
    return repr(value)
