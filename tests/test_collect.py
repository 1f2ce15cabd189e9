"""The follower keeps its collectors in step with History's actions in force: after any play with undo, redo, luck
dice and typed dice, a collector holds exactly what the actions in force added, in order, and its latest values are
those the latest of them left."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from delvebook.core.collect import Collector, Follower, fight_of
from delvebook.core.declared import view
from delvebook.engine import Refused
from delvebook.core.events import History, clone

from enginekit import Table


class Seqs(Collector):
    """Each action's seq as a row, and the latest under ``last["latest"]``."""

    FIELDS = ("seq",)

    def step(self, event, history, touched):
        return ((event.seq,),), {"latest": event.seq}


def played(ops) -> Table:
    t = Table(seed=5).party(("Wren", "rogue"), ("Brakka", "fighter", {"weapon": "sword_and_shield"}))
    t.do("start_session")
    for op in ops:
        try:
            if op == "check":
                t.do("check", who="Wren", skill="stealth", target=12)
            elif op == "undo":
                t.undo()
            elif op == "redo":
                t.redo()
            elif op == "luck":
                t.luck(t.delver("Wren")["player"], 1)
            elif op == "typed":
                t.amend(check=[20, 6])
        except (Refused, ValueError, KeyError):  # refused, or undone past the delvers' joining
            continue
    return t


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(["check", "check", "undo", "redo", "luck", "typed"]), max_size=25))
def test_a_collector_holds_what_the_actions_in_force_added_in_order(ops):
    t = played(ops)
    seqs = Seqs()
    follower = Follower([seqs])
    follower.start(t.setup)
    history = History(clone(t.setup))
    for event in t.events:
        follower.follow(history, event, history.apply(event))
        in_force = history.in_force()
        assert [row[0] for row in seqs.rows] == in_force
        assert seqs.last.get("latest") == (in_force[-1] if in_force else None)
    again = Seqs()
    Follower([again]).replay(t.setup, t.events)
    assert again.rows == seqs.rows == [(s,) for s in t.engine.history.in_force()]


def test_an_action_put_back_adds_the_step_it_had_not_a_new_one():
    t = played(["check", "undo", "redo"])
    steps = []

    class Counting(Seqs):
        def step(self, event, history, touched):
            steps.append(event.seq)
            return super().step(event, history, touched)

    c = Counting()
    Follower([c]).replay(t.setup, t.events)
    check = next(e["seq"] for e in t.events if e["kind"] == "check")
    assert steps.count(check) == 1 and (check,) in c.rows


def test_an_event_belongs_to_the_fight_it_names_or_begins():
    running = {"encounter": {"number": 4}}
    assert fight_of(view({"kind": "attack", "encounter": 3}), running) == 3
    assert fight_of(view({"kind": "encounter"}), running) == 4
    assert fight_of(view({"kind": "damage"}), running) == 4
    assert fight_of(view({"kind": "rest"}), {"encounter": None}) is None
