"""One HTML file for a finished campaign: a summary table and every chart, readable offline.

plotly.js is embedded once (about 4.6 MB) so the file opens with no network; ``cdn=True`` links it from
the plotly CDN instead (a small file that needs the internet). Every value from the campaign written into the
page, numbers included, goes through one escape (``dice_html.escape_html``) where it is written.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from ..core.dice_html import escape_html as esc

__all__ = ["write_report", "report_html"]


def _say(progress: Callable[[str], None] | None, msg: str) -> None:
    if progress is not None:
        progress(msg)


def _summary(camp, f) -> str:
    ev, enc, h, d, lk, xp = f["events"], f["encounters"], f["hearts"], f["damage"], f["luck"], f["xp"]
    status = ev["status"].value_counts()
    sessions = int(ev["session"].max()) if ev["session"].notna().any() else 0
    facts = [
        ("sessions", sessions),
        ("events in the log", f"{len(ev):,}"),
        ("in force", f"{int(status.get('in force', 0)):,}"),
        ("undone / replaced by luck or typed dice",
         f"{int(status.get('undone', 0)):,} / {int(status.get('replaced', 0)):,}"),
        ("fights", f"{len(enc):,}"),
        ("foes vanquished", f"{int(enc['vanquished'].sum()):,}"),
        ("delvers who died", int(h.loc[h["side"] == "party", "death"].sum())),
        ("luck dice spent (in force)", f"{len(lk):,}"),
    ]
    rows = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in facts)
    party = h[h["side"] == "party"]
    last = party.groupby("who", observed=True).tail(1).set_index("who")
    dealt = d[d["dealer_side"] == "party"].groupby(d["dealer"].astype(object))["dealt"].sum()
    taken = d[d["target_side"] == "party"].groupby(d["target"].astype(object))["dealt"].sum()
    spent = lk.groupby(lk["player"].astype(object)).size()
    xp_last = xp.groupby("who", observed=True).tail(1).set_index("who")
    state = camp.state["delvers"] if camp is not None else {}
    body = []
    from . import delver_colors
    colors = delver_colors(f)
    for name in colors:
        s = state.get(name, {})
        hr = last.loc[name] if name in last.index else None
        xr = xp_last.loc[name] if name in xp_last.index else None
        player = s.get("player") or (hr["player"] if hr is not None else "")
        cells = [
            f'<span class="swatch" style="background:{esc(colors[name])}"></span>{esc(name)}',
            esc(s.get("class_name") or s.get("class_id") or ""),
            esc(player),
            esc(s.get("level", xr["level"] if xr is not None else "")),
            esc(s.get("xp", xr["xp"] if xr is not None else 0)),
            esc(f"{hr['hearts']}/{hr['max_hearts']}" if hr is not None else ""),
            esc(s.get("status", hr["status"] if hr is not None else "")),
            esc(int(dealt.get(name, 0))), esc(int(taken.get(name, 0))),
        ]
        body.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    players = "".join(f"<tr><td>{esc(p)}</td><td>{esc(int(n))}</td></tr>" for p, n in spent.items())
    fair = f["fairness"]
    fair_rows = "".join(
        f"<tr><td>{esc(r.player)}</td><td>{esc(r.die)}</td><td>{esc(r.rolls)}</td>"
        f"<td>{esc(f'{r.p_value:.2f}')}</td><td>{esc(r.verdict)}</td></tr>" for r in fair.itertuples())
    return (f'<table class="facts">{rows}</table>'
            '<h2>The delvers</h2><table class="party"><tr><th>delver</th><th>class</th><th>player</th>'
            '<th>level</th><th>XP</th><th>hearts</th><th>status</th><th>damage dealt</th><th>damage taken</th></tr>'
            + "".join(body) + "</table>"
            '<h2>Luck dice spent</h2><table class="luck"><tr><th>player</th><th>luck dice</th></tr>'
            + players + "</table>"
            '<h2>Dice fairness</h2><table class="fair"><tr><th>player</th><th>die</th><th>rolls</th>'
            '<th>p-value</th><th>verdict</th></tr>' + fair_rows + "</table>")


def _notes(fig) -> str:
    """A chart's words (``layout.meta["notes"]``: [heading, lines] pairs) as headed lists, and its tables
    (``layout.meta["tables"]``: ``heading``, ``head``, ``rows``), escaped."""
    meta = fig.layout.meta
    notes = meta.get("notes") if isinstance(meta, dict) else None
    tables = meta.get("tables") if isinstance(meta, dict) else None
    return ("".join(f"<h3>{esc(head)}</h3><ul>" + "".join(f"<li>{esc(line)}</li>" for line in lines) + "</ul>"
                    for head, lines in notes or ())
            + "".join(f'<h3>{esc(t["heading"])}</h3><table class="numbers"><tr>'
                      + "".join(f"<th>{esc(h)}</th>" for h in t["head"]) + "</tr>"
                      + "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in t["rows"])
                      + "</table>" for t in tables or ()))


def _tenths(progress: Callable[[str], None] | None) -> Callable[[int, int], None] | None:
    """A (done, total) callback that says so on ``progress`` at each tenth of the way."""
    if progress is None:
        return None
    said = set()

    def step(done: int, total: int) -> None:
        tenth = 10 * done // max(total, 1)
        if tenth not in said:
            said.add(tenth)
            progress(f"forecast {done:,} of {total:,} fights again")
    return step


def _sessions(camp) -> str:
    """Each session told (``delvebook.narrate.recap``), folded: a keeper opens the one to read before the next."""
    from ..narrate.recap import recaps
    told = recaps(camp)
    if not told:
        return ""
    folds = []
    for r in told:
        folds.append(f'<details><summary>{esc(r.summary)}</summary>{r.html()}</details>')
    return ('<section class="sessions"><h2>Previously on... each session told</h2><p>What stands of each '
            "session, told as the table tells it: where the party went, its fights, level-ups, luck that turned a "
            "roll, coins and XP (<code>delvebook recap CAMPAIGN --session N</code> gives one as Markdown).</p>"
            + "".join(folds) + "</section>")


def report_html(camp_or_path: Any, cdn: bool = False, progress: Callable[[str], None] | None = None,
                calibration: bool = True) -> str:
    """The report as one HTML string (see ``write_report``)."""
    from .. import analysis, charts
    from ..campaign import Campaign

    opened = False
    camp = camp_or_path
    if not isinstance(camp, Campaign):
        _say(progress, f"opening {camp_or_path} (read-only)")
        camp = Campaign.open(camp_or_path, read_only=True)
        opened = True
    try:
        _say(progress, f"reading {len(camp.events):,} events")
        f = analysis.frames(camp, copy=False, progress=progress)
        if calibration:
            _say(progress, "was the forecast right? each fight forecast again from its start "
                 "(cached after the first time)")
            f = {**f, "calibration": analysis.calibration(camp, progress=_tenths(progress))}
        parts = []
        for i, (title, make) in enumerate(charts.REPORT, 1):
            _say(progress, f"chart {i}/{len(charts.REPORT)}: {title}")
            fig = make(f)
            if fig is None:
                continue
            include = ("cdn" if cdn else True) if not parts else False
            parts.append(f'<section class="chart"><h2>{esc(title)}</h2>'
                         + fig.to_html(full_html=False, include_plotlyjs=include,
                                       config={"displaylogo": False, "responsive": True})
                         + _notes(fig) + "</section>")
        _say(progress, "writing the summary")
        summary = _summary(camp, f)
        _say(progress, "telling each session")
        sessions = _sessions(camp)
        name = esc(camp.name)
    finally:
        if opened:
            camp.close()
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{name}: campaign report</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }}
table {{ border-collapse: collapse; margin: 0.5em 0 1.5em; }}
th, td {{ border-bottom: 1px solid #ddd; padding: 4px 10px; text-align: left; }}
.swatch {{ display: inline-block; width: 0.8em; height: 0.8em; margin-right: 0.4em; border-radius: 2px; }}
section.chart {{ margin: 2em 0; }}
section.chart li {{ margin: 0.3em 0; line-height: 1.4; }}
section.sessions details {{ border-bottom: 1px solid #ddd; padding: 0.3em 0; }}
section.sessions summary {{ cursor: pointer; font-weight: 600; }}
section.sessions h4 {{ margin: 0.8em 0 0.2em; }}
section.sessions ul {{ margin: 0.2em 0; }}
</style></head>
<body><h1>{name}</h1><p>A report made by delvebook from the campaign's log: only what is in force counts
(undone actions and rolls replaced by a luck die or typed dice are left out).</p>
{summary}
{''.join(parts)}
{sessions}
</body></html>
"""


def write_report(camp_or_path: Any, out: str | os.PathLike, cdn: bool = False,
                 progress: Callable[[str], None] | None = None, calibration: bool = True) -> Path:
    """Write the campaign's report (summary table and every chart) to ``out``, one HTML file that opens
    offline (plotly.js embedded) unless ``cdn`` is true. ``progress`` is called with a line of text at each
    step. ``calibration``: check the danger forecast against every fight (``analysis.calibration``: minutes on a
    long campaign the first time, cached after). Returns the path written."""
    text = report_html(camp_or_path, cdn=cdn, progress=progress, calibration=calibration)
    out = Path(out)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, out)
    _say(progress, f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB)")
    return out
