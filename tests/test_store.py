"""The campaign store: a folder of YAML that never loses a roll, refuses hostile files, and says where it hurts."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import pytest
import yaml

from delvebook import store as st
from delvebook.core.declared import BASE_VERSION
from delvebook.store import (
    FORMAT_VERSION,
    CampaignStore,
    LockedError,
    StoreError,
    dump_event_line,
    parse_event_line,
    read_log,
    validate,
)

CAMPAIGN = {
    "format": 1,
    "name": "The Sunken Keep",
    "seed": 7,
    "seats": ["Wren", "Bram"],
    "players": ["Ana", "Cy"],
    "delvers": [
        {"name": "Wren", "class": "rogue", "player": "Ana"},
        {"name": "Bram", "class": "fighter", "player": "Cy", "purse": {"talon": 3}},
    ],
    "bestiary": {
        "eel": {"name": "Keep eel", "hearts": 5, "attack_bonus": "d6", "damage": "d6+1",
                "armor": {"av": 1, "dv": 3}, "tags": ["beast"]},
    },
    "encounters": {"moat": {"foes": ["eel", {"foe": "goblin", "count": 2}], "note": "at the gate"}},
    "rooms": {"gate": {"name": "The gate", "note": "rusted"}},
    "quests": {"bell": {"name": "The drowned bell", "note": "ring it"}},
    "house_rules": {},
    "notes": "A first session.",
}


def event(seq: int, kind: str = "note", **fields) -> dict:
    return {"seq": seq, "kind": kind, **fields}


def write_campaign_yaml(folder: Path, text: str, log: str | bytes = st.LOG_HEADER) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "campaign.yaml").write_text(textwrap.dedent(text), encoding="utf-8")
    (folder / "log.yaml").write_bytes(log if isinstance(log, bytes) else log.encode())
    return folder


def log_of(*events: dict, header: bool = True) -> bytes:
    return (st.LOG_HEADER.encode() if header else b"") + b"".join(dump_event_line(e) for e in events)


def open_error(folder: Path, read_only: bool = True) -> StoreError:
    with pytest.raises(StoreError) as info:
        CampaignStore.open(folder, read_only=read_only)
    return info.value


# ---------------------------------------------------------------- round trip and the lock


def test_events_written_then_read_back_are_the_same(tmp_path):
    folder = tmp_path / "keep"
    with CampaignStore.create(folder, CAMPAIGN) as camp:
        camp.append(event(1, "roll", faces=[3, 5], total=8))
        camp.append(event(2, "attack", hit=True))
        camp.append(event(3, "note", text="wren hides"))
        camp.append(event(4, "roll", who="Bram", text="ünïcode ✓"))
        written = list(camp.events)
    with CampaignStore.open(folder) as camp:
        assert camp.events == written
        assert camp.campaign == CAMPAIGN
        assert camp.problems == []
        assert camp.next_seq == 5


def test_a_new_campaign_has_an_empty_log_and_ignores_only_the_lock(tmp_path):
    folder = tmp_path / "new"
    CampaignStore.create(folder, {"name": "New"}).close()
    assert (folder / "log.yaml").read_text().startswith("# delvebook event log")
    assert yaml.safe_load((folder / "log.yaml").read_text()) is None
    assert (folder / ".gitignore").read_text().splitlines()[-1] == ".delvebook.lock"
    assert yaml.safe_load((folder / "campaign.yaml").read_text()) == {"format": FORMAT_VERSION, "name": "New"}


def test_create_refuses_a_folder_that_holds_anything(tmp_path):
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "notes.txt").write_text("mine")
    with pytest.raises(StoreError, match="already holds files.*notes.txt"):
        CampaignStore.create(tmp_path / "old", {"name": "X"})
    assert os.listdir(tmp_path / "old") == ["notes.txt"] or set(os.listdir(tmp_path / "old")) <= {
        "notes.txt", ".delvebook.lock"}


def test_close_releases_the_lock_and_is_idempotent(tmp_path):
    camp = CampaignStore.create(tmp_path / "c", {"name": "C"})
    with pytest.raises(LockedError, match="open for writing in this process"):
        CampaignStore.open(tmp_path / "c")
    camp.close()
    camp.close()
    with CampaignStore.open(tmp_path / "c") as again:
        again.append(event(1))
    with pytest.raises(StoreError, match="closed"):
        again.append(event(2))


def test_a_read_only_store_refuses_to_write(tmp_path):
    CampaignStore.create(tmp_path / "c", {"name": "C"}).close()
    with CampaignStore.open(tmp_path / "c", read_only=True) as camp:
        with pytest.raises(StoreError, match="read-only"):
            camp.append(event(1))


def test_a_second_process_cannot_write_but_can_read(tmp_path):
    folder = tmp_path / "shared"
    CampaignStore.create(folder, {"name": "Shared"}).close()
    child = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent("""
            import sys
            from delvebook.store import CampaignStore
            camp = CampaignStore.open(sys.argv[1])
            camp.append({"seq": camp.next_seq, "kind": "note", "by": "child"})
            print("ready", flush=True)
            sys.stdin.read()
            camp.append({"seq": camp.next_seq, "kind": "note", "by": "child, last"})
            camp.close()
        """), str(folder)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready"
        with pytest.raises(LockedError) as info:
            CampaignStore.open(folder)
        message = str(info.value)
        assert str(folder) in message and f"pid {child.pid}" in message and "open read-only" in message
        with CampaignStore.open(folder, read_only=True) as reader:
            assert [e["by"] for e in reader.events] == ["child"]
    finally:
        child.stdin.close()
        assert child.wait(timeout=30) == 0
    with CampaignStore.open(folder) as camp:
        camp.append(event(camp.next_seq, by="parent"))
        assert [e["by"] for e in camp.events] == ["child", "child, last", "parent"]


def test_read_only_open_changes_nothing_even_on_a_read_only_folder(tmp_path):
    folder = tmp_path / "ro"
    write_campaign_yaml(folder, "format: 1\nname: RO\n", log_of(event(1), event(2)) + b'- {"seq": 3, "ki')
    before = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in folder.iterdir()}
    os.chmod(folder, stat.S_IRUSR | stat.S_IXUSR)
    try:
        with CampaignStore.open(folder, read_only=True) as camp:
            assert [e["seq"] for e in camp.events] == [1, 2]
            assert "torn last line" in camp.problems[0] and "left in place" in camp.problems[0]
    finally:
        os.chmod(folder, stat.S_IRWXU)
    assert {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in folder.iterdir()} == before


# ---------------------------------------------------------------- appending


def test_append_takes_only_the_next_seq_and_a_kind(tmp_path):
    with CampaignStore.create(tmp_path / "c", {"name": "C"}) as camp:
        camp.append(event(1))
        with pytest.raises(StoreError, match=r"seq: expected 2 \(one more than the event before\), got 3"):
            camp.append(event(3))
        with pytest.raises(StoreError, match="kind: missing"):
            camp.append({"seq": 2})
        with pytest.raises(StoreError, match="kind: expected the event's kind"):
            camp.append({"seq": 2, "kind": 5})
        assert len(camp.events) == 1
    assert [e["seq"] for e in read_log(tmp_path / "c")[0]] == [1]


@pytest.mark.parametrize("bad, says", [
    ({"faces": {1, 2}}, r"faces: cannot be written to the log: set is not JSON data"),
    ({"luck": float("nan")}, "no NaN"),
    ({"by_level": {2: "x"}}, r"by_level: .*key 2 is not text"),
])
def test_an_event_json_cannot_hold_is_refused_and_nothing_is_written(tmp_path, bad, says):
    with CampaignStore.create(tmp_path / "c", {"name": "C"}) as camp:
        with pytest.raises(StoreError, match=says):
            camp.append(event(1, **bad))
    assert read_log(tmp_path / "c") == ([], [])


def test_each_line_is_json_and_yaml_with_the_same_data(tmp_path):
    from ruamel.yaml import YAML

    tricky = event(1, "note", text="line\u2028sep \x85nel \x7fdel \ufeffbom ✓ \"quoted\" \\ back\nslash",
                   no="no", yes=True, n=None, f=1.5, big=2**53 - 1, nested={"a": [1, {"b": "c"}]})
    line = dump_event_line(tricky)
    assert line.count(b"\n") == 1 and line.startswith(b'- {"seq": 1, "kind": "note"')
    folder = tmp_path / "c"
    with CampaignStore.create(folder, {"name": "C"}) as camp:
        camp.append(tricky)
    text = (folder / "log.yaml").read_text(encoding="utf-8")
    assert yaml.safe_load(text) == [tricky]
    assert YAML(typ="safe", pure=True).load(text) == [tricky]
    assert read_log(folder)[0] == [tricky]


def test_an_old_batch_comment_is_a_comment_and_its_events_are_kept(tmp_path):
    """Logs written while append_many existed carry `# batch: N events` lines; they read as comments."""
    log = log_of(event(1)) + b"# batch: 3 events\n" + dump_event_line(event(2, "attack")) + \
        dump_event_line(event(3, "damage"))
    folder = write_campaign_yaml(tmp_path / "c", "format: 1\nname: C\n", log)
    with CampaignStore.open(folder) as camp:
        assert [e["seq"] for e in camp.events] == [1, 2, 3] and camp.problems == []
    assert validate(folder) == []


# ---------------------------------------------------------------- a torn last line


def test_a_torn_last_line_is_set_aside_and_the_log_repaired(tmp_path):
    folder = tmp_path / "c"
    good = log_of(event(1), event(2, text="x" * 100))
    write_campaign_yaml(folder, "format: 1\nname: C\n", good + b'- {"seq": 3, "kind": "roll", "fa')
    events, problems = read_log(folder)
    assert [e["seq"] for e in events] == [1, 2] and "log.yaml:4: torn last line" in problems[0]
    with CampaignStore.open(folder) as camp:
        assert [e["seq"] for e in camp.events] == [1, 2]
        [side] = folder.glob("log.torn-*.yaml")
        assert side.name in camp.problems[0] and "ends at seq 2" in camp.problems[0]
        assert side.read_bytes().endswith(b'- {"seq": 3, "kind": "roll", "fa')
        assert (folder / "log.yaml").read_bytes() == good
        camp.append(event(3))
    assert [e["seq"] for e in read_log(folder)[0]] == [1, 2, 3]


def test_a_broken_last_line_with_its_newline_is_a_hand_edit_not_a_tear(tmp_path):
    """A crash cuts the last line before its newline; a last line that has its newline and does not read was
    written whole, by a hand: an error naming it, and nothing is moved."""
    log = log_of(event(1)) + b'- {"seq": 2, "kind": "ro\n'
    folder = write_campaign_yaml(tmp_path / "c", "format: 1\nname: C\n", log)
    err = open_error(folder, read_only=False)
    assert err.line == 3 and "edited by hand" in err.reason and "torn" not in err.reason
    assert (folder / "log.yaml").read_bytes() == log and not list(folder.glob("log.torn-*"))


def test_a_torn_multibyte_character_is_a_torn_line(tmp_path):
    line = dump_event_line(event(2, text="dragon 🐉"))
    cut = line.index("🐉".encode()) + 2  # in the middle of the dragon's four bytes
    folder = write_campaign_yaml(tmp_path / "c", "format: 1\nname: C\n", log_of(event(1)) + line[:cut])
    with CampaignStore.open(folder) as camp:
        assert len(camp.events) == 1 and "torn last line" in camp.problems[0]


def test_a_complete_last_event_without_its_newline_is_kept(tmp_path):
    folder = write_campaign_yaml(tmp_path / "c", "format: 1\nname: C\n", log_of(event(1), event(2))[:-1])
    with CampaignStore.open(folder) as camp:
        assert [e["seq"] for e in camp.events] == [1, 2]
        assert "no newline at the end; added one" in camp.problems[0]
        camp.append(event(3))
    assert [e["seq"] for e in read_log(folder)[0]] == [1, 2, 3]


def test_a_bad_line_before_the_end_is_an_error_not_dropped(tmp_path):
    log = log_of(event(1)) + b'- {"seq": 2, "kind": \n' + dump_event_line(event(3))
    folder = write_campaign_yaml(tmp_path / "c", "format: 1\nname: C\n", log)
    err = open_error(folder, read_only=False)
    assert err.path == folder / "log.yaml" and err.line == 3
    assert "not valid YAML" in err.reason
    assert (folder / "log.yaml").read_bytes() == log


def test_a_missing_or_repeated_seq_names_the_line(tmp_path):
    folder = write_campaign_yaml(tmp_path / "c", "format: 1\nname: C\n", log_of(event(1), event(3), event(4)))
    err = open_error(folder)
    assert str(err) == f"{folder / 'log.yaml'}:3: seq: expected 2 (one more than the event before), got 3"


# ---------------------------------------------------------------- lines written by hand, and old logs


def test_a_line_a_human_rewrote_in_other_yaml_is_read_with_the_yaml_loader(tmp_path):
    log = log_of(event(1), event(2)) + b"- {seq: 3, kind: note, text: hello, loud: yes, quiet: no}\n" + \
        b"-   {\"seq\": 4, \"kind\": \"note\"}   # spaced out, with a comment\n" + dump_event_line(event(5))
    folder = write_campaign_yaml(tmp_path / "c", "format: 1\nname: C\n", log)
    events, problems = read_log(folder)
    assert problems == []
    assert events[2] == {"seq": 3, "kind": "note", "text": "hello", "loud": True, "quiet": False}
    assert [e["seq"] for e in events] == [1, 2, 3, 4, 5]


def test_a_line_that_is_not_one_event_says_what_was_expected(tmp_path):
    log = log_of(event(1)) + b"- just some text\n" + dump_event_line(event(2))
    folder = write_campaign_yaml(tmp_path / "c", "format: 1\nname: C\n", log)
    assert "expected one event per line" in open_error(folder).reason
    with pytest.raises(StoreError, match="log.yaml:9: expected one event per line"):
        parse_event_line("- [1, 2]", tmp_path / "log.yaml", 9)
    assert parse_event_line("# a comment", tmp_path / "log.yaml", 1) is None


def test_a_log_written_without_event_versions_opens_and_v1_passes_through(tmp_path):
    old = "\n".join(['- {"seq": 1, "kind": "roll", "faces": [4]}', '- {"seq": 2, "kind": "note", "v": 1}']) + "\n"
    folder = write_campaign_yaml(tmp_path / "c", "format: 1\nname: Old\n", old)  # no header line either
    with CampaignStore.open(folder) as camp:
        assert camp.events == [{"seq": 1, "kind": "roll", "faces": [4]}, {"seq": 2, "kind": "note", "v": 1}]
    assert st.upgrade_event({"seq": 1, "kind": "x"}, 1) == {"seq": 1, "kind": "x"}


def test_an_event_from_a_newer_delvebook_says_to_upgrade(tmp_path):
    folder = write_campaign_yaml(tmp_path / "c", "format: 1\nname: C\n",
                                 log_of(event(1, v=BASE_VERSION + 1), event(2)))
    err = open_error(folder)
    assert err.line == 2 and "newer delvebook" in err.reason and "upgrade delvebook" in err.reason


# ---------------------------------------------------------------- campaign.yaml: shapes and errors

GOOD_YAML = """\
    format: 1
    name: The Sunken Keep
    seats: [Wren, Bram]
    delvers:
      - name: Wren
        class: rogue
      - name: Bram
        class: fighter
    bestiary:
      eel:
        name: Keep eel
        hearts: 5
        damage: d6
        attack_bonus: 0
        tags: [beast]
