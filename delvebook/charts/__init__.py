"""Plotly charts of a campaign: XP progress, heart history (each delver session by session), dice fairness,
damage, luck, and whether the danger forecast was right (``calibration``).

Every function takes a Campaign, a campaign folder, or the dict from ``delvebook.analysis.frames`` and
returns a ``plotly.graph_objects.Figure`` (not shown), so it can be restyled before ``fig.show()``. Each
delver keeps one colour in every chart (``delver_colors``); each player likewise (``player_colors``).
One module per topic (``xp``, ``hearts``, ``dice``, ``damage``, ``reliability``; ``common`` holds what they
share); ``REPORT`` lists the report's charts, and a new module's chart joins it where it is written (``@chart(title)``:
every module of this package is found and imported). This package imports plotly; ``import delvebook`` does not.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, Mapping

from ..core.extras import require

require("analysis", "delvebook.charts", "pandas", "plotly")  # before the imports: names the extra

import pandas as pd  # noqa: E402
import plotly.graph_objects as go  # noqa: E402

from .common import KEEPER_COLOR, PALETTE, delver_colors, player_colors  # noqa: E402
from .damage import damage  # noqa: E402
from .dice import dice_fairness, luck  # noqa: E402
from .hearts import heart_history, hearts_by_session, session_bands  # noqa: E402
from .reliability import calibration  # noqa: E402
from .xp import xp_progress  # noqa: E402

__all__ = ["xp_progress", "heart_history", "hearts_by_session", "session_bands", "calibration", "dice_fairness",
           "damage", "luck", "delver_colors", "player_colors", "PALETTE", "KEEPER_COLOR", "REPORT", "chart"]


# ---------------------------------------------------------------- the report's charts

def _hardest_fight(f: Mapping[str, pd.DataFrame]) -> int | None:
    """The encounter that cost the party most (deaths, then delvers down, then hearts lost)."""
    enc = f["encounters"]
    if enc.empty:
        return None
    score = enc["party_taken"].astype("int64") * 10 + enc["deaths"].astype("int64") * 1000 \
        + enc["delvers_down"].astype("int64") * 100
    return int(enc.loc[score.idxmax(), "encounter"])


def _hardest_fight_hearts(f: Mapping[str, pd.DataFrame]) -> go.Figure | None:
    hardest = _hardest_fight(f)
    return None if hardest is None else heart_history(f, encounter=hardest)


def _forecast_checked(f: Mapping[str, Any]) -> go.Figure | None:
    """The reliability chart, when the report calibrated the forecast (``f["calibration"]``) and a fight was
    forecast."""
    cal = f.get("calibration")
    return None if cal is None or not cal.brier["n"].any() else calibration(cal)


REPORT: list[tuple[str, Any]] = [
    ("XP progress", lambda f: xp_progress(f, by="event")),
    ("XP by session", lambda f: xp_progress(f, by="session")),
    ("Hearts across the campaign", hearts_by_session),
    ("Hearts in the hardest fight", _hardest_fight_hearts),
    ("Dice fairness", dice_fairness),
    ("Damage", damage),
    ("Luck", luck),
    ("Was the forecast right?", _forecast_checked),
]
"""The report's charts in order: (title, function of the frames giving a Figure, or None when it does not
apply). A new chart is one function, with ``@chart(title)`` where it is written (it joins the end). A figure's
``layout.meta["notes"]`` ([heading, lines] pairs) is written under it as text."""


_CHARTED: list = []


def chart(title: str):
    """Put the decorated ``fn(frames) -> Figure | None`` in the report, under ``title`` (and here, as ``fn``'s name:
    ``charts.spells_cast``)."""
    def register(fn):
        REPORT.append((title, fn))
        _CHARTED.append(fn)
        return fn
    return register


for _module in pkgutil.iter_modules(__path__):  # a module with a chart of its own (``chart``) is found
    importlib.import_module(f"{__name__}.{_module.name}")
for _fn in _CHARTED:  # (after the import, which names the module here: the chart is what the name means)
    globals()[_fn.__name__] = _fn
