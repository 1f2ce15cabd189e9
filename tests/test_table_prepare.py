"""Preparing the evening in the Keeper panel, without a browser: every intent of the Party, Bestiary, Encounters and
Roll tables sections is one campaign call (one event on disk) or a change of the UI state; what is typed wrong is
refused beside its field (an empty name, a duplicate name, hearts -3, a range with a gap or an overlap, a table that
rolls on itself) and changes nothing; the encounter builder's forecast and tuner settle into the view model."""
from __future__ import annotations

import json
import shutil
import threading

import pytest

pytest.importorskip("anywidget")

import delvebook as db  # noqa: E402
from delvebook.store import read_log  # noqa: E402
from delvebook.table import UI, Table, perform, table_view  # noqa: E402
from delvebook.table.forecasting import settle  # noqa: E402
from delvebook.table.intents import FormError, check_shape  # noqa: E402
from delvebook.view.shared import FIND_FROM  # noqa: E402

from conftest import CAMPAIGNS  # noqa: E402


@pytest.fixture
def new(tmp_path):
    """A campaign as `delvebook new` makes it: no one at the table yet."""
    c = db.Campaign.create(tmp_path / "new", name="New", seed=3)
    yield c
    c.close()


@pytest.fixture
def keep(tmp_path):
    shutil.copytree(CAMPAIGNS / "the-sunken-keep", tmp_path / "keep")
    c = db.Campaign.open(tmp_path / "keep")
    yield c
    c.close()


def click(camp, ui, **intent):
    perform(camp, ui, intent)
    view = table_view(camp, ui)
    json.dumps(view)
    return view


def section(view, tab):
    return view["keeper"][tab]


def on_disk(camp) -> list[str]:
    return [e["kind"] for e in read_log(camp.path)[0]]


def field(form, name):
    return next(f for f in form["fields"] if f["name"] == name)


def refused_beside(camp, ui, view, form_path, name, says):
    """The refusal is said beside field ``name`` of the form, and nothing was recorded."""
    assert ui.refusal is not None and says in ui.refusal["text"], ui.refusal
    assert ui.refusal["field"] == name, ui.refusal
    form = view
    for key in form_path:
        form = form[key]
    assert says in field(form, name)["error"]


# ---------------------------------------------------------------- the panel and its sections

def test_an_empty_table_opens_the_keeper_panel_on_the_party_with_every_section_a_tab(new):
    ui = UI()
    view = click(new, ui, do="panel", panel="keeper")
    k = view["keeper"]
    assert k["tab"] == "party" and [t["id"] for t in k["tabs"]] == ["table", "party", "bestiary", "encounters",
                                                                     "tables"]
    view = click(new, ui, do="keeper_tab", tab="bestiary")
    assert view["keeper"]["tab"] == "bestiary" and on_disk(new) == []
    click(new, ui, do="keeper_tab", tab="nowhere")
    assert "no section" in ui.refusal["text"]


# ---------------------------------------------------------------- the party

def test_a_delver_is_added_by_clicks_with_their_class_choices_and_hearts_typed_from_real_dice(new):
    ui = UI(panel="keeper")
    view = click(new, ui, do="keeper_tab", tab="party")
    form = section(view, "party")["form"]
    assert field(form, "class")["send"]["do"] == "new_class"
    view = click(new, ui, do="new_class", value="fighter")
    form = section(view, "party")["form"]
    weapon = field(form, "choice:weapon")
    assert weapon["options"] and all(": " in o["label"] for o in weapon["options"]), "each option says what it gives"
    assert field(form, "hearts")["label"] == "hearts: d6+15"
    view = click(new, ui, do="add_delver", where="keeper:party:form",
                 args={"name": "Brakka", "class": "fighter", "player": "Ben", "hearts": "4",
                       "choice:weapon": weapon["options"][-1]["value"], "seat": ""})
    assert ui.refusal is None and new.delver("Brakka").max_hearts == 19
    assert new.delver("Brakka").data["choices"]["weapon"] == weapon["options"][-1]["value"]
    click(new, ui, do="add_delver", args={"name": "Wren", "class": "rogue", "player": "Ana", "seat": "0"})
    assert new.state["seats"] == ["Wren", "Brakka"] and on_disk(new) == ["add_delver", "add_delver"]
    rows = section(table_view(new, ui), "party")["rows"]
    assert [r["name"] for r in rows] == ["Wren", "Brakka"] and "earlier" in rows[1]


