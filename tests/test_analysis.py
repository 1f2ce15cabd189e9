"""The frames agree with the log they came from: damage, hearts, XP, dice, what is in force."""
from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from types import SimpleNamespace

import pandas as pd
import pytest

import delvebook as db
from delvebook import analysis
from delvebook.analysis.fair_dice import _gammaincc
from delvebook.analysis.tables import events_frame
from delvebook.core.events import replay

from conftest import CAMPAIGNS, REPO

LONG = CAMPAIGNS / "the-long-delve"


@pytest.fixture(scope="module")
def camp(long_delve):
    return long_delve


@pytest.fixture(scope="module")
def f(camp):
    return analysis.frames(camp)


def test_frames_from_a_folder_path_equal_frames_from_the_open_campaign(f):
    g = analysis.frames(LONG)
    assert set(g) == set(analysis.FRAME_NAMES)
    for name in analysis.FRAME_NAMES:
        pd.testing.assert_frame_equal(g[name], f[name], obj=name)


def test_a_folder_is_read_without_the_writers_lock(tmp_path):
    # a campaign open for writing elsewhere can still be analysed
    with db.Campaign.open(LONG, read_only=True):
        pass
    writer = db.Campaign.create(tmp_path / "c", name="Locked", seed=3,
                                delvers=[{"name": "Wren", "class": "rogue", "player": "Ana"}])
    try:
        writer.start_session()
        writer.award_xp(10)
        x = analysis.xp(tmp_path / "c")
        assert list(x["xp"]) == [10]
    finally:
        writer.close()


def test_import_delvebook_loads_neither_pandas_nor_plotly():
    code = "import sys, delvebook; print('pandas' in sys.modules, 'plotly' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.split() == ["False", "False"]


# ---------------------------------------------------------------- in force

def test_in_force_matches_the_reducers_own_history(camp, f):
    ev = f["events"]
    assert set(ev.loc[ev["status"] == "in force", "seq"]) == set(camp.engine.history.in_force())
    assert len(ev) == len(camp.events)


def test_undone_and_replaced_events_are_marked_and_left_out(f):
    ev = f["events"]
    counts = ev["status"].value_counts()
    assert counts["undone"] > 0 and counts["replaced"] > 0 and counts["undo"] > 0 and counts["redo"] > 0
    out = set(ev.loc[~ev["in_force"], "seq"])
    for name in ("rolls", "hearts", "xp", "damage", "luck"):
        assert not (set(f[name]["seq"]) & out), f"{name} holds an event not in force"
    replaced = ev[ev["status"] == "replaced"]
    assert replaced["replaced_by"].notna().all()
    by = ev.set_index("seq").loc[replaced["replaced_by"].astype(int)]
    assert (by["replaces"].notna()).all()


def test_frames_have_the_documented_dtypes(f):
    ev = f["events"]
    assert str(ev["ts"].dtype) == "datetime64[ns, UTC]"
    assert isinstance(ev["kind"].dtype, pd.CategoricalDtype)
    assert ev["in_force"].dtype == bool
    for name, col in (("rolls", "who"), ("rolls", "player"), ("hearts", "who"), ("xp", "who"),
                      ("damage", "dealer"), ("luck", "player")):
        assert isinstance(f[name][col].dtype, pd.CategoricalDtype), (name, col)
    assert str(f["hearts"]["hearts"].dtype) == "Int64"
    assert f["rolls"]["face"].dtype == "int64"
    assert str(f["encounters"]["start_ts"].dtype) == "datetime64[ns, UTC]"
    for name in analysis.FRAME_NAMES:
        assert getattr(analysis, name).__doc__, f"{name} has no documented columns"


# ---------------------------------------------------------------- damage and hearts

def test_damage_rolled_is_hearts_lost_plus_armor_absorbed_plus_overkill(f):
    d = f["damage"]
    assert len(d) > 1000
    assert (d["raw"] == d["absorbed"] + d["dealt"]).all()
    assert (d["hearts_lost"] == d["hearts_before"] - d["hearts_after"]).all()
    # only a blow that brings a combatant to 0 hearts may deal more than it took away
    assert (d.loc[d["hearts_after"] > 0, "overkill"] == 0).all()
    assert (d["overkill"] >= 0).all()
    assert d["raw"].sum() == d["hearts_lost"].sum() + d["absorbed"].sum() + d["overkill"].sum()
    assert d["absorbed"].sum() > 0


def test_damage_matches_the_hearts_each_target_lost_in_that_event(f):
    d, h = f["damage"], f["hearts"]
    lost = d.groupby(["seq", d["target"].astype(str)])["hearts_lost"].sum()
    # events whose only heart changes are damage (no healing in the same event)
    h = h[h["seq"] > 0]
    change = h.groupby(["seq", h["who"].astype(str)])["change"].sum()
    common = lost.index.intersection(change.index)
    assert len(common) > 0.9 * len(lost)
    assert (change.loc[common] == -lost.loc[common]).all()


