"""Exact odds: every dice expression as a distribution of integer weights, probabilities as Fractions.

``odds("d20+2d6", target=15)`` is the chance to meet or beat 15; ``odds("d20+d6", vs="d20")`` gives the
win / tie / lose chances of an opposed roll; ``odds("3d6")`` the whole distribution.

Standard library only: this module is part of the pure core.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Iterator

from .dice import DiceError, Expression, Term, parse

__all__ = ["Distribution", "Opposed", "distribution", "odds", "percent", "work", "MAX_WORK"]

MAX_WORK = 400_000
"""Steps one exact computation may take (``work``): a step is one addition of weights, a fifth of a microsecond to
a microsecond here (the machine idle, or shared by a dozen processes), so the dearest odds admitted take a tenth of
a second to half a second (``bench/limits.py``), once: a view asks again from the cache."""


class Distribution:
    """An immutable map from outcome to integer weight; probabilities are weight / total, exactly."""

    __slots__ = ("lo", "weights", "total")

    def __init__(self, lo: int, weights: list[int]):
        # trim zero weights at both ends so min and max are real outcomes
        a, b = 0, len(weights)
        while a < b and weights[a] == 0:
            a += 1
        while b > a and weights[b - 1] == 0:
            b -= 1
        if a == b:
            raise ValueError("a distribution needs at least one outcome with weight")
        self.lo = lo + a
        self.weights = tuple(weights[a:b])
        self.total = sum(self.weights)

    @classmethod
    def from_weights(cls, weights: dict[int, int]) -> "Distribution":
        lo, hi = min(weights), max(weights)
        w = [0] * (hi - lo + 1)
        for k, v in weights.items():
            w[k - lo] += v
        return cls(lo, w)

    @classmethod
    def uniform(cls, lo: int, hi: int) -> "Distribution":
        return cls(lo, [1] * (hi - lo + 1))

    @classmethod
    def constant(cls, value: int) -> "Distribution":
        return cls(value, [1])

    # ---- reading
    @property
    def min(self) -> int:
        return self.lo

    @property
    def max(self) -> int:
        return self.lo + len(self.weights) - 1

    @property
    def mean(self) -> Fraction:
        return Fraction(sum((self.lo + i) * w for i, w in enumerate(self.weights)), self.total)

    def outcomes(self) -> list[int]:
        return [self.lo + i for i, w in enumerate(self.weights) if w]

    def items(self) -> Iterator[tuple[int, int]]:
        """(outcome, weight) for every possible outcome."""
        for i, w in enumerate(self.weights):
            if w:
                yield self.lo + i, w

    def probabilities(self) -> dict[int, Fraction]:
        return {k: Fraction(w, self.total) for k, w in self.items()}

    def __getitem__(self, outcome: int) -> Fraction:
        i = outcome - self.lo
        if 0 <= i < len(self.weights):
            return Fraction(self.weights[i], self.total)
        return Fraction(0)

    def __len__(self) -> int:
        return sum(1 for w in self.weights if w)

    def at_least(self, target: int) -> Fraction:
        """Chance to meet or beat ``target``."""
        i = max(0, target - self.lo)
        return Fraction(sum(self.weights[i:]), self.total)

    def at_most(self, target: int) -> Fraction:
        i = target - self.lo + 1
        return Fraction(sum(self.weights[:max(0, i)]), self.total)

    # ---- combining
    def __add__(self, other: "Distribution | int") -> "Distribution":
        if isinstance(other, int):
            return Distribution(self.lo + other, list(self.weights))
        a, b = self.weights, other.weights
        if len(a) < len(b):
            a, b = b, a
        out = [0] * (len(a) + len(b) - 1)
        for j, wb in enumerate(b):
            if wb:
                for i, wa in enumerate(a):
                    out[i + j] += wa * wb
        return Distribution(self.lo + other.lo, out)

    __radd__ = __add__

    def __neg__(self) -> "Distribution":
        return Distribution(-self.max, list(reversed(self.weights)))

    def opposed(self, other: "Distribution") -> "Opposed":
        """Chances that this roll is higher than, equal to, or lower than ``other``."""
        # cumulative weights of other, indexed by outcome
        cum = []
        run = 0
        for w in other.weights:
            run += w
            cum.append(run)
        win = tie = 0
        olo, ohi = other.lo, other.max
        for i, w in enumerate(self.weights):
            if not w:
                continue
            x = self.lo + i
            if x > ohi:
                win += w * other.total
                continue
            if x - 1 >= olo:
                win += w * cum[x - 1 - olo]
            if olo <= x <= ohi:
                tie += w * other.weights[x - olo]
        denom = self.total * other.total
        return Opposed(Fraction(win, denom), Fraction(tie, denom),
                       Fraction(denom - win - tie, denom))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Distribution):
            return NotImplemented
        return self.probabilities() == other.probabilities()

    def __hash__(self) -> int:
        return hash(tuple(self.probabilities().items()))

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}: {percent(p)}" for k, p in list(self.probabilities().items())[:12])
        more = ", ..." if len(self) > 12 else ""
        return f"Distribution({shown}{more})"

    def _repr_html_(self) -> str:
        probs = self.probabilities()
        top = max(probs.values())
        rows = "".join(
            f'<tr><td style="text-align:right">{k}</td><td style="text-align:right">{percent(p)}</td>'
            f'<td><div style="background:#4a7;height:.8em;width:{float(p / top) * 12:.2f}em"></div></td></tr>'
            for k, p in probs.items())
        return (f'<table class="delvebook-distribution"><thead><tr><th>total</th><th>chance</th><th></th>'
                f'</tr></thead><tbody>{rows}</tbody></table><p>mean {float(self.mean):.2f}</p>')


class Opposed:
    """An opposed roll's exact chances: ``win`` (strictly higher), ``tie``, ``lose``."""

    __slots__ = ("win", "tie", "lose")

    def __init__(self, win: Fraction, tie: Fraction, lose: Fraction):
        self.win, self.tie, self.lose = win, tie, lose

    def __iter__(self):
        return iter((self.win, self.tie, self.lose))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Opposed) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"Opposed(win={percent(self.win)}, tie={percent(self.tie)}, lose={percent(self.lose)})"

    def _repr_html_(self) -> str:
        return (f'<span class="delvebook-odds">win <b>{percent(self.win)}</b> ({self.win}) · '
                f'tie <b>{percent(self.tie)}</b> ({self.tie}) · lose <b>{percent(self.lose)}</b> '
                f'({self.lose})</span>')


