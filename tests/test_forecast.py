"""The danger forecast: the engine's own fights, in memory, repeatable, and never written to the campaign.

(The exact cross-check against a Markov chain is in ``test_forecast_exact.py``.)
"""

from __future__ import annotations

import io
import random
import shutil
import subprocess
import sys

import pytest

import delvebook as db
from delvebook.core.events import clone
from delvebook.forecast import (Act, FightView, Policy, Progress, Recorded, forecast, play_fight, run,
                                text_progress, wilson)
from delvebook.store import CampaignStore, MemoryStore
from delvebook.forecast import job as job_module  # noqa: E402

from conftest import CAMPAIGNS

KEEP = CAMPAIGNS / "the-sunken-keep"


def _scratch(camp: db.Campaign) -> db.Campaign:
    """A writable copy of ``camp`` in memory."""
    with CampaignStore.open(camp.path, read_only=True) as store:
        return db.Campaign.open(MemoryStore(clone(store.campaign), [clone(e) for e in store.events]))


# ---------------------------------------------------------------- the engine's fights

def test_engine_play_changes_the_state_as_a_recorded_action_would_and_a_refusal_changes_nothing(sunken_keep):
    """``engine.play`` (the forecast's fast path) leaves the state a decided and applied event leaves, for the
    commands a fight uses; a refused command leaves it as it was, even one refused after it began changing it."""
    camp = _scratch(sunken_keep)
    camp.start_session()
    camp.encounter(["bog_goblin", "keep_sentinel"])
    state = clone(camp.state)
    steps = [("initiative", {}), ("attack", {"attacker": "Brakka", "target": "Bog goblin 1"}),
             ("attack", {"attacker": "Keep sentinel 1", "target": "Wren", "dodge": True}),
             ("use", {"who": "Brakka", "ability": "second_wind"}), ("next_turn", {}),
             ("damage", {"who": "Ilse", "amount": 40}), ("death_save", {"who": "Ilse"}), ("next_turn", {}),
             ("attack", {"attacker": "Sable", "target": "Keep sentinel 1"}), ("end_encounter", {})]
    for seed, (kind, args) in enumerate(steps):
        if kind in ("attack", "use"):
            args = dict(args, keeper_override="the test plays each command, whoever's turn it is")
        camp.rng = random.Random(seed)
        camp.act(kind, **args)
        db.engine.play(state, camp.rules, kind, args, random.Random(seed))
        assert state == camp.state, kind
    before = clone(state)
    for kind, args in [("attack", {"attacker": "Wren", "target": "Nobody"}), ("use", {"who": "Wren",
                                                                                     "ability": "second_wind"}),
                       ("death_save", {"who": "Wren"}), ("spend", {"who": "Wren", "amount": 10 ** 6})]:
        with pytest.raises(db.Refused):
            db.engine.play(state, camp.rules, kind, args, random.Random(0))
        assert state == before
    ctx = db.engine.play(state, camp.rules, "rest", {}, random.Random(0))  # changes many places ...
    assert state != before
    ctx.rollback()  # ... and its journal puts every one back
    assert state == before
    assert not ctx.records and ctx.changes == [] and ctx.rolls == {}


def test_a_simulated_fight_is_the_fight_the_engine_records(sunken_keep):
    """The fast path (commands played on a plain state, nothing recorded) and a campaign recording every action
    (decided, logged, applied; luck dice spent through spend_luck) play the same fight from the same dice."""
    policy = Policy()
    for eid, enc in sunken_keep.prepared_encounters.items():
        start = run._start(sunken_keep.rules, sunken_keep.state, enc["foes"], enc["name"])
        player = job_module._Player(sunken_keep.rules, start, policy, 11)
        for i in range(12):
            camp = _scratch(sunken_keep)
            camp.act("encounter", foes=enc["foes"], name=enc["name"])
            assert camp.state == start
            camp.rng = random.Random(11 * 2 ** 32 + i)  # fight i's dice, as the forecast rolls them
            recorded = play_fight(Recorded(camp), policy)
            assert player.fight(i) == recorded, f"{eid}, fight {i}"
            assert camp.events[-1]["kind"] == "end_encounter" or recorded.outcome != "won"


