"""Hearts: one fight's combatants, the party after every change, or each delver session by session (small
multiples: one panel per delver)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..core.model import STATUS_ALIVE, STATUS_DEAD
from .common import esc, escs, ink_of, names_in, numbers, templated, delver_colors, frames_of

__all__ = ["heart_history", "hearts_by_session", "session_bands"]

def heart_history(camp: Any, encounter: int | None = None, template: Any = None) -> go.Figure:
    """Hearts of each combatant after every change: the party across the whole campaign, or everyone in one
    ``encounter`` (its number). Damage, healing, 0 hearts, death saves and deaths are marked. ``template``: a
    plotly template to draw with (default: plotly's current default)."""
    f = frames_of(camp)
    ink = ink_of(template)
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
    names = names_in(rows["who"].astype(object))
    for i, name in enumerate(names):
        r = rows[rows["who"] == name]
        side = r["side"].iloc[0]
        color = colors.get(name) if side == "party" else foe_palette[i % len(foe_palette)]
        # numbers as typed arrays and the words once, in the template; per point only the source (with the
        # change, and the status unless alive) and the session and round where the point has them
        what = [src + (f": {int(c):+d}" if pd.notna(c) else "") + ("" if st == STATUS_ALIVE else f", {st}")
                for src, c, st in zip(escs(r["source"].astype(object)), r["change"].astype(object),
                                      escs(r["status"].astype(object)))]
        where = [(f", session {se}" if pd.notna(se) else "") + (f", round {rd}" if pd.notna(rd) else "")
                 for se, rd in zip(r["session"].astype(object), r["round"].astype(object))]
        fig.add_trace(go.Scatter(x=r["seq"].to_numpy(), y=numbers(r["hearts"])[:, 0],
                                 name=name, mode="lines", legendgroup=name,
                                 line=dict(color=color, shape="hv", dash="solid" if side == "party" else "dot"),
                                 customdata=numbers(r["max_hearts"])[:, 0], hovertext=what, text=where,
                                 hovertemplate=f"<b>{esc(name)}</b>: %{{y}}/%{{customdata}} hearts<br>%{{hovertext}}"
                                 "<br>event %{x:d}%{text}<extra></extra>"))

    def marks(mask, name, symbol, color, size=8, text="") -> None:
        m = rows[mask]
        fig.add_trace(go.Scatter(x=m["seq"].to_numpy(), y=numbers(m["hearts"])[:, 0],
                                 name=name, mode="markers", text=escs(m["who"].astype(object)),
                                 hovertext=escs(m["source"].astype(object)),
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
    return templated(fig, template)


# ---------------------------------------------------------------- the party across the campaign, one panel each

def session_bands(camp: Any) -> pd.DataFrame:
    """Each delver's hearts in each session it played (from the session it joined, or the first, to the one it
    died in, or the last): ``who``, ``session``, ``low`` and ``high`` (the fewest and most hearts it had in the
    session, counting those it began the session with), ``end`` (hearts as the session ended), ``max_hearts``,
    ``death`` (died in this session), ``saves_made`` and ``saves_failed`` (death saves). An event between two
    sessions counts in the one before it (an event's ``session`` is the latest begun); hearts from before the first
    session are what a delver begins it with."""
    f = frames_of(camp)
    h = f["hearts"]
    ev = f["events"]
    # an event's session is the latest begun (0 before the first): one between sessions counts in the one before
    session_at = dict(zip(ev["seq"].tolist(), ev["session"].astype(object).tolist()))
    sessions = sorted({int(s) for s in session_at.values() if pd.notna(s) and s > 0})
    party = h[h["side"] == "party"]
    rows = []
    for name in names_in(party["who"].astype(object)):
        r = party[party["who"] == name]
        where = [session_at.get(int(q)) for q in r["seq"]]
        carry = None  # (hearts, max_hearts) it begins the next session with
        by_session: dict[int, list] = {}
        for s, hearts, top, death, save, ok in zip(where, r["hearts"], r["max_hearts"], r["death"],
                                                   r["death_save"], r["death_save_success"].astype(object)):
            if s is None or pd.isna(s) or s < 1:
                carry = (hearts, top)
                continue
            by_session.setdefault(int(s), []).append((hearts, top, bool(death), bool(save), ok))
        if not by_session and carry is None:
            continue
        first = sessions[0] if carry is not None and sessions else min(by_session, default=None)
        if first is None:
            continue
        for s in (s for s in sessions if s >= first):
            seen = by_session.get(s, [])
            values = ([carry[0]] if carry is not None else []) + [v[0] for v in seen]
            values = [int(v) for v in values if pd.notna(v)]
            if not values:
                continue
            top = seen[-1][1] if seen else carry[1]
            died = any(v[2] for v in seen)
            rows.append({"who": name, "session": s, "low": min(values), "high": max(values), "end": values[-1],
                         "max_hearts": int(top) if pd.notna(top) else None, "death": died,
                         "saves_made": sum(1 for v in seen if v[3] and v[4] is True),
                         "saves_failed": sum(1 for v in seen if v[3] and v[4] is False)})
            carry = (values[-1], top)
            if died:
                break
    out = pd.DataFrame(rows, columns=["who", "session", "low", "high", "end", "max_hearts", "death", "saves_made",
                                      "saves_failed"])
    for col in ("session", "low", "high", "end", "saves_made", "saves_failed"):
        out[col] = out[col].astype("int64")
    out["max_hearts"] = out["max_hearts"].astype("Int64")
    out["death"] = out["death"].astype(bool)
    return out


def _rgba(color: str, alpha: float) -> str:
    """``#rrggbb`` with an alpha, for a fill that lets the grid show through."""
    c = color.lstrip("#")
    return f"rgba({int(c[0:2], 16)}, {int(c[2:4], 16)}, {int(c[4:6], 16)}, {alpha})"


def hearts_by_session(camp: Any, columns: int = 4, template: Any = None) -> go.Figure:
    """The party's hearts across the campaign, one small panel per delver over the sessions it played: a band from
    its fewest to its most hearts in each session, its maximum hearts dotted, its death saves (made, failed)
    and its death marked at 0. The panels share both axes, so delvers and sessions compare at a glance; readable
    for a dozen delvers and a hundred sessions on a laptop's width. ``columns``: panels a row. ``template``: a
    plotly template to draw with (default: plotly's current default)."""
    f = frames_of(camp)
    ink = ink_of(template)
    bands = session_bands(f)
    colors = delver_colors(f)
    h = f["hearts"]
    party = h[h["side"] == "party"]
    players = dict(zip(party["who"].astype(object), party["player"].astype(object)))
    names = [n for n in colors if (bands["who"] == n).any()]
    cols = max(1, min(columns, len(names) or 1))
    nrows = max(1, -(-len(names) // cols))
    titles = []
    for name in names:
        b = bands[bands["who"] == name]
        died = b.loc[b["death"], "session"]
        player = players.get(name)
        titles.append(f"<b>{esc(name)}</b>" + (f" ({esc(player)})" if isinstance(player, str) else "")
                      + (f" · died in session {int(died.iloc[0])}" if len(died) else ""))
    fig = make_subplots(rows=nrows, cols=cols, shared_xaxes="all", shared_yaxes="all", subplot_titles=titles or None,
                        horizontal_spacing=0.025, vertical_spacing=0.5 / (nrows + 1) if nrows > 1 else 0.1)
    legend_shown: set[str] = set()

    def once(key: str) -> bool:
        first = key not in legend_shown
        legend_shown.add(key)
        return first

    for i, name in enumerate(names):
        row, col = i // cols + 1, i % cols + 1
        b = bands[bands["who"] == name]
        x = b["session"].to_numpy()
        color = colors[name]
        # one bar a session, from its fewest to its most hearts (a session with no change: a thin bar at its hearts)
        low, high = b["low"].to_numpy(), b["high"].to_numpy()
        fig.add_trace(go.Bar(
            x=x, base=low, y=[max(hi - lo, 0.35) for lo, hi in zip(low, high)], width=1.0,
            marker=dict(color=_rgba(color, 0.55), line=dict(width=0)), name="fewest to most hearts in a session",
            legendgroup="band", showlegend=once("band"), customdata=numbers(b["low"], b["high"], b["end"],
                                                                             b["max_hearts"]),
            hovertemplate=f"<b>{esc(name)}</b>, session %{{x}}: %{{customdata[0]}} to %{{customdata[1]}} hearts of "
            "%{customdata[3]}<br>ended it with %{customdata[2]}<extra></extra>"), row=row, col=col)
        fig.add_trace(go.Scatter(x=x, y=numbers(b["max_hearts"])[:, 0], mode="lines", name="maximum hearts",
                                 legendgroup="max", showlegend=once("max"), hoverinfo="skip",
                                 line=dict(color=ink, width=0.7, dash="dot", shape="hvh")), row=row, col=col)
        for mask, label, symbol, mcolor, size, count in (
                (b["saves_made"] > 0, "death save made", "diamond", "#f2cf5b", 9, "saves_made"),
                (b["saves_failed"] > 0, "death save failed", "diamond-open", "#b279a2", 9, "saves_failed"),
                (b["death"], "death", "x", ink, 11, None)):
            m = b[mask]
            if m.empty:
                continue
            what = "died" if count is None else "%{customdata}× " + label
            fig.add_trace(go.Scatter(
                x=m["session"].to_numpy(), y=[0] * len(m), mode="markers", name=label, legendgroup=label,
                showlegend=once(label), customdata=None if count is None else m[count].to_numpy(),
                marker=dict(symbol=symbol, size=size, color=mcolor, line=dict(width=1, color=ink)),
                hovertemplate=f"<b>{esc(name)}</b>, session %{{x}}: {what}<extra></extra>"), row=row, col=col)
    top = int(bands["max_hearts"].max()) if len(bands) and bands["max_hearts"].notna().any() else 1
    fig.update_yaxes(range=[-1.5, top * 1.08 + 1], nticks=4)
    fig.update_xaxes(nticks=6)
    for c in range(1, cols + 1):
        fig.update_xaxes(title_text="session", row=nrows, col=c)
    for r in range(1, nrows + 1):
        fig.update_yaxes(title_text="hearts", row=r, col=1)
    fig.update_annotations(font_size=12)
    fig.update_layout(title="Hearts of each delver, session by session", height=170 * nrows + 150,
                      hovermode="closest", bargap=0, legend=dict(orientation="h", y=-0.06 - 0.25 / nrows, x=0),
                      margin=dict(t=80, b=60))
    return templated(fig, template)
