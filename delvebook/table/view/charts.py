"""The Charts panel (``chartsEl`` in table.js): XP progress with the level thresholds, and hearts in the latest
fight, as series the page draws as SVG."""

from __future__ import annotations

import importlib.util

__all__ = ["charts_available", "charts_panel"]


def charts_available() -> bool:
    """Whether the analysis extra (pandas, plotly) is here: the Charts panel shows only then."""
    try:
        return all(importlib.util.find_spec(m) is not None for m in ("pandas", "plotly"))
    except (ImportError, ValueError):
        return False


def charts_panel(camp) -> dict | None:
    """XP progress and hearts in the latest fight, as series the page draws as SVG (plotly.js cannot load in an
    offline ES module); built from the analysis frames (``delvebook.analysis``), when that extra is here."""
    if not charts_available():
        return None
    from ... import analysis
    f = analysis.frames(camp, copy=False)
    xp = f["xp"]
    series = []
    for who in camp.state["seats"]:
        rows = xp[xp["who"] == who]
        series.append({"name": who, "points": [[0, 0]] + [[int(q), int(v)] for q, v in zip(rows["seq"], rows["xp"])]})
    last = max([p[0] for s in series for p in s["points"]] + [len(camp.events), 1])
    thresholds = [{"level": int(k), "xp": int(v)} for k, v in camp.rules.level_thresholds.items() if v > 0]
    hearts = f["hearts"]
    enc = hearts["encounter"].dropna()
    fight = None
    if len(enc):
        number = int(enc.max())
        rows = hearts[hearts["encounter"] == number]
        lines = []
        for who in dict.fromkeys(rows["who"].astype(str)):
            r = rows[rows["who"].astype(str) == who]
            lines.append({"name": who, "side": str(r["side"].iloc[0]),
                          "points": [[int(q), int(h)] for q, h in zip(r["seq"], r["hearts"])]})
        fight = {"number": number, "series": lines}
    return {"xp": {"series": series, "thresholds": thresholds, "last": int(last)}, "hearts": fight}
