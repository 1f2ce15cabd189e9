"""Plotly charts of a campaign: XP progress, heart history, dice fairness, damage, luck.

Every function takes a Campaign, a campaign folder, or the dict from ``delvebook.analysis.frames`` and
returns a ``plotly.graph_objects.Figure`` (not shown), so it can be restyled before ``fig.show()``. Each
delver keeps one colour in every chart (``delver_colors``); each player likewise (``player_colors``).
This module imports plotly; ``import delvebook`` does not.
"""

from __future__ import annotations

import html
from typing import Any, Iterable, Mapping

from .extras import require

require("analysis", "delvebook.charts", "pandas", "plotly")  # before the imports: names the extra

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from . import analysis

__all__ = ["xp_progress", "heart_history", "dice_fairness", "damage", "luck", "delver_colors", "player_colors",
           "PALETTE", "REPORT"]

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
           "#bcbd22", "#7f7f7f", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd")
"""Colours given out in order: the party's seat order, then recruits as they join."""
KEEPER_COLOR = "#555555"

_TEMPLATE = "plotly_white"


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


# ---------------------------------------------------------------- XP

def xp_progress(camp: Any, by: str = "event") -> go.Figure:
    """Each delver's XP across the campaign, by ``event`` (log seq) or by ``session`` (XP at each session's
    end), with the level thresholds drawn and level-ups marked."""
    if by not in ("event", "session"):
        raise ValueError(f"by is 'event' or 'session', not {by!r}")
    f = _frames(camp)
    x = f["xp"]
    colors = delver_colors(f)
    fig = go.Figure()
    ups_x, ups_y, ups_text, ups_color = [], [], [], []
    for name in colors:
        rows = x[x["who"] == name]
        if rows.empty:
            continue
        if by == "event":
            xs = rows["seq"].to_numpy()
            ys = rows["xp"].to_numpy()
            hover = [f"<b>{_esc(name)}</b>: {xp} XP (level {lv})<br>+{a} for {_esc(r)}<br>event {s}, session {se}"
                     for xp, lv, a, r, s, se in zip(ys.tolist(), rows["level"].tolist(), rows["amount"].tolist(),
                                                    rows["reason"].astype(object).tolist(), xs.tolist(),
                                                    rows["session"].tolist())]
            shape = "hv"
        else:
            last = rows.groupby("session", observed=True).tail(1)
            xs = last["session"].to_numpy(dtype=np.int64)
            ys = last["xp"].to_numpy()
            hover = [f"<b>{_esc(name)}</b>: {xp} XP (level {lv}) after session {se}"
                     for xp, lv, se in zip(ys, last["level"], xs)]
            shape = "linear"
        fig.add_trace(go.Scatter(x=xs, y=ys, name=name, mode="lines", line=dict(color=colors[name], shape=shape),
                                 hovertext=hover, hoverinfo="text", legendgroup=name))
        ups = rows[rows["level_up"]]
        for _, r in ups.iterrows():
            ups_x.append(int(r["seq"]) if by == "event" else int(r["session"]))
            ups_y.append(int(r["xp"]))
            ups_text.append(f"<b>{_esc(name)}</b> reached level {r['level']}<br>{r['xp']} XP, "
                            f"event {r['seq']}, session {r['session']}")
            ups_color.append(colors[name])
    fig.add_trace(go.Scatter(x=ups_x, y=ups_y, name="level-ups", mode="markers",
                             marker=dict(symbol="star", size=13, color=ups_color, line=dict(width=1, color="black")),
                             hovertext=ups_text, hoverinfo="text"))
    for i, (level, at) in enumerate(sorted(_thresholds(f).items())):
        fig.add_hline(y=at, line=dict(dash="dash", color="#999999", width=1),
                      annotation_text=f"level {level}: {at} XP",
                      annotation_position="top left" if i % 2 else "top right")
    fig.update_layout(title="XP progress by " + ("event" if by == "event" else "session"),
                      xaxis_title="event in the log" if by == "event" else "session",
                      yaxis_title="XP", template=_TEMPLATE, hovermode="closest", legend_title_text="delver")
    return fig


