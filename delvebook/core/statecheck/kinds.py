"""What each place of the state may hold, read from the one table (``statecheck.SHAPE``): the kinds and their
``problem``, the readable check that says why a value does not fit (and that the compiled predicates are held to).

A kind is a leaf (``text``, ``name``, ``count``...), null or a kind (``_Nullable``), a record of fields
(``_Record``), a mapping of names to a kind (``_Map``) or a list of a kind (``_List``). ``problem(value, shape)``
returns (the path inside the value, why) or None; ``child(part)`` is the kind one step inside, or why ``part`` is
no place there. Standard library only.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..dice import DiceError, parse as parse_dice
from .limits import MAX_INT, MAX_ITEMS, MAX_NAME, MAX_TEXT, SURROGATE, dotted_path, show, value_problem

__all__ = ["Kind", "Leaf", "AnyData", "Nullable", "Record", "MapOf", "ListOf", "STATUSES", "SIDES", "records"]

STATUSES = ("alive", "dying", "dead")
SIDES = ("party", "foes")


class Kind:
    __slots__ = ("words",)

    def problem(self, value: Any, shape: Any) -> tuple[tuple, str] | None:
        raise NotImplementedError

    def child(self, part: Any) -> "Kind | str":
        """The kind one step inside, or a reason why ``part`` is no place here."""
        return f"{self.words} has no places inside it"


class Leaf(Kind):
    __slots__ = ("name", "test")

    def __init__(self, name: str, words: str, test):
        self.name, self.words, self.test = name, words, test

    def problem(self, value, shape):
        why = self.test(value, shape)
        return None if why is None else ((), why)


def text_problem(v: Any, limit: int, blank_ok: bool) -> str | None:
    """Why ``v`` is not text of at most ``limit`` characters (not blank unless ``blank_ok``), or None."""
    if v.__class__ is not str:
        return "expected text"
    if len(v) > limit:
        return f"text of {len(v):,} characters; at most {limit:,}"
    if not blank_ok and not v.strip():
        return "expected a name (text that is not blank)"
    if not v.isascii() and SURROGATE.search(v):
        return "holds characters that are not UTF-8 text (bytes from a file name?)"
    return None


def _int_test(lo: int | None, hi: int | None, words: str):
    def test(v, shape):
        if v.__class__ is not int:
            return f"expected {words}, got {show(v)}"
        if not -MAX_INT <= v <= MAX_INT:
            return f"expected {words} (at most {MAX_INT:,} either way), got {show(v)}"
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            return f"expected {words}, got {v}"
        return None
    return test


def _leaf_tests() -> dict[str, Leaf]:
    def text(v, shape):
        why = text_problem(v, MAX_TEXT, True)
        return None if why is None else (f"{why}, got {show(v)}" if why == "expected text" else why)

    def name(v, shape):
        why = text_problem(v, MAX_NAME, False)
        return None if why is None else (f"expected a name (text), got {show(v)}" if why == "expected text"
                                         else why)

    def boolean(v, shape):
        return None if v is True or v is False else f"expected true or false, got {show(v)}"

    def status(v, shape):
        return None if v in STATUSES and v.__class__ is str else \
            f"expected one of {', '.join(STATUSES)}, got {show(v)}"

    def side(v, shape):
        return None if v in SIDES and v.__class__ is str else f"expected party or foes, got {show(v)}"

    def dice(v, shape):
        if v.__class__ is int:
            return None if -MAX_INT <= v <= MAX_INT else \
                f"expected dice or a whole number (at most {MAX_INT:,} either way), got {show(v)}"
        if v.__class__ is not str:
            return f"expected dice (like d6+1) or a whole number, got {show(v)}"
        if len(v) > MAX_NAME:
            return f"dice notation of {len(v):,} characters; at most {MAX_NAME}"
        try:
            parse_dice(v)
        except DiceError as err:
            return f"expected dice (like d6+1): {err}"
        return None

    def hearts(v, shape):
        if v.__class__ is not int or not shape.hearts_floor <= v <= MAX_INT:
            return f"expected hearts: a whole number of {shape.hearts_floor} or more, got {show(v)}"
        return None

    def level(v, shape):
        if v.__class__ is not int or not 1 <= v <= shape.level_cap:
            return f"expected a level: a whole number from 1 to {shape.level_cap}, got {show(v)}"
        return None

    def anything(v, shape):
        found = value_problem(v, max_depth=16)
        return None if found is None else found[1] if not found[0] else f"{dotted_path(found[0])}: {found[1]}"

    leaves = [
        ("text", "text", text), ("name", "a name", name),
        ("int", "a whole number", _int_test(None, None, "a whole number")),
        ("count", "a whole number of 0 or more", _int_test(0, None, "a whole number of 0 or more")),
        ("posint", "a whole number of 1 or more", _int_test(1, None, "a whole number of 1 or more")),
        ("bool", "true or false", boolean), ("status", "a status", status), ("side", "a side", side),
        ("dice", "dice", dice), ("hearts", "hearts", hearts), ("level", "a level", level),
    ]
    out = {n: Leaf(n, w, t) for n, w, t in leaves}
    out["any"] = AnyData(anything)
    return out


class AnyData(Leaf):
    """Any JSON data, bounded (nested at most 16 deep): a place whose inside the table does not describe."""

    __slots__ = ()

    def __init__(self, test):
        super().__init__("any", "data", test)

    def child(self, part):
        if part.__class__ is int and 0 <= part < MAX_ITEMS or part.__class__ is str and len(part) <= MAX_NAME:
            return self
        return (f"expected a key (text of at most {MAX_NAME} characters) or a list index (0 up to "
                f"{MAX_ITEMS - 1:,}), got {show(part)}")


class Nullable(Kind):
    __slots__ = ("inner",)

    def __init__(self, inner: Kind):
        self.inner = inner
        self.words = inner.words

    def problem(self, value, shape):
        return None if value is None else self.inner.problem(value, shape)

    def child(self, part):
        return self.inner.child(part)


class Record(Kind):
    __slots__ = ("name", "fields", "required")

    def __init__(self, name: str):
        self.name = name
        self.words = f"a {name}"
        self.fields: dict[str, Kind] = {}
        self.required: tuple = ()

    def problem(self, value, shape):
        if value.__class__ is not dict:
            return (), f"expected {self.words} (a mapping of {', '.join(self.required)}), got {show(value)}"
        fields = self.fields
        for key in self.required:
            if key not in value:
                return (key,), f"missing: {self.words} has {key}"
        for key, v in value.items():
            kind = fields.get(key)
            if kind is None:
                return (key,), self._unknown(key)
            found = kind.problem(v, shape)
            if found is not None:
                return (key,) + found[0], found[1]
        return None

    def _unknown(self, key: Any) -> str:
        return (f"not a field of {self.words} (it has {', '.join(self.fields)}); a new field of the state is "
                f"added to delvebook.core.statecheck.SHAPE")

    def child(self, part):
        kind = self.fields.get(part) if part.__class__ is str else None
        return kind if kind is not None else self._unknown(part)


class MapOf(Kind):
    __slots__ = ("value", "limit")

    def __init__(self, value: Kind, limit: int):
        self.value, self.limit = value, limit
        self.words = f"a mapping of names to {value.words}"

    def problem(self, value, shape):
        if value.__class__ is not dict:
            return (), f"expected {self.words}, got {show(value)}"
        if len(value) > self.limit:
            return (), f"{len(value):,} entries; at most {self.limit:,}"
        inner = self.value
        for key, v in value.items():
            why = text_problem(key, MAX_NAME, False)
            if why is not None:
                return (key,), f"a key here is a name: {why}"
            found = inner.problem(v, shape)
            if found is not None:
                return (key,) + found[0], found[1]
        return None

    def child(self, part):
        why = text_problem(part, MAX_NAME, False)
        if why is None:
            return self.value
        return f"a key here is a name: {why}" if part.__class__ is str else \
            f"expected a name here, got {show(part)}"


class ListOf(Kind):
    __slots__ = ("item",)

    def __init__(self, item: Kind):
        self.item = item
        self.words = f"a list of {item.words}"

    def problem(self, value, shape):
        if value.__class__ is not list:
            return (), f"expected {self.words}, got {show(value)}"
        if len(value) > MAX_ITEMS:
            return (), f"{len(value):,} entries; at most {MAX_ITEMS:,}"
        inner = self.item
        for i, v in enumerate(value):
            found = inner.problem(v, shape)
            if found is not None:
                return (i,) + found[0], found[1]
        return None

    def child(self, part):
        if part.__class__ is int and 0 <= part < MAX_ITEMS:
            return self.item
        return f"expected a list index (a whole number from 0 up to {MAX_ITEMS - 1:,}), got {show(part)}"


def records(table: Mapping[str, dict]) -> dict[str, Record]:
    """Every record of ``table`` (``statecheck.SHAPE``) as kinds, by name; a table that cannot be read raises
    ValueError naming the entry."""
    leaves = _leaf_tests()
    out = {name: Record(name) for name in table}

    def kind(spec: Any, where: str) -> Kind:
        if isinstance(spec, str):
            nullable = spec.endswith("?")
            base = spec[:-1] if nullable else spec
            if base.startswith("@"):
                if base[1:] not in out:
                    raise ValueError(f"statecheck.SHAPE {where}: no record {base[1:]!r}")
                k: Kind = out[base[1:]]
            elif base in leaves:
                k = leaves[base]
            else:
                raise ValueError(f"statecheck.SHAPE {where}: no kind {base!r} (kinds: {', '.join(leaves)})")
            return Nullable(k) if nullable else k
        if isinstance(spec, list) and len(spec) == 1:
            return ListOf(kind(spec[0], where + "[]"))
        if isinstance(spec, dict) and "*" in spec:
            return MapOf(kind(spec["*"], where + ".*"), spec.get("#", MAX_ITEMS))
        if isinstance(spec, dict):
            rec = Record(where.rsplit(".", 1)[-1])
            fill(rec, spec, where)
            return rec
        raise ValueError(f"statecheck.SHAPE {where}: cannot read {spec!r}")

    def fill(rec: Record, spec: dict, where: str) -> None:
        required = []
        for key, sub in spec.items():
            optional = key.endswith("?")
            name = key[:-1] if optional else key
            rec.fields[name] = kind(sub, f"{where}.{name}")
            if not optional:
                required.append(name)
        rec.required = tuple(required)

    for name, spec in table.items():
        fill(out[name], spec, name)
    return out
