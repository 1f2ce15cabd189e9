"""A campaign's snapshot (``delvebook.store.snapshot``): kept outside the campaign folder, used only when it matches the
log exactly, and then the open folds only the lines after it. Whatever the snapshot holds, or whatever was done to it
or to the log, the campaign an open gives is the one a full replay of the log gives: its state, its undo and redo
stacks with what each action would take back, which actions stand. Each test checks that against a full replay, and
that nothing was written into the campaign folder."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import delvebook as db
import delvebook.core
from delvebook.engine import Refused
from delvebook.core import cache
from delvebook.store import CampaignStore, StoreError, snapshot, validate

from conftest import CAMPAIGNS


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch) -> Path:
    """Each test keeps its snapshots in a folder of its own, and snapshots are written after every event."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("DELVEBOOK_CACHE", str(cache))
    monkeypatch.setattr(snapshot, "WRITE_AFTER", 1)
    return cache


def _copy(name: str, tmp_path: Path) -> Path:
    dest = tmp_path / name
    shutil.copytree(CAMPAIGNS / name, dest, ignore=shutil.ignore_patterns(".delvebook*"))
    return dest


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file() and not p.name.startswith(".")}


def _full(folder: Path) -> db.Campaign:
    """The campaign as the whole log folds it, with no snapshot read or written."""
    return db.Campaign.open(CampaignStore.open(folder, read_only=True, snapshots=False))


def _opened(folder: Path, **kw) -> db.Campaign:
    return db.Campaign.open(folder, **kw)


def _fold(camp: db.Campaign) -> dict:
    """Everything the fold keeps: the state, the stacks (with what each action in force would take back and which
    action each replaced), which actions stand, the latest action and the latest undone."""
    h = camp.engine.history

    def chain(entry):
        out = []
        while entry is not None:
            out.append(entry.seq)
            entry = entry.replaced
        return out

    return {"state": h.state, "done": [chain(e) for e in h.done], "undone": [chain(e) for e in h.undone],
            "inverses": [e.inverse for e in h.done], "standing": h.standing.as_sets(),
            "latest": camp.latest_action, "latest_undone": camp.latest_undone, "next_seq": camp._next_seq()}


def _same_as_full_replay(folder: Path, camp: db.Campaign) -> None:
    with _full(folder) as full:
        assert _fold(camp) == _fold(full)
        assert camp.events == full.events


def _play(camp: db.Campaign, rng: random.Random, steps: int) -> None:
    """Random play: checks, XP, rests and sessions, fights with attacks, luck dice, typed dice, undo and redo (a
    refusal by the rules is part of play)."""
    names = [d.name for d in camp.delvers]
    for _ in range(steps):
        roll = rng.random()
        try:
            if roll < 0.18:
                camp.undo()
            elif roll < 0.26:
                camp.redo()
            elif roll < 0.34:
                camp.spend_luck(camp.delver(rng.choice(names)).player, rng.choice((1, -1)))
            elif roll < 0.40:
                camp.amend(check=[rng.randint(1, 20)])
            elif roll < 0.55:
                camp.check(rng.choice(names), None, rng.randint(5, 18))
            elif roll < 0.62:
                camp.award_xp(rng.randint(1, 40), reason="a deed")
            elif roll < 0.66:
                camp.rest()
            elif roll < 0.70:
                camp.start_session()
            elif camp.fight is None:
                camp.encounter(["goblin"] * rng.randint(1, 2))
            else:
                fight = camp.fight
                foes = [f.name for f in fight.foes if f.hearts > 0]
                if not foes or rng.random() < 0.1:
                    fight.end()
                else:
                    fight.attack(rng.choice(names), rng.choice(foes), keeper_override="random play")
        except (Refused, KeyError, ValueError):
            pass


# ---------------------------------------------------------------- the same campaign as a full replay


@pytest.mark.parametrize("name", ["the-long-delve", "the-sunken-keep"])
def test_a_reopen_from_a_snapshot_is_the_campaign_a_full_replay_gives(name, tmp_path):
    folder = _copy(name, tmp_path)
    if name == "the-sunken-keep":  # the prepared campaign's log is empty: an evening begins
        with _opened(folder) as camp:
            camp.start_session()
            camp.check("Wren", "stealth", 12)
            camp.spend_luck("Ana", 1)
        snapshot.snapshot_file(folder).unlink()
    before = _files(folder)
    with _opened(folder, read_only=True) as first:
        assert first._store.restored is None
    assert snapshot.snapshot_file(folder).is_file()
    with _opened(folder, read_only=True) as again:
        assert again._store.restored is not None
        assert again._store._prefix is not None  # the events were not read at the open
        _same_as_full_replay(folder, again)
    assert _files(folder) == before


