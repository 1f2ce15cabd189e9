"""The forecast's speed trick (``forecast.quick``: each attack planned once a forecast) plays the very fights the plain
path plays: from the same seeds, turn for turn, the same states, the same dice left in the stream, the same outcomes;
the plans kept across fights, as a forecast keeps them."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from delvebook.core.events import clone
from delvebook.forecast import Policy
from delvebook.forecast.fight import Plain, fight_turns
from delvebook.forecast.job import start_of
from delvebook.forecast.quick import Quick


def _same_fights(rules, start: dict, policy: Policy, seeds) -> int:
    """Play each seed's fight on both tables, turn by turn, and check they never part; returns the turns compared."""
    plans: dict = {}
    turns = 0
    for seed in seeds:
        plain = Plain(clone(start), rules, random.Random(seed))
        quick = Quick(clone(start), rules, random.Random(seed), plans)
        a, b = fight_turns(plain, policy, {}), fight_turns(quick, policy, {})
        while True:
            try:
                next(a)
            except StopIteration as end:
                with pytest.raises(StopIteration) as other:
                    next(b)
                assert other.value.value == end.value
                break
            next(b)
            turns += 1
            assert quick.state == plain.state, f"seed {seed}, turn {turns}"
        assert quick.state == plain.state
        assert quick.rng.getstate() == plain.rng.getstate()
    return turns


class _Careful(Policy):
    """A table of its own: delvers attack with advantage now and then (an argument the quick path leaves to the
    plain one)."""

    def delver_turn(self, fight, who):
        act = super().delver_turn(fight, who)
        if act is not None and act.kind == "attack" and fight.rng.random() < 0.3:
            act.args["advantage"] = True
        return act


POLICIES = [Policy(), Policy(luck_on_hits=0.5, luck_on_misses=0.5, pool_luck=True), Policy(retreat_when_down=2),
            _Careful(grit_below=0.6)]


@pytest.mark.parametrize("encounter", ["causeway_ambush", "flooded_chapel", "bell_tower"])
@pytest.mark.parametrize("dark", [False, True])
def test_the_quick_path_plays_the_prepared_encounters_as_the_plain_path(sunken_keep, encounter, dark):
    keep = sunken_keep
    start = start_of(keep.rules, keep.state, keep.prepared_encounters[encounter]["foes"], encounter, dark=dark)
    for k, policy in enumerate(POLICIES):
        assert _same_fights(sunken_keep.rules, start, policy, range(100 * k, 100 * k + 25)) > 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_quick_path_plays_any_fight_as_the_plain_path(sunken_keep, data):
    bestiary = sorted(sunken_keep.rules.bestiary)
    foes = data.draw(st.lists(st.sampled_from(bestiary), min_size=1, max_size=4), label="foes")
    out = data.draw(st.lists(st.sampled_from(sunken_keep.state["seats"]), max_size=3, unique=True), label="sitting out")
    if len(out) == len(sunken_keep.state["seats"]):
        out = out[1:]
    dark = data.draw(st.booleans(), label="dark")
    policy = data.draw(st.sampled_from(POLICIES), label="policy")
    seed = data.draw(st.integers(0, 2 ** 32), label="seed")
    start = start_of(sunken_keep.rules, sunken_keep.state, foes, None, sitting_out=out, dark=dark)
    _same_fights(sunken_keep.rules, start, policy, range(seed, seed + 4))


def test_the_quick_turn_changes_and_death_saves_are_the_ones_played_and_leave_the_rest_to_the_plain_path(
        sunken_keep, monkeypatch):
    """The turn changes, death saves and their luck dice the differential tests compare are the quick ones (not the
    plain path's every time), and where the plain path must answer (a delver in the order who has retired) the quick
    table refuses as it does."""
    from delvebook.engine import Refused
    from delvebook.forecast import quick

    taken, saves = [], []
    kept, apply = quick._next_turn, quick._Save.apply
    monkeypatch.setattr(quick, "_next_turn", lambda state, secs: taken.append(kept(state, secs)) or taken[-1])
    monkeypatch.setattr(quick._Save, "apply", lambda save: saves.append(len(save.roll.luck)) or apply(save))
    keep = sunken_keep
    start = start_of(keep.rules, keep.state, keep.prepared_encounters["bell_tower"]["foes"], "bell_tower")
    assert _same_fights(keep.rules, start, Policy(pool_luck=True), range(8)) > 0
    assert taken.count(True) > 50 and taken.count(True) > 4 * taken.count(False)
    assert saves.count(0) > 10 and sum(1 for n in saves if n > 0) > 10 and max(saves) >= 2

    for table in (Plain(clone(start), keep.rules, random.Random(1)), Quick(clone(start), keep.rules,
                                                                             random.Random(1))):
        table.do("initiative", {"first": "foes"})
        enc = table.state["encounter"]
        who = enc["order"]["party"][0]
        table.state["delvers"][who]["retired"] = True
        enc["turn"] = len(enc["order"]["foes"]) - 1  # the last foe acts, the others have: the party's turn next
        enc["acted"] = enc["order"]["foes"][:-1]
        before = clone(table.state)
        with pytest.raises(Refused, match="has retired"):
            table.do("next_turn", {})
        assert table.state == before
