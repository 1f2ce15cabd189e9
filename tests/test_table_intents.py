"""A click's message is input from a page, and a page can be forged or garbled: an intent of any kind with a field
of the wrong type is refused next to the click, changes nothing on disk, and the table keeps answering (a view goes
back with the click's ack every time)."""
from __future__ import annotations

import json
import shutil

import pytest

pytest.importorskip("anywidget")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import delvebook as db  # noqa: E402
from delvebook.store import read_log  # noqa: E402
from delvebook.table import Table  # noqa: E402
from delvebook.table.intents import FIELDS, INTENTS, FormError, check_shape  # noqa: E402

from conftest import CAMPAIGNS  # noqa: E402

WRONG = {  # for each kind of field, values a click never sends in it
    "a name": [["x"], {"x": 1}, 3],
    "a whole number": ["3", [3], True, 2.5],
    "a list of names": ["Wren", [1], {"Wren": 1}],
    "a set of fields": ["x", ["x"]],
    "yes or no": ["yes", 1],
    "a name or a number": [["x"], True, 2.5],
    "one value": [[2], {"x": 1}],
}


@pytest.fixture
def table(tmp_path):
    shutil.copytree(CAMPAIGNS / "the-sunken-keep", tmp_path / "keep")
    camp = db.Campaign.open(tmp_path / "keep")
    t = Table(camp)
    for intent in ({"do": "start_session"}, {"do": "start_fight", "prepared": "causeway_ambush"},
                   {"do": "initiative", "first": "party"}, {"do": "check", "who": "Wren", "skill": "stealth"}):
        t.handle(intent)
        assert t.ui.refusal is None, t.ui.refusal
    yield t
    camp.close()


def on_disk(t) -> list[str]:
    events, problems = read_log(t.camp.path)
    assert not problems
    return [e["kind"] for e in events]


def still_answers(t) -> None:
    """A sound click after the garbled one is done as ever."""
    t.handle({"do": "panel", "panel": "keeper", "where": "header"}, ack="sound")
    assert t.view["ack"] == "sound" and t.view["panel"] == "keeper" and t.view.get("refusal") is None
    t.handle({"do": "panel", "panel": "play", "where": "header"})


def test_a_player_sent_as_a_list_is_refused_next_to_the_click_and_the_table_keeps_answering(table):
    before = on_disk(table)
    table.handle({"do": "luck_player", "player": ["x"], "where": "outcome"}, ack="k1")
    assert table.view["ack"] == "k1"
    assert table.view["refusal"]["where"] == "outcome"
    assert "'player'" in table.view["refusal"]["text"] and "a name" in table.view["refusal"]["text"]
    assert on_disk(table) == before
    still_answers(table)


@pytest.mark.parametrize("kind", sorted(INTENTS))
def test_every_intent_kind_with_a_field_of_the_wrong_type_is_refused_where_it_was_clicked(table, kind):
    before = on_disk(table)
    for field, what in sorted(FIELDS.items()):
        bad = WRONG[what][0]
        table.handle({"do": kind, field: bad, "where": "here"}, ack=f"{kind}:{field}")
        view = table.view
        assert view["ack"] == f"{kind}:{field}", "no view went back"
        assert view["refusal"] and view["refusal"]["where"] == "here", (kind, field, view["refusal"])
        assert f"{field!r}" in view["refusal"]["text"]
    assert on_disk(table) == before
    still_answers(table)


@pytest.mark.parametrize("field, what", sorted(FIELDS.items()))
def test_each_field_refuses_every_type_a_click_never_sends_in_it(field, what):
    for bad in WRONG[what]:
        with pytest.raises(FormError, match=f"{field!r}"):
            check_shape({"do": "check", field: bad})
    check_shape({"do": "check", field: None})  # an absent value is each handler's to ask for


@pytest.mark.parametrize("intent", [
    {"do": "target", "target": ["10"]}, {"do": "end_condition", "id": {"n": 1}}, {"do": "attack", "target": True},
    {"do": "attack_option", "name": "multi", "value": [2]}, {"do": "give", "args": {"item": {"x": 1}}},
    {"do": "give", "args": {"item": [["sword"]]}}, {"do": ["check"]}, {"do": "check", "where": ["x"]},
    {"do": "override", "intent": {"do": "attack", "attacker": ["Wren"]}},
])
def test_names_or_numbers_one_value_and_form_fields_are_checked_too(table, intent):
    before = on_disk(table)
    table.handle(intent, ack="odd")
    assert table.view["ack"] == "odd" and table.view["refusal"], intent
    assert not table.view["refusal"]["text"].startswith(("the table hit an error", "the table could not show"))
    assert on_disk(table) == before
    still_answers(table)


def test_a_ui_state_the_view_cannot_draw_is_put_back_as_it_was_and_said(table, monkeypatch):
    """Whatever slips past the checks, the page gets a view: the table as it was before the click, and why."""
    from delvebook.table import widget
    drawn = widget.table_view

    def cannot_draw_wren(camp, ui):
        if ui.selected == "Wren":
            raise TypeError("unhashable type: 'list'")
        return drawn(camp, ui)
    monkeypatch.setattr(widget, "table_view", cannot_draw_wren)
    table.handle({"do": "select", "who": "Wren", "where": "party"}, ack="k2")
    assert table.ui.selected != "Wren"
    assert table.view["ack"] == "k2"
    assert table.view["refusal"]["where"] == "party"
    assert table.view["refusal"]["text"].startswith("the table could not show that click")
    json.dumps(table.view)
    still_answers(table)


JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 30) | st.sampled_from(["", "Wren", "x", "10"]),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["x", "who"]), inner,
                                                                                   max_size=2), max_leaves=4)
KEYS = sorted(set(FIELDS) | {"target", "id", "value", "where"})


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(sorted(INTENTS)), fields=st.dictionaries(st.sampled_from(KEYS), JSON, max_size=3))
def test_any_message_gets_a_view_back_and_never_an_error_of_the_table(table, kind, fields):
    table.handle({"do": kind, **fields}, ack="any")
    assert table.view["ack"] == "any"
    refusal = table.view.get("refusal") or {}
    assert not str(refusal.get("text", "")).startswith(("the table hit an error", "the table could not show")), \
        (kind, fields, refusal)
    json.dumps(table.view)
