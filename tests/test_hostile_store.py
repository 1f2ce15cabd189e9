"""The log guarded while it is open, the writer's limits, threads, names that cannot be written back, leftovers.

Issue 16, items 2, 3, 4, 9 (a read-only log), 11, 12 and 15: each test names its item.
"""
from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import delvebook as db
from delvebook.engine import Invalid
from delvebook import store as st
from delvebook.store import HELD_FILE, LOCK_FILE, CampaignStore, StoreError, dump_event_line, read_log



def played(folder: Path, n: int = 3) -> db.Campaign:
    camp = db.Campaign.open(folder)
    camp.start_session()
    for _ in range(n):
        camp.award_xp(5)
    return camp


def seqs(folder_or_file: Path) -> list[int]:
    return [e["seq"] for e in read_log(folder_or_file)[0]]


# ---------------------------------------------------------------- item 2: the log guarded while open


def test_item_2_a_log_deleted_under_the_writer_is_refused_kept_and_told(keep):
    camp = played(keep)
    (keep / "log.yaml").unlink()
    with pytest.raises(StoreError, match="log.yaml was deleted since this campaign was opened: nothing was recorded"):
        camp.award_xp(5)
    with pytest.raises(StoreError, match="deleted"):  # and every action after it
        camp.rest()
    assert len(camp.events) == 4
    camp.close()
    [side] = keep.glob("log.displaced-*.yaml")
    assert seqs(side) == [1, 2, 3, 4]  # every acknowledged event, in the very file it was written to
    with db.Campaign.open(keep) as again:
        told = " ".join(again.problems)
        assert "log.yaml was deleted while pid" in told and side.name in told and "to seq 4" in told
    with db.Campaign.open(keep) as third:  # told once: the writable open that said it took the note away
        assert not any("deleted while" in p for p in third.problems)


def test_item_2_a_git_checkout_of_the_log_under_the_writer_is_refused_and_nothing_is_lost(keep):
    committed = (keep / "log.yaml").read_bytes()
    camp = played(keep)
    tmp = keep / "log.yaml.checkout"
    tmp.write_bytes(committed)
    os.replace(tmp, keep / "log.yaml")  # what `git checkout -- log.yaml` does
    with pytest.raises(StoreError, match=r"replaced by another file \(a `git checkout -- log.yaml`"):
        camp.award_xp(5)
    assert (keep / "log.yaml").read_bytes() == committed  # nothing written to either file
    camp.close()
    [side] = keep.glob("log.displaced-*.yaml")
    assert seqs(side) == [1, 2, 3, 4]
    with db.Campaign.open(keep) as again:
        assert again.events == [] and any("replaced by another file" in p and side.name in p for p in again.problems)


def test_item_2_a_truncated_log_is_refused_before_seq_7_lands_after_seq_3(keep):
    camp = played(keep, n=5)
    lines = (keep / "log.yaml").read_bytes().split(b"\n")
    os.truncate(keep / "log.yaml", len(b"\n".join(lines[:4])) + 1)  # header + events 1..3
    with pytest.raises(StoreError, match="cut shorter"):
        camp.award_xp(5)
    camp.close()
    assert seqs(keep) == [1, 2, 3]  # still opens: nothing was glued after it
    [side] = keep.glob("log.displaced-*.yaml")
    assert seqs(side) == [1, 2, 3, 4, 5, 6]  # what the writer had recorded, from its memory


def test_item_2_lines_another_program_appended_are_not_written_after(keep):
    camp = played(keep)
    with open(keep / "log.yaml", "a") as f:
        f.write('- {"seq": 5, "kind": "rest", "changes": []}\n')
    with pytest.raises(StoreError, match="written to by something else"):
        camp.award_xp(5)
    camp.close()
    assert not list(keep.glob("log.displaced-*.yaml"))  # nothing of the writer's was lost: no copy needed


def test_item_2_a_writer_killed_after_the_log_was_replaced_loses_nothing(keep):
    """The writer holds a second name for the log it appends to: killed before it noticed the swap, its events
    are still on disk, and the next writable open keeps them in a side file."""
    code = (f"import os, delvebook as db\ncamp = db.Campaign.open({str(keep)!r})\ncamp.start_session()\n"
            f"camp.award_xp(5)\nos.replace({str(keep / 'new.yaml')!r}, {str(keep / 'log.yaml')!r})\nos._exit(9)\n")
    (keep / "new.yaml").write_text(st.LOG_HEADER)
    assert subprocess.run([sys.executable, "-c", code]).returncode == 9
    assert (keep / HELD_FILE).exists()
    with db.Campaign.open(keep, read_only=True) as ro:  # a reader says so and changes nothing
        assert any(HELD_FILE in p for p in ro.problems)
    with db.Campaign.open(keep) as camp:
        [side] = keep.glob("log.displaced-*.yaml")
        assert seqs(side) == [1, 2] and any(side.name in p for p in camp.problems)
        assert not (keep / HELD_FILE).exists() or camp._store._held is not None