def test_every_fight_goes_through_the_engines_turn_order(sunken_keep):
    """Each deed is the current actor's (or a death save, or a counter inside an attack), and each turn ends with
    the engine's next_turn."""
    camp = _scratch(sunken_keep)
    camp.act("encounter", foes=sunken_keep.prepared_encounters["flooded_chapel"]["foes"])
    acted = []
    real_act = camp.act

    def watched(kind, faces=None, **args):
        if kind in ("attack", "use"):
            acted.append((args.get("attacker") or args.get("who"), db.campaign.current_actor(camp.state)))
        return real_act(kind, faces=faces, **args)
    camp.act = watched
    camp.rng = random.Random(5)
    play_fight(Recorded(camp), Policy())
    assert acted and all(who == actor for who, actor in acted)
    kinds = [e["kind"] for e in camp.events]
    assert kinds.count("next_turn") >= len(acted) - 1


# ---------------------------------------------------------------- repeatable, on one core or two

def test_the_same_seed_gives_the_same_forecast_on_one_core_or_two(sunken_keep):
    one = sunken_keep.danger("flooded_chapel", fights=600, seed=3, workers=1, precision=0)
    two = sunken_keep.danger("flooded_chapel", fights=600, seed=3, workers=2, precision=0)
    assert one.results == two.results and one.fights == two.fights == 600
    assert one.p_death == two.p_death and one.p_win == two.p_win and one.rounds == two.rounds
    assert one.workers == 1 and two.workers == (2 if run.default_workers() > 1 else 1)
    # stopping early stops at the same fight
    a = sunken_keep.danger("causeway_ambush", fights=2000, seed=8, workers=1, precision=0.04)
    b = sunken_keep.danger("causeway_ambush", fights=2000, seed=8, workers=2, precision=0.04)
    assert a.precise and b.precise and a.fights == b.fights < 2000 and a.results == b.results


def test_a_forecast_without_processes_plays_the_same_fights(sunken_keep, monkeypatch):
    """Under Pyodide there are no processes; where they cannot start, one process plays every fight."""
    want = sunken_keep.danger("causeway_ambush", fights=450, seed=4, workers=1, precision=0)
    monkeypatch.setattr(sys, "platform", "emscripten")
    assert run.default_workers() == 1
    pyodide = sunken_keep.danger("causeway_ambush", fights=450, seed=4, precision=0)
    assert pyodide.workers == 1 and pyodide.results == want.results
    monkeypatch.undo()

    def no_processes(*a, **k):
        raise OSError("no processes here")
    monkeypatch.setattr(job_module, "_Pool", no_processes)
    fallen = sunken_keep.danger("causeway_ambush", fights=450, seed=4, workers=2, precision=0)
    assert fallen.workers == 1 and fallen.results == want.results


def test_a_fresh_seed_is_kept_so_the_forecast_can_be_repeated(sunken_keep):
    d = sunken_keep.danger("causeway_ambush", fights=100, workers=1)
    again = sunken_keep.danger("causeway_ambush", fights=100, seed=d.seed, workers=1)
    assert again.results == d.results


# ---------------------------------------------------------------- nothing written

def test_the_forecast_never_changes_the_campaign(tmp_path):
    folder = tmp_path / "keep"
    shutil.copytree(KEEP, folder)
    files = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    with db.Campaign.open(folder) as camp:
        camp.start_session()
        fight = camp.encounter(["bog_goblin"])
        fight.initiative(first="party")
        state = clone(camp.state)
        log = (folder / "log.yaml").read_bytes()
        events = len(camp.events)
        camp.danger(fights=450, seed=1, workers=2)  # the fight running now, from where it stands
        assert (folder / "log.yaml").read_bytes() == log and len(camp.events) == events
        assert camp.state == state
        camp.fight.end()
        state = clone(camp.state)
        log = (folder / "log.yaml").read_bytes()
        events = len(camp.events)
        for eid in camp.prepared_encounters:
            camp.danger(eid, fights=150, seed=2, precision=0, workers=1)
        assert (folder / "log.yaml").read_bytes() == log and len(camp.events) == events
        assert camp.state == state
    assert {p.name for p in folder.iterdir() if p.is_file()} >= set(files)
    assert (folder / "campaign.yaml").read_bytes() == files["campaign.yaml"]


