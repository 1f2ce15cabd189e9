"""Dice notation, rolls that keep every die, luck dice, and faces typed by hand.

Parsing, rolling and showing are separate steps: ``parse`` turns text into an
``Expression`` (read once per notation), ``Expression.roll`` draws faces into a ``Roll`` that keeps
every die (kept and dropped), and a ``Roll`` renders itself as text (as HTML: ``dice_html``).

Notation (case-insensitive, spaces allowed): ``d20``, ``2d6``, ``3d6+1``,
``d20+d6-2``, ``2d20kh1`` / ``2d20kl1`` (keep highest / lowest), ``d66`` (the
game's table roll: a tens D6 then a ones D6, 11..66), flat numbers, any number of
terms joined by ``+`` and ``-``.

Standard library only: this module is part of the pure core.
"""

from __future__ import annotations

import random as _random
from functools import lru_cache
from typing import Sequence

__all__ = [
    "DiceError",
    "Term",
    "Expression",
    "Die",
    "LuckDie",
    "Roll",
    "parse",
    "roll",
    "MAX_DICE",
    "MAX_SIDES",
    "MAX_CONSTANT",
]

MAX_DICE = 1000        # dice in one roll, all terms together
MAX_SIDES = 1000       # sides of one die
MAX_CONSTANT = 1_000_000
_MAX_TEXT = 2000       # characters of notation read at all


class DiceError(ValueError):
    """A dice string or a typed face that cannot be read; says where and what was expected."""

    def __init__(self, message: str, expr: str = "", position: int | None = None):
        self.expr = expr
        self.position = position
        self.reason = message
        if position is not None and expr:
            shown = expr if len(expr) <= 80 else expr[:77] + "..."
            caret = " " * min(position, len(shown)) + "^"
            message = f"{message} (at position {position} of {shown!r})\n  {shown}\n  {caret}"
        super().__init__(message)


class Term:
    """One term of an expression: ``count`` dice of ``sides`` (or a d66, or a constant), with a sign."""

    __slots__ = ("sign", "count", "sides", "keep", "keep_n", "constant", "d66")

    def __init__(self, sign: int, count: int = 0, sides: int = 0, keep: str | None = None,
                 keep_n: int = 0, constant: int = 0, d66: bool = False):
        self.sign = sign
        self.count = count
        self.sides = sides
        self.keep = keep          # "h", "l" or None
        self.keep_n = keep_n
        self.constant = constant
        self.d66 = d66

    @property
    def is_constant(self) -> bool:
        return self.count == 0

    def text(self) -> str:
        """The term in canonical notation, without its sign."""
        if self.is_constant:
            return str(self.constant)
        if self.d66:
            return "d66"
        body = f"{self.count if self.count != 1 else ''}d{self.sides}"
        if self.keep:
            body += f"k{self.keep}{self.keep_n}"
        return body

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Term) and all(
            getattr(self, s) == getattr(other, s) for s in self.__slots__)

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, s) for s in self.__slots__))

    def __repr__(self) -> str:
        return f"Term({'-' if self.sign < 0 else '+'}{self.text()})"


class Die:
    """One die drawn: its number of sides, the face it shows, whether it counts."""

    __slots__ = ("sides", "face", "kept")

    def __init__(self, sides: int, face: int, kept: bool = True):
        self.sides = sides
        self.face = face
        self.kept = kept

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Die) and self.sides == other.sides
                and self.face == other.face and self.kept == other.kept)

    def __hash__(self) -> int:
        return hash((self.sides, self.face, self.kept))

    def __repr__(self) -> str:
        return f"Die(d{self.sides}={self.face}{'' if self.kept else ', dropped'})"


class LuckDie:
    """A luck die spent on a roll: its face, added (+1) or subtracted (-1), and who spent it."""

    __slots__ = ("sides", "face", "sign", "who")

    def __init__(self, sides: int, face: int, sign: int, who: str | None = None):
        self.sides = sides
        self.face = face
        self.sign = sign
        self.who = who

    @property
    def value(self) -> int:
        return self.sign * self.face

    def to_dict(self) -> dict:
        return {"sides": self.sides, "face": self.face, "sign": self.sign, "who": self.who}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LuckDie) and self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return f"LuckDie({'+' if self.sign > 0 else '-'}d{self.sides}={self.face}, who={self.who!r})"


