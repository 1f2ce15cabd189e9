"""The state's shape: every place in a campaign's state, what it may hold, and the checks built on it.

``SHAPE`` is the one table. Each entry of a record names a field and what it holds; ``"key?"`` is a field that
may be absent. A value is written as:

- a leaf kind: ``"text"``, ``"name"`` (text that is not blank), ``"int"``, ``"count"`` (0 or more),
  ``"posint"`` (1 or more), ``"bool"``, ``"status"`` (alive / dying / dead), ``"side"`` (party / foes),
  ``"dice"`` (notation like ``d6+1``, or a whole number), ``"hearts"`` (the rules' hearts floor or more),
  ``"level"`` (1 up to the rules' level cap), ``"any"`` (any JSON data, bounded);
- ``"@record"``: another record of the table; a trailing ``?`` allows null (``"@encounter?"``, ``"count?"``);
- ``{"*": kind}``: a mapping of names to kind (``"#"`` bounds how many); ``[kind]``: a list of kind.

To add a field to the state, add one line to its record here (``new_state`` and the table are checked against
each other by a test). Three checks read the table:

- ``Shape.change_problem(path, value)``: one ``[path, value]`` change of an event, without the state: the path
  is a place in the table and the value fits it (the writer runs it before an event is acknowledged, the reader
  on every event it reads);
- ``Shape.state_problems(state)``: a whole state, with what the table cannot say alone (seats name delvers, the
  fight's order names its foes, ...), after a replay;
- ``event_problems(event)``: the JSON limits every event keeps (finite numbers a browser reads exactly, text
  that is UTF-8, bounded nesting), for ``validate``.

Standard library only: part of the pure core.
"""

from __future__ import annotations

import math
import re
from typing import Any, Iterator, Mapping

from .dice import DiceError, Roll, parse as _parse_dice

__all__ = [
    "SHAPE",
    "MAX_INT",
    "MAX_TEXT",
    "MAX_NAME",
    "MAX_ITEMS",
    "MAX_FOES",
    "MAX_DEPTH",
    "Shape",
    "shape_for",
    "DEFAULT",
    "event_problems",
    "roll_problem",
    "rolls_problem",
    "value_problem",
    "dotted_path",
]

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

_SHEET: dict[str, Any] = {                       # a foe's sheet, in a fight or kept outside one
    "name": "name",
    "kind": "name",
    "hearts": "hearts",
    "max_hearts": "count",
    "status": "status",
    "attack_bonus": "dice",
    "damage": "dice",
    "multi_attack": "posint",
    "ranged": "bool",
    "armor": ["@armor"],
    "tags": ["text"],
    "skills": {"*": "text"},
}