def test_encounter_damage_sums_to_the_damage_frame(f):
    d, e = f["damage"], f["encounters"]
    in_fights = d[d["encounter"].notna()]
    assert e["party_dealt"].sum() == in_fights.loc[in_fights["dealer_side"] == "party", "dealt"].sum()
    assert e["party_taken"].sum() == in_fights.loc[in_fights["target_side"] == "party", "dealt"].sum()
    assert e["foes_taken"].sum() + e["party_taken"].sum() == in_fights["dealt"].sum()


def test_hearts_rows_agree_with_the_state_replayed_at_that_event(camp, f):
    h = f["hearts"]
    rng = random.Random(6)
    seqs = sorted(rng.sample(sorted(set(h.loc[h["seq"] > 0, "seq"])), 25))
    for seq in seqs:
        state = camp.state_at(seq)
        for row in h[h["seq"] == seq].itertuples():
            if row.side == "party":
                expected = state["delvers"][row.who]
            else:
                expected = state["encounter"]["foes"][row.who]
                assert state["encounter"]["number"] == row.encounter
            assert (row.hearts, row.max_hearts, row.status) == (
                expected["hearts"], expected["max_hearts"], expected["status"]), (seq, row.who)


def test_every_heart_change_in_force_has_a_row(camp, f):
    """Replay the whole log once; after each in-force action, every combatant whose hearts or status
    changed since the previous in-force action has a row with the new value."""
    h = f["hearts"]
    rows = {(r.seq, r.who): (r.hearts, r.status) for r in h.itertuples()}
    standing = set(camp.engine.history.in_force())
    hist = replay(camp.setup, [])

    def snapshot(state):
        out = {n: (d["hearts"], d["status"]) for n, d in state["delvers"].items()}
        if state.get("encounter"):
            out.update({n: (x["hearts"], x["status"]) for n, x in state["encounter"]["foes"].items()})
        return out

    before = snapshot(hist.state)
    checked = 0
    for e in camp.events:
        hist.apply(e)
        after = snapshot(hist.state)
        if e["seq"] in standing:
            changed = {n for n in after if before.get(n) != after[n]}
            if e["kind"] == "encounter":  # a new fight: its foes appear
                changed |= set(after) - set(snapshot(camp.setup))
            for n in changed:
                if (e["seq"], n) not in rows and n in before and e["kind"] != "encounter":
                    pytest.fail(f"event {e['seq']}: {n} went {before.get(n)} -> {after[n]}, no hearts row")
                if (e["seq"], n) in rows:
                    assert rows[(e["seq"], n)] == after[n]
                    checked += 1
            before = after  # the state the next in-force action builds on
    assert checked > 2000


def test_deaths_and_death_saves_are_marked(f):
    h = f["hearts"]
    ds = h[h["death_save"]]
    assert len(ds) > 0 and ds["death_save_success"].notna().all()
    # a failed death save is a death
    failed = ds[~ds["death_save_success"].astype(bool)]
    assert failed["death"].all()
    deaths = h[(h["side"] == "party") & h["death"]]
    assert set(deaths["who"].astype(str)) <= set(f["events"]["actor"].dropna().astype(str))
    assert (h.loc[h["down"], "hearts"] == 0).all()


# ---------------------------------------------------------------- XP

def test_xp_rows_end_at_each_delvers_xp(camp, f):
    x = f["xp"]
    last = x.groupby("who", observed=True).tail(1).set_index("who")
    for name, d in camp.state["delvers"].items():
        if name in last.index:
            assert last.loc[name, "xp"] == d["xp"], name
            assert last.loc[name, "level"] == d["level"], name
        else:
            assert d["xp"] == 0


def test_xp_is_cumulative_shares(f):
    x = f["xp"]
    for name, rows in x.groupby("who", observed=True):
        assert (rows["amount"].cumsum() == rows["xp"]).all(), name


def test_level_ups_are_marked_where_the_level_rises(f):
    x = f["xp"]
    ups = x[x["level_up"]]
    assert len(ups) >= 10
    events = f["events"].set_index("seq")
    for r in ups.itertuples():
        level_ups = json.loads(events.loc[r.seq, "level_ups"])  # a list of mappings: JSON text
        assert {"who": r.who, "level": r.level}.items() <= next(
            u for u in level_ups if u["who"] == r.who).items()


# ---------------------------------------------------------------- dice

