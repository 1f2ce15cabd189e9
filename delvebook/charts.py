"""Plotly charts of a campaign: XP progress, heart history, dice fairness, damage, luck.

Every function takes a Campaign, a campaign folder, or the dict from ``delvebook.analysis.frames`` and
returns a ``plotly.graph_objects.Figure`` (not shown), so it can be restyled before ``fig.show()``. Each
delver keeps one colour in every chart (``delver_colors``); each player likewise (``player_colors``).
This module imports plotly; ``import delvebook`` does not.
"""

from __future__ import annotations

import html
from typing import Any, Iterable, Mapping, Sequence

from .extras import require

require("analysis", "delvebook.charts", "pandas", "plotly")  # before the imports: names the extra

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
from plotly.subplots import make_subplots

from . import analysis
from .model import STATUS_ALIVE, STATUS_DEAD

__all__ = ["xp_progress", "heart_history", "dice_fairness", "damage", "luck", "delver_colors", "player_colors",
           "PALETTE", "REPORT"]

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
           "#bcbd22", "#7f7f7f", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd")
"""Colours given out in order: the party's seat order, then recruits as they join."""
KEEPER_COLOR = "#555555"


def _frames(x: Any) -> dict[str, pd.DataFrame]:
    return analysis.frames(x, copy=False)


def _names(values: Iterable) -> list[str]:
    seen: dict[str, None] = {}
    for v in values:
        if isinstance(v, str) and v not in seen:
            seen[v] = None
    return list(seen)


def delver_colors(x: Any) -> dict[str, str]:
    """Each delver's colour: the same in every chart of a campaign (seat order, then recruits as they join)."""
    if isinstance(x, Mapping) and "hearts" in x:
        h = x["hearts"]
        names = _names(h.loc[h["side"] == "party", "who"].astype(object))
    elif isinstance(x, (list, tuple)):
        names = _names(x)
    else:
        return delver_colors(_frames(x))
    return {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(names)}


def player_colors(x: Any) -> dict[str, str]:
    """Each player's colour: their first delver's colour; the keeper is grey."""
    f = _frames(x) if not (isinstance(x, Mapping) and "hearts" in x) else x
    h = f["hearts"]
    party = h[h["side"] == "party"]
    colors = delver_colors(f)
    out: dict[str, str] = {}
    for who, player in zip(party["who"].astype(object), party["player"].astype(object)):
        if isinstance(player, str) and player not in out:
            out[player] = colors[who]
    out["keeper"] = KEEPER_COLOR
    return out


def _thresholds(f: Mapping[str, pd.DataFrame]) -> dict[int, int]:
    """XP each level above the first starts at, from the campaign's rules (the ``levels`` frame)."""
    lv = f["levels"]
    return {int(a): int(b) for a, b in zip(lv["level"], lv["xp"]) if int(b) > 0}


def _esc(v: Any) -> str:
    return html.escape(str(v))


def _escs(values: Iterable) -> list[str]:
    """Each value as escaped text (once per distinct value: a log repeats its reasons and sources)."""
    cache: dict[Any, str] = {}
    return [cache[v] if v in cache else cache.setdefault(v, _esc(v)) for v in values]


def _numbers(*columns: Sequence) -> np.ndarray:
    """Columns of whole numbers side by side, for a hover template's ``customdata``: integers (plotly sends them
    as a compact typed array), or floats with NaN where a value is missing."""
    data = np.column_stack([pd.array(c, dtype="Float64").to_numpy(dtype=float, na_value=np.nan) for c in columns])
    return data if np.isnan(data).any() else data.astype(np.int64)


def _templated(fig: go.Figure, template: Any) -> go.Figure:
    """The figure with ``template`` if the caller named one; otherwise it keeps plotly's default (what
    ``plotly.io.templates.default`` was when it was made: a dark-theme user gets dark charts)."""
    if template is not None:
        fig.update_layout(template=template)
    return fig


def _ink(template: Any) -> str:
    """A colour for outlines and marks that reads on the template's background: the template's font colour."""
    name = pio.templates.default if template is None else template
    try:
        t = pio.templates[name] if isinstance(name, str) else go.layout.Template(name)
        return t.layout.font.color or "#444444"
    except (KeyError, ValueError, TypeError):
        return "#444444"


# ---------------------------------------------------------------- XP