SHAPE: dict[str, dict] = {
    "state": {
        "name": "text",
        "seed": "int?",
        "clock": "count",                       # game time in seconds
        "session": {"number": "count", "active": "bool"},
        "seats": ["name"],                      # delver names, clockwise
        "delvers": {"*": "@delver"},
        "luck": {"*": "count"},                 # player -> luck dice left this session
        "xp_pool": "count",
        "coin_pool": "count",
        "xp_awarded": "count",
        "encounter": "@encounter?",
        "encounters_fought": "count",
        "conditions": ["@condition"],
        "next_condition": "posint",
        "creatures": {"*": "@creature"},         # NPCs and familiars outside the party and the fight's foes
        "quests": ["text"],
        "rooms": ["text"],
    },
    "delver": {
        "name": "name",
        "player": "name",
        "class_id": "name",
        "class_name": "text",
        "level": "level",
        "xp": "count",
        "hearts": "hearts",
        "max_hearts": "count",
        "status": "status",
        "died_at": "count?",
        "skills": {"*": "text"},
        "resources": {"*": "int"},
        "resource_max": {"*": "int"},
        "weapons": ["@weapon"],
        "armor": ["@armor"],
        "items": ["@item"],
        "purse": "int",                         # talons
        "choices": {"*": "text"},
        "abilities": ["name"],
        "spells": ["name"],
        "spellbook_used": ["name"],
        "true_names": ["name"],
        "pending_choices": ["any"],
        "familiar?": "any",
        "signature_spell?": "any",
        "written_spells?": "any",                # spells in the book the rules do not hold (a namer's), by id
        "death_save_repeated?": "count?",        # the death Lay on Hands repeated the save for (its died_at)
        "armor_bonus?": "any",
        "free_reload?": "text",
    },
    "weapon": {
        "item": "text?",                         # a gear id, or null for a weapon described when given
        "name": "text",
        "damage": "dice",
        "skill": "text?",
        "ranged": "bool",
        "bonus": "int",
        "conjured?": "any",
        "ammo?": "text",                         # the ammunition it shoots (arrow, bolt)
        "reload_action?": "bool",                # reloading takes an action (a crossbow)
        "loaded?": "bool",
        "attack_bonus?": "dice",                 # a magic weapon's bonus to hit
        "tags?": ["text"],
    },
    "armor": {
        "item": "text?",
        "name": "text",
        "av": "int",
        "dv": "count",
        "dv_max": "count",
        "shield": "bool",
        "bonus_av": "int",
        "bonus_dv?": "int",                      # DV a specialty added as it was fitted (the Armorer's +5)
        "kind?": "text",
        "tags?": ["text"],
    },
    "item": {
        "item": "text?",                         # a gear id, or null for an item described when given
        "name": "text",
        "count?": "count",
        "instrument?": "bool",
        "tags?": ["text"],
        "note?": "text",
        "spells?": ["name"],                     # spells written in it (a scroll, a book)
        "written?": "any",                       # the words of those the rules do not hold (a namer's), by id
    },
    "encounter": {
        "number": "posint",
        "name": "text",
        "foes": {"*": "@foe", "#": MAX_FOES},
        "round": "count",
        "side": "side?",
        "turn": "count",
        "first": "side?",
        "order": {"party": ["name"], "foes": ["name"]},
        "started_at": "count",
        "vanquished": ["name"],
        "acted?": ["name"],                      # who has had their turn this round
        "dark?": "bool",                         # the fight is in darkness (core.sight)
        "used?": {"*": "any"},                   # what each combatant used of its turn
    },
    "foe": {
        **_SHEET,
        "npc?": "bool",                          # a named creature who joined the fight
        "role?": "text",
        "note?": "text",
        "owner?": "name",
    },
    "creature": {                                # a foe's sheet, kept outside a fight
        **_SHEET,
        "role": "text",                          # npc, familiar
        "note?": "text",
        "owner?": "name",                        # a familiar's mage
        "form?": "text",
        "range_ft?": "count",
        "died_at?": "count?",
    },
    "condition": {
        "id": "posint",
        "kind": "name",
        "who": "name",
        "source": "text?",
        "start": "count",
        "ends_at": "count?",
        "ends_on": "text?",
        "ends_when": ["text"],
        "data": "any",
    },
}
"""The state's shape, one record per kind of thing. ``state`` is the top (``model.new_state``)."""

_STATUSES = ("alive", "dying", "dead")
_SIDES = ("party", "foes")
_SURROGATE = re.compile("[\ud800-\udfff]")


# ---------------------------------------------------------------- words


def _show(value: Any) -> str:
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
        text = str(value) if abs(value) < 10 ** 30 else f"a number of {len(str(abs(value)))} digits"
        return text
    return type(value).__name__


def dotted_path(path) -> str:
    """A state path as messages write it: ``delvers.Wren.armor[0].dv``."""
    out = ""
    for p in path:
        if isinstance(p, int) and not isinstance(p, bool):
            out += f"[{p}]"
        else:
            out += ("." if out else "") + str(p)
    return out or "(the whole state)"


# ---------------------------------------------------------------- compiled kinds


class _Kind:
    __slots__ = ("words",)

    def problem(self, value: Any, shape: "Shape") -> tuple[tuple, str] | None:
        raise NotImplementedError

    def child(self, part: Any) -> "_Kind | str":
        """The kind one step inside, or a reason why ``part`` is no place here."""
        return f"{self.words} has no places inside it"

    def compile(self, shape: "Shape", compiled: dict) -> Any:
        """A predicate ``fits(value) -> bool`` that is true exactly when ``problem(value, shape)`` is None: the
        quick check of a change, with no path built and one call per value (``problem`` says why when it is
        false). ``compiled`` holds the shape's predicates by kind, so a record compiles once."""
        test = self.problem
        return lambda v: test(v, shape) is None


class _Leaf(_Kind):
    __slots__ = ("name", "test")

    def __init__(self, name: str, words: str, test):
        self.name, self.words, self.test = name, words, test

    def problem(self, value, shape):
        why = self.test(value, shape)
        return None if why is None else ((), why)

    def compile(self, shape, compiled):
        env: dict = {}
        return _build(f"lambda v: {_leaf_expr(self.name, 'v', shape, env)}", env)


def _is_int(v: Any) -> bool:
    return v.__class__ is int


def _text_problem(v: Any, limit: int, blank_ok: bool) -> str | None:
    if v.__class__ is not str:
        return "expected text"
    if len(v) > limit:
        return f"text of {len(v):,} characters; at most {limit:,}"
    if not blank_ok and not v.strip():
        return "expected a name (text that is not blank)"
    if not v.isascii() and _SURROGATE.search(v):
        return "holds characters that are not UTF-8 text (bytes from a file name?)"
    return None