class Expression:
    """Parsed notation: a tuple of terms. Immutable; obtain with ``parse``."""

    __slots__ = ("terms", "text", "dice_count", "_plan", "_constant")

    def __init__(self, terms: tuple[Term, ...]):
        self.terms = terms
        parts = []
        for i, t in enumerate(terms):
            if i == 0:
                parts.append(("-" if t.sign < 0 else "") + t.text())
            else:
                parts.append(("-" if t.sign < 0 else "+") + t.text())
        self.text = "".join(parts)
        self.dice_count = sum(2 if t.d66 else t.count for t in terms)
        # what rolling draws, per term: None for a constant (the constants summed once), else (sides, count, sign,
        # keep, keep_n, d66), a d66 as two d6
        self._plan = tuple(None if t.is_constant else
                           (6 if t.d66 else t.sides, 2 if t.d66 else t.count, t.sign, t.keep, t.keep_n, t.d66)
                           for t in terms)
        self._constant = sum(t.sign * t.constant for t in terms if t.is_constant)

    @property
    def min(self) -> int:
        return sum(_term_bounds(t)[0] for t in self.terms)

    @property
    def max(self) -> int:
        return sum(_term_bounds(t)[1] for t in self.terms)

    def roll(self, rng: _random.Random | None = None, *, faces: Sequence[int] | None = None,
             who: str | None = None, why: str | None = None) -> "Roll":
        if faces is not None:
            return self._from_faces(faces, who, why)
        if rng is None:
            rng = _random.Random()
        draw = rng.randrange
        faces_by_term: list = []
        dropped = None
        total = self._constant
        for p in self._plan:
            if p is None:  # a constant (summed once)
                faces_by_term.append(None)
                continue
            sides, count, sign, keep, keep_n, d66 = p
            fs = (draw(sides) + 1,) if count == 1 else tuple([draw(sides) + 1 for _ in range(count)])
            if d66:
                value = fs[0] * 10 + fs[1]
            elif keep is None:
                value = fs[0] if count == 1 else sum(fs)
            else:
                value, drop = _keep_faces(fs, keep, keep_n)
                if dropped is None:
                    dropped = [()] * len(self.terms)
                dropped[len(faces_by_term)] = drop
            total += value if sign > 0 else -value
            faces_by_term.append(fs)
        return Roll(self, tuple(faces_by_term), total, who, why, (), tuple(dropped) if dropped else None)

    def _from_faces(self, faces: Sequence[int], who, why) -> "Roll":
        faces = list(faces)
        typed = len(faces)
        need = self.dice_count
        faces_by_term = []
        dropped = [()] * len(self.terms)
        total = self._constant
        i = 0
        for p in self._plan:
            if p is None:  # a constant (summed once)
                faces_by_term.append(None)
                continue
            sides, count, sign, keep, keep_n, d66 = p
            if d66:
                if i < typed and _is_int(faces[i]) and 11 <= faces[i] <= 66:
                    # the keeper typed the table value, e.g. 34
                    tens, ones = divmod(faces[i], 10)
                    if not (1 <= tens <= 6 and 1 <= ones <= 6):
                        raise DiceError(f"d66 face {faces[i]} is not a d66 result: both digits must be 1..6")
                    i += 1
                    need -= 1
                else:
                    tens = _face(faces, i, 6, "d66 tens die")
                    ones = _face(faces, i + 1, 6, "d66 ones die")
                    i += 2
                faces_by_term.append((tens, ones))
                total += sign * (tens * 10 + ones)
                continue
            fs = []
            for k in range(i, i + count):
                f = faces[k] if k < typed else None
                if f.__class__ is not int or not 1 <= f <= sides:  # (what _face checks, and says, asked only then)
                    f = _face(faces, k, sides, f"d{sides}")
                fs.append(f)
            fs = tuple(fs)
            i += count
            if keep:
                kept_sum, dropped[len(faces_by_term)] = _keep_faces(fs, keep, keep_n)
            else:
                kept_sum = sum(fs)
            faces_by_term.append(fs)
            total += sign * kept_sum
        if i != typed:
            raise DiceError(f"{self.text} takes {need} faces, got {typed}")
        return Roll(self, tuple(faces_by_term), total, who, why, (), tuple(dropped) if any(dropped) else None)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Expression) and self.terms == other.terms

    def __hash__(self) -> int:
        return hash(self.terms)

    def __repr__(self) -> str:
        return f"Expression({self.text!r})"



