"""Open data: every frame leaves as Parquet or CSV with its dtypes, nested fields as JSON, and comes back equal."""
from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from fractions import Fraction

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

import delvebook as db
from conftest import CAMPAIGNS
from delvebook.share import export
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


def _text(t) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def test_parquet_files_carry_native_types_lists_as_lists_and_chances_as_floats(frames, tmp_path):
    export.write_parquet(frames, tmp_path)
    events = pq.read_schema(tmp_path / "events.parquet")
    assert pa.types.is_dictionary(events.field("kind").type)  # a category
    assert events.field("ts").type == pa.timestamp("ns", tz="UTC")
    assert pa.types.is_integer(events.field("session").type)  # Int64, nulls and all
    assert events.field("results").type == pa.list_(pa.string())
    assert events.field("attack_totals").type == pa.list_(pa.int64())
    assert events.field("chance").type == pa.float64() and _text(events.field("chance_exact").type)
    assert events.field("chance_win").type == pa.float64()
    assert _text(events.field("rolls").type)  # a mapping: JSON text
    rows = pq.read_table(tmp_path / "events.parquet", columns=["kind", "rolls", "chance", "chance_exact"]).to_pylist()
    check = next(r for r in rows if r["kind"] == "check")
    assert json.loads(check["rolls"])["check"]["expr"].startswith("d20")
    assert check["chance"] == float(Fraction(check["chance_exact"]))
    assert pq.read_schema(tmp_path / "fairness.parquet").field("counts").type == pa.list_(pa.int64())
    assert pq.read_schema(tmp_path / "encounters.parquet").field("foe_kinds").type == pa.list_(pa.string())


def test_duckdb_reads_chances_and_lists_with_no_string_surgery(frames, tmp_path):
    duckdb = pytest.importorskip("duckdb")
    export.write_parquet(frames, tmp_path)
    checks = duckdb.sql(f"SELECT count(*), avg(chance) FROM '{tmp_path}/events.parquet' "
                        "WHERE kind = 'check' AND chance IS NOT NULL").fetchall()[0]
    ev = frames["events"]
    expected = ev.loc[(ev["kind"] == "check") & ev["chance"].notna(), "chance"]
    assert checks[0] == len(expected) > 100 and checks[1] == pytest.approx(float(expected.mean()))
    kinds = dict(duckdb.sql(f"SELECT k, count(*) FROM (SELECT unnest(foe_kinds) AS k FROM "
                            f"'{tmp_path}/encounters.parquet') GROUP BY k").fetchall())
    assert sum(kinds.values()) == int(frames["encounters"]["foes"].sum()) and "goblin" in kinds


def test_every_frame_round_trips_through_csv_with_its_schema(frames, tmp_path):
    written = export.write_csv(frames, tmp_path)
    assert sorted(p.name for p in written) == sorted([f"{n}.csv" for n in FRAME_NAMES] + ["schema.json"])
    schema = json.loads((tmp_path / "schema.json").read_text())
    assert schema["frames"]["events"]["dtypes"]["ts"] == "datetime64[ns, UTC]"
    assert "results" in schema["frames"]["events"]["json_columns"]  # a list, as JSON text in CSV
    assert "rolls" in schema["frames"]["events"]["text_columns"]  # JSON text already, neutralised like any text
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


def test_every_frame_goes_to_parquet_with_pandas_own_to_parquet_and_reads_back_typed(frames, tmp_path):
    for name, frame in frames.items():
        frame.to_parquet(tmp_path / f"{name}.parquet")
        back = pd.read_parquet(tmp_path / f"{name}.parquet")
        assert dict(back.dtypes) == dict(frame.dtypes), name
    assert not [c for c in frames["events"].columns if frames["events"][c].dtype == object
                and not frames["events"][c].dropna().map(lambda v: isinstance(v, list)).all()], "only lists are objects"


# ---------------------------------------------------------------- spreadsheets run nothing

HOSTILE = ['=HYPERLINK("http://evil.example/","click")', "+Ana", "-2+3+cmd|' /C calc'!A0", "@SUM(A1:A9)",
           "\tTabbed", "\rCarriage", "'quoted", "Wren\rEvil"]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """A campaign whose names are formulas, a lone carriage return among them, played a little. Names with a tab
    or a carriage return are refused today (``delvebook.core.names``), so they are made as a delvebook before that check
    made them: a log written then still opens and exports."""
    folder = tmp_path_factory.mktemp("hostile") / "c"
    camp = db.Campaign.create(folder, name="=cmd|' /C calc'!A0", seed=1)
    with pytest.MonkeyPatch.context() as older:
        older.setattr("delvebook.engine.creatures.check_name", lambda *a, **k: None)
        for i, name in enumerate(HOSTILE[:4] + HOSTILE[7:]):
            camp.add_delver(name, "rogue", player=HOSTILE[(i + 4) % len(HOSTILE)])
    camp.start_session()
    for d in camp.delvers:
        camp.check(d.name, "stealth", 12)
    camp.award_xp(10, reason="=1+1")
    camp.close()
    return folder


def test_no_csv_cell_starts_a_formula_and_every_name_comes_back(hostile, tmp_path):
    frames = db.analysis.frames(hostile)
    export.write_csv(frames, tmp_path)
    cells = 0
    for path in tmp_path.glob("*.csv"):
        with open(path, newline="", encoding="utf-8") as f:
            for row in csv.reader(f):
                cells += len(row)
                assert not [c for c in row if c.startswith(export.FORMULA_STARTS)], (path.name, row)
    assert cells > 100
    schema = json.loads((tmp_path / "schema.json").read_text())
    assert "who" in schema["frames"]["hearts"]["text_columns"] and "OWASP" in schema["text"]
    _assert_same_frames(export.read_csv(tmp_path), frames)


