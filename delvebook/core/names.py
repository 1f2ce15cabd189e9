"""Names a person reads: what makes a name (a delver's, a player's, a foe's, an NPC's, a foe type's), and when two
names read the same.

A name is what it shows. One with a character that draws nothing (U+200B ZERO WIDTH SPACE, a soft hyphen, a
variation selector), that turns the text around it (U+202E RIGHT-TO-LEFT OVERRIDE: U+202E + "nerW" draws "Wren"
and reverses the rest of a log line), that is not plain text (a control character, a private-use or an
unassigned code point; a lone surrogate is refused by the writer, as any text that is not UTF-8), that starts
with a mark drawn onto whatever precedes it, or that starts or ends with a space is refused, saying which
character and where. Two names that read the same are refused too: "Wren" beside "wren", a fullwidth "Wren"
(NFKC), "Wren" with a Cyrillic e (U+0435), "Wren" + U+200B, "Goblin l" beside "Goblin 1" (Unicode's confusables:
the common Latin look-alikes of Cyrillic, Greek, Armenian and digits, ``CONFUSABLE``).

``check_name(name, taken, what)`` is the one check every command that makes a name calls (and the campaign file's
schema for names written by hand): ``None`` when the name may be made, else why not, in a sentence. Its parts:
``name_problem`` (the name alone), ``look_alike`` (the name among others), ``keys`` (what two names are compared
by). Standard library only: part of the pure core.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any, Iterable, Mapping

from .statecheck import MAX_NAME

__all__ = ["check_name", "name_problem", "text_problem", "look_alike", "keys", "NameIndex", "CONFUSABLE", "MAX_NAME"]

_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""The characters that change the direction text is drawn in (and may reverse the rest of a line)."""

# characters that draw nothing but are not in a 'C' or 'Z' category: fillers, blanks, selectors, joiners
_INVISIBLE = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u2800\u3164\uffa0\ufffc"
    + "".join(chr(c) for c in range(0xFE00, 0xFE10))
    + "".join(chr(c) for c in range(0xE0100, 0xE01F0)))

_WHY = {  # by category; a lone surrogate (Cs) is left to the writer, which refuses any text that is not UTF-8
    "Cc": "a control character such as a tab or a line break",
    "Cf": "an invisible character",
    "Co": "a private-use character, drawn differently on every machine",
    "Cn": f"a character Unicode {unicodedata.unidata_version} does not define",
    "Zl": "a line break",
    "Zp": "a paragraph break",
}

MARKS_ON_ONE = 4
"""Combining marks on one letter beyond this are refused: a pile of accents draws over the lines around it."""


def _hidden(ch: str) -> str | None:
    """Why ``ch`` may not be in a name (it draws nothing, turns text around, or is not text), or None."""
    if ch in _BIDI:
        return "a direction-changing character, which turns the rest of a line around"
    if ch in _INVISIBLE:
        return "an invisible character"
    return _WHY.get(unicodedata.category(ch))


def _at(name: str, i: int) -> str:
    ch = name[i]
    called = unicodedata.name(ch, "")
    where = "at the start" if i == 0 else f"after {name[:i][-12:]!r}"
    return f"U+{ord(ch):04X}{' ' + called if called else ''} {where}"


def name_problem(name: Any, what: str = "a name") -> str | None:
    """Why ``name`` cannot be a name on its own (``what`` says whose, in the sentence: "a delver's name"), or
    None: it is text, not blank, at most ``MAX_NAME`` characters, with no character that draws nothing, turns the
    text around or is not text, no mark at its start and no space at either end."""
    if not isinstance(name, str):
        return f"{what} is text, not {type(name).__name__} {name!r}"[:200]
    if not name.strip():
        return f"{what} cannot be blank"
    if len(name) > MAX_NAME:
        return f"{what} of {len(name):,} characters; at most {MAX_NAME}"
    if name.isascii() and name.isprintable():
        if name != name.strip():
            return f"{what} starts or ends with a space: {name!r}"
        return None
    for i, ch in enumerate(name):
        why = _hidden(ch)
        if why is not None:
            return (f"{what} {name!r} holds {why} ({_at(name, i)}): a name is what it shows; "
                    f"type it without that character")
    if unicodedata.category(name[0]).startswith("M"):
        return f"{what} {name!r} starts with a combining mark ({_at(name, 0)}), which draws onto what comes before it"
    run = 0
    for i, ch in enumerate(name):
        run = run + 1 if unicodedata.category(ch).startswith("M") else 0
        if run > MARKS_ON_ONE:
            return f"{what} {name!r} piles more than {MARKS_ON_ONE} marks on one letter ({_at(name, i)})"
    if name != name.strip():
        return f"{what} starts or ends with a space: {name!r}"
    return None