def percent(p: Fraction, digits: int = 1) -> str:
    """A chance as a keeper reads it: '64.2%'; never rounds a possible outcome to 0% or a miss to 100%."""
    value = round(float(p) * 100, digits)
    if p > 0 and value == 0:
        return f"<{10 ** -digits:g}%"
    if p < 1 and value == 100:
        return f">{100 - 10 ** -digits:g}%"
    return f"{value:.{digits}f}%"


# ---------------------------------------------------------------- building distributions

def distribution(expr: "str | Expression") -> Distribution:
    """The exact distribution of a dice expression's total; refused (``DiceError``) before any of it is worked out
    when it would take more than ``MAX_WORK`` steps (``work``)."""
    e = parse(expr)
    steps = work(e)
    if steps > MAX_WORK:
        raise DiceError(f"{e.text} is too large to work out exactly: about {steps:,} steps, at most "
                        f"{MAX_WORK:,}; use fewer dice or fewer sides")
    return _build(e)


def work(expr: "str | Expression") -> int:
    """The steps working out ``expr``'s exact distribution takes, counted from its terms alone (nothing is
    computed): each term's own (``_term_work``), then adding each to the sum of those before it."""
    e = parse(expr)
    steps, width = 0, 1
    for t in e.terms:
        steps += _term_work(t)
        lo, hi = (t.constant, t.constant) if t.is_constant else (11, 66) if t.d66 else \
            ((t.keep_n if t.keep else t.count), (t.keep_n if t.keep else t.count) * t.sides)
        steps += width * (hi - lo + 1)
        width += hi - lo
    return steps