def test_item_2_a_clean_close_leaves_no_hold_and_a_killed_writer_is_let_go(keep):
    camp = played(keep)
    assert (keep / HELD_FILE).exists()
    camp.close()
    assert not (keep / HELD_FILE).exists()
    code = f"import os, delvebook as db\ncamp = db.Campaign.open({str(keep)!r})\ncamp.rest()\nos._exit(9)\n"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 9
    with db.Campaign.open(keep) as again:  # the same file as the log: nothing displaced, nothing said
        assert not list(keep.glob("log.displaced-*")) and again.problems == []


# ---------------------------------------------------------------- item 3: the writer enforces the reader's limits


def test_item_3_an_event_over_the_readers_line_limit_is_refused_and_the_campaign_still_opens(keep):
    with db.Campaign.open(keep) as camp:  # refused by the commands' limits, before the writer's own
        with pytest.raises(Invalid, match="why: a text of 1,048,576 characters; at most 2,000"):
            camp.roll("d6", why="w" * (1 << 20))
        with pytest.raises(Invalid, match="amount: at most 1,000,000"):
            camp.award_xp(10 ** 20)
        with pytest.raises(Invalid, match="entries: more than 100,000 characters of text all together"):
            camp.prepare_table("Loot", "d1000", {i: "w" * 1000 for i in range(1, 1001)})
        camp.roll("d6", why="a short why")
    with db.Campaign.open(keep, read_only=True) as again:
        assert [e["kind"] for e in again.events] == ["roll"]


def _deep(n: int) -> list:
    value: list = []
    for _ in range(n):
        value = [value]
    return value


@pytest.mark.parametrize("event, says", [
    ({"nested": _deep(70)}, "nested more than 64"),
    ({"x": float("inf")}, "no NaN or infinity"),
    ({"x": "lone \udcff surrogate"}, "not UTF-8 text"),
    ({"changes": [[["delvers", "Wren", "hearts"], "lots"]]}, r"changes\[0\]: delvers.Wren.hearts: expected hearts"),
    ({"changes": [[["seats", -1], "x"]]}, "expected a list index"),
    ({"changes": [[["bogus"], 1]]}, "not a field of a state"),
])
def test_item_3_the_writer_refuses_what_the_reader_would_refuse(keep, event, says):
    with CampaignStore.open(keep) as store:
        before = (keep / "log.yaml").read_bytes()
        with pytest.raises(StoreError, match=says):
            store.append({"seq": 1, "kind": "note", **event})
        assert (keep / "log.yaml").read_bytes() == before


# ---------------------------------------------------------------- item 4: threads


