"""Open data: every frame of a campaign as Parquet or CSV files that any tool reads (DuckDB, Polars, Spark, R).

One file a frame (``events.parquet``, ``rolls.parquet``, ...; or ``events.csv`` ...), with its types. Parquet is
written by pandas' own ``to_parquet`` from the frames as :func:`delvebook.analysis.frames` makes them: categories,
nullable integers and booleans, UTC timestamps, lists as Parquet lists, chances as floats with the exact fraction
as text beside, mappings as one column of JSON text (DuckDB: ``events.rolls->>'$.check.expr'``). CSV has no types
of its own: ``schema.json`` beside the files holds them, lists are JSON text, and a text cell a spreadsheet would
run as a formula (one starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) is written with a
``'`` before it (the OWASP rule; a text starting with ``'`` gets one more), so opening the file runs nothing;
every field that needs quoting is quoted (lines end in CRLF, as RFC 4180 has it, so a lone CR inside a name is
quoted too). :func:`read_parquet` and :func:`read_csv` give the frames back exactly as they were made.

An export folder is delvebook's own: it is written beside the target and swapped in whole, so a reader sees the
previous export or the new one, never a mix, and an export killed halfway leaves the previous one whole. A
folder holding anything but an export's files is refused, never emptied; a symlink is never written through.

Parquet needs pyarrow (in the ``analysis`` extra). ``delvebook export CAMPAIGN --parquet DIR`` runs this.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path
from typing import Any, Mapping

from ..core.extras import require

require("analysis", "delvebook.share.export", "pandas")  # before the imports: names the extra

import pandas as pd

from .. import analysis
from ..store.publish import replace_folder

__all__ = ["write_parquet", "write_csv", "read_parquet", "read_csv", "encode", "decode", "neutralise",
           "restore_text", "FORMAT", "FORMULA_STARTS"]

FORMAT = 2
"""The layout's version, stored with the files (Parquet metadata, schema.json). 2: typed Parquet (lists,
chances as floats), CSV text neutralised against formulas."""
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""A text cell starting with one of these is a formula to a spreadsheet (OWASP's CSV injection list)."""
_ESCAPED = (*FORMULA_STARTS, "'")
_META_KEY = "delvebook"
# pandas 3 reads floats back exactly by default (and deprecates asking); pandas 2 must be asked
_EXACT_FLOATS = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}


def _frames(x: Any) -> Mapping[str, pd.DataFrame]:
    return x if isinstance(x, Mapping) and "events" in x else analysis.frames(x, copy=False)


