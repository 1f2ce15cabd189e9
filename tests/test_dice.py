"""The dice engine: notation, rolls that keep every die, faces by hand, luck dice, statistics."""

import json
import random
import re
from fractions import Fraction

import pytest
from hypothesis import example, given, settings, strategies as st

import delvebook as db
from delvebook.core.dice import MAX_DICE, MAX_SIDES, DiceError, parse
from delvebook.core.distribution import distribution


# ---------------------------------------------------------------- notation

@pytest.mark.parametrize("text, canonical", [
    ("d20", "d20"), ("D6", "d6"), ("2d6", "2d6"), ("3d6+1", "3d6+1"), ("d20+d6-2", "d20+d6-2"),
    ("2d20kh1", "2d20kh1"), ("2d20KL1", "2d20kl1"), ("d66", "d66"), ("7", "7"),
    (" 2 d6 ", None), ("d20 + 2d6 + 1", "d20+2d6+1"), ("-1+d20", "-1+d20"), ("+d6", "d6"),
])
def test_notation_is_case_insensitive_and_allows_spaces(text, canonical):
    if canonical is None:  # a space inside a term is not allowed
        with pytest.raises(DiceError):
            parse(text)
    else:
        assert parse(text).text == canonical


def test_d66_is_tens_die_then_ones_die():
    r = db.roll("d66", faces=[3, 5])
    assert r.total == 35
    assert [d.face for d in r.dice] == [3, 5] and all(d.sides == 6 for d in r.dice)
    assert db.roll("d66", faces=[34]).total == 34  # the keeper may type the table value
    with pytest.raises(DiceError):
        db.roll("d66", faces=[37])


def test_d66_has_36_outcomes_not_56():
    d = distribution("d66")
    assert len(d) == 36
    assert d.outcomes() == [10 * a + b for a in range(1, 7) for b in range(1, 7)]
    assert set(d.probabilities().values()) == {Fraction(1, 36)}


@pytest.mark.parametrize("bad, where", [
    ("", 0), ("d", 1), ("2d", 2), ("d20+", 4), ("3x6", 1), ("d6++1", 3), ("2d20kx1", 5),
    ("2d20kh3", 4), ("d0", 1), ("0d6", 0), ("2d66", 0), ("d20 d6", 4), ("1d6 k h1", 4),
])
def test_bad_notation_points_at_the_position(bad, where):
    with pytest.raises(DiceError) as err:
        parse(bad)
    assert isinstance(err.value, ValueError)
    assert err.value.position == where
    if bad:  # the message quotes the input with a caret under the bad position
        assert str(err.value).endswith(f"\n  {bad}\n  " + " " * where + "^")


class CountingRandom(random.Random):
    """A seeded RNG that counts the dice drawn from it."""

    draws = 0

    def randrange(self, *args, **kw):
        self.draws += 1
        return super().randrange(*args, **kw)


def test_too_many_dice_or_sides_is_refused_before_a_die_is_rolled():
    for bad in (f"{MAX_DICE + 1}d6", f"d{MAX_SIDES + 1}", "600d6+600d6", "9" * 5000 + "d6",
                "99999999999999999999d6", "d" + "9" * 3000):
        rng = CountingRandom(1)
        with pytest.raises(DiceError, match="at most|too large"):
            db.roll(bad, rng=rng)
        assert rng.draws == 0, bad


def test_non_text_notation_is_a_clean_error():
    with pytest.raises(DiceError):
        parse(None)  # type: ignore[arg-type]


# ---------------------------------------------------------------- rolls keep everything

def test_roll_keeps_every_die_kept_and_dropped():
    r = db.roll("2d20kh1+d6-2", rng=random.Random(3), who="Wren", why="attack")
    assert [d.sides for d in r.dice] == [20, 20, 6]
    kept = [d for d in r.dice[:2] if d.kept]
    dropped = [d for d in r.dice[:2] if not d.kept]
    assert len(kept) == 1 and len(dropped) == 1 and kept[0].face >= dropped[0].face
    assert r.modifier == -2
    assert r.total == kept[0].face + r.dice[2].face - 2
    assert (r.who, r.why, r.expr) == ("Wren", "attack", "2d20kh1+d6-2")


