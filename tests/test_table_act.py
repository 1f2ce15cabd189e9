"""Any command played by a form of the Keeper panel (the ``act`` intent): the card fixes what it knows (``given``),
the form's fields fill the command's parameters, each read as the parameter is declared (a whole number, yes or
no, words); what is typed wrong is said beside its field and changes nothing. A new command's table control is one
such card in the view."""
from __future__ import annotations

import pytest

pytest.importorskip("anywidget")

from delvebook.store import read_log  # noqa: E402
from delvebook.table import UI  # noqa: E402

from conftest import click  # noqa: E402


def on_disk(camp) -> list[str]:
    events, problems = read_log(camp.path)
    assert not problems
    return [e["kind"] for e in events]


def deed(view, kind):
    found = [d for d in view["keeper"]["deeds"] if d["form"]["id"] == kind]
    return found[0] if found else None


def test_darkness_falls_and_the_fight_is_lit_again_by_the_keepers_card(kept):
    ui = UI(panel="keeper")
    view = click(kept, ui, do="panel", panel="keeper")
    assert deed(view, "lighting") is None  # no fight, nothing to light
    click(kept, ui, do="start_session")
    click(kept, ui, do="start_fight", prepared="causeway_ambush")
    view = click(kept, ui, do="panel", panel="keeper")
    card = deed(view, "lighting")
    assert card["form"]["submit"]["label"] == "Darkness falls" and "lit" in card["hint"]
    view = click(kept, ui, **card["form"]["submit"]["intent"])
    assert ui.refusal is None and kept.state["encounter"]["dark"] is True
    assert view["outcome"]["text"].startswith("The fight is in darkness")
    view = click(kept, ui, do="panel", panel="keeper")
    card = deed(view, "lighting")
    assert card["form"]["submit"]["label"] == "Light the fight" and "in darkness" in card["hint"]
    click(kept, ui, **card["form"]["submit"]["intent"])
    assert kept.state["encounter"]["dark"] is False
    assert on_disk(kept)[-2:] == ["lighting", "lighting"]


def test_what_a_form_sends_is_read_as_the_command_declares_it_and_said_beside_its_field(kept):
    ui = UI(panel="keeper")
    before = on_disk(kept)
    where = "keeper:award_xp"
    click(kept, ui, do="act", kind="award_xp", where=where, args={"amount": "lots"})
    assert ui.refusal["field"] == "amount" and "whole number" in ui.refusal["text"]
    click(kept, ui, do="act", kind="award_xp", where=where, args={"amount": ""})
    assert ui.refusal["field"] == "amount" and ui.refusal["text"] == "say the amount"
    click(kept, ui, do="act", kind="award_xp", where=where, args={"amount": "5", "gold": "3"})
    assert "takes no 'gold'" in ui.refusal["text"] and ui.refusal["where"] == where
    click(kept, ui, do="act", kind="summon_dragon", where=where)
    assert ui.refusal["text"] == "the table has no command 'summon_dragon'"
    click(kept, ui, do="act", kind="award_xp", where=where, given={"amount": {"x": 5}})
    assert "not what a field holds" in ui.refusal["text"]
    assert on_disk(kept) == before  # nothing typed wrong reached the log
    click(kept, ui, do="act", kind="award_xp", where=where, args={"amount": " 12 ", "reason": "  "})
    assert ui.refusal is None
    e = kept.events[-1]
    assert e["kind"] == "award_xp" and e["args"]["amount"] == 12 and on_disk(kept) == before + ["award_xp"]


def test_a_flag_is_yes_or_no(kept):
    ui = UI(panel="keeper")
    click(kept, ui, do="start_session")
    click(kept, ui, do="start_fight", prepared="causeway_ambush")
    click(kept, ui, do="act", kind="lighting", where="keeper:lighting", args={"dark": "yes"})
    assert ui.refusal["field"] == "dark" and "yes or no" in ui.refusal["text"]
    assert not kept.state["encounter"].get("dark")
