"""How this party plays, learned from its own fights: a table that keeps habits the forecast is not told
(scripts/make_habits_campaign.py: leave once two are down, foes at the most hearts, delvers at the first foe, luck
only on death saves) has them found in its log, the learned policy plays them, and the calibration, scoring the
habits on sessions they were not fitted on, says they forecast that table better than the documented default."""

from __future__ import annotations

import importlib.util
import math
import random

import pytest

import delvebook as db
from delvebook.core.events import clone
from delvebook.analysis.tables import fight_of_hearts
from delvebook.forecast import Policy, Recorded, check, habits, play_fight
from delvebook.forecast import job as job_module
from delvebook.forecast.walk import walk
from delvebook.store import CampaignStore, MemoryStore

from conftest import CAMPAIGNS, REPO

_spec = importlib.util.spec_from_file_location("make_habits_campaign", REPO / "scripts" / "make_habits_campaign.py")
maker = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(maker)

FIGHTS = 24
SIMULATED = 20


def _in_memory(folder) -> db.Campaign:
    with CampaignStore.open(folder, read_only=True) as store:
        return db.Campaign.open(MemoryStore(clone(store.campaign), [clone(e) for e in store.events]))


def habits_table(folder, fights: int = FIGHTS, seed: int = 6) -> db.Campaign:
    """A campaign of ``fights`` fights played by the script's habits, in memory (no fsync an event)."""
    maker.create(folder, seed=seed).close()
    camp = _in_memory(folder)
    ended = maker.play(camp, fights, seed=seed)
    assert fights < 10 or (ended.count("left") >= fights // 5 and ended.count("won") >= fights // 5)  # both kinds
    return camp


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    return habits_table(tmp_path_factory.mktemp("habits") / "h")


def test_the_tables_habits_are_found_in_its_log(table):
    h = table.habits()
    p = h.policy()
    assert h.enough and h.fights == FIGHTS and h.learned
    assert (p.retreat_when_down, p.retreat_below) == (2, None)
    assert (p.foe_target_rule, p.delver_target_rule) == ("most_hearts", "first")
    assert (p.luck, p.luck_chance, p.pool_luck, p.luck_on_hits, p.luck_on_misses) == (True, 1.0, False, 0.0, 0.0)
    words = "\n".join(h.describe())
    assert f"This party leaves a fight once 2 of its delvers are down: {FIGHTS} of {FIGHTS} fights." in words
    assert "Its foes attack the standing delver with the most hearts:" in words
    assert "Its delvers attack the first standing foe in the foes' order:" in words
    assert "Luck dice against a foe's hit on a delver: spent on 0 of" in words


def test_a_forecast_plays_by_the_habits_unless_asked_for_the_documented_default(table):
    learned = table.danger(["orc", "orc"], fights=60, seed=3, workers=1, precision=0)
    default = table.danger(["orc", "orc"], fights=60, seed=3, workers=1, precision=0, policy="default")
    assert "The party retreats once 2 of its delvers are down." in learned.policy
    assert "The party never retreats." in default.policy and default.p_fled.hits == 0
    with pytest.raises(ValueError, match="a policy is 'habits'"):
        table.danger(["orc"], fights=5, policy="brave")


def test_the_calibration_says_the_habits_forecast_this_table_better_than_the_default(table):
    p = check.plan(table)
    # each session's fights are forecast by habits fitted on the other sessions: here the same rule every time
    assert len(p.habits) == FIGHTS // maker.PER_SESSION
    assert {repr(h.policy()) for h in p.habits.values()} == {repr(table.habits().policy())}
    cal = db.analysis.calibration(table, fights=SIMULATED, workers=2, cache=False)
    assert cal.policies == ["default", "habits"]
    for chance in ("win", "drop", "any_death"):
        habits_, default = cal.brier.loc[("habits", chance)], cal.brier.loc[("default", chance)]
        assert habits_["brier"] < default["brier"], chance
        assert habits_["brier"] < habits_["reference"], chance  # beats always saying the base rate too
    win = cal.scores["habits"]["win"]
    assert win.on_diagonal >= len(win.bins) * 2 // 3
    assert "This party leaves a fight once 2 of its delvers are down" in cal.habits[0]
    fig = db.charts.calibration(cal)  # a series a policy in every panel
    assert sorted({t.name for t in fig.data if t.mode == "markers"}) == [
        "the documented default (fights on)", "this party's habits (held-out sessions)"]
    brier = fig.layout.meta["tables"][0]
    assert brier["head"] == ["chance", "happened", "by the documented default", "by this party's habits (held out)",
                             "always the base rate"]


def test_held_out_habits_never_see_their_own_sessions_fights(table):
    w = walk(table)
    held = habits.held_out(w)
    for session, h in held.items():
        others = habits.fit([r for r in w.fights if r.session != session])
        assert repr(h.policy()) == repr(others.policy()) and h.fights == others.fights == FIGHTS - 4


def test_what_the_walk_says_happened_is_what_the_frames_say(table):
    f = db.analysis.frames(table)
    enc = f["encounters"].set_index("encounter")
    h = f["hearts"][f["hearts"]["side"] == "party"]
    fights = fight_of_hearts(h, f["encounters"])
    for r in walk(table).fights:
        e = enc.loc[r.number]
        assert (r.outcome == "won") == bool(e["ended"] and e["vanquished"] >= e["foes"] > 0)
        mine = h[fights == r.number]
        for name in r.party:
            row = mine[mine["who"] == name]
            assert r.dropped[name] == bool((row["down"] | row["death_save"] | row["death"]).any())
            assert r.died[name] == bool(row["death"].any())


def test_too_few_fights_keep_the_documented_default_and_say_so(tmp_path):
    camp = db.Campaign.open(CAMPAIGNS / "the-sunken-keep", read_only=True)
    try:
        h = camp.habits()
        assert not h.enough and repr(h.policy()) == repr(Policy())
        assert h.describe() == ["This campaign has no finished fight yet; the forecast learns how a party plays "
                                f"from {habits.MIN_FIGHTS}, so it plays by the documented default."]
    finally:
        camp.close()
    few = habits_table(tmp_path / "few", fights=3, seed=1)
    assert "only 3 finished fights" in few.habits().describe()[0]


def test_a_party_leaves_once_a_delver_is_below_its_share_or_down():
    """retreat_below: a standing delver below that share of its hearts; retreat_when_down: that many delvers below
    1 heart (dying, dead, or saved at 0 hearts)."""
    keep = db.Campaign.open(CAMPAIGNS / "the-sunken-keep", read_only=True)
    try:
        state = clone(keep.state)
        db.engine.play(state, keep.rules, "encounter", {"foes": ["goblin"]}, random.Random(0))
        db.engine.play(state, keep.rules, "initiative", {"first": "party"}, random.Random(0))
        view = db.forecast.FightView(state, keep.rules, random.Random(1))
    finally:
        keep.close()
    d = state["delvers"][view.party[0]]
    d["hearts"] = math.ceil(d["max_hearts"] * 0.5)  # at half its hearts: not below half
    assert not Policy(retreat_below=0.5).retreat(view)
    d["hearts"] -= 1
    assert Policy(retreat_below=0.5).retreat(view) and not Policy().retreat(view)
    d["hearts"] = 0  # saved at 0 hearts: down
    assert Policy(retreat_when_down=1).retreat(view) and not Policy(retreat_when_down=2).retreat(view)


def test_luck_on_hits_and_misses_plays_the_same_fight_simulated_and_recorded():
    """Every knob the habits set (targets at random, leaving below a share, luck against foes' hits and on
    misses, pooled) plays the same fight on the forecast's fast path and through a campaign that records it."""
    keep = db.Campaign.open(CAMPAIGNS / "the-sunken-keep", read_only=True)
    try:
        policy = Policy("random", delver_target="random", luck_on_hits=0.7, luck_on_misses=0.7, pool_luck=True,
                        luck_chance=0.8, retreat_below=0.3)
        enc = keep.prepared_encounters["bell_tower"]
        start = job_module.start_of(keep.rules, keep.state, enc["foes"], enc["name"])
        player = job_module._Player(keep.rules, start, policy, 7)
        spent = 0
        for i in range(8):
            camp = _in_memory(CAMPAIGNS / "the-sunken-keep")
            camp.act("encounter", foes=enc["foes"], name=enc["name"])
            camp.rng = random.Random(7 * 2 ** 32 + i)
            recorded = play_fight(Recorded(camp), policy)
            assert player.fight(i) == recorded, f"fight {i}"
            spent += recorded.luck_spent
        assert spent > 0
    finally:
        keep.close()


def test_the_policy_says_its_learned_knobs_in_words_and_refuses_nonsense():
    words = "\n".join(Policy("random", delver_target="first", retreat_when_down=1, retreat_below=0.4,
                             luck_chance=0.67, pool_luck=True, luck_on_hits=0.26, luck_on_misses=0.28).describe())
    assert "Foes attack a standing delver at random" in words
    assert "A delver attacks, with its first weapon, the first standing foe in the foes' order." in words
    assert "The party retreats once one of its delvers is down or one of them is below 40% of its hearts." in words
    assert "while any are left (67% of the time), then the rest of the table does." in words
    assert "Luck dice against a foe's hit on a delver: 26% of the time." in words
    assert "Luck dice on a delver's missed attack: 28% of the time." in words
    for bad in ({"delver_target": "the_wizard"}, {"luck_chance": 1.5}, {"luck_on_hits": -0.1},
                {"retreat_when_down": 0}, {"retreat_below": 0}, {"retreat_below": 1.2}):
        with pytest.raises(ValueError):
            Policy(**bad)


@pytest.mark.slow
def test_the_command_line_forecasts_as_the_party_plays_unless_told_the_default(tmp_path):
    import subprocess
    import sys
    maker.make(tmp_path / "h", fights=10, seed=6)
    run = [sys.executable, "-m", "delvebook", "danger", str(tmp_path / "h"), "orc_pair", "--fights", "60", "--seed",
           "1", "--workers", "1", "--quiet", "--as-prepared"]
    habits_ = subprocess.run(run, capture_output=True, text=True, timeout=120)
    default = subprocess.run(run + ["--default-policy"], capture_output=True, text=True, timeout=120)
    assert habits_.returncode == default.returncode == 0, habits_.stderr + default.stderr
    assert "The party retreats once 2 of its delvers are down." in habits_.stdout
    assert "The party never retreats." in default.stdout


def test_habits_learned_again_after_more_events_are_the_habits_of_the_whole_log(tmp_path):
    """The walk a campaign keeps open folds only the events the log grew by: what it learns is what a walk of the
    whole log learns."""
    camp = habits_table(tmp_path / "h", fights=12, seed=3)
    first = camp.habits()
    maker.play(camp, 4, seed=4)
    camp.undo()  # the last event taken back: an event too
    again = camp.habits()
    whole = habits.fit(walk(camp).fights)
    assert again is not first and again.fights == whole.fights == 16
    assert again.describe() == whole.describe() and repr(again.policy()) == repr(whole.policy())
