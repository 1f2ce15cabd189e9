"""Was the forecast right? The reliability chart: forecast chance in bins against the share that happened."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .. import analysis
from ..analysis.calibrate import QUANTITIES
from .common import ink_of, templated

__all__ = ["calibration", "tables"]

_STYLE = {"default": dict(color="#8c8c8c", symbol="circle-open"), "habits": dict(color="#1f77b4", symbol="circle")}
_NAMES = {"default": "the documented default (fights on)", "habits": "this party's habits (held-out sessions)"}


def _of(x: Any) -> "analysis.Calibration":
    if isinstance(x, analysis.Calibration):
        return x
    if isinstance(x, Mapping) and isinstance(x.get("calibration"), analysis.Calibration):
        return x["calibration"]
    return analysis.calibration(x, progress=True)


def calibration(x: Any, template: Any = None) -> go.Figure:
    """For each chance the forecast gives (a delver drops, a delver dies, a death in the party, the party wins), the
    fights binned by their forecast against the share of them in which it happened, with its 95% interval: on the
    dashed diagonal the forecast was right; below it, it said more often than happened. Each policy checked is a
    series: the documented default, and this party's habits (each fight forecast by the habits learned from the other
    sessions' fights). Each panel's title gives their Brier scores beside that of always forecasting the base rate.
    ``x``: a ``Calibration`` (``analysis.calibration``), or a Campaign or folder (calibrated here, with a progress
    bar). What the calibration shows, in words, is in ``fig.layout.meta["notes"]``. ``template``: a plotly template
    to draw with."""
    cal = _of(x)
    ink = ink_of(template)
    rel = cal.reliability
    both = len(cal.policies) > 1
    titles = []
    for key, (words, _unit) in QUANTITIES.items():
        b = cal.brier.loc[("default", key)]
        if not b["n"]:
            titles.append(words)
            continue
        scored = " · ".join(f"{'habits ' if w == 'habits' else 'default ' if both else ''}"
                            f"{cal.brier.loc[(w, key), 'brier']:.3f}" for w in cal.policies)
        titles.append(f"{words[0].upper() + words[1:]}<br><sup>Brier {scored} · "
                      f"base rate {b['base_rate']:.1%} scores {b['reference']:.3f}</sup>")
    fig = make_subplots(rows=2, cols=2, subplot_titles=titles, horizontal_spacing=0.09, vertical_spacing=0.17)
    for i, key in enumerate(QUANTITIES):
        row, col = i // 2 + 1, i % 2 + 1
        fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="forecast = what happened",
                                 legendgroup="diagonal", showlegend=i == 0, hoverinfo="skip",
                                 line=dict(color=ink, dash="dash", width=1)), row=row, col=col)
        unit = "delvers in fights" if QUANTITIES[key][1] == "delvers" else "fights"
        for w in cal.policies:
            r = rel[(rel["quantity"] == key) & (rel["policy"] == w)]
            if r.empty:
                continue
            n = r["n"].to_numpy()
            style = _STYLE[w] if both else _STYLE["habits"]
            fig.add_trace(go.Scatter(
                x=r["forecast"].to_numpy(), y=r["observed"].to_numpy(), mode="markers",
                name=_NAMES[w] if both else "the forecast", legendgroup=w, showlegend=i == 0,
                marker=dict(color=style["color"], symbol=style["symbol"], size=np.clip(4 + 2.2 * np.sqrt(n), 6, 30),
                            opacity=0.85, line=dict(width=1.5, color=style["color"] if w == "default" else ink)),
                error_y=dict(type="data", symmetric=False, array=(r["hi"] - r["observed"]).to_numpy(),
                             arrayminus=(r["observed"] - r["lo"]).to_numpy(), color=style["color"], thickness=1.2),
                customdata=np.column_stack([r["bin_lo"], r["bin_hi"], n, r["lo"], r["hi"]]),
                hovertemplate=(_NAMES[w] + "<br>" if both else "") + "forecast %{customdata[0]:.0%}–"
                "%{customdata[1]:.0%}: %{customdata[2]:,} " + unit + "<br>forecast %{x:.0%} on average; happened "
                "%{y:.1%}<br>95% interval %{customdata[3]:.1%}–%{customdata[4]:.1%}<extra></extra>"),
                row=row, col=col)
    fig.update_xaxes(range=[-0.03, 1.03], tickformat=".0%", dtick=0.2, title_text="forecast chance")
    fig.update_yaxes(range=[-0.03, 1.03], tickformat=".0%", dtick=0.2, title_text="share that happened")
    fig.update_annotations(font_size=13)
    notes = [("What it shows", cal.summary()),
             ("How this party plays, learned from its fights (the forecast's habits)", cal.habits),
             ("How the campaign's fights were played, beside the forecast's policy", cal.played),
             ("The forecast's documented default policy", cal.policy)]
    fig.update_layout(title="Forecast chance against what happened, fight by fight",
                      height=760, hovermode="closest", legend=dict(orientation="h", y=-0.1, x=0),
                      meta={"notes": [[head, lines] for head, lines in notes if lines], "tables": tables(cal)})
    return templated(fig, template)


def tables(cal: "analysis.Calibration") -> list[dict]:
    """The calibration as tables of plain text (``heading``, ``head``, ``rows``): each chance's Brier score by each
    policy beside the base rate's, with how many reliability bins held what happened; then every bin."""
    names = {"default": "the documented default", "habits": "this party's habits (held out)"}
    brier = {"heading": "Brier scores (0 is best), and the bins whose mean forecast lies in the 95% interval of "
                        "what happened",
             "head": ["chance", "happened", *(f"by {names[w]}" for w in cal.policies), "always the base rate"],
             "rows": []}
    bins = {"heading": "The reliability table: the fights binned by their forecast",
            "head": ["policy", "chance", "forecast", "how many", "said on average", "happened", "95% interval",
                     "right?"], "rows": []}
    for key, (words, unit) in QUANTITIES.items():
        base = cal.scores["default"][key]
        if not base.n:
            continue
        brier["rows"].append([words, f"{base.base_rate:.1%} of {base.n:,} "
                                     f"{'delvers in fights' if unit == 'delvers' else 'fights'}",
                              *(f"{cal.scores[w][key].brier:.4f} ({cal.scores[w][key].on_diagonal} of "
                                f"{len(cal.scores[w][key].bins)} bins)" for w in cal.policies),
                              f"{base.reference:.4f}"])
        for w in cal.policies:
            for b in cal.scores[w][key].bins:
                bins["rows"].append([names[w], words, f"{b.lo:.0%}–{b.hi:.0%}", f"{b.n:,}", f"{b.forecast:.1%}",
                                     f"{b.observed:.1%}", f"{b.ci_lo:.1%}–{b.ci_hi:.1%}",
                                     "yes" if b.on_diagonal else "no"])
    return [brier, bins]
