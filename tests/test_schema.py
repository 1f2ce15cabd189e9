"""One schema: `delvebook validate` and `Campaign.open` agree on every campaign file, and say file:line:field.

A table of hand-broken files (each must give the same problems both ways), then hypothesis: generated campaign
files, some valid and some not; a valid one opens and sets up its party, an invalid one fails both ways with
the same first problem, and every problem names campaign.yaml, a line and a field.
"""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

import delvebook as db
from delvebook.core.rules.load import base_rules
from delvebook.core.rules.schema import Problem, check_campaign, field_name, foe_problems
from delvebook.store import LOG_HEADER, StoreError, validate

GOOD = """\
format: 1
name: The Sunken Keep
seed: 7
players: [Ana, Ben, Cleo]
seats: [Wren, Brakka, Ilse]
delvers:
  - name: Wren
    class: rogue
    player: Ana
  - name: Brakka
    class: fighter
    player: Ben
    hearts: 19
    choices: {weapon: sword_and_shield}
    purse: {crown: 3}
  - name: Ilse
    class: mage
    player: Cleo
    spells: [magic_missile, light]
bestiary:
  newt:
    name: Newt
    hearts: 1
    attack_bonus: 0
    damage: 1
    tags: [beast]
encounters:
  pond:
    foes: [newt, {foe: goblin, count: 2}]
    note: by the water
rooms:
  gate: {name: The gate}
quests:
  bell: {name: The drowned bell}
"""


def folder_with(tmp_path: Path, text: str, name: str = "c") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "campaign.yaml").write_text(text, encoding="utf-8")
    (folder / "log.yaml").write_text(LOG_HEADER, encoding="utf-8")
    return folder


def both_ways(folder: Path) -> tuple[list[StoreError], StoreError | None]:
    """(validate's problems in campaign.yaml, the error Campaign.open raised or None)."""
    found = [e for e in validate(folder) if e.path is not None and e.path.name == "campaign.yaml"]
    try:
        db.Campaign.open(folder, read_only=True).close()
    except StoreError as err:
        return found, err
    return found, None


def assert_agree(folder: Path) -> list[StoreError]:
    found, raised = both_ways(folder)
    if not found:
        assert raised is None, f"validate passed but open raised {raised}"
        return found
    assert raised is not None, f"validate found {[str(e) for e in found]} but the campaign opened"
    first = found[0]
    assert (raised.path, raised.line, raised.field) == (first.path, first.line, first.field)
    assert raised.reason.startswith(first.reason)
    if len(found) > 1:
        assert f"(and {len(found) - 1} more problem" in raised.reason
    for e in found:
        assert e.line is not None, f"no line: {e}"
    return found


def test_the_good_campaign_validates_and_opens(tmp_path):
    folder = folder_with(tmp_path, GOOD)
    assert validate(folder) == []
    with db.Campaign.open(folder, read_only=True) as camp:
        assert [d.name for d in camp.delvers] == ["Wren", "Brakka", "Ilse"]
        assert camp.delver("Brakka").purse == 30 and camp.delver("Brakka").max_hearts == 19
        assert camp.rules.foe("newt")["tags"] == ("beast",)


