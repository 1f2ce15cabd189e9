"""How a field of a campaign's events becomes typed columns of a frame, by the values it holds, so a new field
types itself and every frame goes to Parquet as it is (``frame.to_parquet``):

- plain values keep their type (text: a category, or string when nearly every value differs; booleans; Int64;
  Float64);
- a list of plain values of one kind stays a list (Parquet's list type: ``results``, ``targets``);
- an exact chance ("61/96") becomes a float with its text beside (``NAME`` and ``NAME_exact``), a mapping of
  chances (an attack's win, tie, lose) one such pair per key (``NAME_win``, ``NAME_win_exact``...);
- anything else (a mapping, a list of mappings, a field mixing kinds) is one column of JSON text, by design: its
  shape differs from event to event, so no struct type fits every row.
"""
from __future__ import annotations

import json
import re
from fractions import Fraction
from typing import Any

import pandas as pd

__all__ = ["typed_columns", "json_column"]

_FRACTION = re.compile(r"-?[0-9]+(?:/[0-9]+)?")
_MAX_CHANCE_KEYS = 8


def typed_columns(name: str, values: list, n: int) -> dict[str, Any]:
    """The columns (name -> array) for an event field ``name`` whose values, one per event, are ``values``
    (None where an event lacks it); ``n`` is the number of events."""
    present = [v for v in values if v is not None]
    types = {type(v) for v in present}
    if types <= {str}:
        if present and all(_FRACTION.fullmatch(v) for v in present) and any("/" in v for v in present):
            return _chance_columns(name, values, [])
        few = len(set(values)) < max(50, n // 4)  # a category unless nearly every value differs
        return {name: pd.Categorical(values) if few else pd.array(values, dtype="string")}
    if types <= {bool}:
        return {name: pd.array(values, dtype="boolean")}
    if types <= {int}:
        return {name: pd.array(values, dtype="Int64")}
    if types <= {int, float}:
        return {name: pd.array(values, dtype="Float64")}
    if types <= {list} and _plain_lists(present):
        return {name: pd.Series(values, dtype=object)}
    if types <= {str, dict}:
        keys = _chance_keys(present)
        if keys is not None:
            return _chance_columns(name, values, keys)
    return {name: json_column(values)}


def _plain_lists(lists: list) -> bool:
    """Every list holds plain values of one kind (text, booleans, integers or floats) at one depth."""
    kinds: set = set()

    def walk(x: list, depth: int) -> None:
        for v in x:
            if isinstance(v, list):
                walk(v, depth + 1)
            elif v is not None:
                kinds.add((depth, type(v)))
    for lst in lists:
        walk(lst, 0)
    return len(kinds) <= 1 and not (kinds and next(iter(kinds))[1] not in (str, bool, int, float))


def _is_chance(v: Any) -> bool:
    return isinstance(v, str) and _FRACTION.fullmatch(v) is not None


def _chance_keys(values: list) -> list[str] | None:
    """The keys of the chance mappings among ``values`` (each a chance or a mapping of chances, at least one
    with a ``/``), in order of appearance; None if they are not all chances."""
    keys: dict[str, None] = {}
    slash = False
    for v in values:
        if isinstance(v, dict):
            if not all(isinstance(k, str) and _is_chance(x) for k, x in v.items()):
                return None
            keys.update(dict.fromkeys(v))
            slash = slash or any("/" in x for x in v.values())
        elif _is_chance(v):
            slash = slash or "/" in v
        else:
            return None
    return list(keys) if slash and 0 < len(keys) <= _MAX_CHANCE_KEYS else None


def _chance_columns(name: str, values: list, keys: list[str]) -> dict[str, Any]:
    cols: dict[str, Any] = {}

    def pair(col: str, texts: list) -> None:
        floats = {t: float(Fraction(t)) for t in set(texts) if t is not None}  # a few chances, many rows
        cols[col] = pd.array([floats.get(t) for t in texts], dtype="Float64")
        cols[f"{col}_exact"] = pd.array(texts, dtype="string")
    if any(isinstance(v, str) for v in values):
        pair(name, [v if isinstance(v, str) else None for v in values])
    for k in keys:
        pair(f"{name}_{k}", [v.get(k) if isinstance(v, dict) else None for v in values])
    return cols


def json_column(values: list) -> Any:
    """One column of JSON text (missing stays missing): what Parquet, CSV and SQL engines read as one type."""
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str).encode
    return pd.array([None if v is None else dumps(v) for v in values], dtype="string")
