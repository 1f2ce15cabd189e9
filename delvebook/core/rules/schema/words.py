"""The schema's words: what a problem is (``Problem``, ``RulesError``), how a value and a path are shown, the
fields each file holds, and the small checks every part of the schema shares. Standard library only."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from typing import Any, Iterable, Iterator, NamedTuple

from ...dice import DiceError, parse as _parse_dice
from ...distribution import MAX_WORK, work as _dice_work
from ...statecheck import MAX_INT, MAX_TEXT
from .bounds import number_shown


FORMAT_VERSION = 1
"""The campaign file and event format this delvebook writes; older ones are upgraded on read."""

FILES = ("core", "classes", "spells", "true_names", "gear", "bestiary")
"""The rules files, in load order; each becomes the top-level key of the same name."""

PROVENANCE_KEYS = frozenset({"source", "quote", "reason", "assumed", "note", "reading"})
"""Keys that say where data came from; allowed in any mapping, never game data themselves."""

SOURCES = ("text", "assumed", "house")

ALL = "all"
"""A count that stands for every one of a list (``spells_known: all``: "learn the remaining mage spell list"): what the
list holds, however many that is, a house rule's additions included."""
NUMBERED = "numbered"
"""``random_pick: numbered``: a die with one face for each numbered spell of the list (d6 for six, d7 for seven)."""

OPEN_TABLES = (
    ("gear",),
    ("gear", "*"),
    ("bestiary",),
    ("spells",),
    ("spells", "*", "spells"),
    ("classes",),
    ("classes", "*", "skills"),
    ("classes", "*", "abilities"),
    ("classes", "*", "resources"),
    ("classes", "*", "resources", "*", "max"),
    ("classes", "*", "levels"),
    ("classes", "*", "levels", "*", "choices"),
    ("classes", "*", "levels", "*", "choices", "*", "options"),
    ("core", "levels", "thresholds"),
    ("core", "durations"),
    ("core", "currency", "units"),
)
"""Paths (``*`` matches any key) where house rules may add new keys; everywhere else an unknown key is an error."""

CAMPAIGN_FIELDS = ("format", "name", "seed", "seats", "players", "delvers", "bestiary", "encounters", "tables",
                   "rooms", "quests", "house_rules", "notes")
"""The top-level fields of ``campaign.yaml``, in the order delvebook writes them; any other key is an error."""

SHEET_FIELDS = ("name", "class", "player", "hearts", "choices", "spells", "true_names", "purse")
"""The fields of a delver's starting sheet in ``campaign.yaml``; ``name`` and ``class`` are required."""

FOE_FIELDS = {
    "name": "text", "hearts": "posint", "attack_bonus": "dice", "damage": "dice", "tags": "texts",
    "multi_attack": "posint", "ranged": "bool", "armor": "armor", "counters": "bool",
}
"""What a foe's fields hold, in the shipped bestiary, in house rules and in a campaign's own bestiary alike."""

FOE_REQUIRED = ("name", "hearts", "attack_bonus", "damage", "tags")
"""The fields every new foe must give (an entry over a shipped foe changes only what it names)."""

ENCOUNTER_FIELDS = ("foes", "name", "note", "dark")
"""The fields of a prepared encounter; ``foes`` is required."""

ENCOUNTER_MAX_FOES = 100
"""Foes in one prepared encounter, counts added up (a table fights a handful; 20,000 took the engine 100 s)."""

SHEET_MAX_HEARTS = 10_000
"""A delver's starting hearts on a sheet at most (the text's delvers start with a dozen or two)."""

PLACE_FIELDS = ("name", "note")
"""The fields of a room or a quest; ``name`` is required."""

_SKILL_LEVELS = ("proficient", "expert")
_HEARTS_KINDS = ("set", "roll", "gain")
_D66 = tuple(10 * a + b for a in range(1, 7) for b in range(1, 7))

_WORDS = {
    "text": "text", "int": "a whole number", "posint": "a whole number of 1 or more",
    "nonneg": "a whole number of 0 or more", "bool": "true or false",
    "dice": "dice (like d6+1) or a whole number", "roll": "dice to roll (like d20 or 2d6), not a flat number",
    "die": "a single die (like d6 or d4)", "mapping": "a mapping", "list": "a list", "texts": "a list of text",
    "text_or_null": "text or null", "roll_or_null": "dice to roll (like d6) or null",
    "armor": "armor as {av: N, dv: N}, or null",
}


