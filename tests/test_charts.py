"""The charts draw the campaign's numbers: traces, points, thresholds and verdicts, not just a figure."""
from __future__ import annotations

import plotly.graph_objects as go
import pytest

import delvebook as db
from delvebook import analysis, charts

from conftest import CAMPAIGNS

LONG = CAMPAIGNS / "the-long-delve"


@pytest.fixture(scope="module")
def camp(long_delve):
    return long_delve


@pytest.fixture(scope="module")
def f(camp):
    return analysis.frames(camp)


def traces(fig, mode=None):
    return {t.name: t for t in fig.data if mode is None or t.mode == mode}


def test_the_contract_names_return_figures_without_showing_them(camp):
    assert isinstance(db.charts.xp_progress(camp), go.Figure)
    assert isinstance(db.charts.heart_history(camp), go.Figure)
    assert isinstance(charts.xp_progress(LONG), go.Figure)  # a folder works too


def test_xp_progress_ends_at_each_delvers_xp(camp):
    fig = charts.xp_progress(camp)
    lines = traces(fig, "lines")
    for name, d in camp.state["delvers"].items():
        if d["xp"]:
            assert lines[name].y[-1] == d["xp"], name
            assert list(lines[name].x) == sorted(lines[name].x)


def test_xp_progress_draws_the_level_thresholds(camp):
    fig = charts.xp_progress(camp)
    ys = sorted(s.y0 for s in fig.layout.shapes)
    assert ys == [100, 200]
    assert {a.text for a in fig.layout.annotations} == {"level 2: 100 XP", "level 3: 200 XP"}


def test_xp_progress_draws_the_thresholds_of_the_campaigns_house_rules(tmp_path):
    house = {"core": {"levels": {"thresholds": {2: 60, 3: 150}}}}
    with db.Campaign.create(tmp_path / "c", name="Quick levels", seed=3, house_rules=house) as c:
        c.add_delver("Wren", "rogue", player="Ana")
        c.award_xp(70)
        fig = charts.xp_progress(c)
        assert c.delver("Wren").level == 2
    assert sorted(s.y0 for s in fig.layout.shapes) == [60, 150]
    assert {a.text for a in fig.layout.annotations} == {"level 2: 60 XP", "level 3: 150 XP"}


def test_xp_progress_marks_every_level_up(camp, f):
    fig = charts.xp_progress(camp)
    ups = traces(fig)["level-ups"]
    x = f["xp"]
    expected = x[x["level_up"]]
    assert len(ups.x) == len(expected) > 0
    assert sorted(zip(ups.x, ups.y)) == sorted(zip(expected["seq"], expected["xp"]))
    assert all(y >= 100 for y in ups.y)


def test_xp_progress_by_session_has_one_point_per_session_with_awards(camp, f):
    fig = charts.xp_progress(camp, by="session")
    x = f["xp"]
    wren = x[x["who"] == "Wren"]
    line = traces(fig, "lines")["Wren"]
    assert list(line.x) == sorted(set(wren["session"]))
    assert line.y[-1] == wren["xp"].iloc[-1]
    assert fig.layout.xaxis.title.text == "session"
    with pytest.raises(ValueError):
        charts.xp_progress(camp, by="round")


def test_heart_history_of_the_campaign_follows_each_delver(camp, f):
    fig = charts.heart_history(camp)
    lines = traces(fig, "lines")
    h = f["hearts"]
    for name in camp.state["delvers"]:
        rows = h[h["who"] == name]
        assert list(lines[name].y) == list(rows["hearts"]), name
        assert lines[name].y[-1] == camp.state["delvers"][name]["hearts"]
    assert not any(n.startswith("Goblin") for n in lines)  # foes only in one fight's chart
    assert fig.layout.yaxis.title.text == "hearts"
    words = " ".join([fig.layout.title.text, fig.layout.xaxis.title.text]
                     + [h for t in fig.data for h in t.hovertext]).lower()
    assert "hearts" in words and not {"hp", "hit points", "health"} & set(words.replace("<br>", " ").split())


def test_heart_history_marks_damage_healing_zero_hearts_death_saves_and_deaths(camp, f):
    fig = charts.heart_history(camp)
    marks = traces(fig, "markers")
    h = f["hearts"]
    party = h[h["side"] == "party"]
    assert len(marks["damage"].x) == (party["change"] < 0).sum()
    assert len(marks["healing"].x) == (party["change"] > 0).sum()
    assert len(marks["0 hearts"].x) == party["down"].sum() > 0
    saves = party[party["death_save"]]
    assert len(marks["death save made"].x) + len(marks["death save failed"].x) == len(saves) > 0
    assert len(marks["deaths"].x) == party["death"].sum() > 0
    assert all(y == 0 for y in marks["0 hearts"].y)