def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _face(faces: list, i: int, sides: int, what: str) -> int:
    if i >= len(faces):
        raise DiceError(f"not enough faces typed: the {what} (die {i + 1}) has none")
    f = faces[i]
    if not _is_int(f):
        raise DiceError(f"face {f!r} for the {what} is not a whole number")
    if not 1 <= f <= sides:
        raise DiceError(f"face {f} is impossible on the {what}: expected 1..{sides}")
    return f


def _keep_faces(faces: tuple[int, ...], keep: str, keep_n: int) -> tuple[int, tuple[int, ...]]:
    """The kept sum and the indices of the dropped dice (ties drop the later die)."""
    order = sorted(range(len(faces)), key=faces.__getitem__, reverse=(keep == "h"))
    return sum(faces[k] for k in order[:keep_n]), tuple(sorted(order[keep_n:]))


def _term_bounds(t: Term) -> tuple[int, int]:
    if t.is_constant:
        lo = hi = t.constant
    elif t.d66:
        lo, hi = 11, 66
    else:
        n = t.keep_n if t.keep else t.count
        lo, hi = n, n * t.sides
    return (lo, hi) if t.sign > 0 else (-hi, -lo)


# ---------------------------------------------------------------- parsing

def parse(expr: str) -> Expression:
    """Read dice notation into an ``Expression``; raises ``DiceError`` saying where and what was expected."""
    if isinstance(expr, str):
        return _parse_text(expr)
    if isinstance(expr, Expression):
        return expr
    raise DiceError(f"dice notation must be text like '2d6+1', got {type(expr).__name__}")