def encode(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """(the frame with every object column as JSON text, those columns' names): for CSV, which has no lists.
    An object column holds lists (an event's ``results``, a fairness row's ``counts``); each value but a missing
    one becomes its JSON, so decoding gives back exactly what was there."""
    columns = [c for c in frame.columns if frame[c].dtype == object]
    if not columns:
        return frame, []
    out = frame.copy()
    for c in columns:
        out[c] = pd.array([None if v is None else json.dumps(v, ensure_ascii=False, separators=(",", ":"))
                           for v in frame[c]], dtype=object)
    return out, columns


def decode(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """The inverse of :func:`encode`: each of ``columns`` from JSON text back to lists."""
    for c in columns:
        frame[c] = pd.array([None if not isinstance(v, str) else json.loads(v) for v in frame[c]], dtype=object)
    return frame


def neutralise(text: Any) -> Any:
    """A text cell as CSV writes it: one ``'`` before a text a spreadsheet would run (or one that starts with
    ``'`` itself, so :func:`restore_text` knows which to take back); anything else as it is."""
    return "'" + text if isinstance(text, str) and text.startswith(_ESCAPED) else text


def restore_text(cell: Any) -> Any:
    """The inverse of :func:`neutralise`."""
    return cell[1:] if isinstance(cell, str) and cell.startswith("'") and cell[1:].startswith(_ESCAPED) else cell


def _is_text(d: Any) -> bool:
    return not isinstance(d, str) or d in ("object", "str", "string")


_OWN_FILES = frozenset({f"{n}.{ext}" for n in analysis.FRAME_NAMES for ext in ("parquet", "csv")} | {"schema.json"})


def _not_an_export(folder: Path, names: list[str]) -> str | None:
    """None if ``folder`` holds only an export's files (a previous export); else the others, for the refusal."""
    extra = [n for n in names if n not in _OWN_FILES]
    return ", ".join(extra[:5]) + (f" and {len(extra) - 5} more" if len(extra) > 5 else "") if extra else None


# ---------------------------------------------------------------- Parquet

def write_parquet(x: Any, folder: str | os.PathLike) -> list[Path]:
    """Write every frame of ``x`` (a Campaign, a campaign folder, or frames) to ``folder/NAME.parquet`` with
    ``DataFrame.to_parquet``, replacing a previous export there whole; returns the files written."""
    require("analysis", "Parquet export", "pyarrow")
    frames = _frames(x)

    def fill(out: Path) -> None:
        for name, frame in frames.items():
            tagged = frame.copy(deep=False)
            tagged.attrs = {_META_KEY: {"format": FORMAT, "frame": name,
                                        "lists": [c for c in frame.columns if frame[c].dtype == object],
                                        "dtypes": {c: _dtype_record(frame[c]) for c in frame.columns}}}
            tagged.to_parquet(out / f"{name}.parquet", index=False)
    folder = Path(folder)
    replace_folder(folder, fill, _not_an_export, what="export")
    return [folder / f"{name}.parquet" for name in frames]


def _pylist(v: Any) -> Any:
    """A Parquet list as pandas reads it (a numpy array, arrays inside) back to a Python list."""
    if hasattr(v, "tolist") and not isinstance(v, (str, bytes)):
        return [_pylist(x) for x in v.tolist()]
    return v


def read_parquet(folder: str | os.PathLike) -> dict[str, pd.DataFrame]:
    """The frames written by :func:`write_parquet` into ``folder``, with their dtypes and lists."""
    require("analysis", "Parquet import", "pyarrow")
    frames = {}
    for path in sorted(Path(folder).glob("*.parquet"), key=_frame_order):
        frame = pd.read_parquet(path)
        meta = frame.attrs.pop(_META_KEY, None) or {}
        frame.attrs = {}
        frame = _conform(frame, meta.get("dtypes", {}))
        for c in meta.get("lists", []):
            frame[c] = pd.Series([None if v is None else _pylist(v) for v in frame[c]], index=frame.index,
                                 dtype=object)
        frames[meta.get("frame", path.stem)] = frame
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
    ``folder/schema.json`` (CSV has none of its own), replacing a previous export there whole; returns the files
    written. A missing value is an empty field, so an empty text reads back as missing too. Text cells (names,
    categories, JSON) are neutralised against formulas (:func:`neutralise`), headers too."""
    frames = _frames(x)
    names = list(frames)

    def fill(out: Path) -> None:
        schema: dict[str, Any] = {"format": FORMAT, "text": "a text cell starting with = + - @ tab CR or ' has "
                                  "one ' put before it (OWASP's CSV injection rule): take it off when reading",
                                  "frames": {}}
        for name, frame in frames.items():
            dtypes = {c: _dtype_record(frame[c]) for c in frame.columns}
            encoded, columns = encode(frame)
            text = [c for c, d in dtypes.items() if _is_text(d)]
            cells = pd.DataFrame({neutralise(c): _neutral_column(encoded[c]) if c in text else encoded[c]
                                  for c in encoded.columns}, index=encoded.index)
            cells.to_csv(out / f"{name}.csv", index=False, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
            schema["frames"][name] = {"dtypes": dtypes, "json_columns": columns, "text_columns": text}
        (out / "schema.json").write_text(json.dumps(schema, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    folder = Path(folder)
    replace_folder(folder, fill, _not_an_export, what="export")
    return [*(folder / f"{name}.csv" for name in names), folder / "schema.json"]


def _neutral_column(s: pd.Series) -> pd.Series:
    if isinstance(s.dtype, pd.CategoricalDtype):
        return s.cat.rename_categories([neutralise(c) for c in s.cat.categories])
    return pd.Series([neutralise(v) for v in s], index=s.index, dtype=object)


def read_csv(folder: str | os.PathLike) -> dict[str, pd.DataFrame]:
    """The frames written by :func:`write_csv` into ``folder``, with the dtypes its schema.json records."""
    folder = Path(folder)
    schema = json.loads((folder / "schema.json").read_text(encoding="utf-8"))
    neutral = schema.get("format", 1) >= 2
    frames = {}
    for name, spec in schema["frames"].items():
        dtypes = spec["dtypes"]
        text = {c for c, d in dtypes.items() if _is_text(d)}
        header = {c: neutralise(c) if neutral else c for c in dtypes}
        raw = pd.read_csv(folder / f"{name}.csv", dtype={header[c]: object for c in text}, keep_default_na=False,
                          na_values={header[c]: [""] for c in dtypes}, **_EXACT_FLOATS)
        frame = pd.DataFrame(index=raw.index)
        for c, d in dtypes.items():
            cells = raw[header[c]]
            if neutral and c in text:
                cells = pd.Series([restore_text(v) for v in cells], index=cells.index, dtype=object)
            frame[c] = _restore(cells, d)
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