def test_heart_history_of_one_fight_shows_its_foes_and_the_party(camp, f):
    enc = f["encounters"]
    fight = enc.loc[enc["foes"].idxmax()]
    number = int(fight["encounter"])
    fig = charts.heart_history(camp, encounter=number)
    lines = traces(fig, "lines")
    h = f["hearts"]
    foes = set(h[(h["encounter"] == number) & (h["side"] == "foes")]["who"].astype(str))
    assert len(foes) == fight["foes"]
    assert foes <= set(lines)
    assert any(n in lines for n in camp.state["seats"])
    assert str(fight["name"]) in fig.layout.title.text
    with pytest.raises(ValueError):
        charts.heart_history(camp, encounter=10 ** 6)


def test_dice_fairness_compares_each_players_faces_with_the_exact_chance(camp, f):
    fig = charts.dice_fairness(camp)
    fair = f["fairness"]
    bars = [t for t in fig.data if t.type == "bar"]
    assert len(bars) == len(fair)
    for t in bars:
        assert abs(sum(t.y) - 1) < 1e-9
        assert len(t.x) in (20, 6)
    exact = [t for t in fig.data if t.name == "fair dice (exact)"]
    assert sorted(len(t.y) for t in exact) == [6, 20]
    for t in exact:
        assert all(abs(y - 1 / len(t.y)) < 1e-12 for y in t.y)
    words = fig.layout.annotations[-1].text
    for row in fair.itertuples():
        assert f"{row.player}, {row.die} ({row.rolls} rolls): {row.verdict}" in words
    assert "within what fair dice do 9 times in 10" in words


def test_damage_chart_shows_what_each_delver_dealt_and_took(camp, f):
    fig = charts.damage(camp)
    t = traces(fig)
    d = f["damage"]
    dealt = dict(zip(t["damage dealt"].x, t["damage dealt"].y))
    taken = dict(zip(t["damage taken"].x, t["damage taken"].y))
    for name in camp.state["delvers"]:
        assert dealt[name] == d[(d["dealer"] == name)]["dealt"].sum()
        assert taken[name] == d[(d["target"] == name)]["dealt"].sum()
    assert sum(t["absorbed by armor"].y) == d.loc[d["target_side"] == "party", "absorbed"].sum()


def test_luck_chart_counts_every_luck_die_in_force_by_what_it_changed(camp, f):
    fig = charts.luck(camp)
    lk = f["luck"]
    totals: dict[str, int] = {}
    for t in fig.data:
        for p, y in zip(t.x, t.y):
            totals[p] = totals.get(p, 0) + y
    assert totals == lk.groupby(lk["player"].astype(str)).size().to_dict() | {
        p: 0 for p in totals if p not in set(lk["player"].astype(str))}
    flips = sum(sum(t.y) for t in fig.data if t.name != "changed the total only")
    assert flips == lk["flipped"].sum() > 0


def test_each_delver_keeps_one_colour_across_charts(camp):
    colors = charts.delver_colors(camp)
    assert list(colors)[:5] == camp.state["seats"][:5]
    xp_lines = traces(charts.xp_progress(camp), "lines")
    heart_lines = traces(charts.heart_history(camp), "lines")
    dmg = traces(charts.damage(camp))["damage dealt"]
    for name, color in colors.items():
        assert heart_lines[name].line.color == color
        if name in xp_lines:
            assert xp_lines[name].line.color == color
        assert dmg.marker.color[list(dmg.x).index(name)] == color
    assert len(set(colors.values())) == len(colors)


def test_names_from_the_campaign_are_escaped_in_hover_text(tmp_path):
    c = db.Campaign.create(tmp_path / "c", name="Esc", seed=2,
                           delvers=[{"name": "<b>Wren</b>", "class": "rogue", "player": "Ana"}])
    try:
        c.start_session()
        c.award_xp(30, reason="<script>alert(1)</script>")
        fig = charts.xp_progress(c)
        text = " ".join(fig.data[0].hovertext)
        assert "<script>" not in text and "&lt;script&gt;" in text
    finally:
        c.close()
