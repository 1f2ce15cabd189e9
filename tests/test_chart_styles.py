"""Charts draw with the user's plotly template, and hover through templates over numeric data (the numbers
travel as typed arrays, the words once per trace), so a long campaign's report stays small."""
from __future__ import annotations

import html
import os

import numpy as np
import plotly
import plotly.io as pio
import pytest

from delvebook import analysis, charts
from delvebook.charts import report

CHARTS = {
    "xp_progress": charts.xp_progress,
    "xp_by_session": lambda f, **kw: charts.xp_progress(f, by="session", **kw),
    "heart_history": charts.heart_history,
    "hearts_by_session": charts.hearts_by_session,
    "hardest_fight": lambda f, **kw: charts.heart_history(f, encounter=charts._hardest_fight(f), **kw),
    "dice_fairness": charts.dice_fairness,
    "damage": charts.damage,
    "luck": charts.luck,
}


@pytest.fixture(scope="module")
def f(long_delve):
    return analysis.frames(long_delve, copy=False)


@pytest.fixture
def dark_default():
    before = pio.templates.default
    pio.templates.default = "plotly_dark"
    yield pio.templates["plotly_dark"]
    pio.templates.default = before


@pytest.mark.parametrize("name", CHARTS)
def test_a_dark_theme_users_charts_are_dark(f, dark_default, name):
    fig = CHARTS[name](f)
    assert fig.layout.template.layout.paper_bgcolor == dark_default.layout.paper_bgcolor == "rgb(17,17,17)"
    assert fig.layout.template.layout.plot_bgcolor == dark_default.layout.plot_bgcolor
    # marks and outlines take the template's ink, not black on a black page
    colors = [t.marker.line.color for t in fig.data if t.marker and t.marker.line and t.marker.line.color]
    colors += [t.line.color for t in fig.data if getattr(t, "line", None) and t.line.dash == "dash"]
    assert "black" not in colors and "#000000" not in colors


@pytest.mark.parametrize("name", CHARTS)
def test_a_template_the_caller_names_wins(f, dark_default, name):
    fig = CHARTS[name](f, template="plotly_white")
    assert fig.layout.template.layout.paper_bgcolor == pio.templates["plotly_white"].layout.paper_bgcolor == "white"


def test_plotlys_own_default_when_nobody_asks(f):
    assert pio.templates.default == "plotly"
    fig = charts.damage(f)
    assert fig.layout.template.layout.plot_bgcolor == pio.templates["plotly"].layout.plot_bgcolor == "#E5ECF6"


def test_xp_hover_is_a_template_over_the_numbers(f):
    fig = charts.xp_progress(f)
    x = f["xp"]
    name = fig.data[0].name
    rows = x[x["who"] == name]
    trace = fig.data[0]
    assert trace.hovertemplate.startswith(f"<b>{name}</b>: %{{y:d}} XP (level %{{customdata[0]}})")
    custom = np.asarray(trace.customdata)
    assert custom.dtype.kind == "i" and custom.shape == (len(rows), 3)
    assert custom[:, 0].tolist() == rows["level"].tolist() and custom[:, 1].tolist() == rows["amount"].tolist()
    assert list(trace.hovertext) == [html.escape(r) for r in rows["reason"].astype(str)]  # per point: the reason


def test_heart_hover_carries_numbers_as_numbers(f):
    fig = charts.heart_history(f)
    for trace in fig.data:
        assert "%{y}" in trace.hovertemplate and trace.hoverinfo is None, trace.name
    line = fig.data[0]
    h = f["hearts"]
    rows = h[h["who"] == line.name]
    assert f"<b>{line.name}</b>: %{{y}}/%{{customdata}} hearts" in line.hovertemplate
    assert np.asarray(line.customdata).dtype.kind == "i" and list(line.customdata) == rows["max_hearts"].tolist()
    assert np.asarray(line.y).dtype.kind == "i" and list(line.y) == rows["hearts"].tolist()
    assert all(text.startswith(html.escape(src)) for text, src in zip(line.hovertext, rows["source"].astype(str)))


def test_the_report_spends_few_bytes_per_event_on_its_charts(long_delve):
    """Per-point hover strings cost about 120 bytes an event (17 MB for 100,000 events); templates about 35."""
    html = report.report_html(long_delve, calibration=False)  # its few fixed kilobytes are not per event
    js = os.path.getsize(os.path.join(os.path.dirname(plotly.__file__), "package_data", "plotly.min.js"))
    per_event = (len(html.encode()) - js) / len(long_delve.events)
    assert per_event < 60, f"{per_event:.0f} bytes of report per event"
