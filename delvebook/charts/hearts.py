"""Hearts: one fight's combatants, or the party across the campaign."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go

from ..model import STATUS_ALIVE, STATUS_DEAD
from .common import _esc, _escs, _ink, _names, _numbers, _templated, delver_colors, frames_of

__all__ = ["heart_history"]

def heart_history(camp: Any, encounter: int | None = None, template: Any = None) -> go.Figure:
    """Hearts of each combatant after every change: the party across the whole campaign, or everyone in one
    ``encounter`` (its number). Damage, healing, 0 hearts, death saves and deaths are marked. ``template``: a
    plotly template to draw with (default: plotly's current default)."""
    f = frames_of(camp)
    ink = _ink(template)
    h = f["hearts"]
    colors = delver_colors(f)
    if encounter is None:
        rows = h[h["side"] == "party"]
        title = "Hearts of the party across the campaign"
    else:
        rows = h[h["encounter"] == encounter]
        enc = f["encounters"]
        named = enc.loc[enc["encounter"] == encounter, "name"]
        label = f"{named.iloc[0]}" if len(named) else f"encounter {encounter}"
        title = f"Hearts in {label}"
        if rows.empty:
            raise ValueError(f"no encounter {encounter} in force in this campaign")
        first_seq = int(rows["seq"].min())
        # the party's hearts as the fight began (drawn at its first event, with no marks of their own)
        before = h[(h["side"] == "party") & (h["seq"] < first_seq)].groupby("who", observed=True).tail(1)
        in_fight = set(rows.loc[rows["side"] == "party", "who"].astype(object))
        before = before[before["who"].astype(object).isin(in_fight)
                        | (before["status"].astype(object) != STATUS_DEAD)].copy()
        before["seq"] = first_seq
        before["change"] = pd.array([pd.NA] * len(before), dtype="Int64")
        before[["death", "death_save", "down"]] = False
        before["source"] = "as the fight began"
        # the death saves rolled after it, until the next fight begins in that session
        starts = enc.sort_values("start_seq")
        later = starts[starts["start_seq"] > first_seq]["start_seq"]
        stop = int(later.iloc[0]) if len(later) else int(h["seq"].max()) + 1
        session = rows["session"].dropna()
        after = h[(h["side"] == "party") & (h["seq"] > rows["seq"].max()) & (h["seq"] < stop)
                  & (h["death_save"] | h["death"])]
        if len(session):
            after = after[after["session"] == session.iloc[-1]]
        rows = pd.concat([before, rows, after]).sort_values("seq", kind="stable")
    fig = go.Figure()
    foe_palette = ["#444444", "#7f7f7f", "#a0522d", "#556b2f", "#708090", "#8b4513"]
    names = _names(rows["who"].astype(object))
    for i, name in enumerate(names):
        r = rows[rows["who"] == name]
        side = r["side"].iloc[0]
        color = colors.get(name) if side == "party" else foe_palette[i % len(foe_palette)]
        # numbers as typed arrays and the words once, in the template; per point only the source (with the
        # change, and the status unless alive) and the session and round where the point has them
        what = [src + (f": {int(c):+d}" if pd.notna(c) else "") + ("" if st == STATUS_ALIVE else f", {st}")
                for src, c, st in zip(_escs(r["source"].astype(object)), r["change"].astype(object),
                                      _escs(r["status"].astype(object)))]
        where = [(f", session {se}" if pd.notna(se) else "") + (f", round {rd}" if pd.notna(rd) else "")
                 for se, rd in zip(r["session"].astype(object), r["round"].astype(object))]
        fig.add_trace(go.Scatter(x=r["seq"].to_numpy(), y=_numbers(r["hearts"])[:, 0],
                                 name=name, mode="lines", legendgroup=name,
                                 line=dict(color=color, shape="hv", dash="solid" if side == "party" else "dot"),
                                 customdata=_numbers(r["max_hearts"])[:, 0], hovertext=what, text=where,
                                 hovertemplate=f"<b>{_esc(name)}</b>: %{{y}}/%{{customdata}} hearts<br>%{{hovertext}}"
                                 "<br>event %{x:d}%{text}<extra></extra>"))

    def marks(mask, name, symbol, color, size=8, text="") -> None:
        m = rows[mask]
        fig.add_trace(go.Scatter(x=m["seq"].to_numpy(), y=_numbers(m["hearts"])[:, 0],
                                 name=name, mode="markers", text=_escs(m["who"].astype(object)),
                                 hovertext=_escs(m["source"].astype(object)),
                                 hovertemplate=f"<b>%{{text}}</b> {text}: %{{y}} hearts<br>%{{hovertext}}, event "
                                 "%{x:d}<extra></extra>",
                                 marker=dict(symbol=symbol, size=size, color=color,
                                             line=dict(width=1, color=ink))))

    change = rows["change"].fillna(0)
    marks(change < 0, "damage", "triangle-down", "#e45756", 6, "took damage")
    marks(change > 0, "healing", "triangle-up", "#54a24b", 6, "healed")
    marks((rows["hearts"] == 0).fillna(False) & (change < 0), "0 hearts", "circle-open", ink, 10,
          "fell to 0 hearts")
    ds = rows["death_save"]
    marks(ds & rows["death_save_success"].fillna(False).astype(bool), "death save made", "diamond", "#f2cf5b", 11,
          "made a death save")
    marks(ds & ~rows["death_save_success"].fillna(True).astype(bool), "death save failed", "diamond-open",
          "#b279a2", 11, "failed a death save")
    marks(rows["death"], "deaths", "x", ink, 13, "died")
    fig.add_hline(y=0, line=dict(color="#bbbbbb", width=1))
    fig.update_layout(title=title, xaxis_title="event in the log", yaxis_title="hearts", hovermode="closest",
                      legend_title_text="combatant")
    return _templated(fig, template)