"""


def test_a_hand_written_campaign_opens_and_keeps_its_order(tmp_path):
    folder = write_campaign_yaml(tmp_path / "c", GOOD_YAML)
    with CampaignStore.open(folder, read_only=True) as camp:
        assert list(camp.campaign) == ["format", "name", "seats", "delvers", "bestiary"]
        assert camp.campaign["bestiary"]["eel"]["hearts"] == 5


def test_an_error_names_file_line_field_and_what_was_expected(tmp_path):
    folder = write_campaign_yaml(tmp_path / "c", GOOD_YAML.replace("class: fighter", "class: 7"))
    err = open_error(folder)
    assert str(err) == f"{folder / 'campaign.yaml'}:8: delvers[1].class: expected a class id (text), got 7"
    assert (err.line, err.field) == (8, "delvers[1].class")


@pytest.mark.parametrize("change, line, field, says", [
    (("name: The Sunken Keep", "name: 7"), 2, "name", "expected text, got 7"),
    (("hearts: 5", 'hearts: "lots"'), 12, "bestiary.eel.hearts", "expected a whole number of 1 or more, got 'lots'"),
    (("hearts: 5", "hearts: 0"), 12, "bestiary.eel.hearts", "got 0"),
    (("seats: [Wren, Bram]", "seats: Wren"), 3, "seats", "expected a list of delver names"),
    (("seats: [Wren, Bram]", "seats: [Wren, Wren]"), 3, "seats[1]", "'Wren' is listed twice"),
    (("    name: The Sunken Keep\n", ""), None, "name", "missing: the campaign's name"),
    (("    format: 1\n", ""), None, "format", "missing: the format version (add `format: 1`"),
    (("format: 1", "format: 2"), 1, "format", "newer delvebook (format 2)"),
    (("name: Bram", "name: Wren"), 7, "delvers[1].name", "two delvers are named 'Wren' (the other is delvers[0])"),
    (("class: rogue", "class: wizzard"), 6, "delvers[0].class", "unknown class 'wizzard' (known: rogue, fighter"),
    (("damage: d6", "damage: 2q6"), 13, "bestiary.eel.damage", "expected dice (like d6+1) or a whole number, got '2q6': "),
    (("bestiary:", "bestairy:"), 9, "bestairy", "unknown field; did you mean bestiary? allowed: format, name, seed"),
])
def test_wrong_shapes_are_named_with_their_line(tmp_path, change, line, field, says):
    folder = write_campaign_yaml(tmp_path / "c", GOOD_YAML.replace(*change))
    err = open_error(folder)
    assert (err.field, says in err.reason) == (field, True), str(err)
    if line is not None:
        assert err.line == line, str(err)
    assert err.path == folder / "campaign.yaml"


def test_a_duplicate_yaml_key_names_the_key_and_both_lines(tmp_path):
    folder = write_campaign_yaml(tmp_path / "c", GOOD_YAML + "    name: Again\n")
    err = open_error(folder)
    assert err.line == 16 and "duplicate key 'name' (first on line 2)" in err.reason


def test_house_rules_with_an_unknown_key_name_its_path_and_line(tmp_path):
    folder = write_campaign_yaml(tmp_path / "c", GOOD_YAML + "    house_rules:\n      core:\n        bogus: 3\n")
    err = open_error(folder)
    assert err.field == "house_rules.core.bogus" and err.line == 18
    assert "unknown key (known here: check" in err.reason


def test_a_house_rule_class_must_be_whole_and_the_error_names_its_path(tmp_path):
    text = GOOD_YAML.replace("class: fighter", "class: bard") + "    house_rules:\n      classes:\n        bard: {}\n"
    folder = write_campaign_yaml(tmp_path / "c", text)
    err = open_error(folder)
    assert (err.field, err.line, err.reason) == ("house_rules.classes.bard.name", 18, "missing (and 5 more problems: "
                                                 "`delvebook validate` lists them all)")


def test_validate_lists_every_problem_in_the_folder(tmp_path):
    text = GOOD_YAML.replace("name: The Sunken Keep", "name: 7").replace("hearts: 5", "hearts: lots")
    log = log_of(event(1)) + b"- {oops\n" + dump_event_line(event(3)) + dump_event_line(event(5)) + b'- {"seq'
    folder = write_campaign_yaml(tmp_path / "c", text + "    bestairy: {}\n", log)
    found = [(e.path.name, e.line, e.field) for e in validate(folder)]
    assert found == [
        ("campaign.yaml", 16, "bestairy"),
        ("campaign.yaml", 2, "name"),
        ("campaign.yaml", 12, "bestiary.eel.hearts"),
        ("log.yaml", 3, None),  # unreadable: the next line's seq is taken as it comes
        ("log.yaml", 5, "seq"),  # 5 after 3
        ("log.yaml", 6, None),  # the torn tail, reported
    ]
    assert validate(write_campaign_yaml(tmp_path / "good", GOOD_YAML, log_of(event(1)))) == []


def test_a_failed_rewrite_leaves_the_old_file_and_no_temporary_file(tmp_path, monkeypatch):
    from delvebook.store.folder import atomic_write

    folder = tmp_path / "c"
    CampaignStore.create(folder, CAMPAIGN).close()
    before = (folder / "campaign.yaml").read_bytes()

    def crash(*args):
        raise OSError("disk pulled out mid-write")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk pulled out"):
        atomic_write(folder / "campaign.yaml", b"format: 1\nname: never written\n")
    monkeypatch.undo()
    assert (folder / "campaign.yaml").read_bytes() == before
    assert sorted(p.name for p in folder.iterdir()) == [".delvebook.lock", ".gitignore", "campaign.yaml", "log.yaml"]
    atomic_write(folder / "campaign.yaml", b"format: 1\nname: Written\n")
    with CampaignStore.open(folder, read_only=True) as camp:
        assert camp.campaign == {"format": 1, "name": "Written"}


# ---------------------------------------------------------------- hostile files

PROOF = "delvebook-was-here"


def hostile_tag(proof: Path) -> str:
    return f'!!python/object/apply:os.system ["touch {proof}"]'


def test_a_python_object_tag_in_campaign_yaml_is_refused_and_runs_nothing(tmp_path):
    proof = tmp_path / PROOF
    folder = write_campaign_yaml(tmp_path / "c", f"format: 1\nname: Evil\nnotes: {hostile_tag(proof)}\n")
    err = open_error(folder)
    assert err.line == 3 and "Python object tag (!!python/object/apply:os.system) is refused" in err.reason
    assert not proof.exists()


def test_a_python_object_tag_in_a_log_line_is_refused_and_runs_nothing(tmp_path):
    proof = tmp_path / PROOF
    log = log_of(event(1)) + f"- {{seq: 2, kind: note, text: {hostile_tag(proof)}}}\n".encode() + \
        dump_event_line(event(3))
    folder = write_campaign_yaml(tmp_path / "c", "format: 1\nname: C\n", log)
    err = open_error(folder)
    assert err.path.name == "log.yaml" and err.line == 3 and "Python object tag" in err.reason
    assert not proof.exists()
    with pytest.raises(StoreError, match="Python object tag"):
        parse_event_line(f"- {{seq: 1, kind: x, t: {hostile_tag(proof)}}}", "log.yaml", 1)
    assert not proof.exists()


def test_an_unknown_tag_is_refused(tmp_path):
    folder = write_campaign_yaml(tmp_path / "c", "format: 1\nname: !secret C\n")
    assert "unknown YAML tag !secret" in open_error(folder).reason


BILLION_LAUGHS = """\
format: 1
name: Laughs
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