def xp_progress(camp: Any, by: str = "event", template: Any = None) -> go.Figure:
    """Each delver's XP across the campaign, by ``event`` (log seq) or by ``session`` (XP at each session's
    end), with the level thresholds drawn and level-ups marked. ``template``: a plotly template to draw
    with (default: plotly's current default, ``plotly.io.templates.default``)."""
    if by not in ("event", "session"):
        raise ValueError(f"by is 'event' or 'session', not {by!r}")
    f = _frames(camp)
    x = f["xp"]
    colors = delver_colors(f)
    fig = go.Figure()
    ink = _ink(template)
    ups = []
    for name in colors:
        rows = x[x["who"] == name]
        if rows.empty:
            continue
        # the numbers go to the browser as typed arrays and the words once, in the template; only the
        # reason is text per point
        if by == "event":
            trace = dict(x=rows["seq"].to_numpy(), y=rows["xp"].to_numpy(), line_shape="hv",
                         customdata=_numbers(rows["level"], rows["amount"], rows["session"]),
                         hovertext=_escs(rows["reason"].astype(object)),
                         hovertemplate=f"<b>{_esc(name)}</b>: %{{y:d}} XP (level %{{customdata[0]}})<br>"
                         "+%{customdata[1]} for %{hovertext}<br>event %{x:d}, session %{customdata[2]}<extra></extra>")
        else:
            last = rows.groupby("session", observed=True).tail(1)
            trace = dict(x=last["session"].to_numpy(dtype=np.int64), y=last["xp"].to_numpy(), line_shape="linear",
                         customdata=_numbers(last["level"])[:, 0],
                         hovertemplate=f"<b>{_esc(name)}</b>: %{{y:d}} XP (level %{{customdata}}) after session "
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
                             customdata=_numbers(up["level"], up["seq"], up["session"]), hovertext=_escs(names),
                             hovertemplate="<b>%{hovertext}</b> reached level %{customdata[0]}<br>%{y:d} XP, "
                             "event %{customdata[1]}, session %{customdata[2]}<extra></extra>"))
    for i, (level, at) in enumerate(sorted(_thresholds(f).items())):
        fig.add_hline(y=at, line=dict(dash="dash", color="#999999", width=1),
                      annotation_text=f"level {level}: {at} XP",
                      annotation_position="top left" if i % 2 else "top right")
    fig.update_layout(title="XP progress by " + ("event" if by == "event" else "session"),
                      xaxis_title="event in the log" if by == "event" else "session",
                      yaxis_title="XP", hovermode="closest", legend_title_text="delver")
    return _templated(fig, template)


# ---------------------------------------------------------------- hearts

def heart_history(camp: Any, encounter: int | None = None, template: Any = None) -> go.Figure:
    """Hearts of each combatant after every change: the party across the whole campaign, or everyone in one
    ``encounter`` (its number). Damage, healing, 0 hearts, death saves and deaths are marked. ``template``: a
    plotly template to draw with (default: plotly's current default)."""
    f = _frames(camp)
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


# ---------------------------------------------------------------- dice

def dice_fairness(camp: Any, template: Any = None) -> go.Figure:
    """Each player's D20 and D6 faces (share of their rolls) against the exact chance of each face, with a
    chi-squared test in words: within what fair dice do 9 times in 10, or not. ``template``: a plotly template
    to draw with (default: plotly's current default)."""
    f = _frames(camp)
    ink = _ink(template)
    fair = f["fairness"]
    r = f["rolls"]
    pcolors = player_colors(f)
    fig = make_subplots(rows=2, cols=1, subplot_titles=("D20", "D6"), vertical_spacing=0.14)
    lines = []
    for row, sides in ((1, 20), (2, 6)):
        probs = analysis.face_probabilities(sides)
        for _, s in fair[fair["sides"] == sides].iterrows():
            player = s["player"]
            counts = np.asarray(s["counts"])
            share = counts / counts.sum()
            verdict = s["verdict"]
            fig.add_trace(go.Bar(
                x=list(range(1, sides + 1)), y=share, name=f"{player}", legendgroup=player,
                showlegend=(row == 1 or player not in set(fair.loc[fair["sides"] == 20, "player"])),
                marker_color=pcolors.get(player, KEEPER_COLOR),
                customdata=np.column_stack([counts, [float(p) for p in probs]]),
                hovertemplate=f"<b>{_esc(player)}</b> rolled %{{x}} on a D{sides} %{{customdata[0]}} times of "
                f"{counts.sum()} (%{{y:.1%}}; fair: %{{customdata[1]:.1%}})<extra></extra>"), row=row, col=1)
            lines.append(f"{_esc(player)}, D{sides} ({s['rolls']} rolls): {_esc(verdict)} "
                         f"(χ² {s['chi2']:.1f}, p = {s['p_value']:.2f})")
        fig.add_trace(go.Scatter(x=list(range(1, sides + 1)), y=[float(p) for p in probs], mode="lines+markers",
                                 name="fair dice (exact)", legendgroup="fair", showlegend=(row == 1),
                                 line=dict(color=ink, dash="dash"), marker=dict(symbol="line-ew-open"),
                                 hovertemplate=f"a fair D{sides} shows %{{x}} with chance %{{y:.2%}}<extra></extra>"),
                      row=row, col=1)
        fig.update_xaxes(title_text=f"face of the D{sides}", dtick=1, row=row, col=1)
        fig.update_yaxes(title_text="share of rolls", tickformat=".0%", row=row, col=1)
    if len(lines) >= 5:
        lines.append(f"({len(lines)} tests: even with fair dice, about 1 in 10 falls outside by chance.)")
    n = len(lines)
    fig.update_layout(
        title="Are the dice fair? Each player's faces against fair dice", barmode="group",
        height=720 + 18 * n, margin=dict(b=60 + 18 * n), legend_title_text="player",
        meta={"verdicts": lines, "luck_dice_included": bool(r["luck"].any())})
    fig.add_annotation(text="<br>".join(lines), xref="paper", yref="paper", x=0, y=-0.08, xanchor="left",
                       yanchor="top", showarrow=False, align="left", font=dict(size=11))
    return _templated(fig, template)


