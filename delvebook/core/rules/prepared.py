"""What a keeper prepares for an evening, as data: roll tables and prepared encounters, the checks they pass
wherever they are written (``campaign.yaml`` by hand, or the table's clicks), and how a roll lands on a table.

A roll table is a formula and ranges of totals -> results (loot, wandering monsters, the namer's true names)::

    loot:
      name: Loot                   # optional: the id in words
      dice: d6                     # the formula: d6, 2d6, d66, d20...
      without_replacement: true    # optional: an entry drawn once is not drawn again until the table is reset
      entries:
        - {range: 1-3, result: a rusty dagger}
        - {range: 4-5, result: 2d6 talons}
        - {range: 6, result: a gem, roll: gems}   # a result may roll on another table
      note: what the keeper keeps to themselves

Every total the formula can roll falls in exactly one range (a gap or an overlap is refused, and a range the dice
never reach); a table never rolls on itself, directly or through others. A luck die shifts the total, and so the
entry, as it shifts any roll: past the first or the last range it stays there, and between two ranges (a D66 table
shifted to 18) it goes on to the next result the way it was shifted (both assumed: ``core.roll_tables``). Dice
written in a result ('2d6 crowns') are rolled when the entry is drawn (``entry_dice``).

Every check returns ``Problem(path, reason)``s, paths from the top of what was checked (``campaign.yaml``'s, or a
click's fields), so a file names its line and a form the field. Standard library only: part of the pure core.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Mapping
from typing import Any, Iterable

from ..dice import DiceError, parse as _parse_dice
from ..distribution import distribution
from ..names import name_problem
from ..statecheck import MAX_NAME
from .schema.bounds import cut
from .schema.words import ENCOUNTER_MAX_FOES, Problem, show

__all__ = ["TABLE_FIELDS", "ENTRY_FIELDS", "MAX_ENTRIES", "MAX_TOTALS", "ROLL_DEPTH", "TRUE_NAMES",
           "table_problems", "table_cycles", "table_chains", "parse_range", "range_text", "entry_for", "entry_dice",
           "true_names_table", "encounter_problems", "normal_foes", "expand_foes", "slug", "id_problem",
           "ENCOUNTER_MAX_FOES"]

TABLE_FIELDS = ("name", "dice", "entries", "without_replacement", "note")
"""The fields of a roll table; ``dice`` and ``entries`` are required."""
ENTRY_FIELDS = ("range", "result", "roll")
"""The fields of an entry: ``range`` and a ``result`` (or a table it ``roll``s on, or both)."""
MAX_ENTRIES = 1000
"""Entries in one table (a deck of cards is 52; a d1000 table a thousand)."""
MAX_TOTALS = 1000
"""Totals a table's formula may roll (d66: 36; d1000: a thousand): each must find its entry."""

ROLL_DEPTH = 8
"""Tables rolled one inside another at most (a result rolling on a table whose result rolls on another...)."""
TRUE_NAMES = "true_names"
"""The id of the namer's true names (D66), a roll table like any other (``true_names_table``)."""

_RANGE = re.compile(r"^\s*(-?\d{1,9})\s*(?:-|–|\.\.|to)\s*(-?\d{1,9})\s*$")
_MOST_TOTAL = 10 ** 9  # past what any formula rolls (MAX_DICE dice of MAX_SIDES, a constant of MAX_CONSTANT)


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _unknown(key: Any, allowed: tuple, what: str) -> str:
    close = difflib.get_close_matches(str(key), allowed, n=1)
    return f"unknown field; {f'did you mean {close[0]}? ' if close else ''}{what} has {', '.join(allowed)}"


def slug(name: str) -> str:
    """An id from a name as the keeper typed it: 'Bog hag' -> 'bog_hag' (letters of any script kept)."""
    text = unicodedata.normalize("NFKC", str(name)).casefold()
    return re.sub(r"[\W_]+", "_", text).strip("_")


_ID = re.compile(r"[^\W_][\w-]*")


def id_problem(value: Any, what: str = "an id") -> str | None:
    """Why ``value`` cannot be the id of a foe type, an encounter, a table, a room or a quest (typed, or a key of
    campaign.yaml), or None: letters (of any script), digits, ``_`` and ``-``, starting with a letter or a digit,
    at most ``MAX_NAME`` long: what ``slug`` makes of a name, never a path (``../x``) or a hidden character."""
    if not isinstance(value, str):
        return f"{what} is text (letters, digits, _ and -), not {show(value)}"
    if len(value) > MAX_NAME or not _ID.fullmatch(value):
        made = slug(value[:MAX_NAME])
        return (f"{cut(value)} is not {what}: letters, digits, _ and - only, starting with a letter or a digit"
                + (f" (like {made!r})" if made and len(made) <= 40 else ""))
    return name_problem(value, what)