def test_a_billion_laughs_is_refused_quickly_in_little_memory(tmp_path):
    folder = write_campaign_yaml(tmp_path / "c", BILLION_LAUGHS)
    tracemalloc.start()
    try:
        err = open_error(folder)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "alias bomb" in err.reason and peak < 5 << 20
    line = "- {seq: 1, kind: x, " + ", ".join(
        f"k{i}: &a{i} [" + ",".join([f"*a{i - 1}" if i else '"lol"'] * 9) + "]" for i in range(9)) + "}\n"
    folder = write_campaign_yaml(tmp_path / "d", "format: 1\nname: C\n", log_of(event(1)) + line.encode())
    assert "alias bomb" in open_error(folder).reason  # not taken for a torn line: it is refused


def test_a_shared_stat_block_through_an_alias_is_fine(tmp_path):
    text = GOOD_YAML + "      rat: &rat {name: Rat, hearts: 2, attack_bonus: 0, damage: 1, tags: [beast]}\n" + \
        "      big_rat: {<<: *rat, name: Big rat, hearts: 4}\n"
    folder = write_campaign_yaml(tmp_path / "c", text)
    with CampaignStore.open(folder, read_only=True) as camp:
        assert camp.campaign["bestiary"]["big_rat"] == {"name": "Big rat", "hearts": 4, "attack_bonus": 0,
                                                        "damage": 1, "tags": ["beast"]}


