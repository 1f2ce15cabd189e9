"""Open data: every frame of a campaign as Parquet or CSV files that any tool reads (DuckDB, Polars, Spark, R).

One file a frame (``events.parquet``, ``rolls.parquet``, ...; or ``events.csv`` ...), with its dtypes:
Parquet keeps them itself (categories, nullable integers and booleans, UTC timestamps); CSV gets them from
``schema.json`` beside the files. Lists and mappings (an event's ``rolls``, ``changes``...) are JSON text, so
a column is one type and any SQL engine's JSON functions reach inside (DuckDB: ``events.rolls->>'$[0].expr'``).
:func:`read_parquet` and :func:`read_csv` give the frames back as :func:`delvebook.analysis.frames` made them.

Parquet needs pyarrow (in the ``analysis`` extra). ``delvebook export CAMPAIGN --parquet DIR`` runs this.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping

from .extras import require

require("analysis", "delvebook.export", "pandas")  # before the imports: names the extra

import pandas as pd

from . import analysis

__all__ = ["write_parquet", "write_csv", "read_parquet", "read_csv", "encode", "decode", "FORMAT"]

FORMAT = 1
"""The layout's version, stored with the files (Parquet metadata, schema.json)."""
_META_KEY = b"delvebook"
# pandas 3 reads floats back exactly by default (and deprecates asking); pandas 2 must be asked
_EXACT_FLOATS = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}


def _frames(x: Any) -> Mapping[str, pd.DataFrame]:
    return x if isinstance(x, Mapping) and "events" in x else analysis.frames(x, copy=False)


def encode(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """(the frame with every object column as JSON text, those columns' names). An object column holds lists
    and mappings (an event's ``rolls``), sometimes beside plain values; each value but a missing one becomes its
    JSON, so every column has one type and decoding gives back exactly what was there."""
    columns = [c for c in frame.columns if frame[c].dtype == object]
    if not columns:
        return frame, []
    out = frame.copy()
    for c in columns:
        out[c] = pd.array([None if v is None else json.dumps(v, ensure_ascii=False, separators=(",", ":"))
                           for v in frame[c]], dtype=object)
    return out, columns


def decode(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """The inverse of :func:`encode`: each of ``columns`` from JSON text back to lists and mappings."""
    for c in columns:
        frame[c] = pd.array([None if not isinstance(v, str) else json.loads(v) for v in frame[c]], dtype=object)
    return frame


def _folder(folder: str | os.PathLike) -> Path:
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    return out


# ---------------------------------------------------------------- Parquet

def write_parquet(x: Any, folder: str | os.PathLike) -> list[Path]:
    """Write every frame of ``x`` (a Campaign, a campaign folder, or frames) to ``folder/NAME.parquet``;
    returns the files written."""
    require("analysis", "Parquet export", "pyarrow")
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = _folder(folder)
    written = []
    for name, frame in _frames(x).items():
        encoded, columns = encode(frame)
        table = pa.Table.from_pandas(encoded, preserve_index=False)
        meta = dict(table.schema.metadata or {})
        meta[_META_KEY] = json.dumps({"format": FORMAT, "frame": name, "json_columns": columns,
                                      "dtypes": {c: _dtype_record(frame[c]) for c in frame.columns}}).encode()
        path = out / f"{name}.parquet"
        pq.write_table(table.replace_schema_metadata(meta), path)
        written.append(path)
    return written


def read_parquet(folder: str | os.PathLike) -> dict[str, pd.DataFrame]:
    """The frames written by :func:`write_parquet` into ``folder``, with their dtypes and nested fields."""
    require("analysis", "Parquet import", "pyarrow")
    import pyarrow.parquet as pq

    frames = {}
    for path in sorted(Path(folder).glob("*.parquet"), key=_frame_order):
        table = pq.read_table(path)
        meta = json.loads((table.schema.metadata or {}).get(_META_KEY, b"{}"))
        frame = _conform(table.to_pandas(), meta.get("dtypes", {}))
        frames[meta.get("frame", path.stem)] = decode(frame, meta.get("json_columns", []))
    return frames


def _conform(frame: pd.DataFrame, dtypes: Mapping[str, Any]) -> pd.DataFrame:
    """Give back a dtype Parquet could not keep: a category with no values (stored as nulls) reads back plain."""
    for c, d in dtypes.items():
        if c in frame.columns and _dtype_record(frame[c]) != d:
            frame[c] = _restore(frame[c], d)
    return frame


def _frame_order(path: Path) -> tuple[int, str]:
    names = analysis.FRAME_NAMES
    return (names.index(path.stem) if path.stem in names else len(names), path.stem)


# ---------------------------------------------------------------- CSV

def _dtype_record(s: pd.Series) -> Any:
    if isinstance(s.dtype, pd.CategoricalDtype):
        cats = s.dtype.categories
        return {"category": [None if pd.isna(c) else (c.item() if hasattr(c, "item") else c) for c in cats],
                "categories_dtype": str(cats.dtype), "ordered": bool(s.dtype.ordered)}
    return str(s.dtype)


def write_csv(x: Any, folder: str | os.PathLike) -> list[Path]:
    """Write every frame of ``x`` to ``folder/NAME.csv``, and the dtypes of every column to
    ``folder/schema.json`` (CSV has none of its own); returns the files written. A missing value is an empty
    field, so an empty text reads back as missing too."""
    out = _folder(folder)
    schema: dict[str, Any] = {"format": FORMAT, "frames": {}}
    written = []
    for name, frame in _frames(x).items():
        encoded, columns = encode(frame)
        path = out / f"{name}.csv"
        encoded.to_csv(path, index=False)
        schema["frames"][name] = {"dtypes": {c: _dtype_record(frame[c]) for c in frame.columns},
                                  "json_columns": columns}
        written.append(path)
    (out / "schema.json").write_text(json.dumps(schema, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return [*written, out / "schema.json"]


def read_csv(folder: str | os.PathLike) -> dict[str, pd.DataFrame]:
    """The frames written by :func:`write_csv` into ``folder``, with the dtypes its schema.json records."""
    folder = Path(folder)
    schema = json.loads((folder / "schema.json").read_text(encoding="utf-8"))
    frames = {}
    for name, spec in schema["frames"].items():
        dtypes = spec["dtypes"]
        text = {c for c, d in dtypes.items() if not isinstance(d, str) or d in ("object", "str", "string")}
        raw = pd.read_csv(folder / f"{name}.csv", dtype={c: object for c in text}, keep_default_na=False,
                          na_values={c: [""] for c in dtypes}, **_EXACT_FLOATS)
        frame = pd.DataFrame(index=raw.index)
        for c, d in dtypes.items():
            frame[c] = _restore(raw[c], d)
        frames[name] = decode(frame, spec["json_columns"])
    return frames


def _restore(s: pd.Series, d: Any) -> pd.Series:
    if isinstance(d, dict):
        cats = pd.Index(d["category"], dtype=d["categories_dtype"])
        values = s if cats.dtype == object or s.dtype == cats.dtype else s.astype(cats.dtype)
        return pd.Series(pd.Categorical(values, categories=cats, ordered=d["ordered"]), index=s.index)
    if d.startswith("datetime64"):
        unit_tz = d[len("datetime64["):-1].split(", ")
        t = pd.to_datetime(s, utc=len(unit_tz) > 1, format="ISO8601")
        return t.dt.as_unit(unit_tz[0]) if len(unit_tz) > 1 or unit_tz[0] else t
    if d == "object":
        return pd.Series([None if pd.isna(v) else v for v in s], index=s.index, dtype=object)
    return s.astype(d)
