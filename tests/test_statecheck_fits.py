"""The quick check of a change (each kind's compiled predicate, ``statecheck.compiled``) refuses exactly what the
kind's ``problem`` (``statecheck.kinds``, the reference) refuses: the reader runs the predicate on every change and
asks ``problem`` only to say why, so a predicate that let one more value through would be a check dropped. Roll
records: the check of plain notation refuses exactly what ``Roll.from_dict`` refuses."""
from __future__ import annotations

import json
import random
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from delvebook.core import statecheck
from delvebook.store import read_log
from delvebook.core.statecheck.rolls import from_dict_problem, plan

LONG = Path(__file__).resolve().parent.parent / "campaigns" / "the-long-delve" / "log.yaml"

# what a hostile or careless hand puts in place of a value: each is wrong somewhere in the table
ODD = [None, True, False, 0, -1, 1, 7, 2 ** 53, -(2 ** 53), 1.5, "", " ", "\t", "x", "x" * 201, "x" * 20_001,
       "\ud800", "caf\u00e9", "alive", "dead", "party", "d6+1", "d6+", "2d", [], [1], ["x"], {}, {"x": 1},
       {"": 1}, {" ": "x"}, {"\ud800": 1}, [[]], {"a": {"b": [None]}}, float("nan"), float("inf"), -0.5,
       [[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]], [[[[[[[[[[[[[[[1]]]]]]]]]]]]]]], {"k": [{"k": [{"k": [{"k": [{"k": [{}]}]}]}]}]}]


def _shapes() -> list[statecheck.Shape]:
    return [statecheck.DEFAULT, statecheck.Shape(hearts_floor=-3, level_cap=10)]


def _events() -> list[dict]:
    return read_log(LONG)[0]


def _changes() -> list[tuple[list, object]]:
    return [(path, value) for event in _events() for path, value in event.get("changes") or []]


def _agrees(shape: statecheck.Shape, path: list, value: object) -> None:
    kind = shape.place(path)
    assert not isinstance(kind, str), kind
    fits = shape._place(path)[1]
    assert fits(value) == (kind.problem(value, shape) is None), (path, value)
    assert (shape.change_problem(path, value) is None) == (kind.problem(value, shape) is None)
    assert (shape.changes_problem([[path, value]]) is None) == (kind.problem(value, shape) is None)


