"""Preparing the evening in code: each preparation is one campaign call -> one event, undoable, told by the one
narrator, surviving a reopen and `validate`; what is typed is checked by the one schema, and a refusal names the
field. Roll tables are campaign.yaml's (validated with file:line) or the table's; a luck die shifts the entry."""
from __future__ import annotations

import shutil
import subprocess
import sys


import pytest
from hypothesis import given, settings, strategies as st

import delvebook as db
from delvebook.engine import Invalid
from delvebook.narrate import describe
from delvebook.core.rules.prepared import entry_for, parse_range, table_cycles, table_problems
from delvebook.store import LOG_HEADER, read_log, validate

from conftest import CAMPAIGNS

LOOT = {"1-3": "a rusty dagger", "4-5": "2d6 talons", 6: {"result": "a gem", "roll": "gems"}}


@pytest.fixture
def camp(tmp_path):
    c = db.Campaign.create(tmp_path / "new", name="New", seed=3)
    yield c
    c.close()


def told(camp) -> str:
    return describe(camp.events[-1], camp)


def reopened(camp) -> db.Campaign:
    camp.close()
    return db.Campaign.open(camp.path)


def test_each_preparation_is_one_event_on_disk_told_undone_and_kept_through_a_reopen(camp):
    steps = [
        (lambda: camp.add_delver("Wren", "rogue", "Ana"), "Wren joins the party"),
        (lambda: camp.prepare_foe("Bog hag", 8, "d6", "2d6", tags=["fae"], armor={"av": 1, "dv": 5},
                                  counters=False, note="hates iron"), "Bog hag joins the bestiary (8 hearts)"),
        (lambda: camp.prepare_encounter("The hag's hut", {"bog_hag": 1, "goblin": 2}, note="smoke"),
         "Encounter prepared: The hag's hut (Bog hag and 2 Goblins)"),
        (lambda: camp.prepare_table("Gems", "d6", {"1-3": "a ruby", "4-6": "an opal"}),
         "Roll table made: Gems (d6, 2 entries)"),
        (lambda: camp.prepare_table("Loot", "d6", LOOT), "Roll table made: Loot (d6, 3 entries)"),
    ]
    for i, (step, says) in enumerate(steps, 1):
        step()
        assert len(camp.events) == i and says in told(camp)
    kinds = [e["kind"] for e in read_log(camp.path)[0]]
    assert kinds == ["add_delver", "prepare_foe", "prepare_encounter", "prepare_table", "prepare_table"]
    assert camp.foe_types["bog_hag"]["counters"] is False and camp.foe_types["bog_hag"]["note"] == "hates iron"
    assert camp.prepared_encounters["the_hag_s_hut"]["foes"] == [{"foe": "bog_hag"}, {"foe": "goblin"},
                                                                 {"foe": "goblin"}]
    assert set(camp.roll_tables) == {"true_names", "gems", "loot"}
    camp.undo()
    assert "loot" not in camp.roll_tables and "Undo the roll table Loot" in told(camp)
    camp.redo()
    camp = reopened(camp)
    try:
        assert "loot" in camp.roll_tables and "bog_hag" in camp.foe_types and "the_hag_s_hut" in camp.prepared_encounters
        assert [str(p) for p in validate(camp.path)] == []
        fight = camp.encounter("the_hag_s_hut")
        assert [f.name for f in fight.foes] == ["Bog hag 1", "Goblin 1", "Goblin 2"]
        assert "A fight begins (The hag's hut)" in told(camp), "the fight is called by the encounter's name"
        assert camp.events[-1]["name"] == "The hag's hut", "(so the log says it once the encounter is dropped)"
    finally:
        camp.close()


@pytest.mark.parametrize("bad, field, says", [
    (dict(name="", hearts=3), "name", "needs a name"),
    (dict(name="Imp", hearts=-3), "hearts", "1 or more, got -3"),
    (dict(name="Imp", hearts=3, damage="2x"), "damage", "expected dice"),
    (dict(name="Imp", hearts=3, armor={"av": 1}), "armor.dv", "missing"),
    (dict(name="Goblin", hearts=3), "name", "already a foe type 'goblin'"),
    (dict(name="Bog Goblin", hearts=3, id="marsh_thing"), "name", r"'Bog goblin' \(bog_goblin\) is already a foe "
                                                                 "type that reads the same"),
    (dict(name="B\u043eg goblin", hearts=3, id="marsh_thing"), "name", "reads the same"),  # a Cyrillic o
    (dict(name="Bog\u200bhag", hearts=3), "name", "an invisible character"),
])
def test_a_foe_type_typed_wrong_is_refused_naming_its_field_and_nothing_is_recorded(tmp_path, bad, field, says):
    shutil.copytree(CAMPAIGNS / "the-sunken-keep", tmp_path / "keep")
    with db.Campaign.open(tmp_path / "keep") as camp:
        with pytest.raises(Invalid, match=says) as err:
            camp.prepare_foe(**bad)
        assert err.value.field == field and camp.events == []


