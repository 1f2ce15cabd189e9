"""The log's bookkeeping: which actions stand (one implementation, with or without a state), and what each
event touched."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from delvebook.core.events import History, Ledger, apply_changes, clone, replay, revert, standing
import delvebook as db
from delvebook.store import MemoryStore
from enginekit import Table


def _table() -> Table:
    t = Table(seed=5).party(("Wren", "rogue"), ("Bo", "fighter", {"weapon": "sword_and_shield"}))
    t.do("start_session")
    return t


def test_standing_and_history_agree_on_what_is_in_force():
    t = _table()
    t.do("check", who="Wren", skill="stealth", target=12, faces={"check": [5, 2]})
    t.luck("Ana" if "Ana" in t.state["luck"] else "Wren", +1, face=4)
    t.do("award_xp", amount=10)
    t.undo()
    t.undo()
    t.redo()
    t.do("rest")
    in_force, replaced_by, undone_by = standing(t.events)
    assert in_force == set(t.engine.history.in_force())
    luck = next(e for e in t.events if e.get("replaces"))
    assert replaced_by == {luck["replaces"]: luck["seq"]}
    award = next(e for e in t.events if e["kind"] == "award_xp")
    first_undo = next(e for e in t.events if e["kind"] == "undo")
    assert undone_by == {award["seq"]: first_undo["seq"]}  # the redo put the luck die back, not the award


def _standing_holds(t: Table) -> None:
    """What History keeps as it folds is what the slow reference works out from the whole log."""
    kept = t.engine.history.standing
    in_force, replaced_by, undone_by = standing(t.events)
    assert kept.as_sets() == (in_force, replaced_by, undone_by)
    assert set(t.engine.history.in_force()) == in_force == set(replay(t.setup, t.events).in_force())
    for e in t.events:
        seq = e["seq"]
        assert kept.in_force(seq) == (seq in in_force)
        assert kept.replaced_by(seq) == replaced_by.get(seq) and kept.undone_by(seq) == undone_by.get(seq)


_STEPS = st.one_of(st.sampled_from(["check", "xp", "luck", "amend", "redo", "rest"]),
                   st.tuples(st.just("undo"), st.integers(1, 4)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_STEPS, min_size=1, max_size=40), st.integers(1, 20), st.integers(1, 6))
def test_history_keeps_what_stands_as_the_whole_log_says_after_every_event(steps, d20, d6):
    """Undo k, redo, luck dice and typed dice replacing, a new action clearing what could be redone: after each
    event, History's standing is the reference's answer over the log so far."""
    t = _table()
    for step in steps:
        try:
            if step == "check":
                t.do("check", who="Wren", skill="stealth", target=10)
            elif step == "xp":
                t.do("award_xp", amount=3)
            elif step == "rest":
                t.do("rest")
            elif step == "luck":
                t.luck("Wren", -1)
            elif step == "amend":
                t.amend(check=[d20, d6])
            elif step == "redo":
                t.redo()
            else:
                for _ in range(step[1]):
                    t.undo()
        except Exception:  # refused: nothing was logged
            pass
        _standing_holds(t)


def test_a_replaced_action_stands_again_when_its_replacement_is_undone_and_follows_it_when_redone():
    t = _table()
    check = t.do("check", who="Wren", skill="stealth", target=12, faces={"check": [5, 2]})
    luck = t.luck("Wren", +1, face=4)
    typed = t.amend(check=[17, 1])
    kept = t.engine.history.standing
    assert kept.replaced_by(check["seq"]) == luck["seq"] and kept.replaced_by(luck["seq"]) == typed["seq"]
    assert kept.current(check["seq"]) == typed["seq"] and kept.in_force(typed["seq"])
    undo = t.undo()
    assert kept.undone_by(typed["seq"]) == undo["seq"] and kept.current(check["seq"]) == luck["seq"]
    assert kept.in_force(luck["seq"]) and not kept.in_force(typed["seq"])
    t.redo()
    assert kept.current(check["seq"]) == typed["seq"] and kept.undone_by(typed["seq"]) is None
    _standing_holds(t)


def test_the_long_campaign_stands_as_its_whole_log_says(long_delve):
    in_force, replaced_by, undone_by = standing(long_delve.events)
    assert long_delve.standing.as_sets() == (in_force, replaced_by, undone_by)
    assert replaced_by and undone_by, "the long log has luck dice and undos to hold it to"


_VALUES = st.recursive(st.none() | st.integers(-5, 5) | st.text(max_size=3),
                       lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3),
                       max_leaves=8)


@st.composite
def _state_and_changes(draw):
    """A state of lists and mappings, and changes that set, add or append at places it has as each comes."""
    state = draw(st.dictionaries(st.text(max_size=2), _VALUES, min_size=1, max_size=4))
    work, changes = clone(state), []
    for _ in range(draw(st.integers(1, 8))):
        path, node = [], work  # walk down to some container, then set one of its places or add one
        while True:
            keys = list(node) if isinstance(node, dict) else list(range(len(node)))
            deeper = [k for k in keys if isinstance(node[k], (dict, list))]
            if not deeper or not draw(st.booleans()):
                break
            k = draw(st.sampled_from(deeper))
            path.append(k)
            node = node[k]
        if isinstance(node, list):
            key = draw(st.integers(0, len(node)))  # len(node): an append
        else:
            key = draw(st.sampled_from(list(node) + ["new"]) if node else st.just("new"))
        change = [path + [key], draw(_VALUES)]
        apply_changes(work, [change])
        changes.append(change)
    return state, changes


@settings(max_examples=200, deadline=None)
@given(_state_and_changes())
def test_revert_puts_back_exactly_what_apply_changes_changed(case):
    state, changes = case
    work = clone(state)
    olds = apply_changes(work, changes)
    after = clone(work)
    taken = revert(work, changes, olds)
    assert work == state and taken == [value for _, value in changes]
    # nothing in the state is shared with a change: mutating the changes' values leaves the state alone
    apply_changes(work, changes)
    for _, value in changes:
        if isinstance(value, (dict, list)):
            value.clear()
    assert work == after


def test_the_events_frame_marks_in_force_what_standing_says(tmp_path):
    from delvebook import analysis
    t = _table()
    for k in range(6):
        t.do("check", who="Bo", skill="athletics", target=8 + k)
        if k % 2:
            t.luck("Wren", +1)
        if k % 3 == 0:
            t.undo()
    t.undo()
    t.undo()
    t.redo()
    camp = db.Campaign.open(MemoryStore({"name": "Replayed", "seed": 5}, [dict(e) for e in t.events]))
    ev = analysis.events(camp)
    actions = ev[ev["status"].isin(["in force", "undone", "replaced"])]
    assert set(actions.loc[actions["in_force"], "seq"]) == standing(t.events)[0]


def test_a_ledger_refuses_an_undo_with_nothing_to_undo():
    ledger = Ledger()
    try:
        ledger.undo({"seq": 1, "kind": "undo"})
    except ValueError as err:
        assert "nothing to undo" in str(err)
    else:
        raise AssertionError("an undo with nothing to undo was accepted")


def test_an_attack_touches_the_target_and_nothing_else_it_did_not_change():
    t = _table()
    t.do("encounter", foes=[{"foe": "goblin", "name": "Gob"}])
    t.do("initiative", first="party")
    t.turn("Bo")
    event = t.engine.decide("attack", {"attacker": "Bo", "target": "Gob"}, t.rng, len(t.events) + 1,
                            {"attack": [18, 2], "resist": [3], "damage": [2, 2]})
    t.events.append(event)
    touched = t.engine.apply(event)
    assert touched.foes == {"Gob"} and not touched.delvers and not touched.players
    assert not touched.session and not touched.seats


def test_a_luck_die_touches_its_player_only_and_undo_touches_it_again():
    t = _table()
    t.do("check", who="Wren", skill="stealth", target=12, faces={"check": [5, 2]})
    event = t.engine.decide_luck("Wren", +1, t.rng, len(t.events) + 1, face=3)
    t.events.append(event)
    touched = t.engine.apply(event)
    assert touched.players == {"Wren"} and not touched.delvers
    undo = t.engine.decide_undo(len(t.events) + 1)
    t.events.append(undo)
    assert t.engine.apply(undo).players == {"Wren"}


def test_a_new_session_touches_every_player_whose_luck_changed():
    t = _table()  # Wren and Bo play themselves
    t.do("check", who="Wren", skill="stealth", target=12, faces={"check": [5, 2]})
    t.luck("Wren", +1, face=2)
    t.do("end_session")
    h = History(dict(t.state, luck=dict(t.state["luck"])))
    event = t.engine.decide("start_session", {}, t.rng, len(t.events) + 1)
    touched = h.apply(event)
    assert touched.session and touched.players == {"Wren"}  # Bo still had 3


def test_conditions_touched_name_their_holders():
    t = _table()
    event = t.engine.decide("use", {"who": "Wren", "ability": "dodge"}, t.rng, len(t.events) + 1)
    t.events.append(event)
    touched = t.engine.apply(event)
    assert touched.holders == {"Wren"} and len(touched.conditions) == 1 and touched.delvers == {"Wren"}
    rest = t.engine.decide("rest", {}, t.rng, len(t.events) + 1)
    touched = t.engine.apply(rest)
    assert touched.holders == {"Wren"} and touched.clock and touched.under("delvers", "Wren", "resources")


def test_the_campaign_hands_what_an_event_touched_to_its_listeners(tmp_path):
    import delvebook as db
    camp = db.Campaign.create(tmp_path / "c", name="T", seed=1)
    seen = []
    camp.listeners.append(seen.append)
    camp.add_delver("Wren", "rogue", player="Ana")
    camp.start_session()
    assert seen[0].touched.delvers == {"Wren"} and seen[0].touched.seats
    assert seen[1].touched.session and seen[1].touched.players == set()  # Ana already had 3
    camp.close()