def test_one_rolls_row_per_die_recorded(camp, f):
    r = f["rolls"]
    standing = set(camp.engine.history.in_force())
    dice = luck = 0
    for e in camp.events:
        if e["seq"] in standing:
            for roll in (e.get("rolls") or {}).values():
                dice += len(roll["faces"])
                luck += len(roll.get("luck") or ())
    assert (~r["luck"]).sum() == dice
    assert r["luck"].sum() == luck
    assert len(r) == dice + luck


def test_a_new_delvers_starting_rolls_are_its_players_throw(f, camp):
    """Hearts, spells, true names: the dice a delver joins with are its player's, not the keeper's."""
    joined = [e for e in camp.events if e["kind"] == "add_delver" and e.get("rolls") and camp.standing.in_force(e["seq"])]
    assert joined
    r = f["rolls"]
    for e in joined:
        rows = r[r["seq"] == e["seq"]]
        assert list(rows["player"].astype(str)) == [e["player"]] * len(rows) and len(rows) > 0


def test_a_rolls_faces_and_luck_give_its_total(f):
    r = f["rolls"]
    plain = r[~r["luck"]]
    # a roll with only d20s and d6s kept and no constant: its kept faces sum to its base total
    simple = plain[plain["expr"].astype(str).isin(["d20", "d6", "2d6", "3d6", "d20+d6", "d20+2d6"])]
    sums = simple[simple["kept"]].groupby(["seq", "roll"], observed=True)["face"].sum()
    base = simple.groupby(["seq", "roll"], observed=True)["base_total"].first()
    assert (sums == base).all()
    lucky = r[r["luck"]]
    applied = (lucky["sign"] * lucky["face"]).groupby([lucky["seq"], lucky["roll"]], observed=True).sum()
    first = lucky.groupby(["seq", "roll"], observed=True)[["total", "base_total", "luck_applied"]].first()
    assert (first["total"] == first["base_total"] + applied).all()
    assert (first["luck_applied"] == applied).all()


def test_advantage_keeps_the_higher_d20(f):
    r = f["rolls"]
    adv = r[r["expr"].astype(str).str.startswith("2d20kh1") & (r["sides"] == 20) & ~r["luck"]]
    assert len(adv) > 0
    for _, g in adv.groupby(["seq", "roll"], observed=True):
        assert g["kept"].sum() == 1
        assert g.loc[g["kept"], "face"].iloc[0] == g["face"].max()


def test_luck_rows_say_who_spent_them_and_what_changed(f):
    lk = f["luck"]
    r = f["rolls"]
    assert len(lk) == r["luck"].sum()
    assert (lk["total_after"] - lk["total_before"] == lk["sign"] * lk["face"]).sum() >= 0.95 * len(lk)
    flipped = lk[lk["flipped"]]
    assert len(flipped) > 0 and (flipped["outcome_before"].astype(str) != flipped["outcome_after"].astype(str)).all()
    assert set(lk["effect"].astype(str)) <= {"turned to success", "turned to failure", "changed the total only"}


# ---------------------------------------------------------------- fairness statistic

@pytest.mark.parametrize("x, df, p", [(10.0, 5, 0.07523524614651217), (30.14352720564616, 19, 0.05),
                                      (1.0, 1, 0.31731050786291415), (27.2036, 19, 0.1),
                                      (0.0, 5, 1.0)])
def test_chi_squared_p_value_matches_known_values(x, df, p):
    got = _gammaincc(df / 2, x / 2)
    assert math.isclose(got, p, rel_tol=1e-3, abs_tol=1e-35)


@pytest.mark.parametrize("df", [2, 4, 6, 10, 20])
@pytest.mark.parametrize("x", [0.5, 3.0, 9.0, 25.0, 60.0, 200.0])
def test_chi_squared_p_value_matches_the_closed_form_for_even_degrees_of_freedom(df, x):
    # Q(n, y) = exp(-y) * sum_{j < n} y^j / j!  when n = df / 2 is whole
    y, n = x / 2, df // 2
    closed = math.exp(-y) * sum(y ** j / math.factorial(j) for j in range(n))
    assert math.isclose(_gammaincc(n, y), closed, rel_tol=1e-9, abs_tol=1e-300)


def test_fair_dice_are_within_what_fair_dice_do_9_times_in_10_about_9_times_in_10():
    rng = random.Random(7)
    probs = analysis.face_probabilities(20)
    within = 0
    for _ in range(400):
        counts = [0] * 20
        for _ in range(400):
            counts[rng.randrange(20)] += 1
        within += analysis.chi_squared_p(counts, probs)[2] >= analysis.FAIR_LEVEL
    assert 0.85 <= within / 400 <= 0.95


def test_loaded_dice_are_called_out():
    counts = [10] * 19 + [120]
    stat, df, p = analysis.chi_squared_p(counts, analysis.face_probabilities(20))
    assert p < 1e-6
    assert analysis.fairness_verdict(p, sum(counts), 20).startswith("less even than fair dice")
    assert analysis.fairness_verdict(0.5, 30, 20).startswith("too few rolls")