def test_a_foe_type_is_changed_in_place_and_removed_unless_an_encounter_uses_it(camp):
    camp.prepare_foe("Gremlin", 3)
    with pytest.raises(Invalid, match="no foe type 'ghost' to change"):
        camp.prepare_foe("Ghost", 3, change=True)
    camp.prepare_foe("Gremlin", 5, "1", "d6+1", change=True, id="gremlin")
    assert camp.foe_types["gremlin"]["hearts"] == 5 and "Gremlin changed in the bestiary (5 hearts)" in told(camp)
    camp.prepare_encounter("Gremlins", [{"foe": "gremlin", "count": 2}])
    with pytest.raises(db.Refused, match="in the prepared encounter gremlins: take it out of them first"):
        camp.remove_foe("gremlin")
    camp.remove_encounter("gremlins")
    camp.remove_foe("gremlin")
    camp.remove_foe("goblin")  # a shipped foe type leaves this campaign's bestiary too
    assert "gremlin" not in camp.foe_types and "goblin" not in camp.foe_types and "Goblin leaves the bestiary" in told(camp)
    camp.undo()
    assert "goblin" in camp.foe_types


def test_a_foe_type_that_never_counters_does_not_hit_back(camp):
    camp.add_delver("Brakka", "fighter", "Ben")
    camp.prepare_foe("Wisp", 4, counters=False)
    fight = camp.encounter(["wisp"])
    fight.initiative(first="party")
    out = fight.attack("Brakka", "Wisp 1", faces={"attack": [2, 1], "resist": [20]})
    assert out["counter"] == {"by": "Wisp 1", "possible": False, "why": "Wisp 1 never counter-attacks"}


def test_a_prepared_encounter_typed_wrong_is_refused_naming_its_field(camp):
    with pytest.raises(Invalid, match="no foe 'dragon' in the bestiary") as err:
        camp.prepare_encounter("Lair", {"dragon": 1})
    assert err.value.field == "foes[0].foe"
    with pytest.raises(Invalid, match="1 or more") as err:
        camp.prepare_encounter("Lair", {"goblin": 0})
    assert err.value.field == "foes[0].count"
    with pytest.raises(Invalid, match="at least one"):
        camp.prepare_encounter("Lair", [])
    camp.prepare_encounter("Lair", {"goblin": 1})
    with pytest.raises(Invalid, match="already a prepared encounter 'lair'"):
        camp.prepare_encounter("Lair", {"goblin": 2})
    assert len(camp.events) == 1


@pytest.mark.parametrize("entries, field, says", [
    ({"1-3": "a", "5-6": "b"}, "entries", "a gap: no entry for 4"),
    ({"1-4": "a", "3-6": "b"}, "entries[1].range", r"overlaps entries\[0\]"),
    ({"1-6": "a", "7": "b"}, "entries[1].range", "d6 never rolls 7"),
    ({"6-1": "a"}, "entries[0].range", "runs backwards"),
    ({"1-6": {"roll": "loop"}}, "entries[0].roll", "loop rolls on itself"),
    ({"1-6": {"roll": "nowhere"}}, "entries[0].roll", "no table 'nowhere'"),
    ({"1-6": ""}, "entries[0].result", "expected text"),
])
def test_a_roll_table_with_a_gap_an_overlap_or_a_circle_is_refused_naming_its_field(camp, entries, field, says):
    with pytest.raises(Invalid, match=says) as err:
        camp.prepare_table("Loop", "d6", entries)
    assert err.value.field == field and camp.events == []


def test_a_table_that_rolls_on_itself_through_another_is_refused(camp):
    camp.prepare_table("A", "d6", {"1-6": "x"})
    camp.prepare_table("B", "d6", {"1-6": {"roll": "a"}})
    with pytest.raises(Invalid, match=r"a rolls on itself through other tables \(a -> b -> a\)"):
        camp.prepare_table("A", "d6", {"1-5": "x", "6": {"roll": "b"}}, change=True, id="a")
    with pytest.raises(db.Refused, match="b rolls on a: change it first"):
        camp.remove_table("a")


