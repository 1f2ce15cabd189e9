"""The limits of every number and every size a keeper (a form, a call, a file written by hand) or a forged message
can set, and the check of a command's arguments against them (``argument_problem``).

A limit is checked before any work that grows with what it bounds (a multi-attack's count, a foe's hearts) and
said in the refusal with the field it is about: ``multi_attack: at most 10, not 100,000``. The foe fields' limits
are the bestiary's schema's (``data``), so ``validate`` refuses in ``campaign.yaml`` what a command refuses from
the table. Standard library only.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Mapping
from typing import Any

from ...names import text_problem
from ...statecheck import MAX_INT, MAX_NAME

__all__ = ["FOE_MAX_HEARTS", "MULTI_ATTACK", "ARMOR_MAX", "MAX_TAGS", "MAX_ARGUMENT", "MAX_WORDS", "MAX_NOTE",
           "MAX_ENTRIES_GIVEN", "MAX_CHARACTERS", "MAX_FIGHTS", "ARGUMENTS", "SIZES", "MAX_SAID", "argument_problem",
           "number_shown", "cut", "shorten"]

FOE_MAX_HEARTS = 10_000
"""A foe type's (or a creature's) hearts at most, as a delver's starting sheet (``SHEET_MAX_HEARTS``)."""
MULTI_ATTACK = 10
"""Attacks in one multi-attack at most (the text's are 2): each more D20 is met by every defence of the target,
so its work grows with the square of the count."""
ARMOR_MAX = {"av": 100, "dv": 1_000}
"""A creature's armor at most: the text's leather armor is AV 1, DV 10."""
MAX_TAGS = 20
"""Tags of one foe type (undead, demon, evil...)."""

MAX_FIGHTS = 1_000_000
"""Fights one danger forecast plays at most (it is within ±2 points long before 10,000)."""

MAX_ARGUMENT = 1_000_000
"""A whole number any command takes, at most either way, unless ``ARGUMENTS`` says otherwise."""
MAX_WORDS = 2_000
"""Characters of one text a command takes (a name looked up, a reason, a result), unless it is a note."""
MAX_NOTE = 20_000
"""Characters of a keeper's note or a description (the most the state holds in one text)."""
_NOTES = frozenset({"note", "description"})
MAX_ENTRIES_GIVEN = 1_000
"""Entries of one list or mapping a command takes (a roll table's entries, an encounter's foes)."""
_MAX_DEPTH = 6
_MAX_TEXTS = 5_000  # texts and numbers in one command's arguments, all together
MAX_CHARACTERS = 100_000
"""Characters of all the texts one argument holds together (a roll table's thousand entries of 100 characters)."""

_LESS = -MAX_ARGUMENT  # (the least a command says in its own words, as the schema's: "a whole number of 1 or more")

ARGUMENTS: dict[tuple[str | None, str], tuple[int, int]] = {
    (None, "multi"): (_LESS, MULTI_ATTACK),
    (None, "multi_attack"): (_LESS, MULTI_ATTACK),
    (None, "count"): (_LESS, 1_000),
    (None, "hearts"): (_LESS, FOE_MAX_HEARTS),
    (None, "av"): (_LESS, ARMOR_MAX["av"]),
    (None, "dv"): (_LESS, ARMOR_MAX["dv"]),
    ("advance_time", "seconds"): (0, 366 * 24 * 3600),
    ("advance_time", "minutes"): (0, 366 * 24 * 60),
    ("advance_time", "hours"): (0, 366 * 24),
    ("check", "target"): (1, 100),
    ("trap", "target"): (1, 100),
    ("end_condition", "id"): (0, MAX_INT),
}
"""(command, argument) -> the least and the most it takes; (None, argument): the same argument (or field of one)
of any command. Every other whole number is within ``MAX_ARGUMENT`` either way."""
_ANY = (-MAX_ARGUMENT, MAX_ARGUMENT)

SIZES: dict[tuple[str | None, str], int] = {(None, "tags"): MAX_TAGS}
"""(command, argument) -> the most entries a list or mapping it takes holds; every other ``MAX_ENTRIES_GIVEN``."""


