"""Whether a JSON value fits a declared type (``core.declared``): the writer's check of an event against its
declaration, each problem as (where, why) in words a keeper reads.

A record type is a class with ``FIELDS`` (each a field with its ``name``, ``type``, ``required``) and ``OPEN`` (keys
beyond the declared ones allowed). ``Text`` and ``Chance`` are the two kinds of text a declaration names beside a
name or an id (``str``). Standard library only: part of the pure core.
"""

from __future__ import annotations

import re
import types
import typing
from typing import Any, Literal, Mapping, NewType, Union

__all__ = ["Text", "Chance", "type_name", "value_problem", "record_problem"]

Text = NewType("Text", str)
"""Words a person wrote or reads (a reason, a description): a column of text, not a category."""
Chance = NewType("Chance", str)
"""An exact chance as a fraction's text (``"61/96"``, ``"1"``): a float column with its text beside."""

_FRACTION = re.compile(r"-?[0-9]+(?:/[0-9]+)?")


def _record_type(tp: Any) -> bool:
    return isinstance(tp, type) and hasattr(tp, "FIELDS") and hasattr(tp, "OPEN")


def type_name(tp: Any) -> str:
    if tp is Any:
        return "anything"
    if tp is type(None):
        return "null"
    if isinstance(tp, NewType):
        return {"Text": "text", "Chance": "a chance as a fraction's text (\"61/96\")"}.get(tp.__name__, tp.__name__)
    if _record_type(tp):
        return f"a mapping ({tp.__name__}: {', '.join(tp.FIELDS) or 'any keys'})"
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Literal:
        return " or ".join(repr(a) for a in args)
    if origin in (Union, types.UnionType):
        return " or ".join(type_name(a) for a in args)
    if origin is list:
        return f"a list of {type_name(args[0]) if args else 'values'}"
    if origin is dict:
        return f"a mapping of names to {type_name(args[1]) if args else 'values'}"
    return {str: "text", int: "a whole number", bool: "true or false", float: "a number", dict: "a mapping",
            list: "a list"}.get(tp, getattr(tp, "__name__", str(tp)))


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def value_problem(value: Any, tp: Any, path: str) -> tuple[str, str] | None:
    """(where, why) ``value`` is not of type ``tp``, or None."""
    if tp is Any:
        return None
    if tp is type(None):
        return None if value is None else (path, f"expected null, got {_show(value)}")
    if isinstance(tp, NewType):
        found = value_problem(value, tp.__supertype__, path)
        if found is None and tp is Chance and not _FRACTION.fullmatch(value):
            return path, f"expected {type_name(Chance)}, got {_show(value)}"
        return found
    if _record_type(tp):
        if not isinstance(value, dict):
            return path, f"expected {type_name(tp)}, got {_show(value)}"
        return record_problem(value, tp, path)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Literal:
        return None if value in args and type(value) in {type(a) for a in args} else \
            (path, f"expected {type_name(tp)}, got {_show(value)}")
    if origin in (Union, types.UnionType):
        found = None
        for arm in args:
            found = value_problem(value, arm, path)
            if found is None:
                return None
        shallow = [a for a in args if _shallow_match(value, a)]
        if len(shallow) == 1:  # the value is of one arm's kind: what is wrong inside it
            return value_problem(value, shallow[0], path)
        return path, f"expected {type_name(tp)}, got {_show(value)}"
    if origin is list or tp is list:
        if not isinstance(value, list):
            return path, f"expected {type_name(tp)}, got {_show(value)}"
        if args:
            for i, item in enumerate(value):
                found = value_problem(item, args[0], f"{path}[{i}]")
                if found is not None:
                    return found
        return None
    if origin is dict or tp is dict:
        if not isinstance(value, dict):
            return path, f"expected {type_name(tp)}, got {_show(value)}"
        if len(args) == 2:
            for k, item in value.items():
                if not isinstance(k, str):
                    return path, f"expected names as keys, got {_show(k)}"
                found = value_problem(item, args[1], f"{path}.{k}")
                if found is not None:
                    return found
        return None
    if tp is bool:
        ok = value is True or value is False
    elif tp is int:
        ok = type(value) is int
    elif tp is float:
        ok = type(value) in (int, float)
    elif tp is str:
        ok = type(value) is str
    else:
        ok = isinstance(value, tp)
    return None if ok else (path, f"expected {type_name(tp)}, got {_show(value)}")


def _shallow_match(value: Any, tp: Any) -> bool:
    if _record_type(tp):
        return isinstance(value, dict)
    origin = typing.get_origin(tp) or tp
    if origin is list:
        return isinstance(value, list)
    if origin is dict:
        return isinstance(value, dict)
    return False


def record_problem(data: Mapping, cls: type, path: str = "") -> tuple[str, str] | None:
    fields = cls.FIELDS
    for name, f in fields.items():
        where = f"{path}.{name}" if path else name
        if name not in data:
            if f.required:
                return where, f"missing: {cls.__name__} declares it ({type_name(f.type)})"
            continue
        found = value_problem(data[name], f.type, where)
        if found is not None:
            return found
    if not cls.OPEN:
        for name in data:
            if name not in fields:
                where = f"{path}.{name}" if path else str(name)
                return where, (f"not a field {cls.__name__} declares ({cls.__module__}); its fields: "
                               f"{', '.join(fields)}")
    return None


