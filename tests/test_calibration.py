"""Was the forecast right? Each fight forecast again from the state at its start, beside what happened, counted as
one would by hand; the cache a speed-up keyed by the log, never the truth."""
from __future__ import annotations

import json

import numpy as np
import pytest

import delvebook as db
from delvebook import analysis, charts
from delvebook.charts import report
from delvebook.forecast import forecast

PARTY = [{"name": "Wren", "class": "rogue", "player": "Ana"},
         {"name": "Brakka", "class": "fighter", "player": "Ben", "choices": {"weapon": "sword_and_shield"}}]
FIGHTS = 40

# what happened, by hand: (won, a delver dropped, a death) per fight, and per delver (dropped, died)
HAPPENED = [(True, False, False), (True, True, False), (False, True, True)]
DELVERS = {1: {"Wren": (False, False), "Brakka": (False, False)},
           2: {"Wren": (True, False), "Brakka": (False, False)},
           3: {"Wren": (False, False), "Brakka": (True, True)}}


def script(camp: db.Campaign) -> None:
    """Three fights: a rat vanquished; a goblin that drops Wren (who defies death) before it falls; an orc the
    party leaves standing, Brakka dying of the save he fails after the fight."""
    camp.start_session()
    fight = camp.encounter(["giant_rat"])
    fight.initiative(first="party")
    camp.damage("Giant rat 1", 10)
    fight.end()
    fight = camp.encounter(["goblin"])
    fight.initiative(first="foes")
    camp.damage("Wren", camp.delver("Wren").hearts)
    camp.death_save("Wren", faces={"death_save": [6]})
    camp.damage("Goblin 1", 10)
    fight.end()
    camp.heal("Wren", camp.delver("Wren").max_hearts)
    fight = camp.encounter(["orc"])
    fight.initiative()
    camp.damage("Brakka", camp.delver("Brakka").hearts)
    fight.end()
    camp.death_save("Brakka", faces={"death_save": [1]})


@pytest.fixture(scope="module")
def camp(tmp_path_factory):
    c = db.Campaign.create(tmp_path_factory.mktemp("cal") / "c", name="Three fights", seed=11, delvers=PARTY)
    script(c)
    yield c
    c.close()


@pytest.fixture(scope="module")
def cal(camp):
    return analysis.calibration(camp, fights=FIGHTS, workers=1, cache=False)


def test_what_happened_in_each_fight_equals_a_hand_count(cal):
    f = cal.fights
    assert list(f["encounter"]) == [1, 2, 3]
    assert list(zip(f["won"], f["any_drop"], f["any_death"])) == HAPPENED
    assert list(f["ended"]) == [True, True, True]
    d = cal.delvers
    got = {int(n): {w: (bool(a), bool(b)) for w, a, b in zip(g["who"].astype(str), g["dropped"], g["died"])}
           for n, g in d.groupby("encounter")}
    assert got == DELVERS


def test_each_forecast_is_the_forecast_from_the_state_at_the_fights_start(camp, cal):
    starts = [e["seq"] for e in camp.events if e["kind"] == "encounter"]
    assert list(cal.fights["start_seq"]) == starts
    for (_, row), seq in zip(cal.fights.iterrows(), starts):
        d = forecast(camp.rules, camp.state_at(seq), None, fights=FIGHTS, seed=seq, precision=0, workers=1)
        assert row["p_win"] == d.p_win.p and row["p_any_death"] == d.p_any_death.p
        assert row["rounds_median"] == d.rounds.median and row["rounds_p90"] == d.rounds.p90
        mine = cal.delvers[cal.delvers["encounter"] == row["encounter"]].set_index("who")
        for name in d.party:
            assert mine.loc[name, "p_drop"] == d.p_drop[name].p and mine.loc[name, "p_death"] == d.p_death[name].p


