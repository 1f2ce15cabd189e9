"""Open equals validate, for every log line: ``Campaign.open`` (read-only and for play), ``store.validate`` and
``delvebook validate`` refuse the same hostile lines with the same file:line, field and reason, because they read
with one reader and judge with one check (``store.playcheck``). A line delvebook wrote carries its seal and is
trusted to be what the engine made; a line written or edited by hand is decided again by the rules at its point of
the log. And the writer refuses, before it acknowledges, what the reader would refuse.

Issue 23: an unknown kind carrying changes, duplicate JSON keys, damage to a creature that does not exist, a rest
written by hand in the middle of a fight, an XP share that is text, 501 foes in a fight, a name over its limit.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import delvebook as db
from delvebook.cli import commands as cli
from delvebook.store import StoreError, validate
from delvebook.store.lock import take_lock

KEEP = Path(__file__).resolve().parent.parent / "campaigns" / "the-sunken-keep"


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """The sunken keep after a session's start, an award, a check with a luck die and a fight begun: 6 events on
    lines 2..7, each sealed."""
    folder = tmp_path_factory.mktemp("played") / "keep"
    shutil.copytree(KEEP, folder)
    with db.Campaign.open(folder) as camp:
        camp.start_session()
        camp.award_xp(40, reason="quest")
        camp.check("Wren", "stealth", 12, faces={"check": [9, 2]})
        camp.spend_luck("Ana", +1, face=4)
        fight = camp.encounter(["bog_goblin", "bog_goblin"])
        fight.initiative(first="party")
    return folder


def _lines(folder: Path) -> list[str]:
    return (folder / "log.yaml").read_text(encoding="utf-8").split("\n")[:-1]


def _unsealed(line: str) -> dict:
    """A delvebook line's event, as a hand that edits it reads it (its seal dropped)."""
    return json.loads(line[2:].split(" # seal ")[0])


def _hand(event: dict) -> str:
    return "- " + json.dumps(event)


NEXT = 7  # the seq of a line appended after the played log


def _appended(text: str):
    return lambda lines: lines + [text]


def _edited(index: int, edit):
    """The log with line ``index`` (0 is the header) rewritten by hand: ``edit(event)`` changes it in place."""
    def apply(lines):
        event = _unsealed(lines[index])
        edit(event)
        return lines[:index] + [_hand(event)] + lines[index + 1:]
    return apply


def _set_share(event):
    event["xp_awards"][0]["shares"] = {name: "lots" for name in event["xp_awards"][0]["shares"]}


def _more_xp(event):
    event["changes"][1][1] += 1000


