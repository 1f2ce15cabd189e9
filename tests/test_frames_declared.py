"""The frames take their columns from the events' declarations: each column's type is the declared field's, whatever
the log happens to hold; and every column has a name that reads well in SQL (none is a word DuckDB reserves)."""

from __future__ import annotations

import pytest

pd = pytest.importorskip("pandas")
duckdb = pytest.importorskip("duckdb")

import delvebook as db  # noqa: E402
from delvebook import analysis  # noqa: E402
from delvebook.analysis.tables import events_frame  # noqa: E402
from delvebook.analysis.typed_columns import column_types  # noqa: E402
from delvebook.core.events import Standing  # noqa: E402

from conftest import CAMPAIGNS  # noqa: E402


@pytest.fixture(scope="module")
def frames():
    with db.Campaign.open(CAMPAIGNS / "the-long-delve", read_only=True) as camp:
        yield analysis.frames(camp)


def _words_sql_quotes() -> set[str]:
    """The words DuckDB reserves, and those it reads as a type or a function: a column so named needs quoting."""
    rows = duckdb.sql("select keyword_name from duckdb_keywords() "
                      "where keyword_category in ('reserved', 'type_function')").fetchall()
    return {r[0] for r in rows}


def test_no_column_of_any_frame_is_a_word_sql_reserves(frames):
    reserved = _words_sql_quotes()
    assert {"at", "by", "order", "from", "to"} <= reserved  # (what the frames named columns before)
    clashes = [(name, col) for name, f in frames.items() for col in f.columns if str(col).lower() in reserved]
    assert clashes == []
    every_declared = {c.name for c in column_types().values()}
    assert sorted(c for c in every_declared if c.lower() in reserved) == []  # a kind the long delve never played


def test_the_frames_query_in_duckdb_without_quoting(frames):
    con = duckdb.connect()
    con.register("damage", frames["damage"])
    con.register("events", frames["events"].drop(columns=["targets"] + [c for c in frames["events"].columns
                                                                         if frames["events"][c].dtype == object]))
    dealt = con.sql("select dealer, sum(dealt) as dealt from damage where dealer_side = 'party' "
                    "group by dealer order by dealt desc").fetchall()
    assert dealt and dealt[0][1] == frames["damage"].query("dealer_side == 'party'").groupby(
        "dealer", observed=True)["dealt"].sum().max()
    late = con.sql("select count(*) from events where clock > 3600").fetchall()[0][0]
    assert late == int((frames["events"]["clock"] > 3600).sum())


def _log(*events: dict) -> list[dict]:
    frame = {"v": 2, "at": 0, "session": 1, "actor": "Wren", "targets": [], "sides": {}, "args": {}, "changes": [],
             "ts": "2026-01-01T00:00:00Z"}
    return [{**frame, "seq": i, **e} for i, e in enumerate(events, 1)]


def _check(why: str, total: int) -> dict:
    return {"kind": "check", "who": "Wren", "skill": "stealth", "save": False, "why": why, "expr": "d20",
            "total": total, "target": 12, "success": total >= 12, "chance": "9/20"}


def test_a_columns_type_is_its_declared_fields_not_a_guess_from_what_it_holds():
    one = events_frame(_log(_check("Hide", 3)), Standing())
    many = events_frame(_log(*[_check(f"check {i}", i) for i in range(1, 200)]), Standing())
    for col in ("why", "skill", "total", "success", "chance", "chance_exact", "target_number"):
        assert str(one[col].dtype) == str(many[col].dtype), col  # one value or 199 different ones: the same type
    assert isinstance(one["why"].dtype, pd.CategoricalDtype) and str(one["total"].dtype) == "Int64"
    assert str(one["chance"].dtype) == "Float64" and one["chance"][0] == pytest.approx(0.45)
    assert str(one["target_number"].dtype) == "Int64" and one["target"].isna().all()  # the number, not a target
    undeclared = events_frame(_log({**_check("Hide", 3), "guessed": 5}), Standing())
    assert "guessed" not in undeclared.columns  # a field no declaration names is not typed by what it holds


def test_every_declared_field_has_one_column_type_whichever_kinds_feed_it():
    columns = column_types()
    by_name: dict[str, set] = {}
    for (kind, key), column in columns.items():
        by_name.setdefault(column.name, set()).add(repr(column.type))
    assert {name: types for name, types in by_name.items() if len(types) > 1} == {}
    assert columns[("check", "target")].name == "target_number" and ("attack", "target") not in columns
    assert columns[("initiative", "order")].name != columns[("set_order", "order")].name


def test_a_frame_declared_in_its_own_module_is_built_in_the_same_replay_and_a_chart_over_it_joins_the_report(kept):
    from delvebook import charts
    from delvebook.analysis.fold import FRAMES, build
    from delvebook.core.collect import Collector

    class Sessions(Collector):
        FIELDS = ("seq", "number")

        def step(self, event, history, touched):
            return (((event.seq, event.number),), {}) if event.kind == "start_session" else None

    @analysis.frame("sessions_begun", collector=Sessions)
    def _sessions(c, camp):
        return pd.DataFrame({k: pd.array(v, dtype="Int64") for k, v in c.columns().items()})

    @charts.chart("Sessions begun")
    def _chart(f):
        return None
    try:
        kept.start_session()
        kept.end_session()
        kept.start_session()
        built = build(kept)
        assert built["sessions_begun"]["number"].tolist() == [1, 2]
        assert ("Sessions begun", _chart) in charts.REPORT
    finally:
        FRAMES.pop("sessions_begun", None)
        charts.REPORT[:] = [(t, fn) for t, fn in charts.REPORT if fn is not _chart]