@pytest.mark.parametrize("args, name, says", [
    ({"name": "", "class": "rogue"}, "name", "needs a name"),
    ({"name": "Wren", "class": "rogue"}, "name", "already a delver named 'Wren'"),
    ({"name": "Ada", "class": "fighter", "hearts": "-3"}, "hearts", "faces typed for hearts"),
    ({"name": "Ada", "class": "fighter", "hearts": "four"}, "hearts", "whole numbers"),
])
def test_a_delver_typed_wrong_is_refused_beside_the_field(keep, args, name, says):
    ui = UI(panel="keeper", keeper_tab="party")
    before = on_disk(keep)
    view = click(keep, ui, do="add_delver", where="keeper:party:form", args=args)
    refused_beside(keep, ui, view, ("keeper", "party", "form"), name, says)
    assert on_disk(keep) == before


def test_retiring_asks_once_and_a_seat_moves_up_by_one_click(keep):
    ui = UI(panel="keeper", keeper_tab="party")
    click(keep, ui, do="retire_delver", who="Sable", where="keeper:party")
    assert ui.confirm and "Retire Sable" in ui.confirm["yes_label"] and on_disk(keep) == []
    click(keep, ui, **ui.confirm["yes"])
    assert "Sable" not in keep.state["seats"] and on_disk(keep) == ["retire_delver"]
    view = click(keep, ui, do="seat_earlier", who="Brakka", where="keeper:party")
    assert keep.state["seats"][:2] == ["Brakka", "Wren"] and "Sable (Namer 1" in section(view, "party")["retired"][0]
    click(keep, ui, do="seat_earlier", who="Brakka")
    assert "no seat to move up" in ui.refusal["text"]


# ---------------------------------------------------------------- the bestiary

HAG = {"name": "Bog hag", "hearts": "8", "attack_bonus": "d6", "damage": "2d6", "armor_av": "1", "armor_dv": "5",
       "tags": "fae, evil", "multi_attack": "", "ranged": False, "counters": False, "note": "hates iron"}


def test_a_foe_type_is_added_changed_and_removed_by_clicks(keep):
    ui = UI(panel="keeper", keeper_tab="bestiary")
    click(keep, ui, do="prepare_foe", where="keeper:bestiary:form", args=HAG)
    hag = keep.foe_types["bog_hag"]
    assert ui.refusal is None and hag["armor"] == {"av": 1, "dv": 5} and hag["counters"] is False
    assert hag["tags"] == ["fae", "evil"] and hag["attack_bonus"] == "d6"
    view = click(keep, ui, do="foe_edit", id="bog_hag", where="keeper:bestiary")
    form = section(view, "bestiary")["form"]
    assert field(form, "hearts")["value"] == 8 and field(form, "counters")["value"] is False
    click(keep, ui, do="prepare_foe", id="bog_hag", where="keeper:bestiary:form", args={**HAG, "hearts": "9"})
    assert keep.foe_types["bog_hag"]["hearts"] == 9 and ui.edit is None
    rows = section(table_view(keep, ui), "bestiary")["rows"]
    assert rows[0]["id"] == "bog_hag" and rows[0]["own"] and "never counters" in rows[0]["text"]
    click(keep, ui, do="remove_foe", id="bog_hag", where="keeper:bestiary")
    click(keep, ui, **ui.confirm["yes"])
    assert "bog_hag" not in keep.foe_types
    assert on_disk(keep) == ["prepare_foe", "prepare_foe", "remove_foe"]