# ---------------------------------------------------------------- damage

def damage(camp: Any, template: Any = None) -> go.Figure:
    """Hearts of damage each delver dealt and took (after armor), with what armor absorbed. ``template``: a
    plotly template to draw with (default: plotly's current default)."""
    f = _frames(camp)
    d = f["damage"]
    colors = delver_colors(f)
    names = list(colors)
    by = d[d["by_side"] == "party"].groupby(d["by"].astype(object))["dealt"].sum()
    took = d[d["target_side"] == "party"].groupby(d["target"].astype(object))
    taken = took["dealt"].sum()
    absorbed = took["absorbed"].sum()
    dealt_v = [int(by.get(n, 0)) for n in names]
    taken_v = [int(taken.get(n, 0)) for n in names]
    absorbed_v = [int(absorbed.get(n, 0)) for n in names]
    fig = go.Figure()
    who = _escs(names)
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
    return _templated(fig, template)


# ---------------------------------------------------------------- luck

def luck(camp: Any, template: Any = None) -> go.Figure:
    """Luck dice each player spent (still in force), by what they changed: a failure or miss turned to a
    success or hit, the reverse (a die subtracted from a foe's roll counts as the foe's failure), or only the
    total. ``template``: a plotly template to draw with (default: plotly's current default)."""
    f = _frames(camp)
    lk = f["luck"]
    pcolors = player_colors(f)
    players = [p for p in pcolors if p != "keeper"] + _names(
        p for p in lk["player"].astype(object) if p not in pcolors)
    fig = go.Figure()
    styles = {"turned to success": ("", 1.0), "turned to failure": ("x", 0.85), "changed the total only": (".", 0.45)}
    for effect, (pattern, opacity) in styles.items():
        sub = lk[lk["effect"] == effect]
        counts = sub.groupby(sub["player"].astype(object)).size()
        ys = [int(counts.get(p, 0)) for p in players]
        fig.add_trace(go.Bar(x=players, y=ys, name=effect, marker_color=[pcolors.get(p, KEEPER_COLOR) for p in players],
                             marker_pattern_shape=pattern, opacity=opacity, hovertext=_escs(players),
                             customdata=["die" if y == 1 else "dice" for y in ys],
                             hovertemplate=f"<b>%{{hovertext}}</b>: %{{y}} luck %{{customdata}} {effect}<extra></extra>"))
    fig.update_layout(title="Luck dice spent by each player, and what they changed", xaxis_title="player",
                      yaxis_title="luck dice spent", barmode="stack", legend_title_text="the luck die")
    return _templated(fig, template)


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


REPORT: list[tuple[str, Any]] = [
    ("XP progress", lambda f: xp_progress(f, by="event")),
    ("XP by session", lambda f: xp_progress(f, by="session")),
    ("Hearts across the campaign", heart_history),
    ("Hearts in the hardest fight", _hardest_fight_hearts),
    ("Dice fairness", dice_fairness),
    ("Damage", damage),
    ("Luck", luck),
]
"""The report's charts in order: (title, function of the frames giving a Figure, or None when it does not
apply). A new chart is one function and one entry here."""
