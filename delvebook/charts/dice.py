"""Dice: whether each player's dice rolled fair, and the luck dice they spent."""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .. import analysis
from .common import KEEPER_COLOR, esc, escs, ink_of, names_in, templated, frames_of, player_colors

__all__ = ["dice_fairness", "luck"]

def dice_fairness(camp: Any, template: Any = None) -> go.Figure:
    """Each player's D20 and D6 faces (share of their rolls) against the exact chance of each face, with a
    chi-squared test in words: within what fair dice do 9 times in 10, or not. ``template``: a plotly template
    to draw with (default: plotly's current default)."""
    f = frames_of(camp)
    ink = ink_of(template)
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
                hovertemplate=f"<b>{esc(player)}</b> rolled %{{x}} on a D{sides} %{{customdata[0]}} times of "
                f"{counts.sum()} (%{{y:.1%}}; fair: %{{customdata[1]:.1%}})<extra></extra>"), row=row, col=1)
            lines.append(f"{esc(player)}, D{sides} ({s['rolls']} rolls): {esc(verdict)} "
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
    return templated(fig, template)


def luck(camp: Any, template: Any = None) -> go.Figure:
    """Luck dice each player spent (still in force), by what they changed: a failure or miss turned to a
    success or hit, the reverse (a die subtracted from a foe's roll counts as the foe's failure), or only the
    total. ``template``: a plotly template to draw with (default: plotly's current default)."""
    f = frames_of(camp)
    lk = f["luck"]
    pcolors = player_colors(f)
    players = [p for p in pcolors if p != "keeper"] + names_in(
        p for p in lk["player"].astype(object) if p not in pcolors)
    fig = go.Figure()
    styles = {"turned to success": ("", 1.0), "turned to failure": ("x", 0.85), "changed the total only": (".", 0.45)}
    for effect, (pattern, opacity) in styles.items():
        sub = lk[lk["effect"] == effect]
        counts = sub.groupby(sub["player"].astype(object)).size()
        ys = [int(counts.get(p, 0)) for p in players]
        fig.add_trace(go.Bar(x=players, y=ys, name=effect, marker_color=[pcolors.get(p, KEEPER_COLOR) for p in players],
                             marker_pattern_shape=pattern, opacity=opacity, hovertext=escs(players),
                             customdata=["die" if y == 1 else "dice" for y in ys],
                             hovertemplate=f"<b>%{{hovertext}}</b>: %{{y}} luck %{{customdata}} {effect}<extra></extra>"))
    fig.update_layout(title="Luck dice spent by each player, and what they changed", xaxis_title="player",
                      yaxis_title="luck dice spent", barmode="stack", legend_title_text="the luck die")
    return templated(fig, template)
