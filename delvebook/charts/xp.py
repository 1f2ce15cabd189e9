"""XP progress per delver, with the level thresholds."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .common import esc, escs, ink_of, numbers, templated, thresholds, delver_colors, frames_of

__all__ = ["xp_progress"]

def xp_progress(camp: Any, by: str = "event", template: Any = None) -> go.Figure:
    """Each delver's XP across the campaign, by ``event`` (log seq) or by ``session`` (XP at each session's
    end), with the level thresholds drawn and level-ups marked. ``template``: a plotly template to draw
    with (default: plotly's current default, ``plotly.io.templates.default``)."""
    if by not in ("event", "session"):
        raise ValueError(f"by is 'event' or 'session', not {by!r}")
    f = frames_of(camp)
    x = f["xp"]
    colors = delver_colors(f)
    fig = go.Figure()
    ink = ink_of(template)
    ups = []
    for name in colors:
        rows = x[x["who"] == name]
        if rows.empty:
            continue
        # the numbers go to the browser as typed arrays and the words once, in the template; only the
        # reason is text per point
        if by == "event":
            trace = dict(x=rows["seq"].to_numpy(), y=rows["xp"].to_numpy(), line_shape="hv",
                         customdata=numbers(rows["level"], rows["amount"], rows["session"]),
                         hovertext=escs(rows["reason"].astype(object)),
                         hovertemplate=f"<b>{esc(name)}</b>: %{{y:d}} XP (level %{{customdata[0]}})<br>"
                         "+%{customdata[1]} for %{hovertext}<br>event %{x:d}, session %{customdata[2]}<extra></extra>")
        else:
            last = rows.groupby("session", observed=True).tail(1)
            trace = dict(x=last["session"].to_numpy(dtype=np.int64), y=last["xp"].to_numpy(), line_shape="linear",
                         customdata=numbers(last["level"])[:, 0],
                         hovertemplate=f"<b>{esc(name)}</b>: %{{y:d}} XP (level %{{customdata}}) after session "
                         "%{x:d}<extra></extra>")
        fig.add_trace(go.Scatter(name=name, mode="lines", line_color=colors[name], legendgroup=name, **trace))
        up = rows[rows["level_up"]]
        ups.append((name, up))
    names = [n for n, up in ups for _ in range(len(up))]
    up = pd.concat([u for _, u in ups]) if ups else x.iloc[:0]
    fig.add_trace(go.Scatter(x=(up["seq"] if by == "event" else up["session"]).to_numpy(dtype=np.int64),
                             y=up["xp"].to_numpy(dtype=np.int64), name="level-ups", mode="markers",
                             marker=dict(symbol="star", size=13, color=[colors[n] for n in names],
                                         line=dict(width=1, color=ink)),
                             customdata=numbers(up["level"], up["seq"], up["session"]), hovertext=escs(names),
                             hovertemplate="<b>%{hovertext}</b> reached level %{customdata[0]}<br>%{y:d} XP, "
                             "event %{customdata[1]}, session %{customdata[2]}<extra></extra>"))
    for i, (level, at) in enumerate(sorted(thresholds(f).items())):
        fig.add_hline(y=at, line=dict(dash="dash", color="#999999", width=1),
                      annotation_text=f"level {level}: {at} XP",
                      annotation_position="top left" if i % 2 else "top right")
    fig.update_layout(title="XP progress by " + ("event" if by == "event" else "session"),
                      xaxis_title="event in the log" if by == "event" else "session",
                      yaxis_title="XP", hovermode="closest", legend_title_text="delver")
    return templated(fig, template)
