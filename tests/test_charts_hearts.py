"""Hearts at campaign scale: one small panel per delver over the sessions it played, a band from its fewest to its
most hearts in each session, its death saves and its death marked."""
from __future__ import annotations

import pytest

import delvebook as db
from delvebook import charts

PARTY = [{"name": "Wren", "class": "rogue", "player": "Ana"},
         {"name": "Brakka", "class": "fighter", "player": "Ben", "choices": {"weapon": "sword_and_shield"}}]


@pytest.fixture(scope="module")
def scripted(tmp_path_factory):
    """Three sessions: Wren hurt and healed in the first, untouched in the second; Brakka falls in the second,
    defies death once and dies on the next save; Tamsin joins in the third."""
    camp = db.Campaign.create(tmp_path_factory.mktemp("bands") / "c", name="Bands", seed=5, delvers=PARTY)
    assert camp.delver("Wren").max_hearts == 12
    camp.start_session()                       # session 1
    camp.damage("Wren", 5)                     # 12 -> 7
    camp.heal("Wren", 3)                       # -> 10
    camp.end_session()
    camp.damage("Wren", 1)                     # between sessions: counts in session 1 -> 9
    camp.start_session()                       # session 2
    camp.damage("Brakka", camp.delver("Brakka").hearts)  # to 0: dying
    camp.death_save("Brakka", faces={"death_save": [6]})
    camp.damage("Brakka", 1)
    camp.death_save("Brakka", faces={"death_save": [1]})  # dies
    camp.end_session()
    camp.start_session()                       # session 3
    camp.add_delver("Tamsin", "rogue", player="Ben")
    camp.damage("Tamsin", 2)
    camp.end_session()
    yield camp
    camp.close()


def rows(bands, who):
    b = bands[bands["who"] == who]
    return {int(s): (int(lo), int(hi), int(end)) for s, lo, hi, end in zip(b["session"], b["low"], b["high"], b["end"])}


def test_a_band_runs_from_the_fewest_to_the_most_hearts_a_delver_had_in_each_session(scripted):
    bands = charts.session_bands(scripted)
    # session 1: began with 12, fell to 7, healed to 10, and lost 1 after the session ended (counted in it)
    # session 2: untouched, 9 all along; session 3 likewise
    assert rows(bands, "Wren") == {1: (7, 12, 9), 2: (9, 9, 9), 3: (9, 9, 9)}


def test_a_delvers_panel_ends_with_the_session_it_died_in_with_its_death_saves_counted(scripted):
    bands = charts.session_bands(scripted)
    full = scripted.delver("Brakka").max_hearts
    assert rows(bands, "Brakka") == {1: (full, full, full), 2: (0, full, 0)}
    died = bands[(bands["who"] == "Brakka") & (bands["session"] == 2)].iloc[0]
    assert bool(died["death"]) and died["saves_made"] == 1 and died["saves_failed"] == 1


def test_a_recruits_panel_begins_with_the_session_it_joined(scripted):
    bands = charts.session_bands(scripted)
    tamsin = rows(bands, "Tamsin")
    assert list(tamsin) == [3]
    lo, hi, end = tamsin[3]
    assert hi - lo == 2 and end == lo


def test_one_panel_per_delver_titled_with_its_name_and_its_death(scripted):
    fig = charts.hearts_by_session(scripted)
    titles = [a.text for a in fig.layout.annotations]
    assert len(titles) == 3
    assert titles[0].startswith("<b>Wren</b>") and "died" not in titles[0]
    assert titles[1] == "<b>Brakka</b> (Ben) · died in session 2"
    bars = [t for t in fig.data if t.type == "bar"]
    assert len(bars) == 3 and {t.xaxis for t in bars} == {"x", "x2", "x3"}
    marks = {t.name: t for t in fig.data if t.type == "scatter" and t.mode == "markers"}
    assert list(marks["death"].x) == [2] and list(marks["death save made"].x) == [2]
    assert list(marks["death save failed"].customdata) == [1]


def test_the_long_campaign_has_a_readable_panel_for_each_of_its_twelve_delvers(long_delve):
    fig = charts.hearts_by_session(long_delve)
    delvers = charts.delver_colors(long_delve)
    assert len(delvers) == 12
    titles = [a.text for a in fig.layout.annotations]
    assert [t.split("</b>")[0].removeprefix("<b>") for t in titles] == list(delvers)
    bars = [t for t in fig.data if t.type == "bar"]
    assert len(bars) == 12 and sum(len(t.x) for t in bars) < 12 * 96  # a bar a session, not a point an event
    assert len({t.xaxis for t in bars}) == 12
    assert fig.layout.height <= 800  # three rows of four at a laptop's width
    for t in bars:
        assert t.marker.color.startswith("rgba(")
    deaths = [t for t in fig.data if t.name == "death"]
    assert sum(len(t.x) for t in deaths) == sum(a.text.count("died") for a in fig.layout.annotations) > 0