# ---------------------------------------------------------------- ranges

def parse_range(value: Any) -> tuple[int, int] | None:
    """``6`` -> (6, 6); ``"3-5"`` (or ``3..5``, ``[3, 5]``) -> (3, 5); None when it is no range."""
    if _int(value):
        return (value, value) if abs(value) < _MOST_TOTAL else None
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(_int(v) for v in value):
        return (value[0], value[1]) if all(abs(v) < _MOST_TOTAL for v in value) else None
    if isinstance(value, str) and len(value) <= 40:
        m = _RANGE.match(value)
        if m:
            return int(m.group(1)), int(m.group(2))
        if value.strip().lstrip("-").isdigit() and len(value.strip()) <= 10 and value.strip().isascii():
            n = int(value.strip())
            return n, n
    return None


def range_text(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo}-{hi}"


def _totals(dice: str) -> list[int] | str:
    """The totals ``dice`` can roll, in order, or why it cannot be a table's formula."""
    try:
        e = _parse_dice(dice)
    except DiceError as err:
        return str(err)
    if e.max - e.min + 1 > MAX_TOTALS and not any(t.d66 for t in e.terms):  # (each total between is rolled)
        return f"{dice} rolls {e.max - e.min + 1:,} different totals; a table holds at most {MAX_TOTALS:,}"
    try:
        totals = distribution(e).outcomes()
    except DiceError as err:
        return str(err)
    if len(totals) > MAX_TOTALS:
        return f"{dice} rolls {len(totals):,} different totals; a table holds at most {MAX_TOTALS:,}"
    return totals


# ---------------------------------------------------------------- one table

def table_problems(table: Any, path: tuple = (), tables: Iterable[str] | None = None) -> list[Problem]:
    """Every problem in one roll table, at ``path``. ``tables``: the ids a result may roll on (None: unchecked)."""
    out: list[Problem] = []

    def add(where: tuple, reason: str) -> None:
        out.append(Problem(path + where, reason))

    if not isinstance(table, Mapping):
        add((), f"expected a mapping describing the table (dice, entries), got {show(table)}")
        return out
    for key in table:
        if key not in TABLE_FIELDS:
            add((str(key),), _unknown(key, TABLE_FIELDS, "a roll table"))
    for key in ("name", "note"):
        if table.get(key) is not None and not isinstance(table[key], str):
            add((key,), f"expected text, got {show(table[key])}")
    if table.get("without_replacement") not in (None, True, False):
        add(("without_replacement",), f"expected true or false, got {show(table['without_replacement'])}")
    totals: list[int] | str = "missing"
    if "dice" not in table:
        add(("dice",), "missing: the formula the table is rolled with (d6, 2d6, d66, d20...)")
    elif not isinstance(table["dice"], str) or not table["dice"].strip():
        add(("dice",), f"expected a dice formula (d6, 2d6, d66...), got {show(table['dice'])}")
    else:
        totals = _totals(table["dice"])
        if isinstance(totals, str):
            add(("dice",), totals)
    entries = table.get("entries")
    if "entries" not in table:
        add(("entries",), "missing: the list of entries ({range: 1-3, result: ...})")
        return out
    if not isinstance(entries, list) or not entries:
        add(("entries",), f"expected a list of at least one entry ({{range: 1-3, result: ...}}), got {show(entries)}")
        return out
    if len(entries) > MAX_ENTRIES:
        add(("entries",), f"{len(entries):,} entries; a table holds at most {MAX_ENTRIES:,}")
        return out
    known = None if tables is None else set(tables)
    ranges: list[tuple[int, int, int]] = []
    for i, entry in enumerate(entries):
        here = ("entries", i)
        if not isinstance(entry, Mapping):
            add(here, f"expected {{range: 1-3, result: ...}}, got {show(entry)}")
            continue
        for key in entry:
            if key not in ENTRY_FIELDS:
                add(here + (str(key),), _unknown(key, ENTRY_FIELDS, "an entry"))
        r = parse_range(entry.get("range"))
        if "range" not in entry:
            add(here + ("range",), "missing: the totals it takes (6, or 3-5)")
        elif r is None:
            add(here + ("range",), f"expected a total (6) or a range of totals (3-5), got {show(entry['range'])}")
        elif r[0] > r[1]:
            add(here + ("range",), f"{range_text(*r)} runs backwards: write the lower total first")
        else:
            ranges.append((r[0], r[1], i))
        result, roll = entry.get("result"), entry.get("roll")
        if result is not None and not _text(result):
            add(here + ("result",), f"expected text, got {show(result)}")
        if roll is not None:
            if not _text(roll):
                add(here + ("roll",), f"expected the id of a table to roll on, got {show(roll)}")
            elif known is not None and roll not in known:
                add(here + ("roll",), f"there is no table {roll!r} to roll on (tables: {', '.join(sorted(known))})")
        elif result is None:
            add(here, "an entry has a result (text), a table it rolls on (roll: id), or both")
    if isinstance(totals, list) and ranges:
        out += _coverage(path, table["dice"], totals, ranges)
    return out