# Kept: the same few notations are read by every roll, attack plan and odds; worth 1.58x the forecast's fights,
# 1.24x a recorded action, 1.39x a view model (bench/caches.py).
@lru_cache(maxsize=4096)
def _parse_text(expr: str) -> Expression:
    return _Parser(expr).parse()


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.s = text.lower()
        self.i = 0

    def fail(self, message: str, at: int | None = None):
        raise DiceError(message, self.text, self.i if at is None else at)

    def skip(self):
        s, i = self.s, self.i
        while i < len(s) and s[i] in " \t":
            i += 1
        self.i = i

    def peek(self) -> str:
        return self.s[self.i] if self.i < len(self.s) else ""

    def number(self, what: str) -> int:
        start = self.i
        s = self.s
        while self.i < len(s) and s[self.i].isdigit() and s[self.i].isascii():
            self.i += 1
        digits = s[start:self.i]
        if not digits:
            found = repr(s[start]) if start < len(s) else "the end"
            self.fail(f"expected {what}, found {found}", start)
        if len(digits) > 7:
            self.fail(f"{what} {digits[:12]}{'...' if len(digits) > 12 else ''} is too large", start)
        return int(digits)

    def parse(self) -> Expression:
        if len(self.text) > _MAX_TEXT:
            raise DiceError(f"dice notation is {len(self.text)} characters long; at most {_MAX_TEXT} are read",
                            self.text, _MAX_TEXT)
        terms: list[Term] = []
        self.skip()
        if not self.peek():
            self.fail("empty dice notation: expected a die like d20 or a number", 0)
        sign = 1
        if self.peek() in "+-":
            sign = -1 if self.peek() == "-" else 1
            self.i += 1
            self.skip()
        dice = 0
        while True:
            term = self.term(sign)
            dice += 2 if term.d66 else term.count
            if dice > MAX_DICE:
                self.fail(f"too many dice: at most {MAX_DICE} in one roll")
            terms.append(term)
            self.skip()
            c = self.peek()
            if not c:
                break
            if c not in "+-":
                self.fail(f"expected '+', '-' or the end, found {self.text[self.i]!r}")
            sign = -1 if c == "-" else 1
            self.i += 1
            self.skip()
            if len(terms) >= 100:
                self.fail("too many terms: at most 100 in one roll")
        return Expression(tuple(terms))

    def term(self, sign: int) -> Term:
        start = self.i
        c = self.peek()
        if c == "d":
            count = 1
        elif c.isdigit() and c.isascii():
            count = self.number("a number")
            if self.peek() != "d":
                if count > MAX_CONSTANT:
                    self.fail(f"the number {count} is too large: at most {MAX_CONSTANT}", start)
                return Term(sign, constant=count)
            if count == 0:
                self.fail("a roll needs at least one die: 0d is not a roll", start)
            if count > MAX_DICE:
                self.fail(f"too many dice: at most {MAX_DICE} in one roll", start)
        elif not c:
            self.fail("expected a die like d6 or a number after the sign")
        else:
            self.fail(f"expected a die like d6 or a number, found {self.text[self.i]!r}")
        self.i += 1  # the 'd'
        sides_at = self.i
        sides = self.number("the number of sides after 'd' (as in d6)")
        if sides == 0:
            self.fail("a die needs at least one side: d0 is not a die", sides_at)
        if sides > MAX_SIDES:
            self.fail(f"a die with {sides} sides is refused: at most {MAX_SIDES}", sides_at)
        keep = None
        keep_n = 0
        if self.peek() == "k":
            k_at = self.i
            self.i += 1
            mode = self.peek()
            if mode not in ("h", "l"):
                self.fail("expected 'h' (keep highest) or 'l' (keep lowest) after 'k', as in 2d20kh1")
            self.i += 1
            keep = mode
            keep_n = self.number("how many dice to keep (as in 2d20kh1)")
            if not 1 <= keep_n <= count:
                self.fail(f"cannot keep {keep_n} of {count} dice: expected 1..{count}", k_at)
        if sides == 66 and count == 1 and keep is None:
            return Term(sign, count=1, sides=66, d66=True)
        if sides == 66:
            self.fail("expected d66 alone: it is the table roll of two D6 (tens, ones), one at a time, without keep", start)
        return Term(sign, count=count, sides=sides, keep=keep, keep_n=keep_n)


# ---------------------------------------------------------------- rolls