def test_the_brier_score_and_the_reliability_bins_equal_a_hand_count(cal):
    won = [1.0 if w else 0.0 for w, _, _ in HAPPENED]
    p = list(cal.fights["p_win"])
    win = cal.brier.loc[("default", "win")]
    assert win["brier"] == pytest.approx(sum((a - b) ** 2 for a, b in zip(p, won)) / 3)
    assert win["base_rate"] == pytest.approx(2 / 3)
    assert win["reference"] == pytest.approx(2 / 3 * 1 / 3)
    pd_ = list(cal.delvers["p_death"])
    died = [1.0 if DELVERS[n][w][1] else 0.0 for n in (1, 2, 3) for w in ("Wren", "Brakka")]
    assert cal.brier.loc[("default", "death"), "n"] == 6
    death = cal.brier.loc[("default", "death")]
    assert death["brier"] == pytest.approx(sum((a - b) ** 2 for a, b in zip(pd_, died)) / 6)
    rel = cal.reliability[cal.reliability["quantity"] == "win"]
    assert set(rel["policy"]) == {"default"}  # three fights are too few to learn habits from: one policy
    by_bin: dict[int, list] = {}
    for q, w in zip(p, won):
        by_bin.setdefault(min(int(q * 10), 9), []).append((q, w))
    assert [int(b * 10 + 1e-9) for b in rel["bin_lo"]] == sorted(by_bin)
    for (_, r), b in zip(rel.iterrows(), sorted(by_bin)):
        qs, ws = zip(*by_bin[b])
        assert r["n"] == len(qs) and r["forecast"] == pytest.approx(np.mean(qs))
        assert r["observed"] == pytest.approx(np.mean(ws)) and r["lo"] <= r["observed"] <= r["hi"]


def test_how_the_fights_were_played_is_told_beside_the_policy(cal):
    played = "\n".join(cal.played)
    assert "Leaving a fight: 1 of 3 fights (33%) ended with foes still standing" in played
    assert "Initiative: the keeper chose who went first in 2 fights" in played
    assert cal.policy[0].startswith("Initiative is rolled")
    words = "\n".join(cal.summary())
    assert "3 fights forecast again from the state at their start, 40 simulated fights each" in words
    assert "The party wins: happened 67% of the time (3 fights); the forecast said" in words
    assert cal.policies == ["default"] and "only 3 finished fights" in cal.habits[0]


def test_processes_give_the_same_forecasts_as_one(camp, cal):
    other = analysis.calibration(camp, fights=FIGHTS, workers=2, cache=False)
    assert other.fights.equals(cal.fights) and other.delvers.equals(cal.delvers)


def test_progress_is_told_for_each_fight_forecast(camp):
    seen = []
    analysis.calibration(camp, fights=5, workers=1, cache=False,
                         progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 3), (2, 3), (3, 3)]


def test_the_cache_is_keyed_by_the_log_and_never_the_truth(tmp_path):
    folder = tmp_path / "c"
    with db.Campaign.create(folder, name="Cached", seed=11, delvers=PARTY) as c:
        script(c)
    with db.Campaign.open(folder, read_only=True) as c:
        first = analysis.calibration(c, fights=5, workers=1, cache=tmp_path / "cache")
    assert not first.from_cache and first.cache.parent == tmp_path / "cache" / "calibration"
    assert [p.name for p in first.cache.parent.iterdir()] == [first.cache.name]
    with db.Campaign.open(folder, read_only=True) as c:
        again = analysis.calibration(c, fights=5, workers=1, cache=tmp_path / "cache")
    assert again.from_cache and again.cache == first.cache and again.fights.equals(first.fights)
    # another setting, or one more event in the log, is another key
    with db.Campaign.open(folder, read_only=True) as c:
        assert not analysis.calibration(c, fights=6, workers=1, cache=tmp_path / "cache").from_cache
    with db.Campaign.open(folder) as c:
        c.rest()
        grown = analysis.calibration(c, fights=5, workers=1, cache=tmp_path / "cache")
    assert not grown.from_cache and grown.cache != first.cache
    # a damaged cache file is played again, not believed
    for damaged in ("{ torn", json.dumps({"format": 1, "nonsense": True})):
        grown.cache.write_text(damaged)
        with db.Campaign.open(folder, read_only=True) as c:
            fresh = analysis.calibration(c, fights=5, workers=1, cache=tmp_path / "cache")
        assert fresh.cache == grown.cache and not fresh.from_cache and fresh.fights.equals(grown.fights)