def _coverage(path: tuple, dice: str, totals: list[int], ranges: list[tuple[int, int, int]]) -> list[Problem]:
    """Each total the dice roll in exactly one range, and each range holding a total the dice roll."""
    out: list[Problem] = []
    first: dict[int, int] = {}
    for lo, hi, i in ranges:
        reach = [t for t in totals if lo <= t <= hi]
        if not reach:
            out.append(Problem(path + ("entries", i, "range"), f"{dice} never rolls {range_text(lo, hi)} (it rolls "
                                                                f"{totals[0]}..{totals[-1]})"))
            continue
        for t in reach:
            if t in first:
                out.append(Problem(path + ("entries", i, "range"),
                                   f"overlaps entries[{first[t]}]: {t} would be in both (each total in one entry)"))
                break
            first[t] = i
    missing = [t for t in totals if t not in first]
    if missing:
        shown = ", ".join(map(str, missing[:6])) + (", ..." if len(missing) > 6 else "")
        out.append(Problem(path + ("entries",), f"a gap: no entry for {shown} ({dice} rolls "
                                                f"{'it' if len(missing) == 1 else 'them'}; every total the dice "
                                                f"roll needs an entry)"))
    return out


def table_cycles(tables: Mapping[str, Any], path: tuple = ()) -> list[Problem]:
    """A table that rolls on itself, directly or through others: one problem for each table on such a circle, at
    the entry that starts it (``path``: where the tables sit, e.g. ``("tables",)``)."""
    out: list[Problem] = []
    rolls: dict[str, list[tuple[int, str]]] = {}
    for tid, table in tables.items():
        entries = table.get("entries") if isinstance(table, Mapping) else None
        rolls[tid] = [(i, e["roll"]) for i, e in enumerate(entries or ())
                      if isinstance(e, Mapping) and isinstance(e.get("roll"), str)]
    for tid in tables:
        for i, first in rolls.get(tid, ()):
            back = _path_back(rolls, first, tid)
            if back is not None:
                why = ("rolls on itself" if first == tid else
                       f"rolls on itself through other tables ({' -> '.join([tid] + back)})")
                out.append(Problem(path + (tid, "entries", i, "roll"), f"{tid} {why}: a result never ends"))
                break
    return out


def table_chains(tables: Mapping[str, Any], path: tuple = (), through: str | None = None) -> list[Problem]:
    """Tables rolling one inside another (a result rolling on a table whose result rolls on another...) more than
    ``ROLL_DEPTH`` deep: one problem for each chain, at the entry of its first table that starts it; with
    ``through``, only the longest chain through that table, at its entry that leads down it (``path``: where the
    tables sit, e.g. ``("tables",)``). A circle is ``table_cycles``'s to say."""
    rolls = _rolls(tables)
    down, nxt = _longest(rolls)
    if through is not None:
        back: dict[str, list[tuple[int, str]]] = {t: [] for t in rolls}
        for f, out in rolls.items():
            for i, n in out:
                back[n].append((i, f))
        up, prev = _longest(back)
        if through not in down or up[through] + down[through] - 1 <= ROLL_DEPTH:
            return []
        chain, at = [through], through
        while prev.get(at) is not None:
            at = prev[at][1]
            chain.insert(0, at)
        at = through
        while nxt.get(at) is not None:
            at = nxt[at][1]
            chain.append(at)
        i = nxt[through][0] if nxt.get(through) is not None else None
        where = path + (through, "entries", i, "roll") if i is not None else path + (through,)
        return [Problem(where, _too_deep(chain))]
    heads = set(rolls) - {n for out in rolls.values() for _, n in out}
    out: list[Problem] = []
    for tid in rolls:
        if tid in heads and down[tid] > ROLL_DEPTH:
            chain, at = [tid], tid
            while nxt.get(at) is not None:
                at = nxt[at][1]
                chain.append(at)
            out.append(Problem(path + (tid, "entries", nxt[tid][0], "roll"), _too_deep(chain)))
    return out


