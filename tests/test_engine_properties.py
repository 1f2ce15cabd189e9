"""Properties of the engine over random sequences of legal and illegal commands."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from delvebook.engine import Refused
from delvebook.events import clone, replay
from enginekit import Table

NAMES = ["Wren", "Bo", "Ada", "Cy", "Nim", "Nobody"]
FOES = ["Goblin 1", "Goblin 2", "Ogre 1", "Nobody"]
SKILLS = [None, "stealth", "athletics", "magic", "lore"]


def _party() -> Table:
    return Table(seed=3).party(("Wren", "rogue"), ("Bo", "fighter", {"weapon": "sword_and_shield"}),
                               ("Ada", "mage"), ("Cy", "cleric"), ("Nim", "namer"))


def _command(data) -> tuple:
    kind = data.draw(st.sampled_from([
        "check", "attack", "attack", "attack", "next_turn", "encounter", "initiative", "end_encounter",
        "award_xp", "earn", "spend", "rest", "start_session", "end_session", "luck", "luck", "undo", "undo",
        "redo", "death_save", "damage", "heal", "level_up", "complete_quest", "explore_room", "advance_time",
    ]))
    who = data.draw(st.sampled_from(NAMES))
    anyone = NAMES + FOES
    if kind == "check":
        return kind, dict(who=who, skill=data.draw(st.sampled_from(SKILLS)), target=data.draw(st.integers(1, 30)))
    if kind == "attack":
        return kind, dict(attacker=data.draw(st.sampled_from(anyone)), target=data.draw(st.sampled_from(anyone)),
                          multi=data.draw(st.sampled_from([None, None, 2])),
                          advantage=data.draw(st.booleans()))
    if kind == "encounter":
        return kind, dict(foes=data.draw(st.lists(st.sampled_from(["goblin", "ogre", "bandit", "dragon"]),
                                                  min_size=0, max_size=3)))
    if kind == "initiative":
        return kind, dict(first=data.draw(st.sampled_from([None, "party", "foes"])))
    if kind in ("award_xp",):
        return kind, dict(amount=data.draw(st.integers(-5, 150)))
    if kind in ("earn", "spend"):
        args = dict(amount=data.draw(st.integers(-3, 400)))
        if kind == "spend" or data.draw(st.booleans()):
            args["who"] = who
        return kind, args
    if kind == "luck":
        return kind, dict(player=who, sign=data.draw(st.sampled_from([1, -1])))
    if kind in ("death_save", "level_up"):
        return kind, dict(who=who)
    if kind in ("damage", "heal"):
        return kind, dict(who=data.draw(st.sampled_from(anyone)), amount=data.draw(st.integers(0, 25)))
    if kind in ("complete_quest", "explore_room"):
        return kind, dict(name=data.draw(st.sampled_from(["a", "b", "c"])))
    if kind == "advance_time":
        return kind, dict(minutes=data.draw(st.integers(0, 120)))
    return kind, {}


def _run(t: Table, kind: str, args: dict) -> bool:
    try:
        if kind == "luck":
            t.luck(args["player"], args["sign"])
        elif kind == "undo":
            t.undo()
        elif kind == "redo":
            t.redo()
        else:
            t.do(kind, **args)
        return True
    except Refused:
        return False


def _check_invariants(t: Table) -> None:
    s = t.state
    assert s["xp_awarded"] == sum(d["xp"] for d in s["delvers"].values()) + s["xp_pool"]
    combatants = list(s["delvers"].values()) + (list(s["encounter"]["foes"].values()) if s["encounter"] else [])
    for c in combatants:
        assert 0 <= c["hearts"], c
        assert all(0 <= a["dv"] <= a["dv_max"] for a in c.get("armor", ())), c
    for player, n in s["luck"].items():
        assert 0 <= n <= 3


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_command_sequence_replays_to_the_live_state(data):
    t = _party()
    n = data.draw(st.integers(5, 60))
    for _ in range(n):
        before = clone(t.state)
        kind, args = _command(data)
        if not _run(t, kind, args):
            assert t.state == before  # a refused command changes nothing
        _check_invariants(t)
    assert replay(t.setup, t.events).state == t.state


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_undo_of_the_last_k_actions_then_redo_gives_back_the_same_state(data):
    t = _party()
    for _ in range(data.draw(st.integers(3, 40))):
        kind, args = _command(data)
        if kind not in ("undo", "redo"):
            _run(t, kind, args)
    snapshots = [clone(t.state)]
    k = data.draw(st.integers(1, 8))
    undone = 0
    for _ in range(k):
        if t.engine.history.latest_action() is None:
            break
        t.undo()
        undone += 1
        snapshots.append(clone(t.state))
    for i in range(undone):
        t.redo()
        assert t.state == snapshots[undone - i - 1]
    assert t.state == snapshots[0]
    assert replay(t.setup, t.events).state == t.state


def test_xp_awarded_equals_xp_held_plus_the_pool_over_a_long_run():
    t = _party()
    for amount in [7, 100, 33, 1, 250, 4]:
        t.do("award_xp", amount=amount)
        _check_invariants(t)
    assert t.state["xp_awarded"] == 395