# (what to change in GOOD, the field of the first problem, its line, words its reason must hold)
BAD = [
    (("    tags: [beast]\n", ""), "bestiary.newt.tags", 21, "missing: a foe has tags"),
    (("    damage: 1\n", "    damge: 1\n"), "bestiary.newt.damage", 21, "missing: a foe has damage"),
    (("    hearts: 1\n", "    hearts: many\n"), "bestiary.newt.hearts", 23, "expected a whole number of 1 or more"),
    (("bestiary:\n", "bestiary:\n  goblin: {hearts: many}\n"), "bestiary.goblin.hearts", 21,
     "expected a whole number, got 'many'"),
    (("bestiary:\n  newt:\n", "bestiary:\n  7:\n"), "bestiary.7", 21, "foe ids are text"),
    (("quests:", "house_rules:\n  core:\n    luck_dice: {die: 2d4}\nquests:"), "house_rules.core.luck_dice.die",
     35, "expected a single die (like d6 or d4), got '2d4'"),
    (("quests:", "house_rules:\n  core:\n    death_save: {die: 6}\nquests:"), "house_rules.core.death_save.die",
     35, "dice to roll"),
    (("quests:", "house_rules:\n  core:\n    initiative: {die: '3'}\nquests:"), "house_rules.core.initiative.die",
     35, "it rolls no dice"),
    (("quests:", "house_rules:\n  core:\n    bogus: 3\nquests:"), "house_rules.core.bogus", 35, "unknown key"),
    (("quests:", "house_rules: loud\nquests:"), "house_rules", 33, "expected a mapping of rules to change"),
    (("    player: Ana\n", "    player: Ana\n    xp: 50\n"), "delvers[0].xp", 10, "unknown field"),
    (("    hearts: 19\n", "    hearts: lots\n"), "delvers[1].hearts", 13, "expected a whole number of 1 or more"),
    (("    purse: {crown: 3}\n", "    purse: {gem: 3}\n"), "delvers[1].purse.gem", 15, "not a currency unit"),
    (("    purse: {crown: 3}\n", "    purse: -3\n"), "delvers[1].purse", 15, "0 or more"),
    (("    spells: [magic_missile, light]\n", "    spells: [magic_missile, fireball]\n"), "delvers[2].spells[1]",
     19, "expected a spell id"),
    (("    player: Ana\n", "    player: Ana\n    true_names: [Nothing]\n"), "delvers[0].true_names[0]", 10,
     "expected a true name"),
    (("{weapon: sword_and_shield}", "{weapon: bazooka}"), "delvers[1].choices.weapon", 14, "expected one of"),
    (("{weapon: sword_and_shield}", "{specialty: swords}"), "delvers[1].choices.specialty", 14,
     "not a choice a new Fighter makes"),
    (("    class: fighter\n", "    class: bard\n"), "delvers[1].class", 11, "unknown class 'bard'"),
    (("    player: Ben\n", "    player: Bob\n"), "delvers[1].player", 12, "'Bob' is not one of the players"),
    (("seats: [Wren, Brakka, Ilse]", "seats: [Wren, Brakka, Ilse, Odo]"), "seats[3]", 5,
     "'Odo' is not one of the delvers"),
    (("[newt, {foe: goblin, count: 2}]", "[newt, {foe: gobbo, count: 2}]"), "encounters.pond.foes[1].foe", 29,
     "no foe 'gobbo' in the bestiary"),
    (("count: 2", "count: 0"), "encounters.pond.foes[1].count", 29, "expected a whole number of 1 or more"),
    (("[newt, {foe: goblin, count: 2}]", "[]"), "encounters.pond.foes", 29, "at least one"),
    (("    note: by the water\n", "    notes: by the water\n"), "encounters.pond.notes", 30, "did you mean note?"),
    (("  gate: {name: The gate}", "  gate: {note: rusted}"), "rooms.gate.name", 32, "missing: the room's name"),
    (("name: The Sunken Keep", "name: 7"), "name", 2, "expected text, got 7"),
    (("seed: 7", "seed: seven"), "seed", 3, "expected a whole number"),
    (("quests:", "bestairy: {}\nquests:"), "bestairy", 33, "did you mean bestiary?"),
]


@pytest.mark.parametrize("change, field, line, says", BAD, ids=[b[1] for b in BAD])
def test_validate_and_open_give_the_same_problems(tmp_path, change, field, line, says):
    old, new = change
    assert old in GOOD
    folder = folder_with(tmp_path, GOOD.replace(old, new, 1))
    found = assert_agree(folder)
    assert found, "the changed file should not pass"
    first = found[0]
    assert (first.field, says in first.reason) == (field, True), str(first)
    assert first.line == line, str(first)


