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

__all__ = ["READING", "SHORT", "fixed_reason", "marked", "mark_of", "marks_below", "marks_in"]

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


def marks_in(mapping: Any, above: Mapping | None = None) -> dict:
    """The marks on ``mapping``'s fields: its own ``reading:``, over those the mapping above it wrote for them
    (``above``: ``reading: {field: {key: why}}`` there, for a table whose keys are numbers, where a ``reading:``
    key of its own would mix text with its numbers)."""
    marks = dict(above) if isinstance(above, Mapping) else {}
    own = mapping.get(READING) if isinstance(mapping, Mapping) else None
    if isinstance(own, Mapping):
        marks.update(own)
    return marks


def mark_of(mapping: Any, key: Any, above: Mapping | None = None) -> str | None:
    """Why ``mapping``'s field ``key`` is no house rule, as it is marked (``marks_in``), or None."""
    why = marks_in(mapping, above).get(key)
    return None if why is None or isinstance(why, Mapping) else _said(why)


def marks_below(mapping: Any, key: Any, above: Mapping | None = None) -> Mapping | None:
    """The marks ``mapping`` writes for the fields of its field ``key`` (``reading: {key: {field: why}}``)."""
    why = marks_in(mapping, above).get(key)
    return why if isinstance(why, Mapping) else None


def fixed_reason(path: Iterable, data: Mapping) -> str | None:
    """Why the field at ``path`` (keys from the top of the rules ``data``: the shipped rules'), or the field it lies
    in, is not a house rule, as the data marks it; None when a campaign may change it."""
    node: Any = data
    above: Mapping | None = None
    for key in path:
        if not isinstance(node, Mapping):
            return None
        why = mark_of(node, key, above)
        if why is not None:
            return why
        above = marks_below(node, key, above)
        if key not in node:
            return None
        node = node[key]
    return None


def marked(data: Mapping) -> Iterator[tuple[tuple, str]]:
    """Every field the rules ``data`` marks as no house rule: (path, why)."""
    return _marked(data, ())


def _marked(node: Any, path: tuple, above: Mapping | None = None) -> Iterator[tuple[tuple, str]]:
    if not isinstance(node, Mapping):
        return
    for key in marks_in(node, above):
        why = mark_of(node, key, above)
        if why is not None:
            yield path + (key,), why
    for key, value in node.items():
        if key != READING:
            yield from _marked(value, path + (key,), marks_below(node, key, above))
