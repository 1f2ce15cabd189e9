"""How the fields of a campaign's events become typed columns of a frame: each column's type is read from the
events' declarations (``core.declared``), never guessed from the values, so a column has the same type in every
campaign and every frame goes to Parquet as it is (``frame.to_parquet``):

- a field's column is named after its key, or its declaration's ``column`` (a key that is no good name in SQL:
  ``order``, ``from``); one name may gather the fields of several kinds, its type the union of theirs;
- a name or an id (``str``, a ``Literal``) is a category; words (``Text``) are text; ``int``, ``float`` and ``bool``
  are Int64, Float64 and boolean;
- a list of one plain type stays a list (Parquet's list type: ``results``, ``targets``);
- an exact chance (``Chance``, "61/96") is a float with its text beside (``NAME`` and ``NAME_exact``), and a record of
  chances (``Chances``: an attack's win, tie, lose) one such pair per field (``NAME_win``, ``NAME_win_exact``...);
- anything else (a record, a list of records, a union of kinds) is one column of JSON text, by design: its shape
  differs from event to event, so no struct type fits every row.
"""
from __future__ import annotations

import json
import types
import typing
from fractions import Fraction
from typing import Any, Literal, NewType, Union

import pandas as pd

from ..core.declared import Chance, DECLARED, ROLE, Text
from ..core.records import Chances

__all__ = ["column_types", "declared_columns", "json_column", "Column"]

_PLAIN = {str: "category", Text: "string", int: "Int64", float: "Float64", bool: "boolean"}


class Column(typing.NamedTuple):
    """A column of the events frame: its name, and the union of the declared types of the fields it gathers."""

    name: str
    type: Any


def _arms(tp: Any) -> list:
    if typing.get_origin(tp) in (Union, types.UnionType):
        return [a for t in typing.get_args(tp) for a in _arms(t)]
    return [] if tp is type(None) else [tp]


def _plain(tp: Any) -> str | None:
    """The dtype of a plain type (a Literal as its values' type), or None."""
    if typing.get_origin(tp) is Literal:
        kinds = {type(a) for a in typing.get_args(tp)}
        return _PLAIN.get(kinds.pop()) if len(kinds) == 1 else None
    if isinstance(tp, NewType):
        return _PLAIN.get(tp) if tp in _PLAIN else None if tp is Chance else _plain(tp.__supertype__)
    return _PLAIN.get(tp)


def _kind(tp: Any) -> str:
    """How a union of declared types becomes columns: a dtype, ``list:<dtype>``, ``chance`` or ``json``."""
    arms = _arms(tp)
    if arms and all(a is Chance or a is Chances for a in arms):
        return "chance"
    plain = {_plain(a) for a in arms}
    if arms and None not in plain:
        if plain <= {"category", "string"}:
            return "string" if "string" in plain else "category"
        if plain == {"Int64", "Float64"}:
            return "Float64"
        if len(plain) == 1:
            return plain.pop()
    leaves = {_leaf(a) for a in arms}
    if arms and None not in leaves and (len(leaves) == 1 or leaves <= {"category", "string"}):
        return "list"
    return "json"


def _leaf(tp: Any) -> str | None:
    """The plain type a list (or a list of lists) of one plain type holds; None for anything else."""
    if typing.get_origin(tp) is not list or not typing.get_args(tp):
        return None
    inner = typing.get_args(tp)[0]
    return _leaf(inner) if typing.get_origin(inner) is list else _plain(inner)


def column_types(skip: frozenset = frozenset()) -> dict[tuple[str, str], Column]:
    """(kind, field key) -> its column, for every field every declaration names (but the keys in ``skip``): each
    column's type the union over every declaration that feeds it, so it is the same whatever the log holds."""
    feeds: dict[str, list] = {}
    where: dict[tuple[str, str], str] = {}
    for kind, cls in DECLARED.items():
        for key, f in cls.FIELDS.items():
            if key in skip or f.column == ROLE:
                continue
            name = f.column or key
            where[(kind, key)] = name
            feeds.setdefault(name, []).append(f.type)
    union = {name: Union[tuple(types_)] if len(types_) > 1 else types_[0] for name, types_ in feeds.items()}
    return {at: Column(name, union[name]) for at, name in where.items()}


def declared_columns(column: Column, values: list) -> dict[str, Any]:
    """The columns (name -> array) of one events-frame column whose values, one per event, are ``values`` (None where
    an event lacks the field), typed by its declared type."""
    name, kind = column.name, _kind(column.type)
    if kind == "chance":
        return _chance_columns(name, values)
    if kind == "list":
        return {name: pd.Series(values, dtype=object)}
    if kind == "json":
        return {name: json_column(values)}
    if kind == "category":
        return {name: pd.Categorical(values)}
    return {name: pd.array(values, dtype=kind)}


def _chance_columns(name: str, values: list) -> dict[str, Any]:
    """A chance as a float with its exact text beside; a record of chances (``Chances``), a pair per field."""
    cols: dict[str, Any] = {}

    def pair(col: str, texts: list) -> None:
        floats = {t: float(Fraction(t)) for t in set(texts) if isinstance(t, str)}  # a few chances, many rows
        cols[col] = pd.array([floats.get(t) for t in texts], dtype="Float64")
        cols[f"{col}_exact"] = pd.array([t if isinstance(t, str) else None for t in texts], dtype="string")
    if any(isinstance(v, str) for v in values):
        pair(name, [v if isinstance(v, str) else None for v in values])
    if any(isinstance(v, dict) for v in values):
        for k in Chances.FIELDS:
            pair(f"{name}_{k}", [v.get(k) if isinstance(v, dict) else None for v in values])
    return cols


def json_column(values: list) -> Any:
    """One column of JSON text (missing stays missing): what Parquet, CSV and SQL engines read as one type."""
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str).encode
    return pd.array([None if v is None else dumps(v) for v in values], dtype="string")