def test_a_house_rule_class_and_a_delver_of_it_report_the_class_not_the_delver(tmp_path):
    text = GOOD.replace("    class: fighter\n", "    class: bard\n").replace(
        "quests:", "house_rules:\n  classes:\n    bard: {name: Bard}\nquests:")
    found = assert_agree(folder_with(tmp_path, text))
    assert {e.field.rsplit(".", 1)[0] for e in found} == {"house_rules.classes.bard"}


def test_house_rules_that_hold_are_played_by(tmp_path):
    text = GOOD.replace("quests:", "house_rules:\n  core:\n    luck_dice: {die: d4}\n    death_save: {target: 5}\n"
                                   "quests:")
    folder = folder_with(tmp_path, text)
    assert assert_agree(folder) == []
    with db.Campaign.open(folder, read_only=True) as camp:
        assert camp.rules.core["luck_dice"]["die"] == "d4" and camp.rules.core["death_save"]["target"] == 5


def test_the_shipped_bestiary_and_a_campaign_bestiary_use_one_foe_schema():
    shipped = base_rules().bestiary
    assert all(foe_problems(foe) == [] for foe in shipped.values())
    newt = {"name": "Newt", "hearts": 1, "attack_bonus": 0, "damage": 1}
    assert foe_problems(newt, ("bestiary", "newt")) == [
        Problem(("bestiary", "newt", "tags"), "missing: a foe has tags (a list of text; [] for none)")]
    _, problems = check_campaign({"format": 1, "name": "X", "bestiary": {"newt": newt}}, base_rules())
    assert problems == foe_problems(newt, ("bestiary", "newt"))


def test_a_field_name_writes_list_indexes_and_number_keys_apart():
    data = {"delvers": [{"name": "Wren"}], "house_rules": {"classes": {"mage": {"levels": {1: {}}}}}}
    assert field_name(("delvers", 0, "name"), data) == "delvers[0].name"
    assert field_name(("house_rules", "classes", "mage", "levels", 1, "hearts"), data) == \
        "house_rules.classes.mage.levels.1.hearts"


# ---------------------------------------------------------------- generated campaign files

RULES = base_rules()
CLASSES = sorted(RULES.classes)
NAMES = ["Wren", "Brakka", "Ilse", "Odo"]
PLAYERS = ["Ana", "Ben", "Cleo"]


def _offered(class_id: str) -> dict[str, list[str]]:
    klass = RULES.classes[class_id]
    out = {}
    for table in (klass.get("starting_gear", {}).get("choices", {}), klass["levels"][1].get("choices", {})):
        for cid, choice in table.items():
            if cid not in ("source", "quote", "reason", "assumed", "note") and "options" in choice:
                out[cid] = [k for k in choice["options"] if k not in ("source", "quote", "reason", "note")]
    return out


