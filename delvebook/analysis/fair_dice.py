"""Were the dice fair? Each player's D20 and D6 faces against the exact chance of each face: Pearson's chi-squared,
its p-value, and the verdict in a keeper's words."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd

from .tables import boolean, category

__all__ = ["FAIR_LEVEL", "chi_squared_p", "fairness_verdict", "face_probabilities", "fairness_frame"]

FAIR_LEVEL = 0.10
"""Fair dice look at least this even 9 times in 10: a p-value below it is outside that."""


def _gammaincc(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x) (series or continued fraction)."""
    if x <= 0:
        return 1.0
    lg = math.lgamma(a)
    if x < a + 1:  # series for P, then Q = 1 - P
        term = total = 1.0 / a
        ap = a
        for _ in range(1000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(-x + a * math.log(x) - lg))
    tiny = 1e-300  # Lentz's continued fraction for Q
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, math.exp(-x + a * math.log(x) - lg) * h)


def chi_squared_p(observed: list[int] | np.ndarray, expected_p: list) -> tuple[float, int, float]:
    """Pearson's chi-squared of counts against exact probabilities: (statistic, degrees of freedom, p-value),
    the p-value being the chance that dice with those probabilities look at least this uneven."""
    obs = np.asarray(observed, dtype=float)
    n = obs.sum()
    exp = n * np.asarray([float(p) for p in expected_p])
    stat = float(((obs - exp) ** 2 / exp).sum()) if n else 0.0
    df = len(obs) - 1
    return stat, df, _gammaincc(df / 2, stat / 2)


def fairness_verdict(p: float, n: int, sides: int) -> str:
    """The p-value in a keeper's words."""
    if n < 5 * sides:
        return f"too few rolls to judge ({n}; about {5 * sides} needed)"
    if p >= FAIR_LEVEL:
        return "within what fair dice do 9 times in 10"
    return (f"less even than fair dice roll 9 times in 10 (fair dice look this uneven {p:.1%} of the time)")


def face_probabilities(sides: int) -> list[Fraction]:
    """The exact chance of each face 1..sides of a fair die."""
    from ..core.distribution import odds
    probs = odds(f"d{sides}").probabilities()
    return [probs.get(f, Fraction(0)) for f in range(1, sides + 1)]


def fairness_frame(r: pd.DataFrame) -> pd.DataFrame:
    """Per player and die (D20, D6), from the ``rolls`` frame: the rolls, counts by face, chi-squared, p-value,
    fair (NA with too few rolls) and the verdict."""
    rows = []
    real = r[r["player"].astype(object) != "party"]
    for sides in (20, 6):
        probs = face_probabilities(sides)
        sub = real[real["sides"] == sides]
        table = pd.crosstab(sub["player"].astype(object), sub["face"]).reindex(
            columns=range(1, sides + 1), fill_value=0)
        for player, counts in table.iterrows():
            obs = counts.to_numpy()
            n = int(obs.sum())
            if n == 0:
                continue
            stat, df_, p = chi_squared_p(obs, probs)
            enough = n >= 5 * sides
            rows.append({"player": player, "sides": sides, "die": f"D{sides}", "rolls": n,
                         "counts": [int(c) for c in obs], "chi2": stat, "df": df_, "p_value": p,
                         "fair": (p >= FAIR_LEVEL) if enough else None,
                         "verdict": fairness_verdict(p, n, sides)})
    df = pd.DataFrame(rows, columns=["player", "sides", "die", "rolls", "counts", "chi2", "df", "p_value",
                                     "fair", "verdict"])
    df["player"] = category(df["player"])
    df["die"] = category(df["die"])
    df["fair"] = boolean(list(df["fair"]))
    df["sides"] = df["sides"].astype("int64")
    df["rolls"] = df["rolls"].astype("int64")
    df["df"] = df["df"].astype("int64")
    df["chi2"] = df["chi2"].astype(float)
    df["p_value"] = df["p_value"].astype(float)
    return df