@pytest.mark.parametrize("args, name, says", [
    ({**HAG, "name": ""}, "name", "needs a name"),
    ({**HAG, "name": "Bog goblin"}, "name", "already a foe type 'bog_goblin'"),
    ({**HAG, "hearts": "-3"}, "hearts", "1 or more, got -3"),
    ({**HAG, "hearts": ""}, "hearts", "a foe type has hearts"),
    ({**HAG, "armor_dv": ""}, "armor_dv", "both an AV and a DV"),
    ({**HAG, "damage": "2x"}, "damage", "expected dice"),
])
def test_a_foe_type_typed_wrong_is_refused_beside_its_field(keep, args, name, says):
    ui = UI(panel="keeper", keeper_tab="bestiary")
    view = click(keep, ui, do="prepare_foe", where="keeper:bestiary:form", args=args)
    refused_beside(keep, ui, view, ("keeper", "bestiary", "form"), name, says)
    assert on_disk(keep) == []


def test_a_bestiary_of_ten_thousand_is_found_by_id_or_name_and_never_listed_whole(tmp_path):
    bestiary = {f"foe{i}": {"name": f"Foe {i}", "hearts": 3, "attack_bonus": 0, "damage": "d6", "tags": []}
                for i in range(10_000)}
    camp = db.Campaign.create(tmp_path / "big", name="Big", seed=1, bestiary=bestiary,
                              delvers=[{"name": "Wren", "class": "rogue", "player": "Ana"}])
    try:
        ui = UI()
        view = click(camp, ui, do="start_session")
        start = field(view["fight"]["start"]["form"], "foe")
        assert start["kind"] == "find" and len(start["options"]) == FIND_FROM
        click(camp, ui, do="start_fight", args={"foe": "Foe 9999"})
        assert ui.refusal is None and camp.fight.foes[0].name == "Foe 9999 1"
        for tab in ("bestiary", "encounters", "table"):
            view = click(camp, ui, do="panel", panel="keeper") if tab == "table" else \
                click(camp, ui, do="keeper_tab", tab=tab)
            assert len(json.dumps(view)) < 60_000, f"the {tab} section lists the bestiary whole"
        view = click(camp, ui, do="foe_edit", where="keeper:bestiary", args={"find": "foe 4242"})
        assert ui.edit == {"kind": "foe", "id": "foe4242"}
    finally:
        camp.close()


# ---------------------------------------------------------------- encounters, the builder, its forecast and tuner

def test_the_encounter_builder_forecasts_the_draft_what_ifs_and_saves_and_starts_it(keep):
    ui = UI(panel="keeper", keeper_tab="encounters")
    view = click(keep, ui, do="builder_open", where="keeper:encounters")
    b = section(view, "encounters")["builder"]
    assert b["title"] == "A new encounter" and b["forecast"]["status"] == "empty"
    click(keep, ui, do="builder_add", where="keeper:builder", args={"foe": "Bog goblin", "count": "2"})
    click(keep, ui, do="builder_add", where="keeper:builder", args={"foe": "bog_goblin"})
    assert ui.builder["foes"] == [["bog_goblin", 3]]
    settle(keep, ui)
    f = section(table_view(keep, ui), "encounters")["builder"]["forecast"]
    assert f["status"] == "done" and "within ±2 points" in f["text"] and f["frac"] == 1.0
    assert [d["name"] for d in f["delvers"]] == keep.state["seats"] and f["party"][0]["label"] == "a death"
    click(keep, ui, do="builder_dark", where="keeper:builder")  # in darkness: a what-if, and back
    assert ui.builder["dark"] is True
    settle(keep, ui)
    assert section(table_view(keep, ui), "encounters")["builder"]["dark"]["label"] == "in darkness"
    click(keep, ui, do="builder_dark", where="keeper:builder")
    click(keep, ui, do="builder_foe", foe="bog_goblin", delta=-1, where="keeper:builder")  # one fewer: a what-if
    click(keep, ui, do="builder_out", who="Wren", where="keeper:builder")  # Wren sits it out
    settle(keep, ui)
    f = section(table_view(keep, ui), "encounters")["builder"]["forecast"]
    assert [d["name"] for d in f["delvers"]] == keep.state["seats"][1:] and ui.builder["foes"] == [["bog_goblin", 2]]
    view = click(keep, ui, do="builder_save", where="keeper:builder", args={"name": "", "note": ""})
    refused_beside(keep, ui, view, ("keeper", "encounters", "builder", "form"), "name", "needs a name")
    click(keep, ui, do="builder_save", where="keeper:builder", args={"name": "Reed ambush", "note": "in the reeds"})
    assert keep.prepared_encounters["reed_ambush"]["foes"] == [{"foe": "bog_goblin"}] * 2
    view = click(keep, ui, do="builder_start", where="keeper:builder", args={"name": "Reed ambush"})
    assert ui.refusal is None and view["panel"] == "play" and ui.builder is None
    assert keep.fight is not None and "A fight begins (Reed ambush)" in view["outcome"]["text"]
    assert on_disk(keep) == ["prepare_encounter", "encounter"]