def test_a_recursive_alias_is_refused(tmp_path):
    folder = write_campaign_yaml(tmp_path / "c", "format: 1\nname: C\nnotes: &n [*n]\n")
    assert "recursive alias" in open_error(folder).reason


def test_a_50_mb_line_of_garbage_is_refused_without_reading_it_whole(tmp_path):
    for end in (b"", b"\n"):
        folder = tmp_path / f"garbage{len(end)}"
        folder.mkdir()
        (folder / "campaign.yaml").write_text("format: 1\nname: C\n")
        with open(folder / "log.yaml", "wb") as f:
            f.write(st.LOG_HEADER.encode())
            block = os.urandom(1 << 20).replace(b"\n", b"?")
            for _ in range(50):
                f.write(block)
            f.write(end)
        tracemalloc.start()
        try:
            err = open_error(folder, read_only=False)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert err.line == 2 and "longer than 1 MiB" in err.reason
        assert peak < 8 << 20, f"{peak / 2**20:.1f} MiB"
        assert not list(folder.glob("log.torn-*"))  # refused, not copied to a side file


def test_50_mb_of_events_then_a_bad_last_line_names_that_line(tmp_path):
    folder = tmp_path / "big"
    folder.mkdir()
    (folder / "campaign.yaml").write_text("format: 1\nname: Big\n")
    pad = "x" * 1000
    n = 50_000
    with open(folder / "log.yaml", "wb") as f:
        f.write(st.LOG_HEADER.encode())
        f.write("".join(f'- {{"seq": {i}, "kind": "roll", "pad": "{pad}"}}\n' for i in range(1, n + 1)).encode())
        f.write(b'- {"seq": 1, "kind": "roll"}\n')  # complete, newline-ended, wrong: an error, not a torn tail
    assert (folder / "log.yaml").stat().st_size > 50_000_000
    err = open_error(folder, read_only=False)
    assert err.line == n + 2 and err.field == "seq" and f"expected {n + 1}" in err.reason