def number_shown(n: int) -> str:
    """A whole number as a refusal says it: 100,000; one too long to write out by its count of digits."""
    if abs(n) < 10 ** 15:
        return f"{n:,}"
    digits = int(abs(n).bit_length() * math.log10(2)) + 1  # (str() refuses past 4,300 digits)
    return f"a number of about {digits:,} digits" if digits > 4000 else f"a number of {len(str(abs(n))):,} digits"


def cut(text: str, most: int = 40) -> str:
    """A typed text as a refusal quotes it: whole if short, else its start and how long it is."""
    if len(text) <= most:
        return repr(text)
    return f"{text[:most - 3]!r}... ({len(text):,} characters)"


MAX_SAID = 600
"""Characters of one refusal as the table shows it."""
_QUOTED = re.compile(r"'(?:[^'\\\n]|\\.){61,}'" + r'|"(?:[^"\\\n]|\\.){61,}"')


def shorten(text: str, most: int = MAX_SAID) -> str:
    """A refusal as the table shows it: each long value it quotes cut to its start and its length (a typed name
    of 20,000 characters is said in 40), and the whole at most ``most`` characters."""
    def quoted(m: re.Match) -> str:
        try:
            value = ast.literal_eval(m.group(0))
        except (ValueError, SyntaxError, MemoryError):
            value = m.group(0)[1:-1]
        return cut(value) if isinstance(value, str) else m.group(0)[:40] + "..."
    text = _QUOTED.sub(quoted, str(text))
    return text if len(text) <= most else text[:most - 3] + "..."


def _where(path: tuple) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def argument_problem(kind: str, name: str, value: Any) -> tuple[str, str] | None:
    """(the field, why) if argument ``name`` of command ``kind`` holds what no command takes: a whole number past
    its limit (``ARGUMENTS``, else ``MAX_ARGUMENT``), a number that is not finite, a text longer than
    ``MAX_WORDS`` (a note: ``MAX_NOTE``) or one holding a character that turns text around or draws nothing
    (``names.text_problem``), a list or mapping of more than ``MAX_ENTRIES_GIVEN`` entries or nested deeper than a
    form can send. None if it holds nothing of the kind. Iterative, and bounded by the count of what it walks."""
    stack = [((name,), value, 0)]
    seen = characters = 0
    while stack:
        path, v, depth = stack.pop()
        seen += 1
        if seen > _MAX_TEXTS:
            return name, f"{name}: more than {_MAX_TEXTS:,} values in one action"
        cls = v.__class__
        if cls is bool or v is None:
            continue
        if cls is int:
            key = path[-1]
            lo, hi = ARGUMENTS.get((kind, key)) or ARGUMENTS.get((None, key)) or _ANY
            if not lo <= v <= hi:
                where = _where(path)
                bound = f"at most {hi:,}" if v > hi else f"at least {lo:,}"
                return where, f"{where}: {bound}, not {number_shown(v)}"
        elif cls is float:
            if not (math.isfinite(v) and abs(v) <= MAX_ARGUMENT):
                where = _where(path)
                return where, f"{where}: a number from {-MAX_ARGUMENT:,} to {MAX_ARGUMENT:,}, not {v!r}"
        elif cls is str:
            most = MAX_NOTE if path[-1] in _NOTES else MAX_WORDS
            where = _where(path)
            if len(v) > most:
                return where, f"{where}: a text of {len(v):,} characters; at most {most:,}"
            characters += len(v)
            if characters > MAX_CHARACTERS:
                return name, f"{name}: more than {MAX_CHARACTERS:,} characters of text all together"
            problem = text_problem(v, where)
            if problem is not None:
                return where, problem
        elif isinstance(v, (list, tuple, Mapping)):
            where = _where(path)
            most = SIZES.get((kind, path[-1])) or SIZES.get((None, path[-1])) or MAX_ENTRIES_GIVEN
            if len(v) > most:
                return where, f"{where}: {len(v):,} entries; at most {most:,}"
            if depth >= _MAX_DEPTH:
                return where, f"{where}: nested more than {_MAX_DEPTH} deep"
            if isinstance(v, Mapping):
                for k, x in v.items():
                    if isinstance(k, str) and len(k) > MAX_NAME:
                        return where, f"{where}: a field name of {len(k):,} characters; at most {MAX_NAME}"
                    stack.append((path + (k,), x, depth + 1))
            else:
                stack.extend((path + (i,), x, depth + 1) for i, x in enumerate(v))
    return None
