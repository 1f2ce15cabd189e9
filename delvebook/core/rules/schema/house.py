"""House rules laid over the rules: ``merge_overrides`` merges a campaign's ``house_rules`` into the rules data,
refusing an unknown key or a wrong type with a ``Problem`` at its path. Standard library only."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..fixed import mark_of, marks_below
from .words import (ALL, NUMBERED,
                    OPEN_TABLES, PROVENANCE_KEYS, SOURCES, Problem, _HEARTS_KINDS, _Problems, _WORDS, _data_items,
                    _dice_problem, _is_dice, _is_int, _is_text, _matches, _thaw, dotted, show)

__all__ = ["merge_overrides"]


def _fixed(why: str | None) -> str | None:
    """A house rule changing a field that is no house rule (marked so in the rules data: ``rules.fixed``): refused,
    saying why."""
    return None if why is None else f"not overridable: {why}"


_REPLACED_WHOLE = (
    ("classes", "*", "levels", "*", "hearts"),
)
"""Paths whose mapping an override replaces instead of merging (hearts: one of set / roll / gain)."""

_DICE_KEYS = frozenset({
    "damage", "heal", "extra_damage", "attack_bonus", "roll_bonus", "damage_reduction", "blessing_die",
    "dice", "die", "proficient", "expert", "gain", "roll",
})
"""Fields that hold a dice expression or a flat integer."""

_NULLABLE_KEYS = frozenset({"price", "ammo", "skill", "armor", "random_pick"})


def _expected(base: Any, key: Any) -> str:
    if key in _DICE_KEYS or (isinstance(base, str) and _is_dice(base) and not base.isalpha()):
        return _WORDS["dice"]
    if isinstance(base, bool):
        return _WORDS["bool"]
    if _is_int(base):
        return _WORDS["int"]
    if isinstance(base, str):
        return _WORDS["text"]
    if isinstance(base, (list, tuple)):
        return _WORDS["list"]
    if isinstance(base, Mapping):
        return _WORDS["mapping"]
    return "a value"


_COUNTS_OR_ALL = frozenset({"spells_known"})
"""Fields that hold a count, or ``all`` (every one of a list)."""


def _type_problem(base: Any, new: Any, key: Any) -> str | None:
    """None if ``new`` may replace ``base`` (same kind of value); else the reason."""
    if key in _COUNTS_OR_ALL and (base == ALL or _is_int(base)):
        ok = new == ALL or _is_int(new)
        return None if ok else f"expected a count or {ALL} (every one of the list), got {show(new)}"
    if key == "random_pick" and new == NUMBERED:
        return None
    if new is None:
        ok = base is None or key in _NULLABLE_KEYS
    elif base is None:
        ok = isinstance(new, (str, int, float, bool, list, tuple, Mapping))
    elif key in _DICE_KEYS or (isinstance(base, str) and _is_dice(base) and not base.isalpha()):
        return _dice_problem(new, "dice")
    elif isinstance(base, bool):
        ok = isinstance(new, bool)
    elif _is_int(base):
        ok = _is_int(new)
    elif isinstance(base, str):
        ok = isinstance(new, str)
    elif isinstance(base, (list, tuple)):
        ok = isinstance(new, (list, tuple))
        if ok and base and all(isinstance(b, str) for b in base):
            ok = all(isinstance(n, str) for n in new)
        elif ok and base and all(isinstance(b, Mapping) for b in base):
            ok = all(isinstance(n, Mapping) for n in new)
    elif isinstance(base, Mapping):
        ok = isinstance(new, Mapping)
    else:
        ok = True
    return None if ok else f"expected {_expected(base, key)}, got {show(new)}"


def _provenance_value_problem(key: str, value: Any) -> str | None:
    if key == "source":
        return None if value in SOURCES else f"expected one of {', '.join(SOURCES)}, got {show(value)}"
    if key == "assumed":
        ok = isinstance(value, Mapping) and all(isinstance(k, str) and _is_text(v) for k, v in value.items())
        return None if ok else f"expected a mapping of field to reason, got {show(value)}"
    if key == "reading":
        ok = isinstance(value, Mapping) and all(
            _is_text(v) or (isinstance(v, Mapping) and all(_is_text(w) for w in v.values())) for v in value.values())
        return None if ok else f"expected a mapping of field to reason, got {show(value)}"
    return None if isinstance(value, str) else f"expected text, got {show(value)}"


def merge_overrides(base: Mapping, overrides: Any) -> tuple[dict, list[str], list[Problem]]:
    """Lay ``overrides`` over ``base`` (a whole rules data set), checking keys and types as it goes.

    Returns (the merged data, the dotted paths changed or added, the problems). A key that is unknown or a value
    of the wrong kind is left out of the merge and reported; the merged data still needs ``rules_problems``
    (a new class or foe must be whole)."""
    p = _Problems()
    changed: list[str] = []
    merged = _merge(base, overrides, (), changed, p)
    return merged, changed, p.items


def _merge(base: Mapping, override: Any, parts: tuple, changed: list, p: _Problems,
           fixed: str | None = None, above: Mapping | None = None) -> dict:
    """``override`` laid over ``base``; ``fixed``: why ``base`` (a field that lies in one so marked) is no house
    rule; ``above``: the marks the mapping above wrote for ``base``'s fields (``fixed.marks_below``)."""
    merged = _thaw(base)
    if not isinstance(override, Mapping):
        p.add(parts, f"expected a mapping, got {show(override)}")
        return merged
    for raw_key, value in override.items():
        key = raw_key
        if key not in base and isinstance(key, str) and key.strip().lstrip("-").isdigit():
            # "2" typed as text where the table's keys are whole numbers (levels, D66 results)
            if int(key) in base or any(_is_int(k) for k in base):
                key = int(key)
        here = parts + (key,)
        if key in PROVENANCE_KEYS:
            reason = _provenance_value_problem(key, value)
            if reason is not None:
                p.add(here, reason)
                continue
            merged[key] = _thaw(value)
            changed.append(dotted(here))
            continue
        if key not in base:
            if not _matches(parts, OPEN_TABLES):
                known = ", ".join(str(k) for k, _ in _data_items(base)) or "none"
                p.add(here, f"unknown key (known here: {known})")
                continue
            new = _thaw(value)
            if isinstance(new, dict) and parts and parts[-1] != "max" and "source" not in new:
                if not _matches(parts, (("core", "levels", "thresholds"), ("core", "durations"))):
                    new["source"] = "house"
            merged[key] = new
            changed.append(dotted(here))
            continue
        old = base[key]
        if _matches(here, _REPLACED_WHOLE):
            if not isinstance(value, Mapping):
                p.add(here, f"expected a mapping with one of {', '.join(_HEARTS_KINDS)}, got {show(value)}")
                continue
            merged[key] = _thaw(value)
            changed.append(dotted(here))
            continue
        why = fixed or mark_of(base, key, above)
        if isinstance(old, Mapping):
            merged[key] = _merge(old, value, here, changed, p, why, marks_below(base, key, above))
            continue
        reason = _type_problem(old, value, key) or (_fixed(why) if _thaw(value) != _thaw(old) else None)
        if reason is not None:
            p.add(here, reason)
            continue
        merged[key] = _thaw(value)
        changed.append(dotted(here))
    return merged
