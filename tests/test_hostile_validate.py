"""`delvebook validate` checks what play would: known kinds, changes that are places of the state's shape, finite
numbers, no duplicate keys, faces their dice can show, every event decided again by the rules; sheets, seats and
counts; every error one line with file:line (and field), control characters escaped.

Issue 16, items 8, 9, 10 and 14; and the state's one table (``statecheck.SHAPE``) against ``new_state``.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import delvebook as db
from delvebook.cli import commands as cli
from delvebook.core import statecheck
from delvebook.core.model import new_state
from delvebook.store import StoreError

WHERE = re.compile(r"(campaign|log)\.yaml:\d+: ")


def validate(folder: Path, capsys) -> tuple[int, str]:
    status = cli.main(["validate", str(folder)])
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    return status, out.out


def with_lines(folder: Path, *lines: str) -> Path:
    with open(folder / "log.yaml", "a", encoding="utf-8") as f:
        for line in lines:
            f.write(line + "\n")
    return folder


def played(folder: Path) -> list[str]:
    with db.Campaign.open(folder) as camp:
        camp.start_session()
        camp.award_xp(40, reason="quest")
        camp.check("Wren", "stealth", 12, faces={"check": [9, 2]})
        camp.spend_luck("Ana", +1, face=4)
        camp.undo()
        camp.redo()
    return (folder / "log.yaml").read_text().splitlines()


def test_a_campaign_played_by_the_rules_is_valid(keep, capsys):
    played(keep)
    assert validate(keep, capsys) == (0, f"{keep}: valid (6 events)\n")


# ---------------------------------------------------------------- item 8: logs delvebook could never write

NOTE = '- {{"seq": 1, "kind": "{kind}", "changes": [[{path}, {value}]]}}'


@pytest.mark.parametrize("line, where, says", [
    (NOTE.format(kind="frobnicate", path='["xp_pool"]', value="1"), "kind", "not a kind of event delvebook writes"),
    (NOTE.format(kind="rest", path='["xp_pool"]', value="NaN"), None, "NaN is not a number an event holds"),
    (NOTE.format(kind="rest", path='["xp_pool"]', value="Infinity"), None, "Infinity is not a number"),
    (NOTE.format(kind="rest", path='["xp_pool"]', value="1e400"), None, "too large a number"),
    ('- {"seq": 1, "kind": "note", "kind": "rest", "changes": []}', None, "duplicate key 'kind'"),
    (NOTE.format(kind="rest", path='["delvers", "Wren", "hearts"]', value='"lots"'), "changes[0]", "expected hearts"),
    (NOTE.format(kind="rest", path='["delvers", "Wren", "hearts"]', value="-50"), "changes[0]", "of 0 or more"),
    ('- {"seq": 1, "kind": "roll", "args": {"expr": "d6"}, "rolls": {"roll": {"expr": "d6", "faces": [99], '
     '"total": 99}}, "changes": []}', "rolls.roll", "a d6 shows 1..6, not 99"),
    ('- {"seq": 1, "kind": "roll", "args": {"expr": "d6"}, "rolls": {"roll": {"expr": "d6", "faces": [3], '
     '"total": 5}}, "changes": []}', "rolls.roll", "come to 3, the record says 5"),
])
def test_item_8_a_log_delvebook_could_never_write_is_an_error_with_its_line(keep, capsys, line, where, says):
    status, out = validate(with_lines(keep, line), capsys)
    assert status == 1 and "valid (" not in out
    first = out.splitlines()[0]
    assert f"{keep / 'log.yaml'}:2: " in first and says in first, first
    if where:
        assert f":2: {where}: " in first, first


def test_item_8_an_event_the_rules_would_not_make_is_the_first_divergence(keep, capsys):
    lines = played(keep)
    award = json.loads(lines[2][2:].split(" # seal ")[0])  # the line edited by hand: its seal no longer holds
    award["changes"][1][1] += 1000  # a hand gave one delver more XP than the split
    lines[2] = "- " + json.dumps(award)
    (keep / "log.yaml").write_text("\n".join(lines) + "\n")
    status, out = validate(keep, capsys)
    assert status == 1
    assert out.startswith(f"{keep / 'log.yaml'}:3: changes[1]: not what the rules make of this award_xp: the rules "
                          f"make [[\"delvers\"")


def test_item_8_faces_changed_by_hand_are_a_divergence_too(keep, capsys):
    lines = played(keep)
    check = json.loads(lines[3][2:].split(" # seal ")[0])
    check["rolls"]["check"]["faces"] = [20, 6]
    check["rolls"]["check"]["total"] = 26
    lines[3] = "- " + json.dumps(check)
    (keep / "log.yaml").write_text("\n".join(lines) + "\n")
    status, out = validate(keep, capsys)
    assert status == 1 and f"log.yaml:4: " in out and "not what the rules make of this check" in out


def test_item_8_what_would_crash_a_view_does_not_open(keep):
    with_lines(keep, NOTE.format(kind="rest", path='["delvers", "Wren", "hearts"]', value='"lots"'))
    with pytest.raises(StoreError) as info:
        db.Campaign.open(keep, read_only=True)
    assert info.value.line == 2 and info.value.field == "changes[0]"


# ---------------------------------------------------------------- item 9: one error with file:line, never a traceback


@pytest.mark.parametrize("line, says", [
    ('- {"seq": 1, "kind": "note", "x": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested"),
    ('- {"seq": 1, "kind": "note", "x": ' + "9" * 5000 + "}", "a number of 5,000 characters"),
    (NOTE.format(kind="rest", path='["delvers", "Nobody", "hearts"]', value="3"), "no such place in the state"),
    (NOTE.format(kind="rest", path='["seats", 99]', value='"Wren"'), "no such place in the state"),
    (NOTE.format(kind="rest", path='[]', value="1"), "non-empty list"),
    (NOTE.format(kind="rest", path='["delvers", "Wren", "xp", "deeper"]', value="1"), "no places inside"),
])
def test_item_9_a_bad_line_is_one_error_naming_it_in_validate_and_in_open(keep, capsys, line, says):
    with_lines(keep, line)
    status, out = validate(keep, capsys)
    assert status == 1 and out.startswith(f"{keep / 'log.yaml'}:2: ") and says in out.splitlines()[0], out[:300]
    with pytest.raises(StoreError) as info:
        db.Campaign.open(keep, read_only=True)
    assert info.value.line == 2 and says in info.value.reason


def test_item_9_changes_nested_too_deep_are_refused_by_the_shape_and_by_the_depth_guard_without_it(keep):
    # the reader's depth guard leaves an event's changes to the shape's check when one follows (no place of the
    # state nests 64 deep): both refuse such a line, naming it
    from delvebook.store import log
    deep = "[" * 70 + "]" * 70
    with_lines(keep, NOTE.format(kind="rest", path='["delvers", "Wren", "pending_choices"]', value=deep))
    with pytest.raises(StoreError) as info:
        db.Campaign.open(keep, read_only=True)
    assert info.value.line == 2 and info.value.field == "changes[0]" and "nested more than 16" in info.value.reason
    with pytest.raises(StoreError) as info:
        log.scan(keep / "log.yaml", shape=None)
    assert info.value.line == 2 and "nested more than 64 levels deep" in info.value.reason


def test_item_9_a_log_that_reads_but_does_not_replay_opened_for_writing_names_its_line_and_changes_nothing(keep):
    # the open folds each event as it reads it; one that does not fit the state before it ends the read, and the
    # log is read again to say where: the same error as a read-only open, the lock let go, the file untouched
    lines = played(keep)
    with_lines(keep, NOTE.format(kind="rest", path='["delvers", "Nobody", "hearts"]', value="3").replace(
        '"seq": 1', f'"seq": {len(lines)}'))
    before = (keep / "log.yaml").read_bytes()
    for read_only in (True, False):
        with pytest.raises(StoreError) as info:
            db.Campaign.open(keep, read_only=read_only)
        assert info.value.line == len(lines) + 1 and "no such place in the state" in info.value.reason
    assert (keep / "log.yaml").read_bytes() == before
    from delvebook.store import CampaignStore
    CampaignStore.open(keep).close()  # the writer's lock was let go


@pytest.mark.parametrize("old, new, says", [
    ("hearts: 19", "hearts: .inf", "delvers[1].hearts: expected a whole number of 1 or more, got inf"),
    ("hearts: 19", "hearts: " + "9" * 5000, "a number of 5,000 characters"),
    ("name: The Sunken Keep", "name: " + "[" * 300 + "]" * 300, "nested more than 200"),
])
def test_item_9_campaign_yaml_problems_are_one_error_with_file_line(keep, capsys, old, new, says):
    (keep / "campaign.yaml").write_text((keep / "campaign.yaml").read_text().replace(old, new))
    status, out = validate(keep, capsys)
    assert status == 1 and WHERE.search(out) and says in out, out[:400]


def test_item_9_a_house_rule_on_the_campaigns_own_foe_says_where_to_change_it(keep, capsys):
    text = (keep / "campaign.yaml").read_text() + "house_rules:\n  bestiary:\n    bog_goblin:\n      hearts: 5\n"
    (keep / "campaign.yaml").write_text(text)
    status, out = validate(keep, capsys)
    assert status == 1 and out.count("\n") == 1
    assert "house_rules.bestiary.bog_goblin: 'bog_goblin' is this campaign's own foe (under bestiary:)" in out


# ---------------------------------------------------------------- item 10: sheets, seats and counts


@pytest.mark.parametrize("old, new, says", [
    ("hearts: 19", "hearts: -5", "delvers[1].hearts: expected a whole number of 1 or more, got -5"),
    ("hearts: 19", "hearts: 3.7", "delvers[1].hearts: expected a whole number of 1 or more, got 3.7"),
    ("hearts: 19", "hearts: 1000000", "at most 10,000 starting hearts"),
    ("spells: [magic_missile, firebolt, light]", "spells: fireball", "delvers[2].spells: expected a list of spell"),
    ("    hearts: 19", "    haerts: 19", "delvers[1].haerts: unknown field; did you mean hearts?"),
    ("seats: [Wren, Brakka, Ilse, Father Odo, Sable]", "seats: [Wren, Brakka, Ilse, Father Odo, Sable, Ghost]",
     "seats[5]: 'Ghost' is not one of the delvers"),
    ("  - name: Wren\n", "  - name: " + "W" * 300 + "\n", "a name of 300 characters; at most 200"),
])
def test_item_10_every_sheet_field_and_seat_is_checked(keep, capsys, old, new, says):
    text = (keep / "campaign.yaml").read_text()
    assert old in text
    (keep / "campaign.yaml").write_text(text.replace(old, new, 1))
    status, out = validate(keep, capsys)
    assert status == 1 and WHERE.search(out) and says in out, out[:400]


@pytest.mark.parametrize("count", [101, 3200, 20000])
def test_item_10_a_prepared_encounter_is_bounded_and_refused_at_once(keep, capsys, count):
    text = (keep / "campaign.yaml").read_text().replace(
        "encounters:\n", f"encounters:\n  horde:\n    foes:\n      - {{foe: bog_goblin, count: {count}}}\n", 1)
    (keep / "campaign.yaml").write_text(text)
    status, out = validate(keep, capsys)
    assert status == 1 and f"encounters.horde.foes[0].count: {count:,} foes; a prepared encounter holds at most " \
                           f"100 foes" in out


# ---------------------------------------------------------------- item 14: control characters escaped


def test_item_14_validate_prints_no_terminal_control_sequence(keep, capsys):
    text = (keep / "campaign.yaml").read_text().replace(
        "damage: d6\n    tags: [humanoid, goblinoid]", 'damage: "d6\\e[2J\\e]0;pwned\\a"\n    tags: [humanoid, goblinoid]')
    (keep / "campaign.yaml").write_text(text + '"\\e[31mevil\\e[0m": 1\n')
    with_lines(keep, '- {"seq": 1, "kind": "\\u001b[2Jwiped", "changes": []}')
    status, out = validate(keep, capsys)
    assert status == 1 and "\x1b" not in out and "\x07" not in out
    assert "\\x1b[31mevil" in out and "\\x1b[2J" in out


# ---------------------------------------------------------------- the state's one table


def test_the_state_shape_table_names_every_field_of_a_new_state():
    table = statecheck.SHAPE["state"]
    required = {k for k in table if not k.endswith("?")}  # an optional one ("prepared?") comes with its first use
    assert required == set(new_state()), "a field of model.new_state is missing from statecheck.SHAPE (or the " \
                                         "other way round): add it there"
    assert statecheck.DEFAULT.state_problems(new_state("x", 1)) == []


def test_a_change_to_a_place_the_table_does_not_name_says_where_to_add_it():
    why = statecheck.DEFAULT.change_problem(["delvers", "Wren", "ammunition"], 3)
    assert why == ("delvers.Wren.ammunition: not a field of a delver (it has name, player, class_id, class_name, "
                   "level, xp, hearts, max_hearts, status, died_at, skills, resources, resource_max, weapons, armor, "
                   "items, purse, choices, abilities, spells, spellbook_used, true_names, pending_choices, familiar, "
                   "signature_spell, written_spells, death_save_repeated, armor_bonus, free_reload, retired); a new "
                   "field of the state is added to "
                   "delvebook.core.statecheck.SHAPE")


def test_every_state_the_long_campaign_passes_through_holds():
    long = Path(__file__).resolve().parent.parent / "campaigns" / "the-long-delve"
    with db.Campaign.open(long, read_only=True) as camp:
        assert statecheck.shape_for(camp.rules).state_problems(camp.state) == []