_TEXT_ALLOWED = frozenset("\t\n\r\u200c\u200d")
"""What text may hold that a name may not: tabs and line breaks (a note has lines), and the joiners some scripts
and emoji are written with (they join or part the letters around them)."""
_SELECTORS = frozenset(ch for ch in _INVISIBLE if unicodedata.category(ch) == "Mn" and ch != "\u034f")
"""Variation selectors: an emoji's (U+FE0F) is text's own; a name takes none."""


def text_problem(text: Any, what: str = "the text") -> str | None:
    """Why ``text`` (a roll table's result, a foe's tag, a note, a reason: any text a person reads) cannot be
    shown as typed, or None. Looser than a name: spaces and marks anywhere, line breaks and tabs, emoji; but no
    character that turns the text around it (U+202E), draws nothing (U+200B, a soft hyphen) or is a control
    character: what a person reads is what the text holds."""
    if not isinstance(text, str) or text.isascii() and text.isprintable():
        return None
    for i, ch in enumerate(text):
        if ch in _TEXT_ALLOWED or ch in _SELECTORS:
            continue
        why = "a control character" if unicodedata.category(ch) == "Cc" else _hidden(ch)
        if why is not None and (ch in _BIDI or ch in _INVISIBLE or unicodedata.category(ch) in _NOT_TEXT):
            return f"{what} holds {why} ({_at(text, i)}): type it without that character"
    return None


_NOT_TEXT = frozenset({"Cc", "Cf", "Zl", "Zp"})


# ---------------------------------------------------------------- names that read the same

CONFUSABLE: dict[str, str] = {
    # digits and Latin letters that other Latin letters pass for (Unicode's confusables: I, l, 1 and | read alike)
    "1": "l", "I": "l", "|": "l", "\u01c0": "l", "0": "O", "\u0131": "i", "\u0269": "i", "\u0251": "a",
    "\u0261": "g",
    # Cyrillic
    "\u0410": "A", "\u0412": "B", "\u0415": "E", "\u041a": "K", "\u041c": "M", "\u041d": "H", "\u041e": "O",
    "\u0420": "P", "\u0421": "C", "\u0422": "T", "\u0423": "Y", "\u0425": "X", "\u0405": "S", "\u0406": "l",
    "\u0408": "J", "\u04ae": "Y", "\u04c0": "l", "\u051a": "Q", "\u051c": "W",
    "\u0430": "a", "\u0435": "e", "\u043e": "o", "\u0440": "p", "\u0441": "c", "\u0443": "y", "\u0445": "x",
    "\u0455": "s", "\u0456": "i", "\u0458": "j", "\u0501": "d", "\u051b": "q", "\u051d": "w", "\u04bb": "h",
    "\u04cf": "l", "\u0475": "v",
    # Greek
    "\u0391": "A", "\u0392": "B", "\u0395": "E", "\u0396": "Z", "\u0397": "H", "\u0399": "l", "\u039a": "K",
    "\u039c": "M", "\u039d": "N", "\u039f": "O", "\u03a1": "P", "\u03a4": "T", "\u03a5": "Y", "\u03a7": "X",
    "\u03bf": "o", "\u03bd": "v", "\u03c1": "p", "\u03b9": "i", "\u03b1": "a", "\u03f3": "j",
    # Armenian
    "\u0585": "o", "\u057d": "u", "\u0570": "h", "\u0578": "n",
}
"""Letters that read as another (Latin) letter, from Unicode's confusables (UTS #39): the common ones. Two names
whose letters map to the same read the same."""

_MAP = str.maketrans(CONFUSABLE)  # as written: a capital I reads as l
_LOWER = str.maketrans({k: v.casefold() for k, v in CONFUSABLE.items() if k.casefold() == k})  # after casefold
_SPACES = re.compile(r"\s+")