class Problem(NamedTuple):
    """One thing wrong: where (keys and list indexes from the top of the data), and what was expected."""

    path: tuple
    reason: str


class RulesError(ValueError):
    """Rules data (shipped or a campaign's house rules) that has the wrong shape.

    ``problems`` holds every ``Problem`` found (paths from the top of the rules data), so a caller can say where
    each one sits in its file; the message lists them with ``prefix``."""

    def __init__(self, message: str, problems: Iterable[Problem] = (), prefix: str = ""):
        self.problems = tuple(problems)
        self.prefix = prefix
        super().__init__(message)

    @classmethod
    def of(cls, problems: Iterable[Problem], prefix: str = "rules: ") -> "RulesError":
        """A RulesError whose message lists ``problems``, each as ``<prefix><dotted path>: <reason>``."""
        problems = tuple(problems)
        lines = [f"{prefix}{dotted(p.path)}: {p.reason}" if p.path else f"{prefix.rstrip(': ')}: {p.reason}"
                 for p in problems]
        message = lines[0] if len(lines) == 1 else f"{len(lines)} problems:\n  " + "\n  ".join(lines)
        return cls(message, problems, prefix)

    def __reduce__(self):
        return (type(self), (str(self), self.problems, self.prefix))


# ---------------------------------------------------------------- words and small helpers


def show(value: Any) -> str:
    """A value as a problem's reason shows it: text quoted, true/false and null in YAML's words."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "nothing (null)"
    if isinstance(value, str):
        return repr(value) if len(value) <= 60 else repr(value[:57] + "...")
    if isinstance(value, Mapping):
        return "a mapping" if value else "an empty mapping"
    if isinstance(value, (list, tuple)):
        return "a list" if value else "an empty list"
    if isinstance(value, (_dt.date, _dt.datetime)):
        return f"a date ({value})"
    if isinstance(value, int) and abs(value) >= 10 ** 15:
        return number_shown(value)
    return repr(value)


def dotted(path: Iterable) -> str:
    """A rules path as the rules' messages write it: ``core.luck_dice.die``."""
    return ".".join(str(p) for p in path)


def field_name(path: Iterable, data: Any = None) -> str:
    """A path as a campaign file's errors write it: ``delvers[1].class``, ``house_rules.core.luck_dice.die``.

    With ``data``, an index into a list is written ``[i]`` and a number key of a mapping ``.i``; without it,
    every number is taken for a list index."""
    out = ""
    node = data
    for p in path:
        in_list = isinstance(node, (list, tuple)) if data is not None else isinstance(p, int)
        out += f"[{p}]" if in_list and isinstance(p, int) else (f".{p}" if out else str(p))
        if isinstance(node, Mapping):
            node = node.get(p)
        elif isinstance(node, (list, tuple)) and isinstance(p, int) and 0 <= p < len(node):
            node = node[p]
        else:
            node = None
    return out


def _thaw(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_thaw(v) for v in value]
    return value


def _matches(parts: tuple, patterns: tuple) -> bool:
    for pattern in patterns:
        if len(pattern) == len(parts) and all(p == "*" or p == k for p, k in zip(pattern, parts)):
            return True
    return False


def _is_int(value: Any) -> bool:
    """A whole number (not true/false) within what a browser reads exactly (``statecheck.MAX_INT``)."""
    return isinstance(value, int) and not isinstance(value, bool) and -MAX_INT <= value <= MAX_INT


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip()) and len(value) <= MAX_TEXT


def _data_items(node: Mapping) -> Iterator[tuple[Any, Any]]:
    """The entries of a mapping without its provenance keys."""
    for key, value in node.items():
        if key not in PROVENANCE_KEYS:
            yield key, value


