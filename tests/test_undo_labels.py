"""Undo and Redo say exactly what they take back or put back: after a luck die, real dice or a choice on the hit,
undo takes back only that (the action stands again as it was), and its label, the log's undo line and the redo
label name it; once it is taken back, the label names the action itself, never the same words twice."""
from __future__ import annotations

import pytest

pytest.importorskip("anywidget")

import delvebook as db  # noqa: E402
from delvebook import narrate  # noqa: E402
from delvebook.table import UI, perform, table_view  # noqa: E402

from test_table import camp  # noqa: E402,F401  (the prepared campaign's scratch copy)
from test_table_rules import _oath  # noqa: E402


def labels(camp) -> tuple[str, str]:
    view = table_view(camp, UI())
    return view["undo"]["label"], view["redo"]["label"]


def wrens_attack(camp):
    ui = UI()
    for intent in ({"do": "start_session"}, {"do": "start_fight", "prepared": "causeway_ambush"},
                   {"do": "initiative", "first": "party"}):
        perform(camp, ui, intent)
    return camp.fight.attack("Wren", "Bog goblin 1", 0)


def test_after_a_luck_die_undo_names_the_luck_die_and_then_the_attack(camp):
    wrens_attack(camp)
    luck = camp.spend_luck("Ana", 1, face=4)
    assert luck["replaces"]
    assert labels(camp)[0] == "Undo Ana's luck die (+4) on Wren's attack on Bog goblin 1"
    view = table_view(camp, UI())
    perform(camp, UI(), view["undo"]["intent"])
    assert camp.latest_action["seq"] == luck["replaces"], "undo took back only the luck die"
    undo, redo = labels(camp)
    assert undo == "Undo Wren's attack on Bog goblin 1", "the label moved on: it names what undo takes back now"
    assert redo == "Redo Ana's luck die (+4) on Wren's attack on Bog goblin 1"
    view = table_view(camp, UI())
    assert view["outcome"]["text"] == "Undo Ana's luck die (+4) on Wren's attack on Bog goblin 1"
    assert view["log"][0]["text"] == view["outcome"]["text"]  # the log, newest first, says the same


def test_a_luck_die_taken_off_says_minus(camp):
    wrens_attack(camp)
    camp.spend_luck("Ana", -1, face=3)
    assert labels(camp)[0] == "Undo Ana's luck die (\u22123) on Wren's attack on Bog goblin 1"


def test_typed_dice_are_what_undo_takes_back_before_the_action(camp):
    wrens_attack(camp)
    camp.amend(attack=[15, 3])
    assert labels(camp)[0] == "Undo the real dice for Wren's attack on Bog goblin 1"
    camp.undo()
    assert labels(camp) == ("Undo Wren's attack on Bog goblin 1", "Redo the real dice for Wren's attack on Bog goblin 1")
    camp.redo()
    assert labels(camp)[0] == "Undo the real dice for Wren's attack on Bog goblin 1"


def test_two_luck_dice_in_a_row_are_taken_back_one_at_a_time_each_named(camp):
    wrens_attack(camp)
    camp.spend_luck("Ana", 1, face=2)
    camp.spend_luck("Ben", 1, face=5)
    seen = []
    for _ in range(3):
        seen.append(labels(camp)[0])
        camp.undo()
    assert seen == ["Undo Ben's luck die (+5) on Wren's attack on Bog goblin 1",
                    "Undo Ana's luck die (+2) on Wren's attack on Bog goblin 1",
                    "Undo Wren's attack on Bog goblin 1"]


def test_a_choice_on_the_hit_is_what_undo_takes_back(tmp_path):
    camp = db.Campaign.create(tmp_path / "c", name="Smite", seed=13)
    try:
        fight = _oath(camp)
        fight.attack("Fa", "Ogre", faces={"attack": [15, 1], "resist": [3], "damage": [2, 3]})
        fight.on_hit("smite", faces={"smite": [4, 5]})
        assert labels(camp)[0] == "Undo smite on Fa's attack on Ogre"
        camp.undo()
        assert labels(camp) == ("Undo Fa's attack on Ogre", "Redo smite on Fa's attack on Ogre")
    finally:
        camp.close()


def test_an_action_that_replaced_nothing_is_named_as_itself():
    e = {"seq": 3, "kind": "award_xp", "amount": 10, "args": {"amount": 10}}
    assert narrate.step(e) == narrate.title(e)
    assert narrate.step(None) == "nothing"