def _term_work(t: Term) -> int:
    """The steps one term's own distribution takes, as ``_term`` works it out."""
    if t.is_constant:
        return 1
    if t.d66:
        return 36
    n, s = t.count, t.sides
    if t.keep is None or t.keep_n == n:  # a sliding-window sum for each die after the first
        return s + sum(j * (s - 1) + s for j in range(1, n))
    if t.keep_n == 1:  # one power of each face
        return s * n
    # faces walked one by one; at each, every (dice placed, kept sum) so far takes every count of the dice left: a
    # step of a mapping and a binomial, three additions' time
    return 3 * s * ((n + 1) * (n + 2) // 2) * (t.keep_n * s + 1)


def _build(e: Expression) -> Distribution:
    result = Distribution.constant(0)
    for t in e.terms:
        d = _term(t)
        result = result + (d if t.sign > 0 else -d)
    return result


def _term(t: Term) -> Distribution:
    if t.is_constant:
        return Distribution.constant(t.constant)
    if t.d66:
        w = {10 * a + b: 1 for a in range(1, 7) for b in range(1, 7)}
        return Distribution.from_weights(w)
    if t.keep is None:
        return _sum_of_dice(t.count, t.sides)
    return _keep(t.count, t.sides, t.keep, t.keep_n)


def _sum_of_dice(n: int, sides: int) -> Distribution:
    # adding one uniform die is a sliding-window sum over the weights so far
    w = [1] * sides  # outcomes 1..sides
    for _ in range(n - 1):
        out = [0] * (len(w) + sides - 1)
        run = 0
        for i in range(len(out)):
            if i < len(w):
                run += w[i]
            if i - sides >= 0:
                run -= w[i - sides]
            out[i] = run
        w = out
    return Distribution(n, w)


def _keep(n: int, sides: int, mode: str, k: int) -> Distribution:
    if k == n:
        return _sum_of_dice(n, sides)
    if k == 1:
        # the highest (lowest) of n dice is <= x (>= x) with chance (x/s)^n
        if mode == "h":
            w = [x ** n - (x - 1) ** n for x in range(1, sides + 1)]
        else:
            w = [(sides - x + 1) ** n - (sides - x) ** n for x in range(1, sides + 1)]
        return Distribution(1, w)
    # walk the faces from best to worst, deciding how many dice show each face;
    # state: (dice placed so far, sum of the kept ones) -> number of ways
    faces = range(sides, 0, -1) if mode == "h" else range(1, sides + 1)
    states: dict[tuple[int, int], int] = {(0, 0): 1}
    last = sides  # the number of faces walked when the last one is reached
    for step, v in enumerate(faces, 1):
        nxt: dict[tuple[int, int], int] = {}
        for (m, s), ways in states.items():
            left = n - m
            choices = (left,) if step == last else range(left + 1)
            for j in choices:
                kept = max(0, min(m + j, k) - min(m, k))
                key = (m + j, s + kept * v)
                nxt[key] = nxt.get(key, 0) + ways * comb(left, j)
        states = nxt
    return Distribution.from_weights({s: w for (m, s), w in states.items() if m == n})


def odds(expr: "str | Expression | Distribution", vs: "str | Expression | Distribution | None" = None,
         target: int | None = None):
    """Exact odds.

    - ``odds(expr, target=N)``: chance that ``expr`` meets or beats N, a Fraction;
    - ``odds(expr, vs=other)``: an ``Opposed`` with ``.win``, ``.tie``, ``.lose`` as Fractions;
    - ``odds(expr)``: the whole ``Distribution``.
    """
    if vs is not None and target is not None:
        raise TypeError("odds() takes vs= (an opposed roll) or target= (a number to meet or beat), not both")
    if expr.__class__ is str and (vs is None or vs.__class__ is str) and (target is None or target.__class__ is int):
        return _odds_of_notation(expr, vs, target)
    return _odds_of(expr, vs, target)


# Kept: a view shows the odds of every attack button on every click, the same few pairs all fight (the answers,
# Fractions and Opposed, are immutable); worth 1.43x a view model, 1.15x a recorded action (bench/caches.py).
@lru_cache(maxsize=4096)
def _odds_of_notation(expr: str, vs: str | None, target: int | None):
    return _odds_of(expr, vs, target)


def _odds_of(expr, vs, target):
    d = expr if isinstance(expr, Distribution) else distribution(expr)
    if target is not None:
        if isinstance(target, bool) or not isinstance(target, int):
            raise TypeError(f"target must be a whole number, got {target!r}")
        return d.at_least(target)
    if vs is not None:
        other = vs if isinstance(vs, Distribution) else distribution(vs)
        return d.opposed(other)
    return d