def _dice_problem(value: Any, kind: str) -> str | None:
    """None if ``value`` is what the engine reads for a ``dice``, ``roll`` or ``die`` field; else the reason."""
    words = _WORDS[kind]
    if _is_int(value):
        return None if kind == "dice" else f"expected {words}, got {show(value)}"
    if not isinstance(value, str) or not value.strip():
        return f"expected {words}, got {show(value)}"
    try:
        expr = _parse_dice(value)
    except DiceError as err:
        return f"expected {words}, got {show(value)}: {err}"
    if kind == "roll" and all(t.is_constant for t in expr.terms):
        return f"expected {words}, got {show(value)}: it rolls no dice"
    if _dice_work(expr) > MAX_WORK:  # its odds are shown beside every button that rolls it
        return (f"{show(value)} is too large to work out its odds exactly (about {_dice_work(expr):,} steps; at "
                f"most {MAX_WORK:,}): use fewer dice or fewer sides")
    if kind == "die":
        terms = expr.terms
        one = len(terms) == 1 and terms[0].count == 1 and terms[0].sign > 0 and not terms[0].keep \
            and not terms[0].d66
        if not one:
            return (f"expected {words}, got {show(value)}: the engine rolls one die here, written dN "
                    f"(no count, modifier, keep or d66)")
    return None


def _is_dice(value: Any) -> bool:
    return _dice_problem(value, "dice") is None


_CHECKS = {
    "text": _is_text,
    "int": _is_int,
    "posint": lambda v: _is_int(v) and v > 0,
    "nonneg": lambda v: _is_int(v) and v >= 0,
    "bool": lambda v: isinstance(v, bool),
    "mapping": lambda v: isinstance(v, Mapping),
    "list": lambda v: isinstance(v, (list, tuple)),
    "texts": lambda v: isinstance(v, (list, tuple)) and all(_is_text(x) for x in v),
    "text_or_null": lambda v: v is None or isinstance(v, str),
}


def _too_long(value: Any, kind: str) -> str | None:
    """The limit a text (or a text of a list of them) went past, in words; None if none did."""
    texts = [value] if kind in ("text", "text_or_null") else value if kind == "texts" and isinstance(value, list) else ()
    for i, text in enumerate(texts):
        if isinstance(text, str) and len(text) > MAX_TEXT:
            where = f"[{i}]: " if kind == "texts" else ""
            return f"{where}text of {len(text):,} characters; at most {MAX_TEXT:,}"
    return None


class _Problems:
    """Problems found so far, each a Problem(path, reason)."""

    def __init__(self) -> None:
        self.items: list[Problem] = []

    def add(self, path: tuple, reason: str) -> None:
        self.items.append(Problem(tuple(path), reason))

    def kind(self, path: tuple, value: Any, kind: str) -> bool:
        """Check ``value`` is of ``kind``; add a problem saying what was expected if not."""
        if kind in ("dice", "roll", "die"):
            reason = _dice_problem(value, kind)
        elif kind == "roll_or_null":
            reason = None if value is None else _dice_problem(value, "roll")
            if reason is not None:
                reason = f"expected {_WORDS[kind]}, got {show(value)}"
        elif kind == "armor":
            return self.armor(path, value)
        elif _CHECKS[kind](value):
            reason = None
        else:
            reason = _too_long(value, kind) or f"expected {_WORDS[kind]}, got {show(value)}"
        if reason is not None:
            self.add(path, reason)
            return False
        return True

    def armor(self, path: tuple, value: Any) -> bool:
        if value is None:
            return True
        if not isinstance(value, Mapping):
            self.add(path, f"expected {_WORDS['armor']}, got {show(value)}")
            return False
        good = True
        for k in ("av", "dv"):
            if k not in value:
                self.add(path + (k,), "missing: armor has av (armor value) and dv (durability) as whole numbers")
                good = False
            elif not (_is_int(value[k]) and value[k] >= 0):
                self.add(path + (k,), f"expected {_WORDS['nonneg']}, got {show(value[k])}")
                good = False
        for k, _ in _data_items(value):
            if k not in ("av", "dv"):
                self.add(path + (k,), "unknown armor field; armor has av and dv")
                good = False
        return good

    def need(self, node: Any, path: tuple, key: Any, kind: str, *, optional: bool = False) -> Any:
        """Check ``node[key]`` is of ``kind``; returns the value, or None if it is missing or wrong."""
        if not isinstance(node, Mapping):
            self.add(path, f"expected a mapping, got {show(node)}")
            return None
        if key not in node:
            if not optional:
                self.add(path + (key,), "missing")
            return None
        value = node[key]
        return value if self.kind(path + (key,), value, kind) else None
