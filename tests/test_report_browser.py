"""The report of the finished campaign opens in headless Chromium with no network and draws every chart.

The forecast's calibration is played once for the session (the cache folder is the session's, see conftest.py):
the module's report and the command line's share it.

Every request that is not for a local file is blocked (and recorded), so a report that needs the
internet fails here. Leaves a screenshot in tests/artifacts/report.png.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from delvebook.charts import REPORT
from delvebook.charts.report import write_report

REPORT_CHARTS = [title for title, _ in REPORT]  # every chart applies to the long delve

from conftest import CAMPAIGNS, REPO

pytestmark = pytest.mark.browser

LONG = CAMPAIGNS / "the-long-delve"


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "report.html"
    lines: list[str] = []
    write_report(LONG, out, progress=lines.append)
    assert any(line.startswith("chart 1/") for line in lines)
    return out


def test_the_report_opens_offline_and_draws_every_chart(browser, report, artifacts):
    context = browser.new_context(viewport={"width": 1200, "height": 1400}, offline=True)
    page = context.new_page()
    blocked: list[str] = []
    errors: list[str] = []

    def route(r):
        if r.request.url.startswith("file:"):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(report.as_uri())
        page.wait_for_function(f"document.querySelectorAll('.plot-container .main-svg').length >= "
                               f"{len(REPORT_CHARTS)}", timeout=60_000)
        plots = page.locator(".js-plotly-plot")
        assert plots.count() == len(REPORT_CHARTS)
        drawn = page.evaluate("""() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(p => ({
            title: (p.querySelector('.gtitle') || {}).textContent || '',
            traces: p.querySelectorAll('.scatterlayer .trace, .barlayer .trace').length,
            points: p.querySelectorAll('.point, .js-line').length,
        }))""")
        for chart in drawn:
            assert chart["title"], chart
            assert chart["traces"] > 0 and chart["points"] > 0, chart
        titles = " | ".join(c["title"] for c in drawn)
        for words in ("XP progress", "Hearts of each delver", "Hearts in", "Are the dice fair", "Damage dealt",
                      "Luck dice spent", "Forecast chance against what happened"):
            assert words in titles
        assert page.get_by_text("How the campaign's fights were played, beside the forecast's policy").is_visible()
        assert page.locator("table.party tr").count() > 5
        assert page.get_by_text("within what fair dice do 9 times in 10").first.is_visible()
        page.screenshot(path=str(artifacts / "report.png"), full_page=False)
        page.locator(".js-plotly-plot").nth(2).scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / "report-hearts.png"))
        page.locator(".js-plotly-plot").nth(4).scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / "report-dice.png"))
        page.locator(".js-plotly-plot").nth(7).scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / "report-calibration.png"))
        assert not errors, errors
        assert not blocked, f"the report asked the network for {blocked}"
    except Exception:
        page.screenshot(path=str(artifacts / "report-failed.png"), full_page=True)
        raise
    finally:
        context.close()


def test_report_command_writes_one_file_and_shows_progress(tmp_path):
    out = tmp_path / "r.html"
    run = subprocess.run([sys.executable, "-m", "delvebook", "report", str(LONG), "-o", str(out)],
                         capture_output=True, text=True, cwd=REPO, timeout=300)
    assert run.returncode == 0, run.stderr
    assert f"chart {len(REPORT)}/{len(REPORT)}" in run.stderr and "wrote" in run.stderr
    text = out.read_text(encoding="utf-8")
    assert 'src="https://cdn.plot.ly' not in text  # plotly.js is inside the file
    assert text.count("Plotly.newPlot(") == len(REPORT_CHARTS)
    cdn = tmp_path / "cdn.html"
    run = subprocess.run([sys.executable, "-m", "delvebook", "report", str(LONG), "-o", str(cdn), "--cdn",
                          "--no-calibration"],
                         capture_output=True, text=True, cwd=REPO, timeout=300)
    assert run.returncode == 0, run.stderr
    assert 'src="https://cdn.plot.ly' in cdn.read_text(encoding="utf-8")
    assert cdn.stat().st_size < out.stat().st_size / 2
    assert "Was the forecast right?" not in cdn.read_text(encoding="utf-8")


def test_report_command_names_a_missing_campaign(tmp_path):
    run = subprocess.run([sys.executable, "-m", "delvebook", "report", str(tmp_path / "nope"), "-o",
                          str(tmp_path / "r.html")], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert run.returncode == 1
    assert "nope" in run.stderr