# ---------------------------------------------------------------- hearts

def heart_history(camp: Any, encounter: int | None = None) -> go.Figure:
    """Hearts of each combatant after every change: the party across the whole campaign, or everyone in one
    ``encounter`` (its number). Damage, healing, 0 hearts, death saves and deaths are marked."""
    f = _frames(camp)
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
                        | (before["status"].astype(object) != "dead")].copy()
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
        hover = [f"<b>{_esc(name)}</b>: {hv}/{mx} hearts ({st})<br>{_esc(src)}"
                 + (f": {int(c):+d}" if pd.notna(c) else "") + f"<br>event {s}"
                 + (f", session {se}" if pd.notna(se) else "")
                 + (f", round {rd}" if pd.notna(rd) else "")
                 for hv, mx, st, src, c, s, se, rd in zip(*(r[k].astype(object).tolist() for k in (
                     "hearts", "max_hearts", "status", "source", "change", "seq", "session", "round")))]
        fig.add_trace(go.Scatter(x=r["seq"].to_numpy(), y=r["hearts"].to_numpy(dtype=float, na_value=np.nan),
                                 name=name, mode="lines", legendgroup=name,
                                 line=dict(color=color, shape="hv", dash="solid" if side == "party" else "dot"),
                                 hovertext=hover, hoverinfo="text"))

    def marks(mask, name, symbol, color, size=8, text="") -> None:
        m = rows[mask]
        hover = [f"<b>{_esc(w)}</b> {text}: {hv} hearts<br>{_esc(src)}, event {s}"
                 for w, hv, src, s in zip(*(m[k].astype(object).tolist() for k in ("who", "hearts", "source", "seq")))]
        fig.add_trace(go.Scatter(x=m["seq"].to_numpy(), y=m["hearts"].to_numpy(dtype=float, na_value=np.nan),
                                 name=name, mode="markers", hovertext=hover, hoverinfo="text",
                                 marker=dict(symbol=symbol, size=size, color=color,
                                             line=dict(width=1, color="black"))))

    change = rows["change"].fillna(0)
    marks(change < 0, "damage", "triangle-down", "#e45756", 6, "took damage")
    marks(change > 0, "healing", "triangle-up", "#54a24b", 6, "healed")
    marks((rows["hearts"] == 0).fillna(False) & (change < 0), "0 hearts", "circle-open", "#000000", 10,
          "fell to 0 hearts")
    ds = rows["death_save"]
    marks(ds & rows["death_save_success"].fillna(False).astype(bool), "death save made", "diamond", "#f2cf5b", 11,
          "made a death save")
    marks(ds & ~rows["death_save_success"].fillna(True).astype(bool), "death save failed", "diamond-open",
          "#b279a2", 11, "failed a death save")
    marks(rows["death"], "deaths", "x", "#000000", 13, "died")
    fig.add_hline(y=0, line=dict(color="#bbbbbb", width=1))
    fig.update_layout(title=title, xaxis_title="event in the log", yaxis_title="hearts", template=_TEMPLATE,
                      hovermode="closest", legend_title_text="combatant")
    return fig


# ---------------------------------------------------------------- dice