def test_seeded_rolls_are_reproducible():
    a = [db.roll("3d6+1", rng=random.Random(42)).faces for _ in range(3)]
    b = [db.roll("3d6+1", rng=random.Random(42)).faces for _ in range(3)]
    assert a == b


def test_faces_typed_by_hand_are_validated_against_the_die():
    r = db.roll("2d6+1", faces=[3, 4])
    assert r.total == 8
    with pytest.raises(DiceError, match="impossible"):
        db.roll("2d6", faces=[3, 7])
    with pytest.raises(DiceError, match="takes 2 faces"):
        db.roll("2d6", faces=[3, 4, 5])
    with pytest.raises(DiceError, match="not enough"):
        db.roll("2d6", faces=[3])
    with pytest.raises(DiceError, match="whole number"):
        db.roll("d20", faces=["12"])


def test_keep_lowest_marks_the_higher_die_dropped():
    r = db.roll("2d20kl1", faces=[15, 4])
    assert r.total == 4 and [d.kept for d in r.dice] == [False, True]


def test_luck_die_added_or_subtracted_keeps_the_original():
    r = db.roll("d20+d6", faces=[10, 3], who="Bo")
    lucky = r.with_luck(+1, face=5, who="Ana").with_luck(-1, face=2, who="Cy")
    assert lucky.total == 13 + 5 - 2
    assert lucky.original.total == 13 and lucky.original.luck == ()
    assert [(l.sign, l.face, l.who) for l in lucky.luck] == [(1, 5, "Ana"), (-1, 2, "Cy")]
    assert r.total == 13  # the original roll is untouched
    with pytest.raises(DiceError):
        r.with_luck(+1, face=7)
    with pytest.raises(DiceError):
        r.with_luck(2, face=3)
    rolled = r.with_luck(-1, rng=random.Random(5))
    assert 1 <= rolled.luck[0].face <= 6 and rolled.total == 13 - rolled.luck[0].face


def test_roll_record_round_trips_through_json():
    r = db.roll("2d20kh1+d66-1", rng=random.Random(9), who="Wren", why="luck").with_luck(-1, face=4, who="Ana")
    data = json.loads(json.dumps(r.to_dict()))
    back = db.Roll.from_dict(data)
    assert back == r and back.total == r.total and back.dice == r.dice
    data["total"] += 1
    with pytest.raises(DiceError, match="does not match"):
        db.Roll.from_dict(data)


def test_roll_html_is_escaped_and_draws_dice():
    r = db.roll("d20+d6", faces=[17, 4], who="<img src=x onerror=alert(1)>", why="<b>x</b>")
    h = r._repr_html_()
    assert "<img" not in h and "&lt;img src=x onerror=alert(1)&gt;" in h
    assert h.count('class="delvebook-die') == 2
    assert "\u2683" in h  # a D6 showing 4 is drawn with four pips
    assert ">17<" in h    # a D20 shows its number
    assert 'data-total="21"' in h


def test_roll_text_shows_dropped_dice_and_luck():
    r = db.roll("2d20kh1", faces=[3, 18]).with_luck(+1, face=2)
    assert str(r) == "2d20kh1[~3~, 18] + luck[2] = 20"


# ---------------------------------------------------------------- properties

_die = st.builds(lambda n, s: f"{n}d{s}" if n > 1 else f"d{s}",
                 st.integers(1, 6), st.sampled_from([2, 4, 6, 8, 10, 12, 20, 100]))
_keep = st.builds(lambda n, s, mode, k: f"{n}d{s}k{mode}{min(k, n)}",
                  st.integers(1, 4), st.sampled_from([6, 20]), st.sampled_from("hl"), st.integers(1, 4))
_term = st.one_of(_die, _keep, st.just("d66"), st.integers(0, 50).map(str))


@st.composite
def valid_notation(draw):
    terms = draw(st.lists(_term, min_size=1, max_size=4))
    out = terms[0]
    for t in terms[1:]:
        out += draw(st.sampled_from(["+", "-", " + ", " - "])) + t
    return draw(st.sampled_from([str.lower, str.upper])) (out)


