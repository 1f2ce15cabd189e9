"""Damage each delver dealt and took, and what armor absorbed."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from .common import escs, templated, delver_colors, frames_of

__all__ = ["damage"]

def damage(camp: Any, template: Any = None) -> go.Figure:
    """Hearts of damage each delver dealt and took (after armor), with what armor absorbed. ``template``: a
    plotly template to draw with (default: plotly's current default)."""
    f = frames_of(camp)
    d = f["damage"]
    colors = delver_colors(f)
    names = list(colors)
    by = d[d["dealer_side"] == "party"].groupby(d["dealer"].astype(object))["dealt"].sum()
    took = d[d["target_side"] == "party"].groupby(d["target"].astype(object))
    taken = took["dealt"].sum()
    absorbed = took["absorbed"].sum()
    dealt_v = [int(by.get(n, 0)) for n in names]
    taken_v = [int(taken.get(n, 0)) for n in names]
    absorbed_v = [int(absorbed.get(n, 0)) for n in names]
    fig = go.Figure()
    who = escs(names)
    fig.add_trace(go.Bar(x=names, y=dealt_v, name="damage dealt", marker_color=[colors[n] for n in names],
                         hovertext=who, hovertemplate="<b>%{hovertext}</b> dealt %{y} hearts of damage<extra></extra>",
                         offsetgroup="dealt"))
    fig.add_trace(go.Bar(x=names, y=taken_v, name="damage taken", marker_color=[colors[n] for n in names],
                         marker_pattern_shape="/", opacity=0.75, hovertext=who,
                         hovertemplate="<b>%{hovertext}</b> lost %{y} hearts to damage<extra></extra>",
                         offsetgroup="taken"))
    fig.add_trace(go.Bar(x=names, y=absorbed_v, base=taken_v, name="absorbed by armor", marker_color="#bbbbbb",
                         hovertext=who, customdata=absorbed_v,
                         hovertemplate="<b>%{hovertext}</b>'s armor absorbed %{customdata} hearts of damage"
                         "<extra></extra>", offsetgroup="taken"))
    fig.update_layout(title="Damage dealt and taken by each delver", xaxis_title="delver",
                      yaxis_title="hearts of damage", barmode="group")
    return templated(fig, template)
