"""What every chart shares: each delver's and player's colour, escaping, numbers for hover templates, the
template and its ink."""

from __future__ import annotations

import html
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from .. import analysis

__all__ = ["PALETTE", "KEEPER_COLOR", "delver_colors", "player_colors", "frames_of", "names_in", "thresholds", "esc",
           "escs", "numbers", "templated", "ink_of"]

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
           "#bcbd22", "#7f7f7f", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd")
"""Colours given out in order: the party's seat order, then recruits as they join."""
KEEPER_COLOR = "#555555"


def frames_of(x: Any) -> dict[str, pd.DataFrame]:
    """The shared frames of a Campaign, a folder or a dict of frames already built (read them, do not change them)."""
    return analysis.frames(x, copy=False)


def names_in(values: Iterable) -> list[str]:
    seen: dict[str, None] = {}
    for v in values:
        if isinstance(v, str) and v not in seen:
            seen[v] = None
    return list(seen)


def delver_colors(x: Any) -> dict[str, str]:
    """Each delver's colour: the same in every chart of a campaign (seat order, then recruits as they join)."""
    if isinstance(x, Mapping) and "hearts" in x:
        h = x["hearts"]
        names = names_in(h.loc[h["side"] == "party", "who"].astype(object))
    elif isinstance(x, (list, tuple)):
        names = names_in(x)
    else:
        return delver_colors(frames_of(x))
    return {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(names)}


def player_colors(x: Any) -> dict[str, str]:
    """Each player's colour: their first delver's colour; the keeper is grey."""
    f = frames_of(x) if not (isinstance(x, Mapping) and "hearts" in x) else x
    h = f["hearts"]
    party = h[h["side"] == "party"]
    colors = delver_colors(f)
    out: dict[str, str] = {}
    for who, player in zip(party["who"].astype(object), party["player"].astype(object)):
        if isinstance(player, str) and player not in out:
            out[player] = colors[who]
    out["keeper"] = KEEPER_COLOR
    return out


def thresholds(f: Mapping[str, pd.DataFrame]) -> dict[int, int]:
    """XP each level above the first starts at, from the campaign's rules (the ``levels`` frame)."""
    lv = f["levels"]
    return {int(a): int(b) for a, b in zip(lv["level"], lv["xp"]) if int(b) > 0}


def esc(v: Any) -> str:
    return html.escape(str(v))


def escs(values: Iterable) -> list[str]:
    """Each value as escaped text (once per distinct value: a log repeats its reasons and sources)."""
    cache: dict[Any, str] = {}
    return [cache[v] if v in cache else cache.setdefault(v, esc(v)) for v in values]


def numbers(*columns: Sequence) -> np.ndarray:
    """Columns of whole numbers side by side, for a hover template's ``customdata``: integers (plotly sends them
    as a compact typed array), or floats with NaN where a value is missing."""
    data = np.column_stack([pd.array(c, dtype="Float64").to_numpy(dtype=float, na_value=np.nan) for c in columns])
    return data if np.isnan(data).any() else data.astype(np.int64)


def templated(fig: go.Figure, template: Any) -> go.Figure:
    """The figure with ``template`` if the caller named one; otherwise it keeps plotly's default (what
    ``plotly.io.templates.default`` was when it was made: a dark-theme user gets dark charts)."""
    if template is not None:
        fig.update_layout(template=template)
    return fig


def ink_of(template: Any) -> str:
    """A colour for outlines and marks that reads on the template's background: the template's font colour."""
    name = pio.templates.default if template is None else template
    try:
        t = pio.templates[name] if isinstance(name, str) else go.layout.Template(name)
        return t.layout.font.color or "#444444"
    except (KeyError, ValueError, TypeError):
        return "#444444"