def test_the_forecast_is_cancelled_and_asked_again_by_a_click(keep):
    def play() -> None:
        ui = UI(panel="keeper", keeper_tab="encounters")
        t = Table(keep)  # no event loop here: the table plays the forecast to its end before it answers
        t.ui = ui
        t.handle({"do": "builder_open", "id": "bell_tower", "where": "keeper:encounters"})
        assert ui.forecast["status"] == "done"
        t.handle({"do": "forecast_again", "where": "keeper:builder"})
        assert ui.forecast["status"] == "done" and ui.forecast["done"] > 0
        ui.forecast = {**ui.forecast, "status": "running"}
        t.handle({"do": "forecast_cancel", "where": "keeper:builder"})
        view = t.view["keeper"]["encounters"]["builder"]["forecast"]
        assert view["status"] == "cancelled" and "again" in view

    _in_a_thread_with_no_loop(play)


def _in_a_thread_with_no_loop(play) -> None:
    """Run ``play`` in a thread of its own: in the full suite the main thread holds the running loop of the browser
    tests' Playwright (a session fixture), where the table would leave its forecast to a loop that never turns."""
    failure: list[BaseException] = []

    def run() -> None:
        try:
            play()
        except BaseException as err:  # noqa: BLE001 - handed back to the test's thread, which raises it
            failure.append(err)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join(300)
    assert not worker.is_alive(), "the forecast still ran 300 s on"
    if failure:
        raise failure[0]


def test_the_builder_forecasts_as_this_party_plays_with_the_default_one_click_away(tmp_path, monkeypatch):
    """A party that leaves once two are down (scripts/make_habits_campaign.py): the builder says its habits in
    words with the fights they rest on, forecasts by them, sets the documented default's chance beside where they
    differ, switches to the default in a click, and checks both against the campaign's fights."""
    from test_habits import habits_table
    from delvebook.table import forecasting
    monkeypatch.setattr(forecasting, "FIGHTS", 200)  # (a budget: the test reads the words, not ±2 points)
    monkeypatch.setattr(forecasting, "CHECK_FIGHTS", 20)
    camp = habits_table(tmp_path / "h", fights=16)
    ui = UI(panel="keeper", keeper_tab="encounters")
    runner = forecasting.Runner(camp, lambda: ui)  # one table's: a forecast it finished is shown again at once
    click(camp, ui, do="builder_open", where="keeper:encounters")
    click(camp, ui, do="builder_add", where="keeper:builder", args={"foe": "orc", "count": "2"})
    settle(camp, ui, runner)
    f = section(table_view(camp, ui), "encounters")["builder"]["forecast"]
    p = f["policies"]
    assert p["title"] == "How this party plays, learned from 16 fights"
    assert "This party leaves a fight once 2 of its delvers are down: 16 of 16 fights." in p["lines"]
    assert [(c["label"], c["on"]) for c in p["choices"]] == [("as this party plays", True),
                                                             ("by the documented default", False)]
    death = next(x for x in f["party"] if x["label"] == "a death")
    assert f["label"] == "as this party plays" and death["other"].endswith("% if it fights on")
    assert float(death["value"].split("%")[0]) < float(death["other"].split("%")[0])  # leaving saves lives
    click(camp, ui, do="forecast_policy", policy="default", where="keeper:builder")
    assert runner.sync() is False  # both policies' forecasts of this draft were played already
    f = section(table_view(camp, ui), "encounters")["builder"]["forecast"]
    death = next(x for x in f["party"] if x["label"] == "a death")
    assert f["label"] == "if it fights on" and death["other"].endswith("% as this party plays")
    assert [c["on"] for c in f["policies"]["choices"]] == [False, True]
    click(camp, ui, do="forecast_check", where="keeper:builder")
    settle(camp, ui, runner)
    c = section(table_view(camp, ui), "encounters")["builder"]["check"]
    assert c["status"] == "done" and c["text"].startswith("16 fights forecast again from their start, 20 simulated")
    assert c["heads"] == ["chance", "happened", "Brier: this party's habits", "Brier: the documented default",
                          "always the base rate"]
    win = next(r for r in c["rows"] if r["chance"] == "the party wins")
    habits, default = win["cells"]
    assert float(habits["brier"]) < float(default["brier"]) and habits["best"]
    assert {b["policy"] for b in c["bins"]} == {"this party's habits", "the documented default"}
    view = click(camp, ui, do="forecast_policy", policy="brave", where="keeper:builder")
    assert "forecast by 'habits'" in ui.refusal["text"]