def test_fairness_counts_each_players_d20_and_d6_faces(f):
    fair, r = f["fairness"], f["rolls"]
    for row in fair.itertuples():
        faces = r[(r["player"] == row.player) & (r["sides"] == row.sides)]["face"]
        assert row.rolls == len(faces)
        assert row.counts == [int((faces == k).sum()) for k in range(1, row.sides + 1)]
    assert {"Ana", "Ben", "Cleo", "Dev", "Eli", "keeper"} <= set(fair["player"].astype(str))


# ---------------------------------------------------------------- encounters

def test_one_encounter_row_per_fight_in_force(f):
    ev = f["events"]
    e = f["encounters"]
    fights = ev[(ev["kind"] == "encounter") & ev["in_force"]]
    assert len(e) == len(fights)
    assert e["encounter"].is_unique
    ends = ev[(ev["kind"] == "end_encounter") & ev["in_force"]]
    assert e["ended"].sum() == len(ends)
    assert e["xp"].sum() == ends["xp"].sum()
    assert (e["rounds"] >= 1).all()
    assert e["deaths"].sum() == f["hearts"].query("side == 'party'")["death"].sum()


def test_frames_of_an_empty_campaign(tmp_path):
    c = db.Campaign.create(tmp_path / "empty", name="Empty", seed=1)
    try:
        f = analysis.frames(c)
        assert all(len(f[n]) == 0 for n in ("events", "rolls", "xp", "damage", "luck", "encounters"))
    finally:
        c.close()


# ---------------------------------------------------------------- the events frame types a new field by its declaration

def test_a_new_event_field_is_typed_by_its_declaration_and_the_frame_goes_to_parquet(tmp_path):
    """Events gain fields (roles: ``actor``, ``targets``, ``sides``, ``by`` on damage; a new command's own): each
    becomes columns of the type its declaration says, so ``to_parquet`` keeps working without a change here."""
    from delvebook.core import declared
    from delvebook.core.declared import Action

    class Glimpse(Action, kind="test_glimpse"):
        """A glimpse of something far off: how far."""
        glimpse: float
    log = [
        {"seq": 1, "kind": "attack", "v": 2, "at": 0, "ts": "2026-01-01T00:00:00Z", "actor": "Wren",
         "targets": ["Goblin 1"], "sides": {"Wren": "party", "Goblin 1": "foes"}, "chance": {"win": "61/96",
         "tie": "33/800", "lose": "97/300"}, "damage": [{"target": "Goblin 1", "by": "Wren", "dealt": 3}],
         "changes": [[["encounter", "foes", "Goblin 1", "hearts"], 1]], "rolls": {}, "args": {}},
        {"seq": 2, "kind": "check", "v": 2, "at": 5, "ts": "2026-01-01T00:00:05Z", "actor": "Ilse", "targets": [],
         "sides": {"Ilse": "party"}, "chance": "1/5", "changes": [], "rolls": {}, "args": {}},
        {"seq": 3, "kind": "test_glimpse", "v": 2, "at": 5, "ts": "2026-01-01T00:00:06Z", "actor": "Ilse",
         "targets": [], "sides": {"Ilse": "party"}, "glimpse": 2, "changes": [], "args": {}},
    ]
    both_stand = SimpleNamespace(in_force=lambda seq: True, replaced_by=lambda seq: None,
                                 undone_by=lambda seq: None)
    try:
        ev = events_frame(log, both_stand)
    finally:
        declared.forget("test_glimpse")
    assert list(ev["actor"]) == ["Wren", "Ilse", "Ilse"]
    assert list(ev["targets"]) == [["Goblin 1"], [], []] and ev["targets"].dtype == object
    assert [json.loads(s) for s in ev["sides"]] == [e["sides"] for e in log]
    assert json.loads(ev["damage"][0])[0]["by"] == "Wren" and pd.isna(ev["damage"][1])
    assert pd.isna(ev["chance"][0]) and ev["chance"][1] == 0.2 and ev["chance_exact"][1] == "1/5"
    assert ev["chance_win"][0] == 61 / 96 and ev["chance_tie_exact"][0] == "33/800"
    assert str(ev["glimpse"].dtype) == "Float64" and ev["glimpse"][2] == 2.0  # a float, though it holds a 2
    ev.to_parquet(tmp_path / "events.parquet")
    back = pd.read_parquet(tmp_path / "events.parquet")
    typed = [c for c in ev.columns if ev[c].notna().any()]  # Parquet keeps no categories of a column with no values
    assert {c: back[c].dtype for c in typed} == {c: ev[c].dtype for c in typed}
    assert back["targets"].map(list).tolist() == [["Goblin 1"], [], []]
