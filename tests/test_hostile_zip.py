"""Zips in and out: opened read-only unless unpacked where the keeper says, within limits; export is an allowlist.

Issue 16, items 5, 6 and 7.
"""
from __future__ import annotations

import io
import os
import stat
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

import delvebook as db
from delvebook.store import archive
from delvebook.store import LOG_HEADER, StoreError

KEEP = Path(__file__).resolve().parent.parent / "campaigns" / "the-sunken-keep"


@pytest.fixture
def exported(keep, tmp_path):
    with db.Campaign.open(keep) as camp:
        camp.start_session()
        camp.award_xp(10)
        data = camp.export_zip()
    z = tmp_path / "keep.zip"
    z.write_bytes(data)
    return z


def _temp_folders() -> set:
    return set(Path(tempfile.gettempdir()).glob("delvebook-zip-*"))


# ---------------------------------------------------------------- item 5: read-only unless unpacked, and cleaned


def test_item_5_a_zip_opens_read_only_and_its_temporary_folder_goes_on_close(exported):
    before = _temp_folders()
    camp = db.Campaign.open(exported)
    assert camp.read_only and len(camp.events) == 2
    assert any("read-only, from a temporary copy" in p and "unpack_to" in p for p in camp.problems)
    with pytest.raises(db.Refused, match="read-only"):
        camp.rest()
    assert len(_temp_folders() - before) == 1
    camp.close()
    assert _temp_folders() - before == set()


def test_item_5_a_zip_left_open_is_cleaned_at_exit(exported):
    code = f"import delvebook as db, sys\ncamp = db.Campaign.open({str(exported)!r})\nprint(camp.path)\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert not Path(out.stdout.strip()).exists()


def test_item_5_asking_to_write_to_a_zip_says_how_to_play_from_it(exported):
    with pytest.raises(StoreError, match=r"a zip opens read-only.*unpack_to="):
        db.Campaign.open(exported, read_only=False)


def test_item_5_playing_from_a_zip_is_recorded_in_the_folder_the_keeper_names(exported, tmp_path):
    play = tmp_path / "play" / "keep"
    with db.Campaign.open(exported, unpack_to=play) as camp:
        assert not camp.read_only and camp.path == play
        assert any(f"{play}: unpacked from" in p and "play is recorded here" in p for p in camp.problems)
        camp.rest()
    with db.Campaign.open(exported, unpack_to=play) as again:  # the same cell run again: opened, not unpacked over
        assert len(again.events) == 3 and any("opened as it is" in p for p in again.problems)
    with db.Campaign.open(play) as there:
        assert [e["kind"] for e in there.events][-1] == "rest"
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    with pytest.raises(StoreError, match="already holds files"):
        db.Campaign.open(exported, unpack_to=tmp_path / "busy")


# ---------------------------------------------------------------- item 6: limits on what a zip unpacks to


def _zip(path: Path, entries: dict, compression=zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression) as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return path


def _campaign_files() -> dict:
    return {"k/campaign.yaml": (KEEP / "campaign.yaml").read_bytes(), "k/log.yaml": LOG_HEADER}


@pytest.mark.parametrize("extra, says", [
    ({"k/log.torn-1.yaml": b"\0" * (64 << 20)}, "more than 100 times its compressed size"),
    ({f"k/n/{i}": b"" for i in range(1200)}, "1,202 entries; a campaign zip holds at most 1,000"),
])
def test_item_6_a_zip_bomb_is_refused_with_a_clear_error_and_nothing_is_left(tmp_path, extra, says):
    bomb = _zip(tmp_path / "bomb.zip", {**_campaign_files(), **extra})
    before = _temp_folders()
    with pytest.raises(StoreError, match=says):
        db.Campaign.open(bomb)
    assert _temp_folders() - before == set()
    with pytest.raises(StoreError, match=says):
        db.Campaign.open(bomb, unpack_to=tmp_path / "play")
    assert not (tmp_path / "play").exists()