def test_a_read_only_campaign_can_be_forecast(sunken_keep):
    assert sunken_keep.read_only
    assert sunken_keep.danger(["bog_goblin"], fights=50, seed=1).fights >= 50


# ---------------------------------------------------------------- what it says

def test_danger_gives_each_chance_with_its_wilson_interval(sunken_keep):
    d = sunken_keep.danger("bell_tower", fights=250, seed=6, precision=0, workers=1)
    assert d.fights == 250 and d.party == ["Wren", "Brakka", "Ilse", "Father Odo", "Sable"]
    assert set(d.p_death) == set(d.p_drop) == set(d.party)
    for e in [*d.p_death.values(), *d.p_drop.values(), d.p_any_death, d.p_wipe, d.p_win]:
        assert e.n == 250 and (e.lo, e.hi) == wilson(e.hits, 250) and e.lo <= e.p <= e.hi
    for name in d.party:  # a delver that dies dropped first
        assert d.p_drop[name].p >= d.p_death[name].p
    assert d.p_any_death.p >= max(e.p for e in d.p_death.values())
    assert d.p_win.hits + d.p_wipe.hits + d.p_fled.hits + d.p_stalemate.hits == 250
    assert 1 <= d.rounds.median <= d.rounds.p90
    assert all(0 <= d.hearts_left[n] <= d.delvers[n].max_hearts for n in d.party)
    wins = [r for r in d.results if r.outcome == "won"]
    assert wins and all(sum(r.xp) <= 24 + 6 + 6 for r in wins)  # the foes' hearts, split across those alive
    assert str(d.p_win).endswith(")") and "%" in str(d.p_win)


def test_wilson_interval_is_the_textbook_one():
    lo, hi = wilson(10, 100)
    assert (round(lo, 4), round(hi, 4)) == (0.0552, 0.1744)
    assert wilson(0, 50)[0] == 0 and 0.07 < wilson(0, 50)[1] < 0.072
    assert wilson(50, 50)[1] == 1


def test_it_stops_early_when_every_interval_is_within_two_points_and_says_how_many_fights(sunken_keep):
    import inspect
    assert inspect.signature(forecast).parameters["precision"].default == 0.02  # ±2 points unless told
    d = sunken_keep.danger("causeway_ambush", fights=5000, seed=2, workers=1, precision=0.04)
    assert d.precise and d.fights < 5000 and d.fights % run.BLOCK == 0
    assert d.widest <= 0.04 and counts_widest(d) > 0.04  # the block before did not get there
    assert f"stopped at ±4 points after {d.fights:,} fights" in str(d)
    capped = sunken_keep.danger("bell_tower", fights=100, seed=2, workers=1)
    assert not capped.precise and capped.fights == 100 and "100 fights (the budget)" in str(capped)
    # the caller may stop it (a table's time budget): a progress callback that returns False
    stopped = sunken_keep.danger("bell_tower", fights=1000, seed=2, workers=1, progress=lambda p: p.done < 100)
    assert stopped.cancelled and not stopped.precise and stopped.fights == 100
    assert "stopped by its caller after 100 fights" in str(stopped)


def counts_widest(d) -> float:
    """The widest half-width one block before the forecast stopped."""
    short = d.results[:-run.BLOCK]
    counts = job_module.Counts(d.party)
    counts.add(short)
    return counts.widest()