def test_a_luck_die_shifts_the_entry_and_the_outcome_says_what_it_was(camp):
    camp.add_delver("Wren", "rogue", "Ana")
    camp.prepare_table("Gems", "d6", {"1-3": "a ruby", "4-6": "an opal"})
    camp.prepare_table("Loot", "d6", LOOT)
    camp.start_session()
    out = camp.roll_table("loot", faces={"table": [6], "table#2": [2]})
    assert (out["result"], out["then"]["result"]) == ("a gem", "a ruby")
    assert told(camp) == "Loot (d6): 6 -> a gem; then Gems (d6): 2 -> a ruby"
    shifted = camp.spend_luck("Ana", -1, face=4)
    assert shifted["total"] == 2 and shifted["result"] == "a rusty dagger" and "then" not in shifted
    assert shifted["was"] == {"total": 6, "entry": 2, "result": "a gem"}
    assert told(camp).endswith("Loot (d6): 2 -> a rusty dagger; before the luck die: 6 -> a gem")
    pushed = camp.spend_luck("Ana", -1, face=6)  # past the first range: it stays there
    assert pushed["total"] == -4 and pushed["result"] == "a rusty dagger"
    camp.undo()
    camp.undo()
    assert camp.latest_action["result"] == "a gem"


def test_roll_tables_dice_in_an_entry_are_rolled_when_it_is_drawn_shown_and_shifted_by_a_luck_die(camp):
    camp.add_delver("Wren", "rogue", "Ana")
    camp.prepare_table("Loot", "d6", {"1-3": "a rusty dagger", "4-5": "2d6 crowns and d4+1 talons", 6: "a gem"})
    camp.start_session()
    out = camp.roll_table("loot", faces={"table": [4], "entry": [3, 4], "entry#2": [2]})
    assert out["result"] == "2d6 crowns and d4+1 talons" and out["rolled"] == "7 crowns and 3 talons"
    assert camp.events[-1]["rolls"]["entry"]["expr"] == "2d6" and camp.events[-1]["rolls"]["entry#2"]["expr"] == "d4+1"
    assert told(camp) == "Loot (d6): 4 -> 7 crowns and 3 talons (2d6 crowns and d4+1 talons)"
    shifted = camp.spend_luck("Ana", +1, roll="entry", face=5)  # the crowns, shifted as any roll
    assert shifted["rolled"] == "12 crowns and 3 talons" and shifted["total"] == 4
    plain = camp.roll_table("loot", faces={"table": [6]})
    assert plain["result"] == "a gem" and "rolled" not in plain and "entry" not in camp.events[-1]["rolls"]


def test_roll_tables_a_d66_roll_a_luck_die_shifts_between_results_goes_on_to_the_next_result_that_way(camp):
    camp.add_delver("Wren", "rogue", "Ana")
    camp.start_session()
    out = camp.roll_table("true_names", faces={"table": [1, 6]})
    assert (out["total"], out["result"]) == (16, "Word")
    up = camp.spend_luck("Ana", +1, face=2)  # 18 is no D66 result: the next one up, 21
    assert (up["total"], up["result"], up["range"]) == (18, "Create", "21")
    camp.undo()
    out = camp.roll_table("true_names", faces={"table": [2, 1]})
    down = camp.spend_luck("Ana", -1, face=2)  # 19: the next one down, 16
    assert (out["result"], down["total"], down["result"]) == ("Create", 19, "Word")
    assert entry_for(camp.roll_tables["true_names"], 18, +2)[1]["result"] == "Create"
    assert entry_for(camp.roll_tables["true_names"], 70, +6)[1]["result"] == "Conceal", "past the last: it stays"


def test_a_table_drawn_without_replacement_rolls_again_on_an_entry_drawn_and_resets(camp):
    camp.prepare_table("Deck", "d6", {"1-2": "the tower", "3-4": "the moon", "5-6": "the sun"},
                       without_replacement=True)
    first = camp.roll_table("deck", faces={"table": [1]})
    again = camp.roll_table("deck", faces={"table": [2], "table#2": [6]})
    assert (first["result"], again["result"], again["rerolled"]) == ("the tower", "the sun", 1)
    last = camp.roll_table("deck")
    assert last["result"] == "the moon"
    with pytest.raises(db.Refused, match="every entry of Deck has been drawn: reset it"):
        camp.roll_table("deck")
    camp.reset_table("deck")
    assert "Deck is whole again" in told(camp) and camp.roll_table("deck")["result"]