def test_a_lone_carriage_return_in_a_name_is_quoted_and_pandas_reads_it_back(hostile, tmp_path):
    export.write_csv(hostile, tmp_path)
    raw = (tmp_path / "hearts.csv").read_bytes()
    assert b'"Wren\rEvil"' in raw and raw.count(b"\r\n") == raw.count(b"\n")
    plain = pd.read_csv(tmp_path / "hearts.csv")  # pandas alone, no schema: the rows stay whole
    assert "Wren\rEvil" in set(plain["who"]) and set(plain["side"]) <= {"party", "foes"}
    assert "'=HYPERLINK(\"http://evil.example/\",\"click\")" in set(plain["who"])


@given(st.text(max_size=12))
def test_neutralising_a_text_cell_is_undone_exactly_and_leaves_no_formula(text):
    cell = export.neutralise(text)
    assert not cell.startswith(export.FORMULA_STARTS)
    assert export.restore_text(cell) == text


def test_hostile_names_go_to_parquet_as_they_are(hostile, tmp_path):
    frames = db.analysis.frames(hostile)
    _assert_same_frames(export.read_parquet(export.write_parquet(frames, tmp_path)[0].parent), frames)
    assert "Wren\rEvil" in set(pd.read_parquet(tmp_path / "hearts.parquet")["who"].astype(str))


# ---------------------------------------------------------------- an export replaces the last one whole

def test_an_export_never_writes_through_a_symlinked_file(tmp_path):
    victim = tmp_path / "victim.csv"
    victim.write_text("the keeper's own table\n")
    frames_dir = tmp_path / "frames"
    frames_dir.mkdir()
    (frames_dir / "events.csv").symlink_to(victim)
    (frames_dir / "events.parquet").symlink_to(victim)
    export.write_csv(CAMPAIGNS / "the-sunken-keep", frames_dir)
    assert victim.read_text() == "the keeper's own table\n"
    assert not (frames_dir / "events.csv").is_symlink() and (frames_dir / "events.csv").is_file()
    export.write_parquet(CAMPAIGNS / "the-sunken-keep", frames_dir)
    assert victim.read_text() == "the keeper's own table\n"
    assert not (frames_dir / "events.parquet").is_symlink()


def test_an_export_refuses_a_folder_of_other_files_and_a_symlinked_folder(tmp_path):
    mine = tmp_path / "notes"
    mine.mkdir()
    (mine / "plan.txt").write_text("the keeper's plans")
    with pytest.raises(ValueError, match="plan.txt"):
        export.write_csv(CAMPAIGNS / "the-sunken-keep", mine)
    assert sorted(p.name for p in mine.iterdir()) == ["plan.txt"]
    (tmp_path / "link").symlink_to(mine)
    with pytest.raises(ValueError, match="symlink"):
        export.write_parquet(CAMPAIGNS / "the-sunken-keep", tmp_path / "link")
    assert sorted(p.name for p in mine.iterdir()) == ["plan.txt"]
    run = subprocess.run([sys.executable, "-m", "delvebook", "export", str(CAMPAIGNS / "the-sunken-keep"), "--csv",
                          str(mine)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 1 and "plan.txt" in run.stderr and "Traceback" not in run.stderr


_KILLED = textwrap.dedent("""
    import os, signal, sys
    import pandas as pd
    fmt, campaign, folder = sys.argv[1:4]
    calls = []
    def killer(orig):
        def wrapped(*a, **k):
            calls.append(1)
            if len(calls) == 2:  # the first frame is written: die before the second
                os.kill(os.getpid(), signal.SIGKILL)
            return orig(*a, **k)
        return wrapped
    pd.DataFrame.to_csv = killer(pd.DataFrame.to_csv)
    pd.DataFrame.to_parquet = killer(pd.DataFrame.to_parquet)
    from delvebook.share import export
    getattr(export, "write_" + fmt)(campaign, folder)
""")


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_an_export_killed_halfway_leaves_the_previous_export_whole(fmt, frames, tmp_path):
    folder = tmp_path / "out"
    getattr(export, f"write_{fmt}")(frames, folder)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    small = tmp_path / "keep"
    shutil.copytree(CAMPAIGNS / "the-sunken-keep", small, ignore=shutil.ignore_patterns(".delvebook.lock"))
    with db.Campaign.open(small) as camp:
        camp.start_session()
        camp.check("Wren", "stealth", 12)
    run = subprocess.run([sys.executable, "-c", _KILLED, fmt, str(small), str(folder)], capture_output=True,
                         timeout=120)
    assert run.returncode == -signal.SIGKILL, run.stderr.decode()[-2000:]
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    _assert_same_frames(getattr(export, f"read_{fmt}")(folder), frames)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.")], "the half-written set lies beside"
    getattr(export, f"write_{fmt}")(small, folder)  # the next export replaces it whole and sweeps the leftover
    assert len(getattr(export, f"read_{fmt}")(folder)["events"]) == 2
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.")]


def test_export_command_refuses_one_folder_for_both_formats(tmp_path):
    run = subprocess.run([sys.executable, "-m", "delvebook", "export", str(CAMPAIGNS / "the-sunken-keep"), "--csv",
                          str(tmp_path / "x"), "--parquet", str(tmp_path / "x")], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 2 and "different folders" in run.stderr
    assert not (tmp_path / "x").exists()