def test_danger_shows_a_compact_table_with_every_name_escaped():
    camp = db.Campaign.open(MemoryStore({
        "name": "<i>Keep</i>", "seed": 1, "seats": ["<b>Wren</b>"],
        "delvers": [{"name": "<b>Wren</b>", "class": "rogue", "player": "Ana & Co"}],
        "bestiary": {"imp": {"name": "<script>alert(1)</script>", "hearts": 2, "attack_bonus": 0, "damage": "d6",
                             "tags": ["fae"]}},
        "encounters": {"lair": {"name": "The <lair>", "foes": ["imp"]}}}))
    d = camp.danger("lair", fights=50, seed=1)
    page = d._repr_html_()
    assert "<script>" not in page and "<b>Wren" not in page and "The <lair>" not in page
    assert "&lt;b&gt;Wren&lt;/b&gt;" in page and "The &lt;lair&gt;" in page and "&lt;script&gt;" in page
    assert page.count("<tr>") >= 2 and "drops below 1 heart" in page and "wipe" in page


def test_frame_gives_every_fight_as_a_row(sunken_keep):
    d = sunken_keep.danger("causeway_ambush", fights=100, seed=9, workers=1)
    df = d.frame()
    assert len(df) == d.fights and list(df["fight"]) == list(range(d.fights))
    assert {"outcome", "rounds", "deaths", "Wren dropped", "Wren died", "Wren hearts", "Wren xp"} <= set(df.columns)
    assert df["Ilse died"].mean() == pytest.approx(d.p_death["Ilse"].p)
    assert (df["outcome"] == "won").sum() == d.p_win.hits