def _int_test(lo: int | None, hi: int | None, words: str):
    def test(v, shape):
        if not _is_int(v):
            return f"expected {words}, got {_show(v)}"
        if not -MAX_INT <= v <= MAX_INT:
            return f"expected {words} (at most {MAX_INT:,} either way), got {_show(v)}"
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            return f"expected {words}, got {v}"
        return None
    return test


def _leaf_tests() -> dict[str, _Leaf]:
    def text(v, shape):
        why = _text_problem(v, MAX_TEXT, True)
        return None if why is None else (f"{why}, got {_show(v)}" if why == "expected text" else why)

    def name(v, shape):
        why = _text_problem(v, MAX_NAME, False)
        return None if why is None else (f"expected a name (text), got {_show(v)}" if why == "expected text"
                                         else why)

    def boolean(v, shape):
        return None if v is True or v is False else f"expected true or false, got {_show(v)}"

    def status(v, shape):
        return None if v in _STATUSES and v.__class__ is str else \
            f"expected one of {', '.join(_STATUSES)}, got {_show(v)}"

    def side(v, shape):
        return None if v in _SIDES and v.__class__ is str else f"expected party or foes, got {_show(v)}"

    def dice(v, shape):
        if _is_int(v):
            return None if -MAX_INT <= v <= MAX_INT else f"expected dice or a whole number, got {_show(v)}"
        if v.__class__ is not str or len(v) > MAX_NAME:
            return f"expected dice (like d6+1) or a whole number, got {_show(v)}"
        try:
            _parse_dice(v)
        except DiceError as err:
            return f"expected dice (like d6+1): {err}"
        return None

    def hearts(v, shape):
        return shape._hearts(v)

    def level(v, shape):
        return shape._level(v)

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
    out = {n: _Leaf(n, w, t) for n, w, t in leaves}
    out["any"] = _Any(anything)
    return out


class _Any(_Leaf):
    __slots__ = ()

    def __init__(self, test):
        super().__init__("any", "data", test)

    def child(self, part):
        if _is_int(part) and 0 <= part < MAX_ITEMS or part.__class__ is str and len(part) <= MAX_NAME:
            return self
        return f"expected a key (text) or a list index (0 or more), got {_show(part)}"


class _Nullable(_Kind):
    __slots__ = ("inner",)

    def __init__(self, inner: _Kind):
        self.inner = inner
        self.words = inner.words

    def problem(self, value, shape):
        return None if value is None else self.inner.problem(value, shape)

    def compile(self, shape, compiled):
        env: dict = {}
        return _build(f"lambda v: {_expr(self, 'v', shape, env, compiled)}", env)

    def child(self, part):
        return self.inner.child(part)


class _Record(_Kind):
    __slots__ = ("name", "fields", "required")

    def __init__(self, name: str):
        self.name = name
        self.words = f"a {name}"
        self.fields: dict[str, _Kind] = {}
        self.required: tuple = ()

    def problem(self, value, shape):
        if value.__class__ is not dict:
            return (), f"expected {self.words} (a mapping of {', '.join(self.required)}), got {_show(value)}"
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

    def compile(self, shape, compiled):
        # written out as one function: each required field read by name (a missing one is a KeyError) and checked
        # in line (a leaf) or by its kind's predicate (a record, a list, a mapping). Only a mapping with more keys
        # than the required ones can hold another: those are asked for (known keys, then each optional field).
        env = {"_known": frozenset(self.fields)}
        slot: list = []
        compiled[self] = lambda v: slot[0](v)  # a record that holds itself, further in, calls the finished one
        lines = ["def fits(v):",
                 "    if v.__class__ is not dict: return False"]
        if self.required:
            lines.append("    try:")
            for key in self.required:
                test = _expr(self.fields[key], "x", shape, env, compiled)
                lines += [f"        x = v[{key!r}]", f"        if not {test}: return False"]
            lines += ["    except KeyError:", "        return False"]
        optional = [key for key in self.fields if key not in self.required]
        lines.append(f"    if len(v) != {len(self.required)}:")
        lines.append("        if not v.keys() <= _known: return False")
        for key in optional:
            test = _expr(self.fields[key], "x", shape, env, compiled)
            lines += [f"        if {key!r} in v:", f"            x = v[{key!r}]", f"            if not {test}: return False"]
        lines.append("    return True")
        fits = _build("\n".join(lines), env, "fits")
        slot.append(fits)
        return fits

    def _unknown(self, key: Any) -> str:
        return (f"not a field of {self.words} (it has {', '.join(self.fields)}); a new field of the state is "
                f"added to delvebook.statecheck.SHAPE")

    def child(self, part):
        kind = self.fields.get(part) if part.__class__ is str else None
        return kind if kind is not None else self._unknown(part)