def _too_deep(chain: list[str]) -> str:
    shown = " -> ".join(chain) if len(chain) <= 12 else " -> ".join(chain[:5] + ["..."] + chain[-5:])
    return (f"a roll here goes through {len(chain)} tables, one inside another ({shown}); at most {ROLL_DEPTH} "
            f"tables roll one inside another")


def _rolls(tables: Mapping[str, Any]) -> dict[str, list[tuple[int, str]]]:
    """Each table's entries that roll on another table: (entry index, table id), only tables that are there."""
    out: dict[str, list[tuple[int, str]]] = {}
    for tid, table in tables.items():
        entries = table.get("entries") if isinstance(table, Mapping) else None
        out[tid] = [(i, e["roll"]) for i, e in enumerate(entries if isinstance(entries, list) else ())
                    if isinstance(e, Mapping) and isinstance(e.get("roll"), str) and e["roll"] in tables]
    return out


def _longest(rolls: Mapping[str, list]) -> tuple[dict[str, int], dict[str, tuple[int, str] | None]]:
    """For each table, the most tables a roll on it goes through (itself included) and the first step of that
    way ((entry, table) or None); a step back into a table still being walked (a circle) is not taken. Iterative."""
    depth: dict[str, int] = {}
    step: dict[str, tuple[int, str] | None] = {}
    walking: set = set()
    for start in rolls:
        if start in depth:
            continue
        stack = [(start, 0)]
        walking.add(start)
        while stack:
            at, k = stack[-1]
            out = rolls.get(at, ())
            if k < len(out):
                stack[-1] = (at, k + 1)
                n = out[k][1]
                if n not in depth and n not in walking:
                    walking.add(n)
                    stack.append((n, 0))
                continue
            best, first = 1, None
            for i, n in out:
                if n in depth and depth[n] + 1 > best:
                    best, first = depth[n] + 1, (i, n)
            depth[at], step[at] = best, first
            walking.discard(at)
            stack.pop()
    return depth, step


def _path_back(rolls: Mapping, start: str, goal: str) -> list[str] | None:
    """The tables from ``start`` to ``goal`` following what entries roll on (both ends in), or None."""
    if start == goal:
        return [goal]
    came: dict[str, str | None] = {start: None}
    queue = [start]
    for at in queue:
        for _, nxt in rolls.get(at, ()):
            if nxt == goal:
                trail = [goal, at]
                while came[trail[-1]] is not None:
                    trail.append(came[trail[-1]])
                return trail[::-1]
            if nxt not in came:
                came[nxt] = at
                queue.append(nxt)
    return None


def entry_for(table: Mapping, total: int, shift: int = 0) -> tuple[int, Mapping]:
    """(index, entry) where ``total`` lands: the range holding it. A total a luck die pushed past the first or the
    last range stays there; one it pushed between two ranges (a D66 roll of 16, +2: 18, no D66 result) goes on in
    the direction it was pushed, to the next result up (21) for a die added, the next down for one taken off, so
    the die always moves the entry (``core.roll_tables``, assumed). ``shift``: what the luck dice added."""
    spans = sorted((parse_range(e["range"]) + (i,) for i, e in enumerate(table["entries"])), key=lambda s: s[0])
    if total <= spans[0][1]:
        return spans[0][2], table["entries"][spans[0][2]]
    below = spans[0]
    for span in spans:
        lo, hi, i = span
        if lo <= total <= hi:
            return i, table["entries"][i]
        if lo > total:  # between ``below`` and this range
            i = i if shift > 0 else below[2]
            return i, table["entries"][i]
        below = span
    return below[2], table["entries"][below[2]]


_DICE = re.compile(r"(?<![\w.])(\d*)[dD](66|\d+)((?:\s*[+-]\s*\d+(?![\w.]))?)(?![\w.])")
"""Dice written in an entry's result ('2d6 crowns', 'd6+1 goblins', 'D66 names'): rolled when it is drawn."""


