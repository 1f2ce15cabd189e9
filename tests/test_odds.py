"""Exact odds, checked against icepool (a test oracle only) and against brute-force enumeration."""

import itertools
from fractions import Fraction

import icepool
import pytest
from hypothesis import assume, given, settings, strategies as st

import delvebook as db
from delvebook.core.dice import DiceError
from delvebook.core.distribution import distribution, percent


def _ice_probs(die) -> dict:
    total = die.denominator()
    return {k: Fraction(q, total) for k, q in die.items() if q}


def _ice_opposed(a, b):
    return ((a > b).probability(True), (a == b).probability(True), (a < b).probability(True))


ADV = icepool.d20.pool(2).highest(1).sum()  # 2d20kh1

ICE = {
    "d20": icepool.d20, "d6": icepool.d6, "d20+d6": icepool.d20 + icepool.d6,
    "d20+2d6": icepool.d20 + 2 @ icepool.d6, "2d20kh1+d6": ADV + icepool.d6,
    "d66": 10 * icepool.d6 + icepool.d6, "3d6+1": 3 @ icepool.d6 + 1,
}


@pytest.mark.parametrize("a, b", [("d20+d6", "d20"), ("d20+2d6", "d20+d6"), ("2d20kh1+d6", "d20")])
def test_opposed_odds_equal_icepool(a, b):
    o = db.odds(a, vs=b)
    assert (o.win, o.tie, o.lose) == _ice_opposed(ICE[a], ICE[b])
    assert o.win + o.tie + o.lose == 1
    assert all(isinstance(x, Fraction) for x in o)


def test_d66_distribution_equals_icepool():
    assert db.odds("d66").probabilities() == _ice_probs(ICE["d66"])


def test_3d6_plus_1_meets_12_equals_icepool():
    assert db.odds("3d6+1", target=12) == (ICE["3d6+1"] >= 12).probability(True)
    assert db.odds("3d6+1", target=12) == Fraction(1, 2)  # 3d6 >= 11: 108 of 216


def test_contract_examples():
    assert db.odds("d20+d6", vs="d20").win == Fraction(61, 96)
    assert db.odds("d20+2d6", target=15) == (ICE["d20+2d6"] >= 15).probability(True)


@pytest.mark.parametrize("expr, ice", [
    ("4d6kh3", icepool.d6.pool(4).highest(3).sum()),
    ("4d6kl2", icepool.d6.pool(4).lowest(2).sum()),
    ("5d10kh2-3", icepool.d10.pool(5).highest(2).sum() - 3),
    ("2d20kl1", icepool.d20.pool(2).lowest(1).sum()),
    ("d20-d6", icepool.d20 - icepool.d6),
    ("10d6", 10 @ icepool.d6),
])
def test_distributions_equal_icepool(expr, ice):
    assert distribution(expr).probabilities() == _ice_probs(ice)


def _brute(expr: str) -> dict:
    """The same answer a second way: roll every combination of faces by hand."""
    e = db.parse(expr)
    sides = []
    for t in e.terms:
        if t.d66:
            sides += [6, 6]
        elif not t.is_constant:
            sides += [t.sides] * t.count
    counts: dict = {}
    for faces in itertools.product(*[range(1, s + 1) for s in sides]):
        total = e.roll(faces=list(faces)).total
        counts[total] = counts.get(total, 0) + 1
    n = sum(counts.values())
    return {k: Fraction(v, n) for k, v in counts.items()}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["d4", "2d4", "d6", "3d4kh2", "3d4kl1", "d8", "2", "d66"]), min_size=1, max_size=3),
       st.lists(st.sampled_from(["+", "-"]), min_size=2, max_size=2))
def test_distribution_equals_enumerating_every_face(terms, signs):
    expr = terms[0] + "".join(s + t for s, t in zip(signs, terms[1:]))
    if expr.count("d66") > 1:
        expr = expr.replace("d66", "d6")
    faces = 1
    for t in db.parse(expr).terms:
        faces *= 36 if t.d66 else (1 if t.is_constant else t.sides ** t.count)
    assume(faces <= 5_000)  # bounded by size, as icepool's tests are: the brute force is exponential
    assert distribution(expr).probabilities() == _brute(expr)


def test_target_beyond_the_range():
    assert db.odds("d20", target=21) == 0
    assert db.odds("d20", target=1) == 1
    assert db.odds("d20", target=-5) == 1


def test_odds_needs_vs_or_target_not_both():
    with pytest.raises(TypeError):
        db.odds("d20", vs="d20", target=10)


def test_huge_exact_computation_is_refused_not_hung():
    with pytest.raises(DiceError, match="too large"):
        db.odds("1000d1000", target=5)


def test_percent_never_rounds_a_possibility_away():
    assert percent(Fraction(1, 100000)) == "<0.1%"
    assert percent(Fraction(99999, 100000)) == ">99.9%"
    assert percent(Fraction(61, 96)) == "63.5%"