class _Map(_Kind):
    __slots__ = ("value", "limit")

    def __init__(self, value: _Kind, limit: int):
        self.value, self.limit = value, limit
        self.words = f"a mapping of names to {value.words}"

    def problem(self, value, shape):
        if value.__class__ is not dict:
            return (), f"expected {self.words}, got {_show(value)}"
        if len(value) > self.limit:
            return (), f"{len(value):,} entries; at most {self.limit:,}"
        inner = self.value
        for key, v in value.items():
            why = _text_problem(key, MAX_NAME, False)
            if why is not None:
                return (key,), f"a key here is a name: {why}"
            found = inner.problem(v, shape)
            if found is not None:
                return (key,) + found[0], found[1]
        return None

    def child(self, part):
        why = _text_problem(part, MAX_NAME, False)
        return self.value if why is None else f"expected a name here, got {_show(part)}"

    def compile(self, shape, compiled):
        env = {"_limit": self.limit}
        return _build("\n".join([
            "def fits(v):",
            "    if v.__class__ is not dict or len(v) > _limit: return False",
            "    for k, x in v.items():",
            f"        if not {_leaf_expr('name', 'k', shape, env)} or not {_expr(self.value, 'x', shape, env, compiled)}:",
            "            return False",
            "    return True"]), env, "fits")


class _List(_Kind):
    __slots__ = ("item",)

    def __init__(self, item: _Kind):
        self.item = item
        self.words = f"a list of {item.words}"

    def problem(self, value, shape):
        if value.__class__ is not list:
            return (), f"expected {self.words}, got {_show(value)}"
        if len(value) > MAX_ITEMS:
            return (), f"{len(value):,} entries; at most {MAX_ITEMS:,}"
        inner = self.item
        for i, v in enumerate(value):
            found = inner.problem(v, shape)
            if found is not None:
                return (i,) + found[0], found[1]
        return None

    def compile(self, shape, compiled):
        env: dict = {}
        return _build("\n".join([
            "def fits(v):",
            f"    if v.__class__ is not list or len(v) > {MAX_ITEMS}: return False",
            "    for x in v:",
            f"        if not {_expr(self.item, 'x', shape, env, compiled)}: return False",
            "    return True"]), env, "fits")

    def child(self, part):
        if _is_int(part) and 0 <= part < MAX_ITEMS:
            return self.item
        return f"expected a list index (a whole number of 0 or more), got {_show(part)}"


def _fits(kind: _Kind, shape: "Shape", compiled: dict) -> Any:
    """``kind``'s predicate for ``shape`` (see ``_Kind.compile``), compiled once per shape."""
    f = compiled.get(kind)
    if f is None:
        f = compiled[kind] = kind.compile(shape, compiled)
    return f


def _build(source: str, env: dict, name: str | None = None) -> Any:
    """The function that ``source`` (a lambda, or a ``def`` of ``name``) defines, with ``env``'s names: the
    predicates are written out from the table, so a value is checked with no call per field."""
    scope = {"__builtins__": {"len": len, "int": int, "str": str, "dict": dict, "list": list, "bool": bool,
                              "tuple": tuple, "KeyError": KeyError},
             **env}
    if name is None:
        return eval(source, scope)
    exec(source, scope)
    return scope[name]


def _expr(kind: _Kind, x: str, shape: "Shape", env: dict, compiled: dict) -> str:
    """A Python expression of the variable ``x``, true exactly when ``kind`` fits it: written out for a leaf (and
    null or a leaf), else a call of the kind's predicate (named in ``env``)."""
    if isinstance(kind, _Nullable):
        return f"({x} is None or {_expr(kind.inner, x, shape, env, compiled)})"
    if isinstance(kind, _Leaf):
        return _leaf_expr(kind.name, x, shape, env)
    name = f"_fits{len(env)}"
    env[name] = _fits(kind, shape, compiled)
    if isinstance(kind, (_List, _Map)):  # an empty one fits, with no call
        return f"(({x}.__class__ is {'list' if isinstance(kind, _List) else 'dict'} and not {x}) or {name}({x}))"
    return f"{name}({x})"


