"""Any command played by a form of the Keeper panel (the ``act`` intent): the card fixes what it knows (``given``),
the form's fields fill the command's parameters, each read as the parameter is declared (a whole number, yes or
no, words); what is typed wrong is said beside its field and changes nothing. A new command's table control is one
such card in the view."""
from __future__ import annotations

import json
import shutil

import pytest

pytest.importorskip("anywidget")

import delvebook as db  # noqa: E402
from delvebook.store import read_log  # noqa: E402
from delvebook.table import UI, perform, table_view  # noqa: E402

from conftest import CAMPAIGNS  # noqa: E402


@pytest.fixture
def camp(tmp_path):
    shutil.copytree(CAMPAIGNS / "the-sunken-keep", tmp_path / "keep")
    c = db.Campaign.open(tmp_path / "keep")
    yield c
    c.close()


def click(camp, ui, **intent):
    perform(camp, ui, intent)
    view = table_view(camp, ui)
    json.dumps(view)
    return view


def on_disk(camp) -> list[str]:
    events, problems = read_log(camp.path)
    assert not problems
    return [e["kind"] for e in events]


def deed(view, kind):
    found = [d for d in view["keeper"]["deeds"] if d["form"]["id"] == kind]
    return found[0] if found else None


def test_darkness_falls_and_the_fight_is_lit_again_by_the_keepers_card(camp):
    ui = UI(panel="keeper")
    view = click(camp, ui, do="panel", panel="keeper")
    assert deed(view, "lighting") is None  # no fight, nothing to light
    click(camp, ui, do="start_session")
    click(camp, ui, do="start_fight", prepared="causeway_ambush")
    view = click(camp, ui, do="panel", panel="keeper")
    card = deed(view, "lighting")
    assert card["form"]["submit"]["label"] == "Darkness falls" and "lit" in card["hint"]
    view = click(camp, ui, **card["form"]["submit"]["intent"])
    assert ui.refusal is None and camp.state["encounter"]["dark"] is True
    assert view["outcome"]["text"].startswith("The fight is in darkness")
    view = click(camp, ui, do="panel", panel="keeper")
    card = deed(view, "lighting")
    assert card["form"]["submit"]["label"] == "Light the fight" and "in darkness" in card["hint"]
    click(camp, ui, **card["form"]["submit"]["intent"])
    assert camp.state["encounter"]["dark"] is False
    assert on_disk(camp)[-2:] == ["lighting", "lighting"]


def test_what_a_form_sends_is_read_as_the_command_declares_it_and_said_beside_its_field(camp):
    ui = UI(panel="keeper")
    before = on_disk(camp)
    where = "keeper:award_xp"
    click(camp, ui, do="act", kind="award_xp", where=where, args={"amount": "lots"})
    assert ui.refusal["field"] == "amount" and "whole number" in ui.refusal["text"]
    click(camp, ui, do="act", kind="award_xp", where=where, args={"amount": ""})
    assert ui.refusal["field"] == "amount" and ui.refusal["text"] == "say the amount"
    click(camp, ui, do="act", kind="award_xp", where=where, args={"amount": "5", "gold": "3"})
    assert "takes no 'gold'" in ui.refusal["text"] and ui.refusal["where"] == where
    click(camp, ui, do="act", kind="summon_dragon", where=where)
    assert ui.refusal["text"] == "the table has no command 'summon_dragon'"
    click(camp, ui, do="act", kind="award_xp", where=where, given={"amount": {"x": 5}})
    assert "not what a field holds" in ui.refusal["text"]
    assert on_disk(camp) == before  # nothing typed wrong reached the log
    click(camp, ui, do="act", kind="award_xp", where=where, args={"amount": " 12 ", "reason": "  "})
    assert ui.refusal is None
    e = camp.events[-1]
    assert e["kind"] == "award_xp" and e["args"]["amount"] == 12 and on_disk(camp) == before + ["award_xp"]


def test_a_flag_is_yes_or_no(camp):
    ui = UI(panel="keeper")
    click(camp, ui, do="start_session")
    click(camp, ui, do="start_fight", prepared="causeway_ambush")
    click(camp, ui, do="act", kind="lighting", where="keeper:lighting", args={"dark": "yes"})
    assert ui.refusal["field"] == "dark" and "yes or no" in ui.refusal["text"]
    assert not camp.state["encounter"].get("dark")