def test_item_6_a_zip_over_the_total_size_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(archive, "ZIP_MAX_BYTES", 1 << 20)
    big = _zip(tmp_path / "big.zip", {**_campaign_files(), "k/log.torn-1.yaml": os.urandom(2 << 20)})
    with pytest.raises(StoreError, match="unpacks to more than 1 MiB"):
        db.Campaign.open(big)


def test_item_6_a_full_disk_while_unpacking_is_a_store_error(exported, tmp_path, monkeypatch):
    def full(fd, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(archive, "write_all", full)
    with pytest.raises(StoreError, match=r"No space left on device\); nothing was kept"):
        db.Campaign.open(exported, unpack_to=tmp_path / "play")
    assert not (tmp_path / "play").exists()


def test_item_6_only_a_campaigns_own_files_are_unpacked_and_paths_cannot_escape(tmp_path):
    z = _zip(tmp_path / "odd.zip", {**_campaign_files(), "k/../../escape.txt": b"x", "k/.git/config": b"token",
                                    "k/notebook.ipynb": b"{}", "/etc/passwd": b"root"})
    with db.Campaign.open(z, unpack_to=tmp_path / "play") as camp:
        assert sorted(n for n in os.listdir(camp.path) if not n.startswith(".")) == ["campaign.yaml", "log.yaml"]
    assert not (tmp_path / "escape.txt").exists()
    link = tmp_path / "link.zip"
    with zipfile.ZipFile(link, "w") as zf:
        for name, data in _campaign_files().items():
            zf.writestr(name, data)
        info = zipfile.ZipInfo("k/log.torn-1.yaml")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(info, "/etc/passwd")
    with pytest.raises(StoreError, match="not a plain file in the zip"):
        db.Campaign.open(link)


# ---------------------------------------------------------------- item 7: export is an allowlist


def test_item_7_export_holds_only_the_campaigns_own_regular_files(keep, tmp_path):
    (keep / ".git").mkdir()
    (keep / ".git" / "config").write_text('[remote "origin"]\n  url = https://me:ghp_SECRET@github.com/me/keep\n')
    (keep / ".ipynb_checkpoints").mkdir()
    (keep / ".ipynb_checkpoints" / "x.ipynb").write_text("{}")
    (tmp_path / "secret.txt").write_text("SECRET")
    os.symlink(tmp_path / "secret.txt", keep / "notes.txt")
    os.symlink(tmp_path / "secret.txt", keep / "log.torn-20260101T000000.000000Z.yaml")
    os.symlink("/etc", keep / "etc")
    (keep / "log.displaced-20260101T000000.000000Z.yaml").write_text(LOG_HEADER)
    with db.Campaign.open(keep) as camp:
        camp.rest()
        data = camp.export_zip()
    names = sorted(zipfile.ZipFile(io.BytesIO(data)).namelist())
    assert names == ["keep/campaign.yaml", "keep/log.displaced-20260101T000000.000000Z.yaml", "keep/log.yaml"]
    assert b"SECRET" not in data


@pytest.mark.parametrize("target", ["/dev/zero", "/dev/urandom"])
def test_item_7_a_campaign_yaml_symlinked_to_a_device_is_refused_without_reading_it(keep, target):
    camp = db.Campaign.open(keep)
    os.replace(keep / "campaign.yaml", keep / "campaign.bak")
    os.symlink(target, keep / "campaign.yaml")
    with pytest.raises(StoreError, match="symlink"):
        camp.export_zip()
    camp.close()
    with pytest.raises(StoreError, match="not a regular file"):
        db.Campaign.open(keep)  # opening does not read it either


def test_item_7_export_is_bounded_in_size(keep, monkeypatch):
    monkeypatch.setattr(archive, "EXPORT_MAX_BYTES", 1000)
    with db.Campaign.open(keep) as camp:
        with pytest.raises(StoreError, match="more than 0 MiB|nothing was exported"):
            camp.export_zip()