def test_the_tuner_proposes_a_count_with_each_candidates_forecast_and_uses_it_in_one_click(keep):
    ui = UI(panel="keeper", keeper_tab="encounters")
    click(keep, ui, do="builder_open", id="causeway_ambush")
    view = click(keep, ui, do="tune", where="keeper:builder", args={"foe": "bog_goblin", "target": "nobody dies"})
    assert ui.tuning["status"] == "asked"
    settle(keep, ui)
    t = section(table_view(keep, ui), "encounters")["builder"]["tuning"]
    assert t["status"] == "done" and t["rows"] and t["rows"][0]["count"] == 1
    n = ui.tuning["proposed"]
    assert n is not None and t["use"]["label"] == f"Use {n}" and "meet" in t["text"]
    click(keep, ui, **t["use"]["intent"])
    assert ui.builder["foes"] == [["bog_goblin", n]]
    view = click(keep, ui, do="tune", where="keeper:builder", args={"foe": "bog_goblin", "target": "a picnic"})
    refused_beside(keep, ui, view, ("keeper", "encounters", "builder", "tune"), "target", "a target is one of")


def test_a_prepared_encounter_is_dropped_after_asking_once(keep):
    ui = UI(panel="keeper", keeper_tab="encounters")
    click(keep, ui, do="remove_encounter", id="bell_tower", where="keeper:encounters")
    assert ui.confirm and on_disk(keep) == []
    view = click(keep, ui, **ui.confirm["yes"])
    assert "bell_tower" not in [r["id"] for r in section(view, "encounters")["rows"]]
    assert on_disk(keep) == ["remove_encounter"]


# ---------------------------------------------------------------- roll tables

LOOT = "1-3: a rusty dagger\n4-5: 2d6 talons\n6: a gem -> gems"