def test_the_namers_true_names_are_a_d66_roll_table_the_campaign_may_change(camp):
    names = camp.roll_tables["true_names"]
    assert names["dice"] == "d66" and len(names["entries"]) == 36
    assert entry_for(names, 11)[1]["result"] == "Spirit" and entry_for(names, 66)[1]["result"] == "Conceal"
    out = camp.roll_table("true_names", faces={"table": [6, 3]})
    assert out["result"] == "Bind"
    with pytest.raises(db.Refused, match="true names are rolled on this table"):
        camp.remove_table("true_names")
    camp.prepare_table("True names", "d6", {"1-2": "Ash", "3-4": "Brine", "5-6": "Cinder"}, id="true_names",
                       change=True)
    sable = camp.add_delver("Sable", "namer", "Dee")
    assert sorted(sable.true_names) == ["Ash", "Brine", "Cinder"], "a namer learns names from the table as it stands"


def test_a_delver_retires_off_the_table_and_the_seats_move(camp):
    for name, cls, player in (("Wren", "rogue", "Ana"), ("Brakka", "fighter", "Ben"), ("Ilse", "mage", "Cy")):
        camp.add_delver(name, cls, player)
    camp.add_delver("Odo", "cleric", "Ana", seat=0)
    assert camp.state["seats"] == ["Odo", "Wren", "Brakka", "Ilse"]
    camp.set_seats(["Wren", "Brakka", "Ilse", "Odo"])
    assert "The seats, clockwise: Wren, Brakka, Ilse, Odo" in told(camp)
    with pytest.raises(Invalid, match="each once") as err:
        camp.set_seats(["Wren", "Wren", "Ilse", "Odo"])
    assert err.value.field == "order"
    camp.retire_delver("Ilse")
    assert [d.name for d in camp.delvers] == ["Wren", "Brakka", "Odo"] and "Cy" not in camp.players
    assert "Ilse retires from the table (kept in the history)" in told(camp)
    camp.retire_delver("Odo")
    assert "Ana still plays at the table" in told(camp) and "Ana" in camp.players
    camp.start_session()
    camp.award_xp(100)
    assert camp.state["delvers"]["Ilse"]["xp"] == 0, "a retired delver has no share"
    with pytest.raises(db.Refused, match="Ilse has retired from the table"):
        camp.check("Ilse", "lore", 10)
    with pytest.raises(db.Refused, match="already a delver named 'Ilse'"):
        camp.add_delver("Ilse", "mage", "Cy")
    camp = reopened(camp)
    try:
        assert [d.name for d in camp.delvers] == ["Wren", "Brakka"]
        assert [str(p) for p in validate(camp.path)] == []
    finally:
        camp.close()


def test_typed_hearts_come_from_the_real_dice_and_impossible_faces_are_refused(camp):
    brakka = camp.add_delver("Brakka", "fighter", "Ben", faces={"hearts": [4]})
    assert brakka.max_hearts == 19 and camp.events[-1]["rolls"]["hearts"]["faces"] == [4]
    with pytest.raises(db.Refused, match="faces typed for hearts"):
        camp.add_delver("Ada", "fighter", "Ada", faces={"hearts": [-3]})


# ---------------------------------------------------------------- campaign.yaml's own tables

KEEP_TABLES = """\
tables:
  loot:
    name: Loot
    dice: d6
    entries:
      - {range: 1-3, result: a rusty dagger}
      - {range: 4-6, result: a gem, roll: gems}
  gems:
    dice: d6
    without_replacement: true
    entries:
      - {range: 1-3, result: a ruby}
      - {range: 4-6, result: an opal}
"""


def _keep_with(tmp_path, tables: str):
    folder = tmp_path / "keep"
    shutil.copytree(CAMPAIGNS / "the-sunken-keep", folder)
    text = (folder / "campaign.yaml").read_text()
    (folder / "campaign.yaml").write_text(text.replace("\nquests:", "\n" + tables + "quests:", 1)
                                          if "\nquests:" in text else text + tables)
    return folder


def test_roll_tables_written_by_hand_in_campaign_yaml_are_rolled_and_a_table_edit_lays_over_them(tmp_path):
    folder = _keep_with(tmp_path, KEEP_TABLES)
    with db.Campaign.open(folder) as camp:
        assert {"loot", "gems"} <= set(camp.roll_tables)
        out = camp.roll_table("loot", faces={"table": [5], "table#2": [1]})
        assert (out["result"], out["then"]["result"]) == ("a gem", "a ruby")
        camp.prepare_table("Gems", "d6", {"1-6": "a pearl"}, id="gems", change=True)
        camp.remove_table("loot")
    text = (folder / "campaign.yaml").read_text()
    assert "a ruby" in text, "the table's changes are in the log: campaign.yaml is as the keeper wrote it"
    with db.Campaign.open(folder) as camp:
        assert "loot" not in camp.roll_tables and camp.roll_tables["gems"]["entries"][0]["result"] == "a pearl"
        camp.undo()
        assert "loot" in camp.roll_tables


