"""The fallen: a dead delver keeps their seat but leaves the party strip for one folded row at its end (a long
campaign's dozens of dead would bury the living party), opened by a click to name them and pick one's sheet."""
from __future__ import annotations

import json

import pytest

pytest.importorskip("anywidget")

from delvebook.table import UI, table_view  # noqa: E402
from delvebook.view import without_intents  # noqa: E402

from conftest import click  # noqa: E402


def _dies(camp, who: str) -> None:
    """``who`` drops to 0 hearts in a fight and fails the death save after it (a typed 1)."""
    fight = camp.encounter(["orc"])
    fight.initiative(first="party")
    camp.damage(who, camp.delver(who).hearts)
    fight.end()
    camp.death_save(who, faces={"death_save": [1]})
    assert camp.delver(who).status == "dead"


def test_the_dead_leave_the_strip_for_the_fallen_row_folded_to_a_count(kept):
    camp = kept
    camp.start_session()
    ui = UI()
    view = table_view(camp, ui)
    assert view["fallen"] is None, "no row before anyone falls"
    _dies(camp, "Brakka")
    _dies(camp, "Ilse")
    view = table_view(camp, ui)
    assert [c["name"] for c in view["party"]] == ["Wren", "Father Odo", "Sable"]
    assert camp.state["seats"] == ["Wren", "Brakka", "Ilse", "Father Odo", "Sable"], "the dead keep their seats"
    fallen = view["fallen"]
    assert fallen["count"] == 2 and fallen["text"] == "Fallen: 2" and not fallen["open"] and "names" not in fallen

    view = click(camp, ui, **fallen["toggle"]["intent"])
    fallen = view["fallen"]
    assert fallen["open"] and fallen["toggle"]["label"] == "Fold"
    assert [n["text"] for n in fallen["names"]] == ["Brakka (Fighter 1)", "Ilse (Mage 1)"]
    # a name picks the fallen delver's sheet for the action bar, and shows as picked
    view = click(camp, ui, **fallen["names"][1]["select"])
    assert view["actor"]["name"] == "Ilse" and [n["selected"] for n in view["fallen"]["names"]] == [False, True]
    view = click(camp, ui, **view["fallen"]["toggle"]["intent"])
    assert not view["fallen"]["open"] and "names" not in view["fallen"]


def test_the_players_screen_shows_the_count_and_a_player_page_still_shows_their_fallen_delver(kept):
    camp = kept
    camp.start_session()
    _dies(camp, "Brakka")
    screen = table_view(camp, UI(mode="players", fallen_open=True))
    assert screen == without_intents(screen) and "intent" not in json.dumps(screen["fallen"])
    assert screen["fallen"]["count"] == 1 and [c["name"] for c in screen["party"]] == \
        ["Wren", "Ilse", "Father Odo", "Sable"]
    player = camp.delver("Brakka").player
    page = table_view(camp, UI(mode="player", who=player))
    mine = next(d for d in page["delvers"] if d["name"] == "Brakka")
    assert mine["dead"], "a player's own page keeps their fallen delver's card"
    card = table_view(camp, UI(scope="card", who="Brakka"))
    assert [c["name"] for c in card["party"]] == ["Brakka"] and card["party"][0]["dead"]