def _leaf_expr(name: str, x: str, shape: "Shape", env: dict) -> str:
    """The expression of ``x`` for a leaf kind (see ``_leaf_tests``: true exactly when its test finds nothing)."""
    env.setdefault("_search", _SURROGATE.search)
    if name == "text":
        return f"({x}.__class__ is str and len({x}) <= {MAX_TEXT} and ({x}.isascii() or not _search({x})))"
    if name == "name":
        return (f"({x}.__class__ is str and len({x}) <= {MAX_NAME} and {x}.strip() != '' "
                f"and ({x}.isascii() or not _search({x})))")
    bounds = {"int": (-MAX_INT, MAX_INT), "count": (0, MAX_INT), "posint": (1, MAX_INT),
              "hearts": (shape.hearts_floor, MAX_INT), "level": (1, shape.level_cap)}.get(name)
    if bounds is not None:  # the bounds written in as numbers
        lo, hi = (int(b) for b in bounds)
        return f"({x}.__class__ is int and {lo} <= {x} <= {hi})"
    if name == "bool":
        return f"({x} is True or {x} is False)"
    if name in ("status", "side"):
        return f"({x}.__class__ is str and {x} in {_STATUSES if name == 'status' else _SIDES!r})"
    if name == "dice":  # notation is read once: _plan keeps what it found for each text (bad notation: a message)
        env["_dice_ok"], env["_plans_get"] = _dice_ok, _PLANS.get
        # plain notation read before (a plan): no call; anything else (a number, keep, new or bad notation) asks
        return (f"(({x}.__class__ is str and len({x}) <= {MAX_NAME} and _plans_get({x}).__class__ is tuple) "
                f"or _dice_ok({x}))")
    if name == "any":
        env["_any_ok"] = _any_ok
        return f"_any_ok({x})"
    raise ValueError(f"no predicate for the leaf kind {name!r}")


def _dice_ok(v: Any) -> bool:
    if v.__class__ is int:
        return -MAX_INT <= v <= MAX_INT
    return v.__class__ is str and len(v) <= MAX_NAME and _plan(v).__class__ is not str


def _any_ok(v: Any, depth: int = 0) -> bool:
    """``value_problem(v, max_depth=16) is None``, without the paths it builds to say where (recursive, at most 16
    deep: a container that deep is refused before its items are read)."""
    cls = v.__class__
    if cls is int:
        return -MAX_INT <= v <= MAX_INT
    if cls is str:
        return v.isascii() or not _SURROGATE.search(v)
    if v is None or cls is bool:
        return True
    if cls is float:
        return math.isfinite(v)
    if cls is dict:
        if depth >= 16 or len(v) > MAX_ITEMS:
            return False
        depth += 1
        for k, x in v.items():
            if k.__class__ is not str or not k.isascii() and _SURROGATE.search(k) or not _any_ok(x, depth):
                return False
        return True
    if cls is list:
        if depth >= 16 or len(v) > MAX_ITEMS:
            return False
        depth += 1
        for x in v:
            if not _any_ok(x, depth):
                return False
        return True
    return False


def _compile(table: Mapping[str, dict]) -> dict[str, _Record]:
    leaves = _leaf_tests()
    records = {name: _Record(name) for name in table}

    def kind(spec: Any, where: str) -> _Kind:
        if isinstance(spec, str):
            nullable = spec.endswith("?")
            base = spec[:-1] if nullable else spec
            if base.startswith("@"):
                if base[1:] not in records:
                    raise ValueError(f"statecheck.SHAPE {where}: no record {base[1:]!r}")
                k: _Kind = records[base[1:]]
            elif base in leaves:
                k = leaves[base]
            else:
                raise ValueError(f"statecheck.SHAPE {where}: no kind {base!r} (kinds: {', '.join(leaves)})")
            return _Nullable(k) if nullable else k
        if isinstance(spec, list) and len(spec) == 1:
            return _List(kind(spec[0], where + "[]"))
        if isinstance(spec, dict) and "*" in spec:
            return _Map(kind(spec["*"], where + ".*"), spec.get("#", MAX_ITEMS))
        if isinstance(spec, dict):
            rec = _Record(where.rsplit(".", 1)[-1])
            _fill(rec, spec, where)
            return rec
        raise ValueError(f"statecheck.SHAPE {where}: cannot read {spec!r}")

    def _fill(rec: _Record, spec: dict, where: str) -> None:
        required = []
        for key, sub in spec.items():
            optional = key.endswith("?")
            name = key[:-1] if optional else key
            rec.fields[name] = kind(sub, f"{where}.{name}")
            if not optional:
                required.append(name)
        rec.required = tuple(required)

    for name, spec in table.items():
        _fill(records[name], spec, name)
    return records


_RECORDS = _compile(SHAPE)


# ---------------------------------------------------------------- any JSON value, bounded


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
            if not v.isascii() and _SURROGATE.search(v):
                return path, "holds characters that are not UTF-8 text"
            continue
        if cls is int:
            if not -MAX_INT <= v <= MAX_INT:
                return path, f"{_show(v)}: whole numbers are at most {MAX_INT:,} either way (what a browser " \
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
                        return path, f"key {_show(k)} is not text"
                    if not k.isascii() and _SURROGATE.search(k):
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