@settings(max_examples=300, deadline=None)
@given(valid_notation(), st.integers(0, 2 ** 32))
@example("6d100+d66+6d100", 0)  # rolled, but its odds are past the limit on working them out
def test_any_valid_notation_rolls_inside_its_exact_bounds(text, seed):
    r = db.roll(text, rng=random.Random(seed))
    assert parse(text).min <= r.total <= parse(text).max
    try:
        d = distribution(text)
    except DiceError as err:  # the limit on working odds out (a roll costs nothing): said so, never a wrong answer
        assert "too large to work out exactly" in str(err), err
        return
    assert d.min <= r.total <= d.max
    assert parse(text).min == d.min and parse(text).max == d.max
    assert d[r.total] > 0
    assert db.Roll.from_dict(r.to_dict()) == r


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="dDkKhHlL0123456789+- x.*()", max_size=30))
def test_any_string_rolls_or_raises_only_dice_error(text):
    rng = CountingRandom(0)
    try:
        r = db.roll(text, rng=rng)
    except DiceError:
        assert rng.draws == 0  # refused before any die was rolled
    else:
        assert isinstance(r.total, int) and rng.draws <= MAX_DICE * 2  # bounded: kept or dropped dice, explosions none


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_arbitrary_unicode_raises_only_dice_error(text):
    try:
        db.roll(text, rng=random.Random(0))
    except DiceError:
        pass


# ---------------------------------------------------------------- statistics (fixed seed: deterministic)

# chi-squared critical values at p = 0.001 for the degrees of freedom used here
_CHI2_999 = {24: 51.18, 35: 66.62}


def _chi_squared(expr: str, n: int, seed: int) -> tuple[float, int]:
    rng = random.Random(seed)
    e = parse(expr)
    counts: dict[int, int] = {}
    for _ in range(n):
        t = e.roll(rng).total
        counts[t] = counts.get(t, 0) + 1
    probs = distribution(expr).probabilities()
    assert set(counts) <= set(probs)
    stat = sum((counts.get(k, 0) - n * float(p)) ** 2 / (n * float(p)) for k, p in probs.items())
    return stat, len(probs) - 1


@pytest.mark.parametrize("expr", ["d20+d6", "d66"])
def test_200000_seeded_rolls_match_the_exact_distribution(expr):
    stat, dof = _chi_squared(expr, 200_000, seed=20261130)
    assert stat < _CHI2_999[dof], f"chi-squared {stat:.1f} with {dof} degrees of freedom"


def test_chi_squared_check_can_fail_on_a_loaded_die():
    """The statistical check above is not vacuous: a die that never shows 1 is caught."""
    rng = random.Random(1)
    n = 200_000
    counts: dict[int, int] = {}
    for _ in range(n):
        t = rng.randint(2, 20) + rng.randint(1, 6)
        counts[t] = counts.get(t, 0) + 1
    probs = distribution("d20+d6").probabilities()
    stat = sum((counts.get(k, 0) - n * float(p)) ** 2 / (n * float(p)) for k, p in probs.items())
    assert stat > _CHI2_999[24]


def test_keep_marks_exactly_the_kept_count():
    rng = random.Random(7)
    for _ in range(200):
        r = db.roll("4d6kh3", rng=rng)
        assert sum(d.kept for d in r.dice) == 3
        assert r.total == sum(sorted(r.faces)[1:])
        assert re.fullmatch(r"4d6kh3\[.*\] = \d+", str(r))


@settings(max_examples=300, deadline=None)
@given(valid_notation(), st.integers(0, 2 ** 32))
def test_each_die_is_one_randrange_draw_in_notation_order(text, seed):
    """Every die is ``randrange(sides) + 1`` from the generator, in notation order (a d66: tens, then ones), and
    nothing else is drawn: a replayed or simulated fight stays the fight the engine records."""
    rng, reference = random.Random(seed), random.Random(seed)
    for _ in range(3):
        r = db.roll(text, rng=rng)
        expected = [reference.randrange(d.sides) + 1 for d in r.dice]
        assert r.faces == expected
    assert rng.random() == reference.random()