@lru_cache(maxsize=8192)  # a fight asks of the same few names over and over
def keys(name: str) -> tuple[str, str, str]:
    """What two names are compared by, each with its compatibility forms folded (NFKC), what draws nothing left out
    and its spaces as one: (its case folded; each letter read as the Latin letter it looks like; its case folded,
    then each letter read so). Two names read the same when any of their keys is the same, key for key ("Ivan" and
    "lvan" by the second, "wr\\u0435n" (a Cyrillic e) and "Wren" by the third; "Ilse" and "Llse" by none)."""
    text = unicodedata.normalize("NFKC", name)
    text = "".join(ch for ch in text if _hidden(ch) is None)
    text = _SPACES.sub(" ", text).strip()
    plain = unicodedata.normalize("NFKC", text.casefold())
    return plain, text.translate(_MAP), plain.translate(_LOWER)


class NameIndex:
    """Names (and what each is: "a delver") by their keys, to ask of many new names at once which one each reads
    like: a fight numbering its foes asks for Goblin 1, Goblin 2, ... of every name in play."""

    def __init__(self, names: Iterable[str] | Mapping[str, str] = ()) -> None:
        self._what: dict[str, str] = {}
        self._by: dict[tuple[int, str], str] = {}
        for n in names:
            self.add(n, names[n] if isinstance(names, Mapping) else "")

    def add(self, name: str, what: str = "") -> None:
        if not isinstance(name, str) or name in self._what:
            return
        self._what[name] = what
        for i, k in enumerate(keys(name)):
            self._by.setdefault((i, k), name)

    def __contains__(self, name: object) -> bool:
        return name in self._what

    def __iter__(self):
        return iter(self._what)

    def what(self, name: str) -> str:
        """What ``name`` is, as it was added ("" if not said)."""
        return self._what.get(name, "")

    def find(self, name: str) -> str | None:
        """The name here that reads the same as ``name`` (itself, if it is here), or None."""
        if not isinstance(name, str):
            return None
        if name in self._what:
            return name
        for i, k in enumerate(keys(name)):
            hit = self._by.get((i, k))
            if hit is not None:
                return hit
        return None


def look_alike(name: str, names: Iterable[str]) -> str | None:
    """The first of ``names`` that reads the same as ``name`` (itself, if it is there), or None."""
    if not isinstance(name, str):
        return None
    if isinstance(names, NameIndex):
        return names.find(name)
    if isinstance(names, (set, frozenset, dict)) and name in names:
        return name
    mine = keys(name)
    for other in names:
        if not isinstance(other, str):
            continue
        if other == name:
            return other
        k = keys(other)
        if k[0] == mine[0] or k[1] == mine[1] or k[2] == mine[2]:
            return other
    return None


def check_name(name: Any, taken: Iterable[str] | Mapping[str, str] | NameIndex = (),
               what: str = "a name") -> str | None:
    """Why ``name`` cannot be made beside the names ``taken`` (a mapping or a ``NameIndex`` may say what each is:
    "a delver"), or None. The name alone (``name_problem``), then no name taken that reads the same (``look_alike``)."""
    problem = name_problem(name, what)
    if problem is not None:
        return problem
    other = look_alike(name, taken)
    if other is None:
        return None
    what_is = taken.what(other) if isinstance(taken, NameIndex) else \
        taken.get(other) if isinstance(taken, Mapping) else None
    whose = f" ({other!r} is {what_is})" if what_is else ""
    if other == name:
        return f"{name!r} is already a name here{whose}"
    return (f"{what} {name!r} reads the same as {other!r}{whose}{_letters(name, other)}: "
            f"pick a name that reads differently")


def _letters(name: str, other: str) -> str:
    """The letters of ``name`` from another script or form than ``other``'s, named (what a person cannot see)."""
    odd = [ch for ch in dict.fromkeys(name) if not ch.isascii() and ch not in other]
    if not odd:
        return ""
    return " (" + ", ".join(f"{ch!r} is {unicodedata.name(ch, f'U+{ord(ch):04X}')}" for ch in odd[:3]) + ")"
