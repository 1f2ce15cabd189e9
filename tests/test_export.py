"""Open data: every frame leaves as Parquet or CSV with its dtypes, nested fields as JSON, and comes back equal."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import delvebook as db
from conftest import CAMPAIGNS
from delvebook import export
from delvebook.analysis import FRAME_NAMES


@pytest.fixture(scope="module")
def frames(long_delve):
    return db.analysis.frames(long_delve)


def _assert_same_frames(back: dict, frames: dict) -> None:
    assert sorted(back) == sorted(frames) == sorted(FRAME_NAMES)
    for name, frame in frames.items():
        assert dict(back[name].dtypes) == dict(frame.dtypes), name
        pd.testing.assert_frame_equal(back[name], frame, check_exact=True, obj=name)


def test_every_frame_round_trips_through_parquet_with_its_dtypes(frames, tmp_path):
    written = export.write_parquet(frames, tmp_path)
    assert sorted(p.name for p in written) == sorted(f"{n}.parquet" for n in FRAME_NAMES)
    _assert_same_frames(export.read_parquet(tmp_path), frames)


def test_parquet_files_carry_native_types_and_nested_fields_as_json_text(frames, tmp_path):
    export.write_parquet(frames, tmp_path)
    events = pq.read_schema(tmp_path / "events.parquet")
    assert pa.types.is_dictionary(events.field("kind").type)  # a category
    assert events.field("ts").type == pa.timestamp("ns", tz="UTC")
    assert pa.types.is_integer(events.field("session").type)  # Int64, nulls and all
    assert pa.types.is_string(events.field("rolls").type) or pa.types.is_large_string(events.field("rolls").type)
    table = pq.read_table(tmp_path / "events.parquet", columns=["kind", "rolls"]).to_pylist()
    check = next(r for r in table if r["kind"] == "check")
    assert json.loads(check["rolls"])["check"]["expr"].startswith("d20")
    fairness = pq.read_table(tmp_path / "fairness.parquet").column("counts").to_pylist()
    assert all(isinstance(json.loads(c), list) for c in fairness)


def test_every_frame_round_trips_through_csv_with_its_schema(frames, tmp_path):
    written = export.write_csv(frames, tmp_path)
    assert sorted(p.name for p in written) == sorted([f"{n}.csv" for n in FRAME_NAMES] + ["schema.json"])
    schema = json.loads((tmp_path / "schema.json").read_text())
    assert schema["frames"]["events"]["dtypes"]["ts"] == "datetime64[ns, UTC]"
    assert "rolls" in schema["frames"]["events"]["json_columns"]
    _assert_same_frames(export.read_csv(tmp_path), frames)


def test_a_new_campaign_and_one_just_begun_round_trip_too(tmp_path):
    """Few or no events: empty categories and all-missing columns keep their dtypes."""
    keep = tmp_path / "keep"
    shutil.copytree(CAMPAIGNS / "the-sunken-keep", keep, ignore=shutil.ignore_patterns(".delvebook.lock"))
    empty = db.Campaign.create(tmp_path / "empty", name="Empty", seed=1)
    empty.close()
    for folder in (keep, tmp_path / "empty"):
        if folder == keep:
            with db.Campaign.open(keep) as camp:
                camp.start_session()
                camp.check("Wren", "stealth", 12)
                camp.spend_luck("Ana", +1)
        frames = db.analysis.frames(folder)
        _assert_same_frames(export.read_parquet(export.write_parquet(frames, tmp_path / f"{folder.name}-pq")[0].parent),
                            frames)
        export.write_csv(frames, tmp_path / f"{folder.name}-csv")
        _assert_same_frames(export.read_csv(tmp_path / f"{folder.name}-csv"), frames)


def test_export_command_writes_every_frame(tmp_path):
    pq_dir, csv_dir = tmp_path / "pq", tmp_path / "csv"
    run = subprocess.run([sys.executable, "-m", "delvebook", "export", str(CAMPAIGNS / "the-sunken-keep"),
                          "--parquet", str(pq_dir), "--csv", str(csv_dir)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert sorted(p.stem for p in pq_dir.glob("*.parquet")) == sorted(FRAME_NAMES)
    assert sorted(p.stem for p in csv_dir.glob("*.csv")) == sorted(FRAME_NAMES)
    assert (csv_dir / "schema.json").is_file()
    nowhere = subprocess.run([sys.executable, "-m", "delvebook", "export", str(CAMPAIGNS / "the-sunken-keep")],
                             capture_output=True, text=True, timeout=60)
    assert nowhere.returncode == 2 and "--parquet" in nowhere.stderr
    missing = subprocess.run([sys.executable, "-m", "delvebook", "export", str(tmp_path / "nope"), "--csv",
                              str(tmp_path / "x")], capture_output=True, text=True, timeout=60)
    assert missing.returncode == 1 and "nope" in missing.stderr and "Traceback" not in missing.stderr