def dice_fairness(camp: Any) -> go.Figure:
    """Each player's D20 and D6 faces (share of their rolls) against the exact chance of each face, with a
    chi-squared test in words: within what fair dice do 9 times in 10, or not."""
    f = _frames(camp)
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
                hovertext=[f"<b>{_esc(player)}</b> rolled {face} on a D{sides} {c} times of {counts.sum()} "
                           f"({p:.1%}; fair: {float(probs[face - 1]):.1%})"
                           for face, c, p in zip(range(1, sides + 1), counts, share)],
                hoverinfo="text"), row=row, col=1)
            lines.append(f"{_esc(player)}, D{sides} ({s['rolls']} rolls): {_esc(verdict)} "
                         f"(χ² {s['chi2']:.1f}, p = {s['p_value']:.2f})")
        fig.add_trace(go.Scatter(x=list(range(1, sides + 1)), y=[float(p) for p in probs], mode="lines+markers",
                                 name="fair dice (exact)", legendgroup="fair", showlegend=(row == 1),
                                 line=dict(color="black", dash="dash"), marker=dict(symbol="line-ew-open"),
                                 hovertext=[f"a fair D{sides} shows {k} with chance {float(p):.2%}"
                                            for k, p in zip(range(1, sides + 1), probs)], hoverinfo="text"),
                      row=row, col=1)
        fig.update_xaxes(title_text=f"face of the D{sides}", dtick=1, row=row, col=1)
        fig.update_yaxes(title_text="share of rolls", tickformat=".0%", row=row, col=1)
    if len(lines) >= 5:
        lines.append(f"({len(lines)} tests: even with fair dice, about 1 in 10 falls outside by chance.)")
    n = len(lines)
    fig.update_layout(
        title="Are the dice fair? Each player's faces against fair dice", barmode="group", template=_TEMPLATE,
        height=720 + 18 * n, margin=dict(b=60 + 18 * n), legend_title_text="player",
        meta={"verdicts": lines, "luck_dice_included": bool(r["luck"].any())})
    fig.add_annotation(text="<br>".join(lines), xref="paper", yref="paper", x=0, y=-0.08, xanchor="left",
                       yanchor="top", showarrow=False, align="left", font=dict(size=11))
    return fig


# ---------------------------------------------------------------- damage

def damage(camp: Any) -> go.Figure:
    """Hearts of damage each delver dealt and took (after armor), with what armor absorbed."""
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
    fig.add_trace(go.Bar(x=names, y=dealt_v, name="damage dealt", marker_color=[colors[n] for n in names],
                         hovertext=[f"<b>{_esc(n)}</b> dealt {v} hearts of damage" for n, v in zip(names, dealt_v)],
                         hoverinfo="text", offsetgroup="dealt"))
    fig.add_trace(go.Bar(x=names, y=taken_v, name="damage taken", marker_color=[colors[n] for n in names],
                         marker_pattern_shape="/", opacity=0.75,
                         hovertext=[f"<b>{_esc(n)}</b> lost {v} hearts to damage" for n, v in zip(names, taken_v)],
                         hoverinfo="text", offsetgroup="taken"))
    fig.add_trace(go.Bar(x=names, y=absorbed_v, base=taken_v, name="absorbed by armor", marker_color="#bbbbbb",
                         hovertext=[f"<b>{_esc(n)}</b>'s armor absorbed {v} hearts of damage"
                                    for n, v in zip(names, absorbed_v)],
                         hoverinfo="text", offsetgroup="taken"))
    fig.update_layout(title="Damage dealt and taken by each delver", xaxis_title="delver",
                      yaxis_title="hearts of damage", template=_TEMPLATE, barmode="group")
    return fig


# ---------------------------------------------------------------- luck

def luck(camp: Any) -> go.Figure:
    """Luck dice each player spent (still in force), by what they changed: a failure or miss turned to a
    success or hit, the reverse (a die subtracted from a foe's roll counts as the foe's failure), or only the
    total."""
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
                             marker_pattern_shape=pattern, opacity=opacity,
                             hovertext=[f"<b>{_esc(p)}</b>: {y} luck {'die' if y == 1 else 'dice'} {effect}"
                                        for p, y in zip(players, ys)], hoverinfo="text"))
    fig.update_layout(title="Luck dice spent by each player, and what they changed", xaxis_title="player",
                      yaxis_title="luck dice spent", template=_TEMPLATE, barmode="stack",
                      legend_title_text="the luck die")
    return fig


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