def entry_dice(result: Any) -> list[tuple[int, int, str]]:
    """(start, end, notation) of each dice expression written in an entry's result: '2d6 crowns' -> [(0, 3,
    '2d6')]. A word like 'd6ft' or '3d' is not dice; what the dice parser refuses is left as words."""
    if not isinstance(result, str):
        return []
    out = []
    for m in _DICE.finditer(result):
        text = (f"{m.group(1)}d{m.group(2)}" + m.group(3).replace(" ", "")).lower()
        try:
            _parse_dice(text)
        except DiceError:
            continue
        out.append((m.start(), m.end(), text))
    return out


def true_names_table(names: Mapping, dice: str = "d66") -> dict:
    """The namer's true names (``rules.true_names``: D66 result -> name) as a roll table."""
    return {"name": "True names", "dice": dice,
            "entries": [{"range": n, "result": name} for n, name in sorted(names.items())]}


# ---------------------------------------------------------------- prepared encounters

def normal_foes(foes: Any) -> list | None:
    """A prepared encounter's foes as entries ``{foe: id, count: N}`` (a bare id counts one), or None when it is
    no list."""
    if not isinstance(foes, (list, tuple)):
        return None
    out = []
    for f in foes:
        out.append({"foe": f, "count": 1} if isinstance(f, str) else f)
    return out


def expand_foes(foes: list) -> list:
    """One entry per foe, counts expanded (what a fight starts with): ``[{foe: goblin, count: 2}]`` ->
    ``[{foe: goblin}, {foe: goblin}]``; a bare id stays as it is."""
    out = []
    for f in foes:
        if isinstance(f, Mapping) and "count" in f:
            spec = {k: v for k, v in f.items() if k != "count"}
            out += [dict(spec) for _ in range(int(f["count"]))]
        else:
            out.append(f)
    return out


def encounter_problems(enc: Any, foes_known, path: tuple = (), fields: Iterable[str] = ("foes", "name", "note", "dark")
                       ) -> list[Problem]:
    """Every problem in a prepared encounter at ``path``: its fields, and its foes (bestiary ids in
    ``foes_known``, a container, or ``{foe: id, count: N}``; at most ``ENCOUNTER_MAX_FOES``, counts added up)."""
    out: list[Problem] = []

    def add(where: tuple, reason: str) -> None:
        out.append(Problem(path + where, reason))

    if not isinstance(enc, Mapping):
        add((), f"expected a mapping describing the encounter (foes, name, note), got {show(enc)}")
        return out
    allowed = tuple(fields)
    for key in enc:
        if key not in allowed:
            add((str(key),), _unknown(key, allowed, "a prepared encounter"))
    listed = enc.get("foes")
    if "foes" not in enc:
        add(("foes",), "missing: the list of foes (bestiary ids, or {foe: id, count: N})")
    elif not isinstance(listed, list) or not listed:
        add(("foes",), f"expected a list of at least one bestiary id or {{foe: id, count: N}}, got {show(listed)}")
    else:
        total = 0
        for i, f in enumerate(listed):
            at = ("foes", i)
            if isinstance(f, Mapping):
                for key in f:
                    if key not in ("foe", "count"):
                        add(at + (str(key),), _unknown(key, ("foe", "count"), "a foe entry"))
                if "count" in f:
                    c = f["count"]
                    if not (_int(c) and c >= 1):
                        add(at + ("count",), f"expected a whole number of 1 or more, got {show(c)}")
                    else:
                        total += c - 1
                        if total + i + 1 > ENCOUNTER_MAX_FOES:
                            add(at + ("count",), f"{c:,} foes; a prepared encounter holds at most "
                                                 f"{ENCOUNTER_MAX_FOES} foes, counts added up")
                if "foe" not in f:
                    add(at + ("foe",), "missing: the bestiary id of the foe")
                    continue
                f, at = f["foe"], at + ("foe",)
            if not _text(f):
                add(at, f"expected a bestiary id (text), got {show(f)}")
            elif f not in foes_known:
                add(at, f"no foe {f!r} in the bestiary" + _known(foes_known))
    for key in ("note", "name"):
        if enc.get(key) is not None and not isinstance(enc[key], str):
            add((key,), f"expected text, got {show(enc[key])}")
    if "dark" in enc and not isinstance(enc["dark"], bool):
        add(("dark",), f"expected true or false (fought in darkness), got {show(enc['dark'])}")
    return out


def _known(foes_known) -> str:
    try:
        n = len(foes_known)
    except TypeError:
        return ""
    if n > 40:
        return f" ({n:,} foe types; find one by its id)"
    return f" (known: {', '.join(sorted(foes_known))})"