def test_an_oversized_campaign_yaml_is_refused_before_it_is_read(tmp_path, monkeypatch):
    folder = write_campaign_yaml(tmp_path / "c", "format: 1\nname: C\nnotes: ''\n")
    with open(folder / "campaign.yaml", "ab") as f:
        f.truncate(st.MAX_CAMPAIGN_BYTES + 1)  # sparse: no need to write 10 MiB
    read = []
    monkeypatch.setattr(Path, "read_bytes", lambda self: read.append(self) or b"")
    err = open_error(folder)
    assert "a campaign file is at most 10 MiB" in err.reason and read == []


def test_non_utf8_campaign_yaml_names_the_line(tmp_path):
    folder = write_campaign_yaml(tmp_path / "c", "")
    (folder / "campaign.yaml").write_bytes(b"format: 1\nname: \xff\xfe\n")
    err = open_error(folder)
    assert err.line == 2 and "not UTF-8" in err.reason


def test_invalid_yaml_names_the_line(tmp_path):
    folder = write_campaign_yaml(tmp_path / "c", "format: 1\nname: [unclosed\nnotes: x\n")
    err = open_error(folder)
    assert "not valid YAML" in err.reason and err.line in (2, 3, 4)


def test_store_errors_pickle_and_print_like_compiler_errors():
    import pickle

    err = StoreError("expected text, got 7", "campaigns/x/campaign.yaml", 12, "name")
    assert str(pickle.loads(pickle.dumps(err))) == "campaigns/x/campaign.yaml:12: name: expected text, got 7"
    assert isinstance(err, ValueError)
    assert issubclass(LockedError, StoreError)