def _places_inside(value, at=()):
    """Every place inside a value: (path, the container, its key or index)."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield at + (k,), value, k
            yield from _places_inside(v, at + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield at + (i,), value, i
            yield from _places_inside(v, at + (i,))


def _mutations(value, rng: random.Random, n: int):
    """``value`` with one place inside it replaced by an odd value, a key taken out, or a key put in."""
    spots = list(_places_inside(value))
    for _ in range(n):
        copy = json.loads(json.dumps(value))
        if not spots:
            yield rng.choice(ODD)
            continue
        path, _, _ = rng.choice(spots)
        node = copy
        for key in path[:-1]:
            node = node[key]
        what = rng.random()
        if what < 0.15 and isinstance(node, dict):
            del node[path[-1]]
        elif what < 0.3 and isinstance(node, dict):
            node[rng.choice(["zzz", "", "\ud800", "name", "x" * 201])] = rng.choice(ODD)
        else:
            node[path[-1]] = rng.choice(ODD)
        yield copy


def test_the_quick_check_refuses_what_problem_refuses_for_every_change_of_the_long_campaign():
    changes = _changes()
    assert len(changes) > 30_000
    for shape in _shapes():
        for path, value in changes:
            _agrees(shape, path, value)


def test_the_quick_check_refuses_what_problem_refuses_for_values_changed_by_hand():
    rng = random.Random(12)
    seen = {}
    for path, value in _changes():  # one change of each place (indexes and names folded) with each shape of value
        key = (tuple(p if isinstance(p, str) and p in ("delvers", "encounter", "foes", "luck", "used", "conditions",
                                                              "creatures", "order", "session") or len(path) < 3
                     else type(p).__name__ for p in path), type(value).__name__)
        seen.setdefault(key, (path, value))
    assert len(seen) > 40
    for shape in _shapes():
        for path, value in seen.values():
            for odd in _mutations(value, rng, 60):
                _agrees(shape, path, odd)


JSON = st.recursive(st.none() | st.booleans() | st.integers(-(2 ** 60), 2 ** 60) | st.sampled_from(ODD[:20])
                    | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                                max_size=3), max_leaves=8)
PLACES = [["name"], ["seed"], ["clock"], ["session"], ["seats"], ["luck"], ["encounter"], ["conditions"],
          ["conditions", 0], ["creatures"], ["delvers", "Wren"], ["delvers", "Wren", "level"],
          ["delvers", "Wren", "hearts"], ["delvers", "Wren", "weapons", 0], ["delvers", "Wren", "familiar"],
          ["encounter", "foes", "Goblin 1"], ["encounter", "foes", "Goblin 1", "attack_bonus"],
          ["encounter", "side"], ["encounter", "used"], ["encounter", "order"], ["delvers", "Wren", "status"]]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PLACES), JSON)
def test_the_quick_check_refuses_what_problem_refuses_for_any_json_anywhere(path, value):
    for shape in _shapes():
        _agrees(shape, path, value)


ODD_NUMBER = st.sampled_from([0, 1, 2, 6, 7, 20, 21, -1, True, None, "1", 1.0, [1]])


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["d20", "d6", "d20+d6", "2d6", "d20+2d6", "d6+15", "d20-d6"]),
       st.lists(ODD_NUMBER | st.integers(1, 6), max_size=3),
       st.lists(st.fixed_dictionaries({"sign": ODD_NUMBER | st.sampled_from([1, -1]), "face": ODD_NUMBER},
                                      optional={"sides": ODD_NUMBER, "who": st.sampled_from(["Ana", None, 3])})
                | st.sampled_from(["x", None, 1]), max_size=3) | st.sampled_from([{}, "x", None]),
       st.integers(-10, 60) | ODD_NUMBER | st.just("the faces' and the luck dice's"), st.booleans(), st.booleans())
def test_a_roll_with_luck_dice_is_refused_exactly_when_its_record_does_not_make_a_roll(expr, faces, luck, total,
                                                                                       with_total, with_base):
    record = {"expr": expr, "faces": faces, "luck": luck, "who": "Wren"}
    if isinstance(total, str):  # what the numbers come to, however odd they are: the record is near a right one
        sides, signs, total = plan(expr)
        try:
            total += sum(sign * face for sign, face in zip(signs, faces))
            total += sum(die["sign"] * die["face"] for die in luck)
        except (TypeError, KeyError):
            pass
    if with_total:
        record["total"] = total
    if with_base:
        record["base_total"] = total
    assert (statecheck.roll_problem(record) is None) == (from_dict_problem(record) is None)


def test_the_luck_dice_of_the_long_campaign_make_their_totals():
    rolls = 0
    for event in _events():
        for record in (event.get("rolls") or {}).values():
            if not record.get("luck"):
                continue
            assert statecheck.roll_problem(record) is None
            assert from_dict_problem(record) is None
            bad = dict(record, total=record["total"] + 1)
            assert statecheck.roll_problem(bad) is not None
            for change in ({"sign": 2}, {"sign": 0}, {"sign": True}, {"face": 0}, {"face": 7},
                           {"face": 4, "sides": 3}, {"sides": "6"}, {"face": 2.0}):
                die = dict(record["luck"][0], **change)
                try:  # the total the odd die comes to, so only the die itself is wrong
                    moved = record["total"] + die["sign"] * die["face"] - \
                        record["luck"][0]["sign"] * record["luck"][0]["face"]
                except TypeError:
                    moved = record["total"]
                odd = dict(record, luck=[die] + record["luck"][1:], total=moved)
                slow = from_dict_problem(odd)
                assert (statecheck.roll_problem(odd) is None) == (slow is None), odd
            rolls += 1
    assert rolls > 500


PLAIN = ["d20", "d6", "d20+d6", "2d6", "d20+2d6", "d6+15", "d20-d6", "5", "-d6+2", "3d6-1", "9d6", "d100"]


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PLAIN), st.lists(ODD_NUMBER | st.integers(1, 6) | st.integers(1, 20), max_size=10),
       st.integers(-10, 80) | ODD_NUMBER | st.just("what the faces come to"))
def test_the_check_of_plain_notation_refuses_what_roll_from_dict_refuses(expr, faces, total):
    record = {"expr": expr, "faces": faces, "who": "Wren"}
    if isinstance(total, str):
        sides, signs, total = plan(expr)
        try:
            total += sum(sign * face for sign, face in zip(signs, faces))
        except TypeError:
            pass
    record["total"] = total
    verdict = statecheck.roll_problem(record) is None
    assert verdict == (from_dict_problem(record) is None), record
    assert (statecheck.rolls_problem({"r": record}) is None) == verdict