def test_the_forecast_package_is_standard_library_only():
    """Importing it loads no YAML, no pandas, no widgets, and no process machinery until processes are used."""
    code = ("import sys, delvebook.forecast\n"
            "heavy = [m for m in ('yaml', 'pandas', 'plotly', 'ipywidgets', 'numpy', 'multiprocessing',\n"
            "                     'concurrent.futures') if m in sys.modules]\n"
            "assert heavy == [], heavy\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr


def test_pandas_is_imported_only_by_frame():
    code = ("import sys, delvebook as db\n"
            "camp = db.Campaign.open(sys.argv[1], read_only=True)\n"
            "d = camp.danger('causeway_ambush', fights=50, seed=1, workers=1)\n"
            "str(d); d._repr_html_()\n"
            "assert 'pandas' not in sys.modules, 'pandas before frame()'\n"
            "d.frame(); assert 'pandas' in sys.modules\n")
    out = subprocess.run([sys.executable, "-c", code, str(KEEP)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


# ---------------------------------------------------------------- the policy

def test_the_default_policy_is_written_down():
    words = "\n".join(Policy().describe())
    for rule in ("Initiative is rolled", "fewest hearts", "most likely drop", "luck dice", "a third of its hearts",
                 "Second Wind", "Dodge", "never retreats"):
        assert rule in words
    assert "fewest hearts" in db.forecast.policy.__doc__ and "Second Wind" in db.forecast.policy.__doc__


def _view(camp: db.Campaign, foes: list) -> FightView:
    state = clone(camp.state)
    db.engine.play(state, camp.rules, "encounter", {"foes": foes}, random.Random(0))
    db.engine.play(state, camp.rules, "initiative", {"first": "party"}, random.Random(0))
    return FightView(state, camp.rules, random.Random(1))


def test_foes_attack_the_standing_delver_with_the_fewest_hearts(sunken_keep):
    view = _view(sunken_keep, ["bog_goblin"])
    view.state["delvers"]["Sable"]["hearts"] = 2
    view.state["delvers"]["Ilse"]["hearts"] = 1
    view.state["delvers"]["Ilse"]["status"] = "dying"  # down: not in reach of the default rule
    assert Policy().foe_target(view, "Bog goblin 1") == "Sable"
    assert Policy("most_hearts").foe_target(view, "Bog goblin 1") == "Brakka"
    assert Policy("first").foe_target(view, "Bog goblin 1") == "Wren"
    for n in view.party:
        view.state["delvers"][n]["status"] = "dying" if n == "Ilse" else "dead"
    assert Policy().foe_target(view, "Bog goblin 1") == "Ilse"  # no one stands: the dying
    with pytest.raises(ValueError, match="fewest_hearts"):
        Policy("the_wizard")


def test_delvers_attack_the_foe_they_can_most_likely_drop(sunken_keep):
    view = _view(sunken_keep, ["bog_goblin", "bog_goblin", "keep_sentinel"])
    view.state["encounter"]["foes"]["Bog goblin 2"]["hearts"] = 1
    assert Policy().delver_target(view, "Brakka") == "Bog goblin 2"
    assert view.drop_chance("Brakka", "Bog goblin 2") > view.drop_chance("Brakka", "Bog goblin 1") > 0
    assert view.drop_chance("Wren", "Keep sentinel 1") == 0  # 12 hearts and AV 2: no dagger blow drops it
    act = Policy().delver_turn(view, "Wren")
    assert act == Act("attack", {"attacker": "Wren", "target": "Bog goblin 2"})


def test_below_a_third_of_their_hearts_delvers_spend_grit_on_second_wind_and_dodge(sunken_keep):
    view = _view(sunken_keep, ["bog_goblin"])
    d = view.state["delvers"]
    assert Policy().delver_turn(view, "Brakka").kind == "attack"
    d["Brakka"]["hearts"] = 6  # 19 hearts: below a third
    assert Policy().delver_turn(view, "Brakka") == Act("use", {"who": "Brakka", "ability": "second_wind"})
    d["Brakka"]["resources"]["grit"] = 1  # Second Wind costs 2
    assert Policy().delver_turn(view, "Brakka").kind == "attack"
    assert "dodge" not in Policy().foe_turn(view, "Bog goblin 1").args
    for n in ("Brakka", "Ilse", "Father Odo", "Sable"):
        d[n]["status"] = "dead"
    d["Wren"]["hearts"] = 3
    assert Policy().foe_turn(view, "Bog goblin 1").args == {"attacker": "Bog goblin 1", "target": "Wren",
                                                             "dodge": True}
    assert "dodge" not in Policy(grit_below=0).foe_turn(view, "Bog goblin 1").args


def test_luck_dice_go_to_failed_death_saves(sunken_keep):
    with_luck = sunken_keep.danger("bell_tower", fights=200, seed=5, workers=1, precision=0)
    without = sunken_keep.danger("bell_tower", fights=200, seed=5, workers=1, precision=0, policy=Policy(luck=False))
    assert with_luck.luck_spent > 1 and without.luck_spent == 0
    assert sum(e.hits for e in with_luck.p_death.values()) < sum(e.hits for e in without.p_death.values())
    for r in with_luck.results:
        assert r.luck_spent <= 3 * 5


def test_a_keepers_own_policy_decides_and_the_rules_still_rule(sunken_keep):
    class Bully(Policy):
        """Every foe goes for Brakka; the party only defends itself."""

        def foe_target(self, fight, foe):
            return "Brakka" if fight.status("Brakka") == "alive" else super().foe_target(fight, foe)

        def delver_turn(self, fight, who):
            return None
    d = sunken_keep.danger("causeway_ambush", fights=200, seed=1, workers=1, policy=Bully(), precision=0)
    assert all(d.p_drop[n].hits == 0 for n in d.party if n != "Brakka")
    assert "Decisions overridden by Bully: delver_turn, foe_target." in d.policy

    class Nonsense(Policy):
        def delver_turn(self, fight, who):
            return Act("cast", {"who": who, "spell": "no_such_spell"})
    n = sunken_keep.danger("causeway_ambush", fights=50, seed=1, workers=1, policy=Nonsense(), precision=0)
    assert n.refused > 0 and n.fights == 50  # each refused act cost its actor the turn
    assert "acts the rules refused" in str(n)


def test_a_party_that_retreats_leaves_the_fight(sunken_keep):
    d = sunken_keep.danger("bell_tower", fights=200, seed=1, workers=1, precision=0, policy=Policy(retreat_when_down=1))
    assert d.p_fled.hits > 0 and d.p_fled.hits + d.p_win.hits + d.p_wipe.hits == 200
    assert "retreats" in str(d)


# ---------------------------------------------------------------- the running fight, refusals, progress

def test_the_fight_running_now_is_forecast_from_where_it_stands(sunken_keep):
    camp = _scratch(sunken_keep)
    with pytest.raises(db.Refused, match="no fight is running"):
        camp.danger(fights=10)
    fight = camp.encounter(["bog_goblin"])
    fight.initiative(first="party")
    with pytest.raises(db.Refused, match="a fight is running"):
        camp.danger(["bog_goblin"], fights=10)
    goblin = fight.foes[0].name
    camp.state["encounter"]["foes"][goblin]["hearts"] = 1  # (a keeper's view of a nearly won fight)
    d = camp.danger(fights=200, seed=3, workers=1, precision=0)
    assert d.p_win.p > 0.95 and d.foes == [goblin]
    with pytest.raises(db.Refused, match="no prepared encounter 'nowhere'.*causeway_ambush"):
        camp.danger("nowhere")
    with pytest.raises(db.Refused, match="no 'dragon' in the bestiary"):
        sunken_keep.danger(["dragon"], fights=10)
    with pytest.raises(ValueError, match="fights"):
        sunken_keep.danger(["bog_goblin"], fights=0)


def test_progress_is_told_after_every_block_and_once_more_at_the_end(sunken_keep):
    seen: list[Progress] = []
    d = sunken_keep.danger("causeway_ambush", fights=300, seed=1, workers=1, precision=0, progress=seen.append,
                    clock=lambda: 0.0)  # (a clock that stands still: only the calls after each block)
    assert [p.done for p in seen] == list(range(run.BLOCK, 301, run.BLOCK))
    assert all(p.total == 300 for p in seen) and seen[-1].final and not any(p.final for p in seen[:-1])
    assert seen[-1].widest == pytest.approx(d.widest)
    out = io.StringIO()
    out.isatty = lambda: True
    show = text_progress(out)
    show(Progress(150, 300, 0.031))
    show(Progress(300, 300, 0.02, True))
    assert out.getvalue().endswith("300/300  ±2.0 points\n") and "\r" in out.getvalue()
    # stopped by its callback while processes play: it stops there too, and a callback's own error is no reason to
    # fall back to one process (it propagates)
    two = sunken_keep.danger("causeway_ambush", fights=1000, seed=1, workers=2, precision=0,
                             progress=lambda p: p.done < 150)
    assert two.cancelled and two.fights == 150 and two.results == d.results[:150]

    def broken(p):
        raise RuntimeError("the view broke")
    with pytest.raises(RuntimeError, match="the view broke"):
        sunken_keep.danger("causeway_ambush", fights=1000, seed=1, workers=2, progress=broken)
    log = io.StringIO()  # not a terminal: one line, at the end
    text_progress(log)(Progress(150, 300, 0.031))
    assert log.getvalue() == ""


def test_the_command_line_prints_the_forecast_with_its_progress(tmp_path):
    out = subprocess.run([sys.executable, "-m", "delvebook", "danger", str(KEEP), "causeway_ambush", "--seed", "1",
                          "--fights", "200", "--workers", "1"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "Danger: causeway_ambush" in out.stdout and "Wren" in out.stdout and "wipe" in out.stdout
    assert "How the table plays:" in out.stdout and "fewest hearts" in out.stdout
    assert "200/200" in out.stderr
    bad = subprocess.run([sys.executable, "-m", "delvebook", "danger", str(KEEP), "nowhere"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "causeway_ambush" in bad.stderr and "Traceback" not in bad.stderr
    js = subprocess.run([sys.executable, "-m", "delvebook", "danger", str(KEEP), "--foes", "bog_goblin",
                         "--fights", "100", "--seed", "2", "--json", "--quiet"], capture_output=True, text=True,
                        timeout=120)
    import json
    data = json.loads(js.stdout)
    assert data["fights"] == 100 and data["seed"] == 2 and set(data["delvers"]) == {
        "Wren", "Brakka", "Ilse", "Father Odo", "Sable"} and js.stderr == ""