def mostly(draw, good, bad):
    """A good value nine times in ten, else one of the bad ones."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from(bad))
    return draw(good if isinstance(good, st.SearchStrategy) else st.sampled_from(good))


@st.composite
def sheets(draw, name):
    sheet = {"name": name, "class": mostly(draw, CLASSES, ["bard", 7])}
    if draw(st.booleans()):
        sheet["player"] = mostly(draw, PLAYERS, ["Zed", ""])
    if draw(st.integers(0, 3)) == 0:
        sheet["hearts"] = mostly(draw, [1, 12, 30], [0, "lots"])
    if draw(st.integers(0, 3)) == 0:
        sheet["purse"] = mostly(draw, [0, 25, {"crown": 2}, {"talon": 3, "bar": 1}], [-1, {"gem": 1}, "rich"])
    if draw(st.integers(0, 3)) == 0:
        sheet["spells"] = mostly(draw, st.lists(st.sampled_from(sorted(RULES.spells)), max_size=3, unique=True),
                                 [["fireball"], "light"])
    if draw(st.integers(0, 4)) == 0:
        sheet["true_names"] = mostly(draw, st.lists(st.sampled_from(["Water", "Bind", "Sound"]), max_size=2,
                                                    unique=True), [["Nothing"], ["Water", "Water"]])
    offered = _offered(sheet["class"]) if sheet["class"] in RULES.classes else {}
    if offered and draw(st.booleans()):
        cid = mostly(draw, sorted(offered), ["specialty"])
        sheet["choices"] = {cid: mostly(draw, offered.get(cid, ["x"]), ["bazooka"])}
    if draw(st.integers(0, 15)) == 0:
        sheet["xp"] = 50
    return sheet


@st.composite
def foes(draw):
    foe = {"name": "Newt", "hearts": 2, "attack_bonus": 0, "damage": "d6", "tags": ["beast"]}
    for field in ("multi_attack", "ranged", "armor"):
        if draw(st.booleans()):
            foe[field] = {"multi_attack": 2, "ranged": True, "armor": {"av": 1, "dv": 3}}[field]
    if draw(st.integers(0, 4)) == 0:
        field = draw(st.sampled_from(sorted(foe)))
        if draw(st.booleans()):
            del foe[field]
        else:
            foe[field] = draw(st.sampled_from(["2q6", -1, None, "lots", [1]]))
    return foe


@st.composite
def campaigns(draw):
    data = {"format": 1, "name": mostly(draw, ["The Keep"], [7, ""]), "seed": 3}
    names = draw(st.lists(st.sampled_from(NAMES), max_size=3, unique=True))
    if names and draw(st.integers(0, 9)) == 0:
        names.append(names[0])  # two delvers of one name
    delvers = [draw(sheets(n)) for n in names]
    if delvers:
        data["delvers"] = delvers
    if draw(st.booleans()):
        data["players"] = PLAYERS
    if delvers and draw(st.booleans()):
        seats = list(dict.fromkeys(d["name"] for d in delvers))
        if draw(st.integers(0, 5)) == 0:
            seats.append("Ghost")
        data["seats"] = seats
    if draw(st.booleans()):
        data["bestiary"] = {draw(st.sampled_from(["newt", "goblin"])): draw(foes())}
    if draw(st.booleans()):
        known = mostly(draw, [["goblin", "skeleton"]], [["goblin", "gobbo"]])
        data["encounters"] = {"fight": {"foes": draw(st.lists(
            st.one_of(st.sampled_from(known), st.fixed_dictionaries(
                {"foe": st.sampled_from(known), "count": st.sampled_from([1, 3] * 5 + [0])})), min_size=1,
            max_size=3))}}
    if draw(st.integers(0, 3)) == 0:
        data["house_rules"] = {"core": {"luck_dice": {"die": mostly(draw, ["d4", "d6", "d8"], ["2d4", 6, "d6+1"])},
                                        "death_save": {"target": mostly(draw, [5, 6], ["five"])}}}
    return data


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(campaign=campaigns())
def test_generated_campaigns_open_if_and_only_if_they_validate(tmp_path_factory, campaign):
    folder = folder_with(tmp_path_factory.mktemp("gen"), yaml.safe_dump(campaign, sort_keys=False))
    found = assert_agree(folder)
    if not found:
        with db.Campaign.open(folder, read_only=True) as camp:
            assert [d.name for d in camp.delvers] == [d["name"] for d in campaign.get("delvers", ())]
    for e in found:
        assert e.path == folder / "campaign.yaml" and e.field and e.line, str(e)


def test_a_broken_line_in_a_generated_file_names_its_line(tmp_path):
    text = textwrap.dedent("""\
        format: 1
        name: Broken
        delvers:
          - {name: Wren, class: rogue, hearts: 0}
    """)
    [err] = validate(folder_with(tmp_path, text))
    assert str(err).endswith("campaign.yaml:4: delvers[0].hearts: expected a whole number of 1 or more, got 0")