# ---------------------------------------------------------------- roll records

_PLANS: dict[str, Any] = {}


def _plan(expr: str) -> Any:
    """For notation without keep or d66: (faces' sides in order, the dice terms' signs per face, the constant);
    for other notation False (checked through ``Roll.from_dict``); a DiceError's message for bad notation."""
    plan = _PLANS.get(expr)
    if plan is not None:
        return plan
    try:
        e = _parse_dice(expr)
    except DiceError as err:
        plan = f"expr: {err}"
    else:
        if any(t.keep or t.d66 for t in e.terms):
            plan = False
        else:
            sides, signs, constant = [], [], 0
            for t in e.terms:
                if t.is_constant:
                    constant += t.sign * t.constant
                else:
                    sides += [t.sides] * t.count
                    signs += [t.sign] * t.count
            plan = (tuple(sides), tuple(signs), constant)
    if len(_PLANS) > 4096:
        _PLANS.clear()
    _PLANS[expr] = plan
    return plan


def _lucky_roll_fits(record: dict, faces: list, plan: tuple) -> bool:
    """Whether a record of plain notation with luck dice spent (or a ``base_total``) is one ``Roll.from_dict``
    accepts: faces its dice show, each luck die ``{"sign": 1 or -1, "face": 1..sides}`` (sides 6 unless given), and
    the total that the faces and the luck dice come to. False is no verdict: ``roll_problem`` asks ``from_dict``."""
    sides, signs, total = plan
    if len(faces) != len(sides) or "total" not in record:
        return False
    for face, n, sign in zip(faces, sides, signs):
        if face.__class__ is not int or not 1 <= face <= n:
            return False
        total += sign * face
    luck = record.get("luck", ())
    if luck.__class__ is not list and luck != ():
        return False
    for die in luck:
        if die.__class__ is not dict:
            return False
        sign, face, n = die.get("sign"), die.get("face"), die.get("sides", 6)
        if sign.__class__ is not int or not (sign == 1 or sign == -1) or face.__class__ is not int \
                or n.__class__ is not int or not 1 <= face <= n:
            return False
        total += sign * face
    return record["total"] == total


def roll_problem(record: Any) -> str | None:
    """Why a roll record (``{"expr", "faces", "total", ...}``) is not a roll of its dice: faces that its dice
    cannot show, too many or too few, a total that is not theirs, a bad luck die; or None. The quick path checks
    plain notation itself; the rest goes through ``Roll.from_dict`` (what every view reads a record with)."""
    if record.__class__ is not dict:
        return f"expected a roll record (expr, faces, total), got {_show(record)}"
    expr, faces = record.get("expr"), record.get("faces")
    if expr.__class__ is not str or len(expr) > MAX_NAME:
        return f"expr: expected dice notation (text), got {_show(expr)}"
    plan = _plan(expr)
    if plan.__class__ is str:
        return plan
    if faces.__class__ is not list:
        return f"faces: expected the list of faces shown, got {_show(faces)}"
    if plan and "luck" not in record and "base_total" not in record:
        if expr not in _QUICK:
            _quick_roll(expr, plan)
        sides, signs, total = plan
        if len(faces) != len(sides):
            return f"faces: {expr} rolls {len(sides)} dice, the record shows {len(faces)} faces"
        for i, (face, n, sign) in enumerate(zip(faces, sides, signs)):
            if face.__class__ is not int or not 1 <= face <= n:
                return f"faces[{i}]: a d{n} shows 1..{n}, not {_show(face)}"
            total += sign * face
        if record.get("total") != total:
            return f"total: the faces of {expr} come to {total}, the record says {_show(record.get('total'))}"
        return None
    if plan and _lucky_roll_fits(record, faces, plan):
        return None  # what Roll.from_dict accepts, checked without building the roll; any doubt goes on to it
    return _from_dict_problem(record)


def _from_dict_problem(record: Any) -> str | None:
    """What ``roll_problem`` says of a record by its slow path alone: ``Roll.from_dict``, what every view reads a
    record with (the quick checks are held to it)."""
    try:
        r = Roll.from_dict(record)
    except DiceError as err:
        return str(err)
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        return f"not a roll record ({type(err).__name__}: {err})"
    if "total" not in record:
        return f"total: missing (the faces come to {r.total})"
    return None


def rolls_problem(rolls: Any) -> tuple[str | None, str] | None:
    """The first bad record of an event's ``rolls`` (name -> record) as (its name, reason), or None."""
    if rolls.__class__ is not dict:
        return None, f"expected a mapping of roll names to records, got {_show(rolls)}"
    quick = _QUICK
    for name, record in rolls.items():
        if record.__class__ is dict:
            expr = record.get("expr")
            fits = quick.get(expr) if expr.__class__ is str else None
            if fits is not None and fits(record):
                continue
        why = roll_problem(record)
        if why is not None:
            return name, why
    return None


