"""The fields of the rules data that are not house rules: each documents how delvebook reads the text (one reading
the engine plays), or describes a feature in words that its code plays, so a campaign that changes one would change
nothing. Each is marked where it is defined, in the rules data itself: the mapping that holds it says so in its
``reading:`` (``{field: why}``, a provenance key beside ``assumed:``), and the schema refuses such an override
(``schema.merge_overrides``) with that reason, so a house rule either changes play or is told, at its line in
``campaign.yaml``, that it cannot.

A mark covers the field and everything below it. Only a field of the shipped rules changed to another value is
refused: a campaign's own class, spell or foe (a new key in an open table) may hold such fields, and setting one to
the value it already has changes nothing. A reason may be written short (``SHORT``): ``words``, ``one option``...,
or ``one reading: ...`` for the engine's one reading of a rule.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Mapping

__all__ = ["READING", "SHORT", "fixed_reason", "marked", "mark_of"]

READING = "reading"
"""The provenance key that marks a mapping's fields as no house rules: ``reading: {field: why}``."""

_ONE_READING = "the engine plays one reading of this rule"

SHORT: dict[str, str] = {
    "words": "words that describe the feature for a reader of the rules; its code plays it",
    "one option": f"{_ONE_READING}: one option a choice",
    "requires": "which option brings an ability is that option's grants (change those); requires names it in the "
                "messages",
    "technique": "it comes with its technique, chosen at level 3",
    "restores": "what a rest restores is core.rest.restores",
}
"""Reasons many marks share, written short in the rules data."""


def _said(why: Any) -> str:
    why = str(why)
    if why in SHORT:
        return SHORT[why]
    if why.startswith("one reading: "):
        return f"{_ONE_READING}: {why[len('one reading: '):]}"
    return why


def mark_of(mapping: Any, key: Any) -> str | None:
    """Why ``mapping``'s field ``key`` is no house rule, as the mapping marks it (its ``reading:``), or None."""
    marks = mapping.get(READING) if isinstance(mapping, Mapping) else None
    return _said(marks[key]) if isinstance(marks, Mapping) and key in marks else None


def fixed_reason(path: Iterable, data: Mapping) -> str | None:
    """Why the field at ``path`` (keys from the top of the rules ``data``: the shipped rules'), or the field it lies
    in, is not a house rule, as the data marks it; None when a campaign may change it."""
    node: Any = data
    for key in path:
        if not isinstance(node, Mapping):
            return None
        why = mark_of(node, key)
        if why is not None:
            return why
        if key not in node:
            return None
        node = node[key]
    return None


def marked(data: Mapping) -> Iterator[tuple[tuple, str]]:
    """Every field the rules ``data`` marks as no house rule: (path, why)."""
    return _marked(data, ())


def _marked(node: Any, path: tuple) -> Iterator[tuple[tuple, str]]:
    if not isinstance(node, Mapping):
        return
    marks = node.get(READING)
    if isinstance(marks, Mapping):
        for key, why in marks.items():
            yield path + (key,), _said(why)
    for key, value in node.items():
        if key != READING:
            yield from _marked(value, path + (key,))