class Roll:
    """The result of a roll with every die kept: expression, dice per term, modifier, total,
    who rolled and why, and the luck dice spent on it (with the roll as it was before them)."""

    __slots__ = ("expression", "faces_by_term", "dropped", "base_total", "who", "why", "luck", "_groups", "total")

    def __init__(self, expression: Expression, faces_by_term: tuple, total: int, who: str | None = None,
                 why: str | None = None, luck: tuple[LuckDie, ...] = (), dropped: tuple | None = None):
        self.expression = expression
        self.faces_by_term = faces_by_term  # per term: tuple of faces, or None for a constant
        self.dropped = dropped              # per term: indices of dropped dice; None when nothing dropped
        self.base_total = total             # before luck
        self.who = who
        self.why = why
        self.luck = luck
        self._groups = None
        if luck:
            for l in luck:
                total += l.sign * l.face
        self.total = total                  # with the luck dice (a Roll never changes: a luck die makes another)

    def _derive(self, luck: tuple[LuckDie, ...]) -> "Roll":
        return Roll(self.expression, self.faces_by_term, self.base_total, self.who, self.why, luck,
                    self.dropped)

    @property
    def groups(self) -> tuple:
        """Per term: a tuple of ``Die`` (kept and dropped), or None for a constant."""
        if self._groups is None:
            out = []
            for i, (t, fs) in enumerate(zip(self.expression.terms, self.faces_by_term)):
                if fs is None:
                    out.append(None)
                    continue
                drop = self.dropped[i] if self.dropped else ()
                sides = 6 if t.d66 else t.sides
                out.append(tuple(Die(sides, f, k not in drop) for k, f in enumerate(fs)))
            self._groups = tuple(out)
        return self._groups

    @property
    def expr(self) -> str:
        return self.expression.text

    @property
    def dice(self) -> tuple[Die, ...]:
        """Every die drawn, kept or dropped, in notation order (luck dice are in ``luck``)."""
        out: list[Die] = []
        for g in self.groups:
            if g:
                out.extend(g)
        return tuple(out)

    @property
    def faces(self) -> list[int]:
        return [f for fs in self.faces_by_term if fs for f in fs]

    @property
    def modifier(self) -> int:
        return sum(t.sign * t.constant for t in self.expression.terms if t.is_constant)

    @property
    def original(self) -> "Roll | None":
        """The roll before any luck die, or None when no luck was spent."""
        if not self.luck:
            return None
        return self._derive(())

    def with_luck(self, sign: int, rng: _random.Random | None = None, *, face: int | None = None,
                  who: str | None = None, sides: int = 6) -> "Roll":
        """A new roll with one more luck die added (sign +1) or subtracted (sign -1).

        The die is rolled with ``rng``, or ``face`` is what a real die showed."""
        if sign not in (1, -1):
            raise DiceError(f"a luck die is added (+1) or subtracted (-1), not {sign!r}")
        if face is None:
            if rng is None:
                rng = _random.Random()
            face = rng.randrange(sides) + 1
        elif not _is_int(face) or not 1 <= face <= sides:
            raise DiceError(f"face {face!r} is impossible on a d{sides} luck die: expected 1..{sides}")
        return self._derive(self.luck + (LuckDie(sides, face, sign, who),))

    # ---- records
    def to_dict(self) -> dict:
        d = {"expr": self.expr, "faces": self.faces, "total": self.total}
        if self.luck:
            d["base_total"] = self.base_total
            d["luck"] = [l.to_dict() for l in self.luck]
        if self.who is not None:
            d["who"] = self.who
        if self.why is not None:
            d["why"] = self.why
        return d

    @classmethod
    def from_dict(cls, data: dict) -> "Roll":
        """Rebuild a roll from its record; faces are re-validated, never re-rolled."""
        r = parse(data["expr"]).roll(faces=data["faces"], who=data.get("who"), why=data.get("why"))
        for l in data.get("luck", ()):
            face, sides = l["face"], l.get("sides", 6)
            if face is None or not _is_int(sides) or sides < 1:  # a record's luck die is read, never rolled again
                raise DiceError(f"a recorded luck die needs its face and its sides (1 or more), not face {face!r}, "
                                f"sides {sides!r}")
            r = r.with_luck(l["sign"], face=face, who=l.get("who"), sides=sides)
        if "total" in data and data["total"] != r.total:
            raise DiceError(f"recorded total {data['total']} does not match the faces of {r.expr} ({r.total})")
        return r

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Roll) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    # ---- display
    def __str__(self) -> str:
        parts = []
        for i, (t, g) in enumerate(zip(self.expression.terms, self.groups)):
            sign = ("-" if t.sign < 0 else "") if i == 0 else (" - " if t.sign < 0 else " + ")
            if g is None:
                parts.append(f"{sign}{t.constant}")
            elif t.d66:
                parts.append(f"{sign}d66[{g[0].face}{g[1].face}]")
            else:
                shown = ", ".join(str(d.face) if d.kept else f"~{d.face}~" for d in g)
                parts.append(f"{sign}{t.text()}[{shown}]")
        for l in self.luck:
            parts.append(f" {'+' if l.sign > 0 else '-'} luck[{l.face}]")
        head = ""
        if self.who or self.why:
            head = " ".join(x for x in (self.who, self.why and f"({self.why})") if x) + ": "
        return f"{head}{''.join(parts)} = {self.total}"

    def __repr__(self) -> str:
        return f"<Roll {self}>"

    def _repr_html_(self) -> str:
        from .dice_html import roll_html  # (drawing is a module of its own; it reads Roll)
        return roll_html(self)


def roll(expr: str | Expression, rng: _random.Random | None = None, *, faces: Sequence[int] | None = None,
         who: str | None = None, why: str | None = None) -> Roll:
    """Roll ``expr`` with ``rng`` (a ``random.Random``; a fresh one if omitted), or read ``faces`` typed by hand.

    ``faces`` lists each physical die in notation order; a d66 takes its tens then its ones die, or the
    two-digit table value (e.g. 34)."""
    return parse(expr).roll(rng, faces=faces, who=who, why=why)