def test_a_snapshot_one_process_wrote_is_used_by_the_next(tmp_path, played):
    """What a keeper's next kernel does: the identity of a snapshot (this delvebook, its declarations, the rules, the
    campaign file) is the same in every process."""
    folder = tmp_path / "keep"
    shutil.copytree(played, folder)
    script = ("import sys, delvebook as db; c = db.Campaign.open(sys.argv[1], read_only=True); "
              "print(c._store.restored is not None, len(c.state['delvers']))")
    runs = [subprocess.run([sys.executable, "-c", script, str(folder)], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout.split() for seed in (1, 2)]
    assert runs[0][0] == "False" and runs[1][0] == "True" and runs[0][1] == runs[1][1]


@pytest.mark.parametrize("seed", range(10))
def test_random_play_reopened_from_snapshots_is_the_full_replay_at_every_reopen(seed, tmp_path, monkeypatch):
    """Random play, closed (a snapshot written) or dropped (a kernel that died: the next open folds the tail after
    the older snapshot) and reopened, again and again; each snapshot keeps the inverses of 3 actions only, so undo
    reaches past them both in play and in the tails the opens fold."""
    monkeypatch.setattr("delvebook.core.events.KEPT_INVERSES", 3)
    folder = tmp_path / "c"
    rng = random.Random(seed)
    camp = db.Campaign.create(folder, "Random", seed=seed, delvers=[
        {"name": "Wren", "class": "rogue", "player": "Ana"}, {"name": "Brakka", "class": "fighter", "player": "Bo"}])
    try:
        for _ in range(6):
            _play(camp, rng, rng.randint(5, 40))
            if rng.random() < 0.5:
                camp.close()
            else:
                camp._store.close()  # no snapshot written
            had = snapshot.snapshot_file(folder).exists()
            camp = _opened(folder)
            assert (camp._store.restored is not None) == had
            _same_as_full_replay(folder, camp)
            for _ in range(rng.randint(0, 12)):  # undo further back than the snapshot kept
                try:
                    camp.undo()
                except Refused:
                    break
        _same_as_full_replay(folder, camp)
    finally:
        camp.close()


def test_undoing_past_the_inverses_a_snapshot_keeps_works_them_out_from_the_log(tmp_path, monkeypatch, played):
    monkeypatch.setattr("delvebook.core.events.KEPT_INVERSES", 2)
    folder = _with_snapshot(tmp_path, played)
    with _opened(folder) as camp:
        assert camp._store.restored is not None
        for _ in range(6):
            camp.undo()
        camp.redo()
        _same_as_full_replay(folder, camp)


# ---------------------------------------------------------------- a snapshot that does not match is not used


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """The prepared campaign after an evening of random play (a few hundred events), to copy."""
    folder = tmp_path_factory.mktemp("played") / "the-sunken-keep"
    shutil.copytree(CAMPAIGNS / "the-sunken-keep", folder, ignore=shutil.ignore_patterns(".delvebook*"))
    with db.Campaign.open(CampaignStore.open(folder, snapshots=False)) as camp:
        camp.start_session()
        _play(camp, random.Random(5), 300)
    return folder


def _with_snapshot(tmp_path: Path, played: Path) -> Path:
    """A copy of ``played`` with its snapshot (written by a first open)."""
    folder = tmp_path / "keep"
    shutil.copytree(played, folder)
    _opened(folder, read_only=True).close()
    assert snapshot.snapshot_file(folder).is_file()
    return folder


def _reopen_is_full_replay(folder: Path, *, restored: bool = False) -> None:
    before = _files(folder)
    with _opened(folder, read_only=True) as camp:
        assert (camp._store.restored is not None) is restored
        _same_as_full_replay(folder, camp)
    assert _files(folder) == before


def test_a_snapshot_from_before_an_edited_log_line_is_not_used(tmp_path, played):
    folder = _with_snapshot(tmp_path, played)
    log = folder / "log.yaml"
    lines = log.read_bytes().split(b"\n")
    i = next(i for i in range(len(lines) // 2, len(lines)) if b'"ts": "' in lines[i])  # a line within the snapshot
    start = lines[i].index(b'"ts": "') + 7
    lines[i] = lines[i][:start] + b"1999" + lines[i][start + 4:]  # its seal no longer holds: the rules judge it
    log.write_bytes(b"\n".join(lines))
    _reopen_is_full_replay(folder)
    with _opened(folder, read_only=True) as camp:
        assert camp.events[i - 1]["ts"].startswith("1999")


def test_a_snapshot_longer_than_a_truncated_log_is_not_used(tmp_path, played):
    folder = _with_snapshot(tmp_path, played)
    log = folder / "log.yaml"
    data = log.read_bytes()
    log.write_bytes(data[:data.rindex(b"\n", 0, len(data) // 2) + 1])
    _reopen_is_full_replay(folder)


def test_a_log_longer_than_its_snapshot_replays_only_its_tail(tmp_path, played):
    folder = tmp_path / "keep"
    shutil.copytree(played, folder)
    log = folder / "log.yaml"
    data = log.read_bytes()
    log.write_bytes(data[:data.rindex(b"\n", 0, len(data) // 2) + 1])
    _opened(folder, read_only=True).close()
    log.write_bytes(data)  # the rest of the log, as a keeper's evening appends it
    with _opened(folder, read_only=True) as camp:
        assert camp._store.restored is not None
        assert 0 < len(camp._store.resumed()[1]) < camp._store.count
        _same_as_full_replay(folder, camp)


def test_a_snapshot_of_another_delvebook_version_is_not_used(tmp_path, monkeypatch, played):
    folder = _with_snapshot(tmp_path, played)
    monkeypatch.setattr(delvebook.core, "__version__", "99.0.0")
    cache.code_identity.cache_clear()
    try:
        _reopen_is_full_replay(folder)
    finally:
        monkeypatch.undo()
        cache.code_identity.cache_clear()


def test_a_snapshot_made_with_another_rules_file_is_not_used(tmp_path, monkeypatch, played):
    folder = _with_snapshot(tmp_path, played)
    monkeypatch.setattr(snapshot, "rules_digest", lambda: "0" * 64)
    _reopen_is_full_replay(folder)


def test_a_snapshot_of_another_campaign_file_is_not_used(tmp_path, played):
    folder = _with_snapshot(tmp_path, played)
    yaml_file = folder / "campaign.yaml"
    yaml_file.write_bytes(yaml_file.read_bytes() + b"# a keeper's note\n")
    _reopen_is_full_replay(folder)


@pytest.mark.parametrize("damage", ["cut short", "a byte changed", "empty", "not json", "zeros"])
def test_a_corrupt_snapshot_file_is_not_used(damage, tmp_path, played):
    folder = _with_snapshot(tmp_path, played)
    file = snapshot.snapshot_file(folder)
    data = file.read_bytes()
    file.write_bytes({"cut short": data[:len(data) // 2], "a byte changed": data[:-40] + b"7" + data[-39:],
                      "empty": b"", "not json": data[:data.index(b"\n") + 1] + b"{not json",
                      "zeros": bytes(len(data))}[damage])
    _reopen_is_full_replay(folder)


def _signed(body: bytes) -> bytes:
    """``body`` signed with this user's key, as delvebook signs what it keeps."""
    key = (cache.cache_folder() / ".key").read_bytes()
    return snapshot._HEAD + b" " + cache._signature(key, snapshot._HEAD, body) + b"\n" + body


def test_a_hostile_snapshot_file_is_not_used(tmp_path, played):
    """A file made to look like a snapshot, without this user's key: another state, a huge nesting, NaN."""
    folder = _with_snapshot(tmp_path, played)
    file = snapshot.snapshot_file(folder)
    head, body = file.read_bytes().split(b"\n", 1)
    doc = json.loads(body)
    doc["state"]["delvers"] = {}
    for forged in (json.dumps(doc).encode(), b"[" * 100_000 + b"]" * 100_000, b'{"count": NaN}'):
        file.write_bytes(head + b"\n" + forged)  # its signature is the old body's
        _reopen_is_full_replay(folder)


@pytest.mark.parametrize("defect", ["an action twice", "replaced by an earlier one", "not a seq", "no state",
                                    "an inverse of an action not in force", "nested deep"])
def test_a_signed_snapshot_that_does_not_hold_together_is_not_used(defect, tmp_path, played):
    """Even signed with this user's key (a defect of the writer, not the reader's trust), a snapshot whose History
    does not hold together is not used."""
    folder = _with_snapshot(tmp_path, played)
    file = snapshot.snapshot_file(folder)
    doc = json.loads(file.read_bytes().split(b"\n", 1)[1])
    history = doc["history"]
    if defect == "an action twice":
        history["undone"].append(history["done"][0])
    elif defect == "replaced by an earlier one":
        history["replaced"][str(history["done"][0])] = history["done"][-1]
    elif defect == "not a seq":
        history["done"][-1] = "seven"
    elif defect == "no state":
        doc["state"] = None
    elif defect == "an inverse of an action not in force":
        history["inverses"]["999999"] = [[1]]
    else:
        doc["state"]["clock"] = json.loads("[" * 500 + "]" * 500)
    file.write_bytes(_signed(json.dumps(doc).encode()))
    _reopen_is_full_replay(folder)


@pytest.mark.parametrize("thing", ["symlink", "folder"])
def test_a_snapshot_path_that_is_a_symlink_or_a_folder_is_not_used(thing, tmp_path, played):
    folder = _with_snapshot(tmp_path, played)
    file = snapshot.snapshot_file(folder)
    real = tmp_path / "elsewhere.json"
    shutil.move(file, real)
    if thing == "symlink":
        file.symlink_to(real)
    else:
        file.mkdir()
        (file / "inside.json").write_bytes(real.read_bytes())
    _reopen_is_full_replay(folder)
    if thing == "symlink":  # a new snapshot replaces the link itself: what it pointed at is left as it was
        assert not file.is_symlink() and real.read_bytes()
    else:
        assert file.is_dir()


# ---------------------------------------------------------------- a snapshot never travels


def test_a_snapshot_is_never_written_in_the_campaign_folder_nor_in_its_zip(tmp_path, monkeypatch, played):
    folder = _with_snapshot(tmp_path, played)
    with _opened(folder) as camp:
        camp.award_xp(10)
        names = {n.split("/", 1)[-1] for n in __import__("zipfile").ZipFile(
            __import__("io").BytesIO(camp.export_zip())).namelist()}
    assert names <= {"", "campaign.yaml", "log.yaml", ".gitignore"}
    monkeypatch.setenv("DELVEBOOK_CACHE", str(folder / "cache"))  # a cache inside the campaign: not used for it
    with _opened(folder) as camp:
        camp.award_xp(10)
    assert not (folder / "cache" / "snapshots").exists() or not any((folder / "cache" / "snapshots").glob("*.json"))


def test_validate_reads_every_line_whatever_the_snapshot(tmp_path, played):
    folder = _with_snapshot(tmp_path, played)
    log = folder / "log.yaml"
    lines = log.read_bytes().split(b"\n")
    i = next(i for i, line in enumerate(lines) if line.startswith(b'- {"seq": 5,'))
    lines[i] = lines[i].replace(b'"seq": 5,', b'"seq": 55,', 1)
    log.write_bytes(b"\n".join(lines))
    problems = validate(folder)
    assert problems and problems[0].field == "seq"
    with pytest.raises(StoreError) as opened:
        _opened(folder, read_only=True)
    assert str(opened.value) == str(problems[0])


def test_no_snapshot_for_a_log_of_an_older_format(tmp_path):
    """An event of an older format is upgraded with the state before it as the log is folded: its part of the log
    could not be read again without the fold, so such a log keeps no snapshot and is always folded whole."""
    data = Path(__file__).parent / "data" / "v1-log"
    folder = tmp_path / "old"
    shutil.copytree(data, folder)
    _opened(folder, read_only=True).close()
    assert not snapshot.snapshot_file(folder).exists()
    _reopen_is_full_replay(folder)


def test_a_campaign_open_elsewhere_by_two_processes_keeps_one_snapshot_per_folder(tmp_path):
    a, b = _copy("the-sunken-keep", tmp_path / "a"), _copy("the-sunken-keep", tmp_path / "b")
    assert snapshot.snapshot_file(a) != snapshot.snapshot_file(b)
    assert snapshot.snapshot_file(a) == snapshot.snapshot_file(tmp_path / "a" / ".." / "a" / "the-sunken-keep")
    assert os.path.commonpath([snapshot.snapshot_file(a), a]) != str(a)