# (name, what is done to the log, the line refused, the field, words of the reason)
HOSTILE = [
    ("an unknown kind carrying changes",
     _appended(f'- {{"seq": {NEXT}, "kind": "frobnicate", "changes": [[["delvers", "Wren", "hearts"], 1]]}}'),
     8, "kind", "'frobnicate' is not a kind of event delvebook writes"),
    ("duplicate JSON keys",
     _appended(f'- {{"seq": {NEXT}, "kind": "next_turn", "kind": "rest", "v": 1, "args": {{}}, "changes": []}}'),
     8, None, "duplicate key 'kind'"),
    ("damage to a creature that does not exist",
     _appended(f'- {{"seq": {NEXT}, "kind": "damage", "v": 1, "at": 0, "session": 1, "encounter": 1, "round": 1, '
               f'"args": {{"who": "Nobody", "amount": 3, "source": "keeper", "armor": false}}, "changes": []}}'),
     8, None, "no one named 'Nobody' is here"),
    ("a rest written by hand in the middle of a fight",
     _appended(f'- {{"kind": "rest", "seq": {NEXT}, "args": {{}}, "changes": []}}'),
     8, None, "no resting in the middle of a fight"),
    ("a rest written by hand after a keeper's comments",
     lambda lines: lines[:4] + ["", "# the goblins came up the stairs"] + lines[4:]
     + [f'- {{"kind": "rest", "seq": {NEXT}, "args": {{}}, "changes": []}}'],
     10, None, "no resting in the middle of a fight"),
    ("an XP share that is text", _edited(2, _set_share), 3, "xp_awards[0]", 'the log says {"amount": 40'),
    ("more XP than the split, edited in a sealed line", _edited(2, _more_xp), 3, "changes[1]",
     "not what the rules make of this award_xp"),
    ("a change to no place in the state",
     _appended(f'- {{"seq": {NEXT}, "kind": "rest", "changes": [[["delvers", "Nobody", "hearts"], 3]]}}'),
     8, "changes[0]", "no such place in the state"),
    ("a name over the length limit",
     _appended(f'- {{"seq": {NEXT}, "kind": "rest", "changes": [[["delvers", "{"x" * 300}"], {{}}]]}}'),
     8, "changes[0]", "text of 300 characters; at most 200"),
    ("NaN", _appended(f'- {{"seq": {NEXT}, "kind": "rest", "x": NaN}}'), 8, None, "NaN is not a number"),
    ("a number past what a browser reads",
     _appended(f'- {{"seq": {NEXT}, "kind": "rest", "x": {2 ** 60}}}'), 8, "x", "at most 9,007,199,254,740,991"),
    ("nesting past the limit",
     _appended(f'- {{"seq": {NEXT}, "kind": "rest", "x": {"[" * 80}{"]" * 80}}}'), 8,
     "x[0][0][0][0][0][0][0][...]", "nested more than 64 levels deep"),
    ("a face its die cannot show",
     _appended(f'- {{"seq": {NEXT}, "kind": "roll", "args": {{"expr": "d6"}}, "rolls": {{"roll": {{"expr": "d6", '
               f'"faces": [9], "total": 9}}}}, "changes": []}}'), 8, "rolls.roll", "a d6 shows 1..6, not 9"),
    ("the wrong seq", _appended('- {"seq": 99, "kind": "rest", "changes": []}'), 8, "seq", "expected 7"),
    ("an event from a newer delvebook", _appended(f'- {{"seq": {NEXT}, "kind": "rest", "v": 99}}'), 8, "v",
     "upgrade delvebook"),
    ("an undo with nothing to undo, first in the log",
     lambda lines: lines[:1] + ['- {"seq": 1, "kind": "undo", "undoes": 1}'], 2, "undo",
     "undo with nothing to undo"),
    ("a replacement of an action that is not the latest",
     _appended(f'- {{"seq": {NEXT}, "kind": "check", "replaces": 3, "changes": []}}'), 8, "replaces",
     "replaces 3, which is not the latest action in force"),
    ("a line in other YAML that the rules would not make",
     _appended(f"- {{seq: {NEXT}, kind: rest, args: {{}}, changes: []}}"), 8, None,
     "no resting in the middle of a fight"),
    ("a line that is not one event", _appended("- just words"), 8, None, "expected one event per line"),
]


def _refusals(folder: Path, capsys) -> dict[str, tuple]:
    """How each way in refuses the folder: (file, line, field, reason) by each."""
    before = (folder / "log.yaml").read_bytes()
    out = {}
    for read_only in (True, False):
        with pytest.raises(StoreError) as info:
            db.Campaign.open(folder, read_only=read_only)
        err = info.value
        out[f"Campaign.open(read_only={read_only})"] = (err.path, err.line, err.field, err.reason)
    assert (folder / "log.yaml").read_bytes() == before  # a refused open for play changed nothing
    lock, _ = take_lock(folder)  # and let go of the writer's lock
    lock.release()
    problems = validate(folder)
    assert problems, "store.validate found nothing"
    first = problems[0]
    out["store.validate"] = (first.path, first.line, first.field, first.reason)
    assert cli.main(["validate", str(folder)]) == 1
    printed = capsys.readouterr().out.splitlines()[0]
    assert printed == str(first), (printed, str(first))
    return out