def test_item_4_two_threads_sharing_a_campaign_never_write_the_same_seq(keep):
    camp = db.Campaign.open(keep)
    camp.start_session()
    errors: list = []

    def play(n: int) -> None:
        for i in range(40):
            try:
                camp.award_xp(1) if i % 5 else camp.check("Wren", "stealth", 10)
            except Exception as err:  # noqa: BLE001 - any error is a failure of the test
                errors.append(err)

    threads = [threading.Thread(target=play, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    camp.close()
    assert errors == []
    assert seqs(keep) == list(range(1, 162))
    with db.Campaign.open(keep, read_only=True) as again:
        assert again.state == camp.state


def test_item_4_a_decision_made_on_a_state_that_moved_on_is_refused(keep):
    with db.Campaign.open(keep) as camp:
        stale = camp.engine.decide("rest", {}, camp.rng, camp._next_seq())
        camp.award_xp(5)
        with pytest.raises(db.Refused, match="another action was recorded"):
            camp._record(stale)
        assert len(camp.events) == 1


# ---------------------------------------------------------------- item 9: a read-only log


def test_item_9_a_log_that_cannot_be_opened_for_writing_is_a_store_error(keep, monkeypatch):
    real_open = os.open

    def refuse(path, flags, *args):
        if str(path).endswith("log.yaml") and flags & os.O_RDWR:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(StoreError, match=r"log.yaml: cannot open the log for writing \(Permission denied\); open "
                                         r"read-only to read it"):
        db.Campaign.open(keep)
    monkeypatch.undo()
    with db.Campaign.open(keep, read_only=True):
        pass


# ---------------------------------------------------------------- item 11: names that cannot be written back


def test_item_11_a_path_with_bytes_that_are_not_utf8_is_refused_up_front(tmp_path):
    bad = os.fsdecode(os.fsencode(str(tmp_path)) + b"/bad\xff-name")
    out = subprocess.run([sys.executable, "-m", "delvebook", "new", bad], capture_output=True, text=True,
                         errors="replace")
    assert out.returncode == 1 and "not UTF-8" in out.stderr and "Traceback" not in out.stderr
    assert os.listdir(tmp_path) == []


def test_item_11_a_name_that_is_not_utf8_is_refused_and_nothing_is_made(tmp_path):
    with pytest.raises(StoreError, match="name: holds characters that are not UTF-8 text"):
        db.Campaign.create(tmp_path / "c", name="bad \udcff name")
    with db.Campaign.create(tmp_path / "d", name="Good") as camp:
        with pytest.raises(StoreError, match="not UTF-8 text"):
            camp.add_delver("Wren \udcff", "rogue")
    assert not (tmp_path / "c").exists()


def test_item_11_a_name_too_long_for_the_file_system_is_refused_up_front(tmp_path):
    out = subprocess.run([sys.executable, "-m", "delvebook", "new", str(tmp_path / ("n" * 300))],
                         capture_output=True, text=True)
    assert out.returncode == 1 and "at most 255 bytes a name" in out.stderr and "Traceback" not in out.stderr
    assert os.listdir(tmp_path) == []


# ---------------------------------------------------------------- item 12: nothing left of a crashed rewrite


def test_item_12_a_temporary_file_left_by_a_crashed_rewrite_is_removed_and_never_exported(keep):
    (keep / ".campaign.yaml.4242.tmp").write_text("format: 1\nname: half\n")
    with db.Campaign.open(keep) as camp:
        assert not (keep / ".campaign.yaml.4242.tmp").exists()
        assert any("temporary file left by a crash" in p for p in camp.problems)
        (keep / ".campaign.yaml.4343.tmp").write_text("appeared later")
        import io
        import zipfile
        assert all(".tmp" not in n for n in zipfile.ZipFile(io.BytesIO(camp.export_zip())).namelist())


def test_item_12_a_rewrite_of_campaign_yaml_is_whole_or_not_at_all(keep):
    with CampaignStore.open(keep) as store:
        campaign = dict(store.campaign, notes="rewritten")
        store.write_campaign(campaign)
        with pytest.raises(StoreError, match="delvers"):
            store.write_campaign(dict(campaign, delvers="nobody"))
    assert sorted(p.name for p in keep.iterdir() if p.name.startswith(".c")) == []
    with CampaignStore.open(keep, read_only=True) as again:
        assert again.campaign["notes"] == "rewritten"


# ---------------------------------------------------------------- item 15: a tear or a hand, a BOM, a refused new


def test_item_15_a_hand_typo_in_the_last_line_is_an_error_a_torn_write_is_set_aside(keep):
    with db.Campaign.open(keep) as camp:
        camp.start_session()
        camp.award_xp(5)
    good = (keep / "log.yaml").read_bytes()
    lines = good.split(b"\n")
    lines[-2] = lines[-2].replace(b'"award_xp"', b'"award_xp",,')  # a typo, saved with its newline
    (keep / "log.yaml").write_bytes(b"\n".join(lines))
    with pytest.raises(StoreError) as info:
        db.Campaign.open(keep)
    assert info.value.line == 3 and "edited by hand" in info.value.reason
    assert not list(keep.glob("log.torn-*"))
    (keep / "log.yaml").write_bytes(good[:-30])  # a write cut short by a crash: no newline
    with db.Campaign.open(keep) as camp:
        assert any("torn last line" in p and "set aside" in p for p in camp.problems)
        assert len(camp.events) == 1 and list(keep.glob("log.torn-*"))


def test_item_15_a_complete_last_line_without_its_newline_that_is_wrong_is_not_a_tear(keep):
    (keep / "log.yaml").write_bytes(st.LOG_HEADER.encode() + b'- {"seq": 2, "kind": "rest", "changes": []}')
    with pytest.raises(StoreError, match="its end is there, so a crash did not cut it"):
        db.Campaign.open(keep)


def test_item_15_a_byte_order_mark_is_read_past(keep):
    with db.Campaign.open(keep) as camp:
        camp.start_session()
    for name in ("log.yaml", "campaign.yaml"):
        (keep / name).write_bytes(b"\xef\xbb\xbf" + (keep / name).read_bytes())
    assert st.validate(keep) == []
    with db.Campaign.open(keep) as camp:
        assert len(camp.events) == 1
        camp.award_xp(5)
    assert seqs(keep) == [1, 2]


def test_item_15_a_refused_new_leaves_nothing_behind(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "mine.txt").write_text("x")
    out = subprocess.run([sys.executable, "-m", "delvebook", "new", str(tmp_path / "full")], capture_output=True,
                         text=True)
    assert out.returncode == 1 and "already holds files" in out.stderr
    assert os.listdir(tmp_path / "full") == ["mine.txt"]
    with pytest.raises(StoreError):
        CampaignStore.create(tmp_path / "deep" / "er", {"name": "X", "delvers": "nobody"})
    assert not (tmp_path / "deep").exists()


def test_item_15_a_create_that_fails_midway_removes_what_it_made(tmp_path, monkeypatch):
    from delvebook.store import folder
    real = folder.atomic_write

    def fail_on_log(file, data):
        if file.name == "log.yaml":
            raise OSError(28, "No space left on device")
        return real(file, data)

    monkeypatch.setattr(folder, "atomic_write", fail_on_log)
    with pytest.raises(StoreError, match="No space left on device"):
        CampaignStore.create(tmp_path / "new", {"name": "X"})
    assert not (tmp_path / "new").exists()