_QUICK: dict[str, Any] = {}
"""Plain notation -> the quick check of a record of it, for ``rolls_problem``: written out by ``_quick_roll`` from
the notation's plan the first time ``roll_problem`` reads it (the same bound as ``_PLANS``)."""


def _quick_roll(expr: str, plan: tuple) -> Any:
    """``record -> bool``: true exactly when ``roll_problem``'s quick path accepts a record of ``expr`` (no luck,
    no base_total, a face each die shows, their total), with each face a name and each die's sides a number in the
    code: no loop, no call. None for notation of many dice (the quick path reads those)."""
    sides, signs, constant = plan
    if len(_QUICK) > 4096:
        _QUICK.clear()
    if len(sides) > 8:
        _QUICK[expr] = None
        return None
    faces = [f"f{i}" for i in range(len(sides))]
    total = str(int(constant)) + "".join(f" {'+' if sign > 0 else '-'} {f}" for f, sign in zip(faces, signs))
    lines = ["def fits(r):",
             "    faces = r.get('faces')",
             f"    if faces.__class__ is not list or len(faces) != {len(sides)} or 'luck' in r or 'base_total' in r:",
             "        return False"]
    if faces:
        lines.append(f"    {', '.join(faces)}, = faces")
    lines += [f"    if {f}.__class__ is not int or not 1 <= {f} <= {int(n)}: return False" for f, n in zip(faces, sides)]
    lines.append(f"    return r.get('total') == {total}")
    fits = _QUICK[expr] = _build("\n".join(lines), {}, "fits")
    return fits


# ---------------------------------------------------------------- the shape with the rules' bounds