@pytest.mark.parametrize("name, change, line, field, says", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_open_both_ways_and_validate_refuse_a_hostile_line_alike(played, tmp_path, capsys, name, change, line,
                                                                  field, says):
    folder = tmp_path / "keep"
    shutil.copytree(played, folder)
    (folder / "log.yaml").write_text("\n".join(change(_lines(played))) + "\n", encoding="utf-8")
    refusals = _refusals(folder, capsys)
    assert len(set(refusals.values())) == 1, refusals
    path, at, named, reason = refusals["store.validate"]
    assert (path, at, named) == (folder / "log.yaml", line, field), refusals
    assert says in reason, reason


@pytest.mark.parametrize("name, change", [
    ("a delvebook line with its seal dropped", _edited(3, lambda event: None)),
    ("a delvebook line with its fields reordered", _edited(5, lambda event: event.update(
        dict(reversed(list(event.items())))))),
    ("a line written by hand that the rules make", "roll"),
])
def test_a_line_written_by_hand_that_the_rules_make_opens_and_validates(played, tmp_path, name, change):
    folder = tmp_path / "keep"
    shutil.copytree(played, folder)
    if change == "roll":  # what the rules make of a roll of d6 showing 4, written out by hand, fields reordered
        with db.Campaign.open(folder) as camp:
            rolled = camp.roll("d6", faces={"roll": [4]})
        change = _appended(_hand(dict(reversed(list(json.loads(json.dumps(rolled)).items())))))
    (folder / "log.yaml").write_text("\n".join(change(_lines(played))) + "\n", encoding="utf-8")
    assert validate(folder) == []
    with db.Campaign.open(played, read_only=True) as original:
        for read_only in (True, False):
            with db.Campaign.open(folder, read_only=read_only) as camp:
                assert camp.state == original.state  # (the roll written by hand changes nothing it keeps)


def test_the_writer_refuses_a_501st_foe_before_it_acknowledges_it(keep):
    with db.Campaign.open(keep) as camp:
        fight = camp.encounter(["bog_goblin"] * 100)
        for _ in range(3):
            fight.add_foes(["bog_goblin"] * 133)
        assert len(fight.foes) == 499
        fight.add_foes(["bog_goblin"])
        before, events, state = (keep / "log.yaml").read_bytes(), list(camp.events), json.dumps(camp.state)
        with pytest.raises(StoreError, match=r"encounter\.foes: 501 entries; at most 500; nothing was recorded"):
            fight.add_foes(["bog_goblin"])
        assert (keep / "log.yaml").read_bytes() == before and camp.events == events
        assert json.dumps(camp.state) == state  # the state is the log's again
        camp.roll("d6")  # and play goes on
    assert validate(keep) == []
    with db.Campaign.open(keep, read_only=True) as again:
        assert len(again.fight.foes) == 500


def test_the_writer_refuses_a_name_over_its_limit_naming_the_limit(keep):
    with db.Campaign.open(keep) as camp:
        before = (keep / "log.yaml").read_bytes()
        with pytest.raises(db.Refused, match="name of 300 characters; at most 200"):  # the names check, first
            camp.npc("N" * 300, "bog_goblin")
        assert (keep / "log.yaml").read_bytes() == before and camp.creatures == []
    assert validate(keep) == []


def test_a_line_written_by_hand_is_judged_by_a_campaign_that_follows_the_log(played, tmp_path):
    folder = tmp_path / "keep"
    shutil.copytree(played, folder)
    with db.Campaign.open(folder, read_only=True) as follower:
        with open(folder / "log.yaml", "a", encoding="utf-8") as f:
            f.write(f'- {{"kind": "rest", "seq": {NEXT}, "args": {{}}, "changes": []}}\n')
        with pytest.raises(StoreError) as info:
            follower.catch_up()
        assert info.value.line == 8 and "no resting in the middle of a fight" in info.value.reason


@pytest.mark.parametrize("old, new, field, says", [
    ("name: The Sunken Keep", "name: " + "K" * 30_000, "name", "text of 30,000 characters; at most 20,000"),
    ("    player: Ana", "    player: " + "A" * 300, "delvers[0].player", "a name of 300 characters; at most 200"),
    ("players: [Ana,", "players: [" + "B" * 300 + ", Ana,", "players[0]", "a name of 300 characters; at most 200"),
])
def test_a_campaign_file_past_a_limit_is_refused_alike_naming_the_limit(keep, old, new, field, says):
    text = (keep / "campaign.yaml").read_text(encoding="utf-8")
    assert old in text
    (keep / "campaign.yaml").write_text(text.replace(old, new, 1), encoding="utf-8")
    first = validate(keep)[0]
    assert (first.field, first.reason) == (field, says), first
    for read_only in (True, False):
        with pytest.raises(StoreError) as info:
            db.Campaign.open(keep, read_only=read_only)
        err = info.value
        assert (err.path, err.line, err.field) == (first.path, first.line, first.field)
        assert err.reason.startswith(says)