def test_a_roll_table_is_made_rolled_shifted_by_a_luck_die_changed_and_dropped_by_clicks(keep):
    ui = UI(panel="keeper", keeper_tab="tables")
    click(keep, ui, do="start_session")
    click(keep, ui, do="prepare_table", where="keeper:tables:form",
          args={"name": "Gems", "dice": "d6", "entries": "1-3: a ruby\n4-6: an opal"})
    click(keep, ui, do="prepare_table", where="keeper:tables:form",
          args={"name": "Loot", "dice": "d6", "entries": LOOT, "without_replacement": True})
    assert ui.refusal is None and keep.roll_tables["loot"]["entries"][2] == {"range": "6", "result": "a gem",
                                                                              "roll": "gems"}
    keep.roll_table("loot", faces={"table": [2]})  # (the dice: a 2, where a luck die added moves the entry)
    view = table_view(keep, ui)
    assert view["outcome"]["kind"] == "roll_table" and view["outcome"]["text"].startswith("Loot (d6): ")
    assert view["luck"]["rows"][0]["name"] == "table"
    click(keep, ui, do="luck_player", player="Ana", seq=view["luck"]["seq"])
    assert table_view(keep, ui)["luck"]["rows"][0]["plus"]["title"].startswith(
        "Ana spends a luck die: added to the keeper's roll on the Loot table")
    view = click(keep, ui, do="luck", player="Ana", sign=1, roll="table", where="luck")
    assert "Ana spends a luck die on the keeper's roll on the Loot table" in view["outcome"]["text"]
    assert any(line.startswith("before the luck die: ") for line in view["outcome"]["lines"]) or \
        view["outcome"]["text"].count("->") >= 1
    rows = section(table_view(keep, ui), "tables")["rows"]
    loot = next(r for r in rows if r["id"] == "loot")
    assert "1 of 3 drawn" in loot["text"] and loot["reset"]
    view = click(keep, ui, do="table_edit", id="loot", where="keeper:tables")
    assert field(section(view, "tables")["form"], "entries")["value"] == LOOT
    click(keep, ui, do="prepare_table", id="loot", where="keeper:tables:form",
          args={"name": "Loot", "dice": "d6", "entries": "1-6: nothing"})
    assert keep.roll_tables["loot"]["entries"] == [{"range": "1-6", "result": "nothing"}]
    click(keep, ui, do="remove_table", id="loot", where="keeper:tables")
    click(keep, ui, **ui.confirm["yes"])
    assert "loot" not in keep.roll_tables
    assert on_disk(keep) == ["start_session", "prepare_table", "prepare_table", "roll_table", "roll_table",
                             "prepare_table", "remove_table"]


@pytest.mark.parametrize("args, name, says", [
    ({"name": "Bad", "dice": "d6", "entries": "1-3: a\n5-6: b"}, "entries", "a gap: no entry for 4"),
    ({"name": "Bad", "dice": "d6", "entries": "1-4: a\n3-6: b"}, "entries", "line 2: overlaps line 1"),
    ({"name": "Bad", "dice": "d6", "entries": "1-6: -> bad"}, "entries", "line 1: bad rolls on itself"),
    ({"name": "Bad", "dice": "d6", "entries": "a rusty dagger"}, "entries", "line 1: write a range"),
    ({"name": "Bad", "dice": "2q", "entries": "1-6: a"}, "dice", "dice"),
    ({"name": "", "dice": "d6", "entries": "1-6: a"}, "name", "needs a name"),
    ({"name": "True names", "dice": "d6", "entries": "1-6: a"}, "name", "already a roll table 'true_names'"),
])
def test_a_roll_table_typed_wrong_is_refused_beside_its_field(keep, args, name, says):
    ui = UI(panel="keeper", keeper_tab="tables")
    view = click(keep, ui, do="prepare_table", where="keeper:tables:form", args=args)
    refused_beside(keep, ui, view, ("keeper", "tables", "form"), name, says)
    assert on_disk(keep) == []


def test_the_namers_true_names_table_is_listed_and_cannot_be_dropped(keep):
    ui = UI(panel="keeper", keeper_tab="tables")
    rows = section(table_view(keep, ui), "tables")["rows"]
    names = next(r for r in rows if r["id"] == "true_names")
    assert names["text"].startswith("d66 · 36 entries") and names["remove"] is None


# ---------------------------------------------------------------- forged messages

@pytest.mark.parametrize("intent", [
    {"do": "builder_foe", "foe": "bog_goblin", "delta": "1"},
    {"do": "keeper_tab", "tab": ["party"]},
    {"do": "tune_use", "foe": "bog_goblin", "count": True},
    {"do": "roll_table", "table": {"loot": 1}},
])
def test_a_forged_preparing_message_is_refused_and_changes_nothing(keep, intent):
    with pytest.raises(FormError):
        check_shape(intent)
    ui = UI(panel="keeper")
    click(keep, ui, **intent)
    assert ui.refusal is not None and "nothing was done" in ui.refusal["text"] and on_disk(keep) == []
