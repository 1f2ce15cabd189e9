"""Dice speed against the references, measured in one run: prints ratios, asserts nothing.

Rolls per second of 4d6+2 and d20+d6 for delvebook (every die kept in the result) and for the
`d20` package (Avrae's engine); time of the five exact-odds cases for delvebook and icepool, both
computed from scratch (delvebook's caches cleared before every run: the notation parsed and the odds worked
out anew) and, for delvebook, answered from its cache (what a view asking the same odds again pays).

Run: .venv/bin/python bench/dice.py
"""

from __future__ import annotations

import random
import sys
import timeit

import d20
import icepool

import delvebook as db
from delvebook.core import dice as _dice
from delvebook.core import distribution as _dist


def per_second(fn, min_time: float = 0.5) -> float:
    t = timeit.Timer(fn)
    n, elapsed = t.autorange()
    while elapsed < min_time:
        n *= 2
        elapsed = t.timeit(n)
    best = min(t.repeat(repeat=3, number=n))
    return n / best


def seconds_each(fn, min_time: float = 0.3) -> float:
    return 1 / per_second(fn, min_time)


def main() -> int:
    print(f"python {sys.version.split()[0]}, d20 {getattr(d20, '__version__', '?')}, icepool {icepool.__version__}")
    print("\nrolls per second (higher is better)")
    print(f"{'expression':<12}{'delvebook':>14}{'d20':>14}{'ratio':>9}")
    rng = random.Random(1)
    random.seed(1)
    for expr in ("4d6+2", "d20+d6"):
        ours = per_second(lambda: db.roll(expr, rng))
        theirs = per_second(lambda: d20.roll(expr))
        print(f"{expr:<12}{ours:>14,.0f}{theirs:>14,.0f}{ours / theirs:>8.1f}x")
    r = db.roll("4d6+2", rng)
    assert len(r.dice) == 4  # every die is in the result we timed

    adv = lambda: icepool.d20.pool(2).highest(1).sum()
    cases = [
        ("d20+d6 vs d20", lambda: db.odds("d20+d6", vs="d20"),
         lambda: ((icepool.d20 + icepool.d6) > icepool.d20).probability(True)),
        ("d20+2d6 vs d20+d6", lambda: db.odds("d20+2d6", vs="d20+d6"),
         lambda: ((icepool.d20 + 2 @ icepool.d6) > (icepool.d20 + icepool.d6)).probability(True)),
        ("2d20kh1+d6 vs d20", lambda: db.odds("2d20kh1+d6", vs="d20"),
         lambda: ((adv() + icepool.d6) > icepool.d20).probability(True)),
        ("d66 distribution", lambda: db.odds("d66").probabilities(),
         lambda: dict((10 * icepool.d6 + icepool.d6).items())),
        ("3d6+1 >= 12", lambda: db.odds("3d6+1", target=12),
         lambda: ((3 @ icepool.d6 + 1) >= 12).probability(True)),
    ]

    def cold(fn):
        """Computed from scratch: the notation read and the odds worked out anew (every cache of dice and
        distribution cleared before each run)."""
        def run():
            _dice._parse_text.cache_clear()
            _dist._odds_of_notation.cache_clear()
            return fn()
        return run

    print("\nexact odds, microseconds per computation (lower is better)")
    print(f"{'case':<20}{'delvebook cold':>16}{'cached':>10}{'icepool':>12}{'icepool/cold':>14}")
    worst = float("inf")
    for name, ours, theirs in cases:
        t_cold = seconds_each(cold(ours)) * 1e6
        t_warm = seconds_each(ours) * 1e6
        t_ice = seconds_each(theirs) * 1e6
        worst = min(worst, t_ice / t_cold)
        print(f"{name:<20}{t_cold:>16.1f}{t_warm:>10.2f}{t_ice:>12.1f}{t_ice / t_cold:>13.1f}x")
    print(f"\nodds: delvebook (cold) is at least {worst:.1f}x icepool's speed on these cases")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
