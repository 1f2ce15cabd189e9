"""The hover labels a reader sees in a real browser say what the frames say: plotly.js fills the charts' hover
templates from the numbers and words each point carries. Leaves tests/artifacts/chart-hover.png."""
from __future__ import annotations

import pytest

from delvebook import analysis, charts

pytestmark = pytest.mark.browser


def _label(page, div: str, curve: int, point: int) -> str:
    """The hover label of one point, as the reader sees it (its lines run together in textContent)."""
    page.evaluate(f"Plotly.Fx.unhover('{div}')")
    page.wait_for_function(f"!document.querySelector('#{div} .hoverlayer .hovertext')")
    page.evaluate(f"Plotly.Fx.hover('{div}', [{{curveNumber: {curve}, pointNumber: {point}}}])")
    page.wait_for_function(f"document.querySelector('#{div} .hoverlayer .hovertext')")
    return page.evaluate(f"document.querySelector('#{div} .hoverlayer').textContent")


def test_hover_labels_read_the_numbers_and_words_of_each_point(browser, long_delve, tmp_path, artifacts):
    f = analysis.frames(long_delve, copy=False)
    xp_fig, hearts_fig = charts.xp_progress(f), charts.heart_history(f)
    page_file = tmp_path / "charts.html"
    page_file.write_text("<html><body>" + xp_fig.to_html(full_html=False, include_plotlyjs=True, div_id="xp")
                         + hearts_fig.to_html(full_html=False, include_plotlyjs=False, div_id="hearts")
                         + "</body></html>", encoding="utf-8")
    page = browser.new_page(viewport={"width": 1200, "height": 1000})
    try:
        page.goto(page_file.as_uri())
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length >= 4")
        # XP: the line of the first delver, at its first and at its sixth award
        name = xp_fig.data[0].name
        x = f["xp"][f["xp"]["who"] == name]
        for i in (0, 5):
            r = x.iloc[i]
            assert _label(page, "xp", 0, i) == (f"{name}: {r['xp']} XP (level {r['level']})+{r['amount']} for "
                                                f"{r['reason']}event {r['seq']}, session {r['session']}")
        up = x[x["level_up"]].iloc[0]
        assert _label(page, "xp", len(xp_fig.data) - 1, 0) == (f"{name} reached level {up['level']}{up['xp']} XP, "
                                                               f"event {up['seq']}, session {up['session']}")
        # hearts: a hit in a fight, and the same delver dying
        h = f["hearts"][f["hearts"]["who"] == name].reset_index(drop=True)
        i = int(h.index[h["change"].lt(0).fillna(False) & h["round"].notna()][0])
        r = h.iloc[i]
        assert _label(page, "hearts", 0, i) == (f"{name}: {r['hearts']}/{r['max_hearts']} hearts{r['source']}: "
                                                f"{int(r['change']):+d}event {r['seq']}, session {r['session']}, "
                                                f"round {r['round']}")
        dying = h.index[h["status"] == "dying"]
        if len(dying):
            r = h.iloc[int(dying[0])]
            assert f"{r['hearts']}/{r['max_hearts']} hearts" in _label(page, "hearts", 0, int(dying[0]))
            assert ", dying" in _label(page, "hearts", 0, int(dying[0]))
        page.screenshot(path=str(artifacts / "chart-hover.png"))
    finally:
        page.close()