# ---------------------------------------------------------------- following a log (the players' view)


def test_following_a_folder_reads_it_all_then_only_what_comes(tmp_path):
    folder = tmp_path / "c"
    with CampaignStore.create(folder, {"name": "C"}) as camp:
        camp.append(event(1))
        tail = st.follow(folder)
        assert [e["seq"] for e in tail.poll().events] == [1]
        camp.append(event(2))
        assert tail.poll() == ([event(2)], False)
        assert tail.poll() == ([], False)


def test_a_follower_waits_for_a_line_still_being_written(tmp_path):
    folder = tmp_path / "c"
    CampaignStore.create(folder, {"name": "C"}).close()
    tail = st.follow(folder)
    line = dump_event_line(event(1, text="x" * 50))
    with open(folder / "log.yaml", "ab") as f:
        f.write(line[:20])
        f.flush()
        assert tail.poll() == ([], False)
        f.write(line[20:] + dump_event_line(event(2))[:5])
        f.flush()
        assert [e["seq"] for e in tail.poll().events] == [1]


def test_a_follower_is_told_to_reload_when_the_log_shrinks_or_is_replaced(tmp_path):
    folder = write_campaign_yaml(tmp_path / "c", "format: 1\nname: C\n", log_of(event(1)) + b'- {"seq": 2, "ki')
    with CampaignStore.open(folder, read_only=True) as reader:
        tail = reader.follow()
    assert tail.poll() == ([], False)  # the torn line is not a whole event
    with CampaignStore.open(folder) as keeper:  # sets the torn line aside: the follower had not taken it
        keeper.append(event(2, text="whole"))
    assert tail.poll() == ([event(2, text="whole")], False)
    (folder / "log.yaml").write_bytes(log_of(event(1)))  # cut below what the follower read
    assert tail.poll().reload

    tail = st.follow(folder)
    tail.poll()
    replacement = tmp_path / "other.yaml"
    replacement.write_bytes(log_of(event(1, text="another campaign's"), event(2)))
    os.replace(replacement, folder / "log.yaml")
    assert tail.poll().reload

    tail = st.follow(folder)
    tail.poll()
    (folder / "log.yaml").write_bytes(log_of(event(1, text="rewritten in place, longer"), event(2)))
    assert tail.poll().reload


def test_a_follower_names_the_line_of_an_event_out_of_order(tmp_path):
    folder = write_campaign_yaml(tmp_path / "c", "format: 1\nname: C\n", log_of(event(1)))
    tail = st.follow(folder)
    tail.poll()
    with open(folder / "log.yaml", "ab") as f:
        f.write(dump_event_line(event(3)))
    with pytest.raises(StoreError, match=r"log.yaml:3: seq: expected 2"):
        tail.poll()


def test_a_read_only_store_follows_the_writer_from_where_it_read(tmp_path):
    folder = tmp_path / "c"
    with CampaignStore.create(folder, {"name": "C"}) as writer:
        writer.append(event(1))
        with CampaignStore.open(folder, read_only=True) as reader:
            tail = reader.follow()
        writer.append(event(2))
        assert tail.poll() == ([event(2)], False)
