"""Each kind of the state's table written out as one Python predicate, ``fits(value) -> bool``: true exactly when the
kind's ``problem`` (``statecheck.kinds``, the readable reference) finds nothing.

Why: the reader checks every change of every event of the log against the table, and the table's own walk
(``problem``) builds a path for every value it passes; the predicates ask nothing but yes or no, and ``problem`` is
asked only to say why when one says no. ``tests/test_statecheck_fits.py`` holds every predicate to ``problem``
(every change of the long campaign, values changed by hand, any JSON anywhere).

A leaf is written in line as an expression; a record, a mapping or a list becomes a function that calls the
predicates of what it holds, each written when it is first called (most of a fresh campaign's state is empty: its
predicates are never written). Standard library only.
"""

from __future__ import annotations

import math
from typing import Any

from .kinds import SIDES, STATUSES, Kind, Leaf, ListOf, MapOf, Nullable, Record
from .limits import MAX_ITEMS, MAX_NAME, MAX_TEXT, MAX_INT, SURROGATE
from .rolls import plan, PLANS

__all__ = ["predicate"]


def predicate(kind: Kind, shape: Any, cache: dict) -> Any:
    """``kind``'s predicate with ``shape``'s bounds (the hearts floor, the level cap), made once per shape:
    ``cache`` holds the shape's predicates by kind."""
    fits = cache.get(kind)
    if fits is None:
        fits = cache[kind] = _write(kind, shape, cache)
    return fits


def _write(kind: Kind, shape: Any, cache: dict) -> Any:
    if isinstance(kind, (Leaf, Nullable)):
        env: dict = {}
        return _build(f"lambda v: {_expr(kind, 'v', shape, env, cache)}", env)
    if isinstance(kind, Record):
        return _record(kind, shape, cache)
    if isinstance(kind, MapOf):
        env = {"_limit": kind.limit}
        return _build("\n".join([
            "def fits(v):",
            "    if v.__class__ is not dict or len(v) > _limit: return False",
            "    for k, x in v.items():",
            f"        if not {_leaf_expr('name', 'k', shape, env)} or not {_expr(kind.value, 'x', shape, env, cache)}:",
            "            return False",
            "    return True"]), env, "fits")
    if isinstance(kind, ListOf):
        env = {}
        return _build("\n".join([
            "def fits(v):",
            f"    if v.__class__ is not list or len(v) > {MAX_ITEMS}: return False",
            "    for x in v:",
            f"        if not {_expr(kind.item, 'x', shape, env, cache)}: return False",
            "    return True"]), env, "fits")
    test = kind.problem
    return lambda v: test(v, shape) is None


def _record(kind: Record, shape: Any, cache: dict) -> Any:
    """One function for a record: each required field read by name (a missing one is a KeyError) and checked in
    line (a leaf) or by its kind's predicate; only a mapping with more keys than the required ones can hold
    another, so only then are the keys and the optional fields looked at."""
    env = {"_known": frozenset(kind.fields)}
    slot: list = []
    cache[kind] = lambda v: slot[0](v)  # a record that holds itself, further in, calls the finished one
    lines = ["def fits(v):",
             "    if v.__class__ is not dict: return False"]
    if kind.required:
        lines.append("    try:")
        for key in kind.required:
            test = _expr(kind.fields[key], "x", shape, env, cache)
            lines += [f"        x = v[{key!r}]", f"        if not {test}: return False"]
        lines += ["    except KeyError:", "        return False"]
    optional = [key for key in kind.fields if key not in kind.required]
    lines.append(f"    if len(v) != {len(kind.required)}:")
    lines.append("        if not v.keys() <= _known: return False")
    for key in optional:
        test = _expr(kind.fields[key], "x", shape, env, cache)
        lines += [f"        if {key!r} in v:", f"            x = v[{key!r}]", f"            if not {test}: return False"]
    lines.append("    return True")
    fits = _build("\n".join(lines), env, "fits")
    slot.append(fits)
    return fits