@pytest.mark.parametrize("edit", [
    lambda raw: raw["forecasts"][0].update(p_win=7.5),                      # a chance past 1
    lambda raw: raw["forecasts"][1].update(rounds_median="many"),           # text where a number goes
    lambda raw: raw["forecasts"][2]["p_death"].__setitem__(0, float("nan")),
    lambda raw: raw["forecasts"][0].update(party=[1, 2]),
    lambda raw: raw["played"].update(foe_attacks=-3),
    lambda raw: raw.update(fights_per_forecast=True),
], ids=["p_win 7.5", "text for a number", "NaN", "party of numbers", "a count below 0", "true for a number"])
def test_a_cache_edited_out_of_range_or_of_the_wrong_type_is_a_miss_played_again(camp, tmp_path, edit):
    first = analysis.calibration(camp.path, fights=5, workers=1, cache=tmp_path)  # (a folder: no memo in memory)
    raw = json.loads(first.cache.read_text())
    edit(raw)
    first.cache.write_text(json.dumps(raw))
    again = analysis.calibration(camp.path, fights=5, workers=1, cache=tmp_path)
    assert not again.from_cache and again.fights.equals(first.fights), "played again, and what it said stands"
    assert again.fights["p_win"].between(0, 1).all()
    assert json.loads(first.cache.read_text()) != raw, "the edited file is replaced by the fights played again"


def test_a_pipe_in_the_cache_files_place_is_a_miss_never_waited_on(camp, tmp_path):
    import os
    first = analysis.calibration(camp.path, fights=5, workers=1, cache=tmp_path)
    first.cache.unlink()
    os.mkfifo(first.cache)
    again = analysis.calibration(camp.path, fights=5, workers=1, cache=tmp_path)
    assert not again.from_cache and again.fights.equals(first.fights)


def test_no_cache_writes_nothing(camp, tmp_path, monkeypatch):
    monkeypatch.setenv("DELVEBOOK_CACHE", str(tmp_path))
    assert analysis.calibrate.cache_folder() == tmp_path
    result = analysis.calibration(camp, fights=5, workers=1, cache=False)
    assert result.cache is None and list(tmp_path.iterdir()) == []


def test_the_reliability_chart_has_a_panel_per_chance_and_says_what_it_shows(cal):
    fig = charts.calibration(cal)
    bins = [t for t in fig.data if t.mode == "markers"]
    assert len(bins) == len(analysis.calibrate.QUANTITIES) == 4
    assert [sum(t.customdata[:, 2]) for t in bins] == [6, 6, 3, 3]  # delvers in fights twice, then fights
    titles = [a.text for a in fig.layout.annotations]
    assert titles[3].startswith("The party wins<br><sup>Brier ")
    heads = [head for head, _ in fig.layout.meta["notes"]]
    assert heads == ["What it shows", "How this party plays, learned from its fights (the forecast's habits)",
                     "How the campaign's fights were played, beside the forecast's policy",
                     "The forecast's documented default policy"]


def test_the_report_tells_whether_the_forecast_was_right(camp, tmp_path, monkeypatch):
    monkeypatch.setenv("DELVEBOOK_CACHE", str(tmp_path))
    html = report.report_html(camp)
    assert "<h2>Was the forecast right?</h2>" in html and "<h3>What it shows</h3>" in html
    assert "<li>Leaving a fight: 1 of 3 fights (33%) ended with foes still standing" in html
    assert "<h3>Brier scores (0 is best)" in html and "<th>always the base rate</th>" in html
    assert "<h3>The reliability table: the fights binned by their forecast</h3>" in html
    assert "Was the forecast right?" not in report.report_html(camp, calibration=False)