class Shape:
    """The table with the bounds a campaign's rules set (the hearts floor, the level cap).

    ``shape_for(rules)`` makes one; ``DEFAULT`` has the shipped rules' bounds and is used where no rules are at
    hand (a store opened on a bare log)."""

    def __init__(self, hearts_floor: int = 0, level_cap: int = 100):
        self.hearts_floor = hearts_floor
        self.level_cap = level_cap
        self.state = _RECORDS["state"]
        self._places: dict[tuple, Any] = {}
        self._compiled: dict[_Kind, Any] = {}  # each kind's predicate with this shape's bounds
        self._fits_at: dict[tuple, Any] = {}  # a place's path -> the predicate of what it holds (the quick check)

    def __repr__(self) -> str:
        return f"<Shape: hearts from {self.hearts_floor}, levels 1..{self.level_cap}>"

    # rule-bound leaves
    def _hearts(self, v: Any) -> str | None:
        if not _is_int(v) or not self.hearts_floor <= v <= MAX_INT:
            return f"expected hearts: a whole number of {self.hearts_floor} or more, got {_show(v)}"
        return None

    def _level(self, v: Any) -> str | None:
        if not _is_int(v) or not 1 <= v <= self.level_cap:
            return f"expected a level: a whole number from 1 to {self.level_cap}, got {_show(v)}"
        return None

    # one change
    def _resolve(self, path: Any) -> _Kind | str:
        if path.__class__ is not list or not path:
            return f"a change's path is a non-empty list of keys and indexes, got {_show(path)}"
        kind: Any = self.state
        for i, part in enumerate(path):
            if part.__class__ is not str and part.__class__ is not int:
                return f"{dotted_path(path[:i]) if i else 'the path'}: expected a key or an index, got {_show(part)}"
            kind = kind.child(part)
            if isinstance(kind, str):
                return f"{dotted_path(path[:i + 1])}: {kind}"
        return kind

    def _place(self, path: Any) -> tuple:
        """(kind or reason, fits): what the place holds and its predicate (``_Kind.compile``; None for a path that is
        no place), for the quick check."""
        try:
            key = tuple(path) if path.__class__ is list else None
            hit = self._places.get(key) if key is not None else None
        except TypeError:  # an unhashable part (a list inside the path)
            key, hit = None, None
        if hit is not None:
            return hit
        kind = self._resolve(path)
        fits = _fits(kind, self, self._compiled) if isinstance(kind, _Kind) else None
        hit = (kind, fits)
        if key is not None:
            if len(self._places) > 8192:
                self._places.clear()
                self._fits_at.clear()
            self._places[key] = hit
            if fits is not None:
                self._fits_at[key] = fits
        return hit

    def place(self, path: Any) -> _Kind | str:
        """What the place at ``path`` holds, or why ``path`` is no place in the state."""
        return self._place(path)[0]

    def change_problem(self, path: Any, value: Any) -> str | None:
        """Why ``[path, value]`` cannot be a change of the state (the path is no place in the table, or the
        value does not fit it), or None."""
        kind, fits = self._place(path)
        if fits is None:
            return kind
        if fits(value):
            return None
        found = kind.problem(value, self)
        if found is None:
            return None
        inside, why = found
        return f"{dotted_path(list(path) + list(inside))}: {why}"

    def changes_problem(self, changes: Any) -> tuple[int | None, str] | None:
        """The first bad change of an event's ``changes`` as (its index, reason), or None."""
        if changes.__class__ is not list:
            return None, f"expected a list of [path, value] changes, got {_show(changes)}"
        if len(changes) > MAX_ITEMS:
            return None, f"{len(changes):,} changes; at most {MAX_ITEMS:,}"
        fits_at = self._fits_at
        for change in changes:  # change_problem written out for the common change: a known place, a fitting value
            if change.__class__ is list and len(change) == 2:
                path, value = change
                if path.__class__ is list:
                    try:
                        fits = fits_at.get(tuple(path))
                    except TypeError:  # an unhashable part: no place
                        break
                    if fits is None:
                        fits = self._place(path)[1]  # a place met for the first time (a new room, a new foe)
                    if fits is not None and fits(value):
                        continue
            break
        else:
            return None
        for i, change in enumerate(changes):  # the slow path: every change again, the first bad one named
            if change.__class__ is not list or len(change) != 2:
                return i, f"expected a change as [path, value], got {_show(change)}"
            why = self.change_problem(change[0], change[1])
            if why is not None:
                return i, why
        return None

    # a whole state
    def state_problems(self, state: Any) -> list[tuple[tuple, str]]:
        """Every problem of a whole state: its shape, then what ties its parts together."""
        found = self.state.problem(state, self)
        if found is not None:
            return [found]
        return self.link_problems(state)

    def link_problems(self, state: Mapping) -> list[tuple[tuple, str]]:
        """What ties a state of the right shape together: seats name delvers (each once), names are filed
        under themselves, the fight's order names its side, conditions' ids are unique. Cheap: the check after
        each event of a replay whose changes were each checked against the table."""
        out: list[tuple[tuple, str]] = []
        delvers = state["delvers"]
        for name, d in delvers.items():
            if d["name"] != name:
                out.append((("delvers", name, "name"), f"the delver filed as {name!r} is named {d['name']!r}"))
        seen: set = set()
        for i, seat in enumerate(state["seats"]):
            if seat not in delvers:
                out.append((("seats", i), f"{seat!r} is not a delver (the party: {', '.join(delvers) or 'none'})"))
            elif seat in seen:
                out.append((("seats", i), f"{seat!r} sits twice"))
            seen.add(seat)
        for name in delvers:
            if name not in seen:
                out.append((("delvers", name), "has no seat (every delver sits in seats)"))
        ids: set = set()
        for i, c in enumerate(state["conditions"]):
            if c["id"] in ids:
                out.append((("conditions", i, "id"), f"condition {c['id']} is listed twice"))
            elif c["id"] >= state["next_condition"]:
                out.append((("conditions", i, "id"), f"condition {c['id']} is not below next_condition "
                                                      f"({state['next_condition']})"))
            ids.add(c["id"])
        enc = state["encounter"]
        if enc is not None:
            foes = enc["foes"]
            for name, f in foes.items():
                if f["name"] != name:
                    out.append((("encounter", "foes", name, "name"), f"the foe filed as {name!r} is named "
                                                                     f"{f['name']!r}"))
                if name in delvers:
                    out.append((("encounter", "foes", name), f"{name!r} is both a delver and a foe"))
            for side, known in (("party", delvers), ("foes", foes)):
                for i, n in enumerate(enc["order"][side]):
                    if n not in known:
                        out.append((("encounter", "order", side, i), f"{n!r} is not one of the {side} here"))
        return out


_SHAPES: dict[tuple, Shape] = {}


def shape_for(rules: Any) -> Shape:
    """The shape with ``rules``' bounds (``core.hearts.floor``, ``core.levels.cap``); the default bounds for
    rules that do not give them."""
    try:
        core = rules.core
        floor = core["hearts"]["floor"]
        cap = core["levels"]["cap"]
    except (AttributeError, KeyError, TypeError):
        return DEFAULT
    if not (_is_int(floor) and _is_int(cap)):
        return DEFAULT
    key = (floor, cap)
    shape = _SHAPES.get(key)
    if shape is None:
        shape = _SHAPES[key] = Shape(floor, cap)
    return shape


DEFAULT = Shape()
"""The shape where no rules are at hand: hearts from 0, levels up to 100."""