def _build(source: str, env: dict, name: str | None = None) -> Any:
    """The function that ``source`` (a lambda, or a ``def`` of ``name``) defines, with ``env``'s names."""
    scope = {"__builtins__": {"len": len, "int": int, "str": str, "dict": dict, "list": list, "bool": bool,
                              "tuple": tuple, "KeyError": KeyError},
             **env}
    for later in env.values():
        if later.__class__ is _Later:
            later.scope = scope
    if name is None:
        return eval(source, scope)
    exec(source, scope)
    return scope[name]


class _Later:
    """The predicate of a kind a predicate calls, written the first time it is called (a part of the state that is
    empty or absent costs nothing to check, nor to write out), then put in the caller's place."""

    __slots__ = ("kind", "shape", "cache", "name", "scope")

    def __init__(self, kind: Kind, shape: Any, cache: dict, name: str) -> None:
        self.kind, self.shape, self.cache, self.name, self.scope = kind, shape, cache, name, None

    def __call__(self, v: Any) -> bool:
        fits = predicate(self.kind, self.shape, self.cache)
        self.scope[self.name] = fits
        return fits(v)


def _expr(kind: Kind, x: str, shape: Any, env: dict, cache: dict) -> str:
    """A Python expression of the variable ``x``, true exactly when ``kind`` fits it: written out for a leaf (and
    null or a leaf), else a call of the kind's predicate (named in ``env``)."""
    if isinstance(kind, Nullable):
        return f"({x} is None or {_expr(kind.inner, x, shape, env, cache)})"
    if isinstance(kind, Leaf):
        return _leaf_expr(kind.name, x, shape, env)
    name = f"_fits{len(env)}"
    env[name] = cache.get(kind) or _Later(kind, shape, cache, name)
    if isinstance(kind, (ListOf, MapOf)):  # an empty one fits, with no call
        return f"(({x}.__class__ is {'list' if isinstance(kind, ListOf) else 'dict'} and not {x}) or {name}({x}))"
    return f"{name}({x})"


def _leaf_expr(name: str, x: str, shape: Any, env: dict) -> str:
    """The expression of ``x`` for a leaf kind (``kinds._leaf_tests``: true exactly when its test finds nothing)."""
    env.setdefault("_search", SURROGATE.search)
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
        return f"({x}.__class__ is str and {x} in {STATUSES if name == 'status' else SIDES!r})"
    if name == "dice":  # notation already read (a plan): no call; a number, keep, new or bad notation asks
        env["_dice_ok"], env["_plans_get"] = _dice_ok, PLANS.get
        return (f"(({x}.__class__ is str and len({x}) <= {MAX_NAME} and _plans_get({x}).__class__ is tuple) "
                f"or _dice_ok({x}))")
    if name == "any":
        env["_any_ok"] = _any_ok
        return f"_any_ok({x})"
    raise ValueError(f"no predicate for the leaf kind {name!r}")


def _dice_ok(v: Any) -> bool:
    if v.__class__ is int:
        return -MAX_INT <= v <= MAX_INT
    return v.__class__ is str and len(v) <= MAX_NAME and plan(v).__class__ is not str


def _any_ok(v: Any, depth: int = 0) -> bool:
    """``value_problem(v, max_depth=16) is None``, without the paths it builds to say where (recursive, at most 16
    deep: a container that deep is refused before its items are read)."""
    cls = v.__class__
    if cls is int:
        return -MAX_INT <= v <= MAX_INT
    if cls is str:
        return v.isascii() or not SURROGATE.search(v)
    if v is None or cls is bool:
        return True
    if cls is float:
        return math.isfinite(v)
    if cls is dict:
        if depth >= 16 or len(v) > MAX_ITEMS:
            return False
        depth += 1
        for k, x in v.items():
            if k.__class__ is not str or not k.isascii() and SURROGATE.search(k) or not _any_ok(x, depth):
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