@pytest.mark.parametrize("entries, line, field, says", [
    ("      - {range: 1-3, result: a}\n      - {range: 5-6, result: b}\n", None, "tables.bad.entries", "a gap"),
    ("      - {range: 1-4, result: a}\n      - {range: 3-6, result: b}\n", 8, "tables.bad.entries[1].range",
     "overlaps"),
    ("      - {range: 1-6, roll: bad}\n", 7, "tables.bad.entries[0].roll", "bad rolls on itself"),
    ("      - {range: 1-6, reslut: a}\n", 7, "tables.bad.entries[0].reslut", "did you mean result?"),
])
def test_a_hand_written_table_with_a_gap_an_overlap_or_a_circle_is_refused_at_its_line(tmp_path, entries, line,
                                                                                          field, says):
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "campaign.yaml").write_text(f"format: 1\nname: C\ntables:\n  bad:\n    dice: d6\n    entries:\n{entries}")
    (folder / "log.yaml").write_text(LOG_HEADER)
    found = [e for e in validate(folder)]
    assert found and found[0].field == field and says in found[0].reason, [str(e) for e in found]
    assert found[0].path.name == "campaign.yaml" and found[0].line is not None
    if line is not None:
        assert found[0].line == line
    with pytest.raises(db.store.StoreError, match=says):
        db.Campaign.open(folder, read_only=True)


def test_the_zip_carries_what_the_table_prepared(camp, tmp_path):
    camp.prepare_foe("Gremlin", 3)
    camp.prepare_table("Loot", "d6", {"1-6": "a coin"})
    (tmp_path / "camp.zip").write_bytes(camp.export_zip())
    with db.Campaign.open(tmp_path / "camp.zip") as copy:
        assert "gremlin" in copy.foe_types and "loot" in copy.roll_tables


def test_validate_on_the_command_line_accepts_a_prepared_campaign(camp):
    camp.add_delver("Wren", "rogue", "Ana")
    camp.prepare_foe("Gremlin", 3)
    camp.prepare_encounter("Gremlins", {"gremlin": 2})
    camp.prepare_table("Loot", "2d6", {"2-6": "nothing", "7-12": {"result": "coins"}})
    camp.roll_table("loot")
    camp.retire_delver("Wren")
    out = subprocess.run([sys.executable, "-m", "delvebook", "validate", str(camp.path)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


# ---------------------------------------------------------------- the rule of the ranges

@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=6), st.integers(-20, 40))
def test_every_total_lands_in_one_entry_and_a_shift_past_the_ends_stays_there(widths, total):
    lo, entries = 1, []
    for w in widths:
        entries.append({"range": f"{lo}-{lo + w - 1}", "result": f"r{lo}"})
        lo += w
    dice = f"d{lo - 1}" if lo - 1 > 1 else "1"
    table = {"dice": dice, "entries": entries}
    if lo - 1 > 1:
        assert table_problems(table) == []
    i, entry = entry_for(table, total)
    a, b = parse_range(entry["range"])
    if 1 <= total < lo:
        assert a <= total <= b
    elif total < 1:
        assert i == 0
    else:
        assert i == len(entries) - 1


def test_a_circle_of_three_tables_is_found_once_for_each_table_on_it():
    tables = {"a": {"entries": [{"range": 1, "roll": "b"}]}, "b": {"entries": [{"range": 1, "roll": "c"}]},
              "c": {"entries": [{"range": 1, "roll": "a"}]}, "d": {"entries": [{"range": 1, "roll": "a"}]}}
    found = table_cycles(tables)
    assert sorted(p.path[0] for p in found) == ["a", "b", "c"]
    assert "a -> b -> c -> a" in found[0].reason



def test_a_prepared_encounter_in_darkness_is_started_and_forecast_dark(camp):
    camp.add_delver("Wren", "rogue", "Ana")
    camp.prepare_encounter("Cave", {"goblin": 1}, dark=True)
    assert camp.prepared_encounters["cave"]["dark"] is True
    with pytest.raises(Invalid, match="true or false") as err:
        camp.prepare_encounter("Pit", {"goblin": 1}, dark="yes")
    assert err.value.field == "dark"
    assert camp.danger("cave", fights=50, seed=1, workers=1).fights == 50
    camp.encounter("cave")
    assert camp.events[-1]["args"]["dark"] is True and "in darkness" in told(camp)
