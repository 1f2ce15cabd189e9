"""The table's Charts panel keeps its series up to date per event (the actions in force, followed as History moves)
and shows what the analysis frames say: XP after each award, and hearts through the latest fight."""
from __future__ import annotations

import random

import pytest

pytest.importorskip("anywidget")
pd = pytest.importorskip("pandas")

import delvebook as db  # noqa: E402
from delvebook import analysis  # noqa: E402
from delvebook.engine import Refused  # noqa: E402
from delvebook.table import UI, perform, table_view  # noqa: E402
from delvebook.view.charts import ChartSeries, charts_panel  # noqa: E402


def from_frames(camp) -> dict:
    """The panel's series as the analysis frames give them (what the panel was built from before it kept its own
    series): the reference its series are held to."""
    f = analysis.frames(camp, copy=False)
    xp = f["xp"]
    series = []
    for who in camp.state["seats"]:
        rows = xp[xp["who"] == who]
        series.append({"name": who, "points": [[0, 0]] + [[int(q), int(v)] for q, v in zip(rows["seq"], rows["xp"])]})
    last = max([p[0] for s in series for p in s["points"]] + [len(camp.events), 1])
    thresholds = [{"level": int(k), "xp": int(v)} for k, v in camp.rules.level_thresholds.items() if v > 0]
    hearts = f["hearts"]
    enc = hearts["encounter"].dropna()
    fight = None
    if len(enc):
        number = int(enc.max())
        fought = f["encounters"][f["encounters"]["encounter"] == number].iloc[0]
        start = int(fought["start_seq"])
        lines: dict = {}
        for who in camp.state["seats"]:  # the delvers standing when the fight began, at their hearts then
            then = hearts[(hearts["who"].astype(str) == who) & (hearts["side"] == "party") & (hearts["seq"] <= start)]
            if len(then) and then["status"].iloc[-1] != "dead":
                lines[who] = {"name": who, "side": "party", "points": [[start, int(then["hearts"].iloc[-1])]]}
        rows = hearts[hearts["encounter"] == number]
        for who, side, q, h in zip(rows["who"].astype(str), rows["side"].astype(str), rows["seq"], rows["hearts"]):
            lines.setdefault(who, {"name": who, "side": side, "points": []})["points"].append([int(q), int(h)])
        running = camp.state["encounter"] is not None and camp.state["encounter"]["number"] == number
        ends = [p[0] for line in lines.values() for p in line["points"]]
        if not pd.isna(fought["end_seq"]):
            ends.append(int(fought["end_seq"]))
        until = max(ends + ([camp.events[-1]["seq"]] if running else []))
        for line in lines.values():  # each line drawn on to the fight's end, or to now while it runs
            if line["points"][-1][0] != until:
                line["points"].append([until, line["points"][-1][1]])
        fight = {"number": number, "first": min(line["points"][0][0] for line in lines.values()), "last": until,
                 "series": list(lines.values())}
    return {"xp": {"series": series, "thresholds": thresholds, "last": int(last)}, "hearts": fight}


@pytest.fixture
def camp(keep):
    c = db.Campaign.open(keep)
    yield c
    c.close()


def _play(camp, r: random.Random) -> None:
    """One step of a table at play: fights begun and ended, attacks, death saves, luck dice and typed dice on
    them, XP, hearts by hand, undo and redo (several in a row)."""
    fight = camp.fight
    living = [d.name for d in camp.delvers if d.status != "dead"]
    pick = r.random()
    if fight is None:
        if pick < 0.5:
            camp.encounter(["bog_goblin", "bog_goblin"]).initiative(first=r.choice(["party", "foes"]))
        elif pick < 0.7:
            camp.award_xp(r.randint(5, 60))
        else:
            camp.damage(r.choice(living), r.randint(1, 4), source="a fall")
        return
    foes = [f.name for f in fight.foes if f.status != "dead"]
    dying = [d.name for d in camp.delvers if d.status == "dying"]
    if pick < 0.35 and foes and living:
        if r.random() < 0.5:
            camp.fight.attack(r.choice(living), r.choice(foes), keeper_override="a test's random table")
        else:
            camp.fight.attack(r.choice(foes), r.choice(living), keeper_override="a test's random table")
    elif pick < 0.45 and dying:
        camp.death_save(dying[0])
    elif pick < 0.55:
        camp.spend_luck(r.choice(list(camp.players)), r.choice([1, -1]))
    elif pick < 0.6:
        roll = next(iter((camp.latest_action or {}).get("rolls") or {"attack": None}))
        camp.amend(**{roll: [r.randint(1, 6)]})
    elif pick < 0.75:
        for _ in range(r.randint(1, 3)):
            camp.undo()
        for _ in range(r.randint(0, 2)):
            camp.redo()
    elif pick < 0.85:
        camp.redo()
    elif pick < 0.92 or not foes:
        camp.fight.end()
    else:
        camp.fight.next_turn()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_charts_series_kept_per_event_are_what_the_frames_say_after_every_step(camp, seed):
    camp.start_session()
    assert charts_panel(camp) == from_frames(camp)  # built once, then kept by the campaign's listeners
    r = random.Random(seed)
    followed = 0
    for step in range(90):
        try:
            _play(camp, r)
        except (Refused, ValueError, KeyError):
            continue  # refused: nothing was recorded
        followed += 1
        if step % 3 == 0:
            assert charts_panel(camp) == from_frames(camp), f"after event {camp.events[-1]['seq']}"
    assert charts_panel(camp) == from_frames(camp)
    assert followed > 40
    assert from_frames(camp)["hearts"] is not None, "the walk fought"


def test_the_charts_panel_moves_with_each_click_without_building_its_series_again(camp, monkeypatch):
    ui = UI()
    perform(camp, ui, {"do": "start_session"})
    perform(camp, ui, {"do": "start_fight", "prepared": "causeway_ambush"})
    perform(camp, ui, {"do": "panel", "panel": "charts"})
    table_view(camp, ui)
    built = []
    monkeypatch.setattr(ChartSeries, "replayed", classmethod(lambda cls, *a: built.append(a) or None))
    perform(camp, ui, {"do": "initiative", "first": "party"})
    perform(camp, ui, {"do": "award_xp", "args": {"amount": "50"}, "where": "keeper:xp"})
    view = table_view(camp, ui)
    assert built == [], "each event moved the series; none was built again"
    assert {s["name"]: s["points"][-1][1] for s in view["charts"]["xp"]["series"]} == \
        {d.name: d.xp for d in camp.delvers}
    perform(camp, ui, {"do": "undo"})
    view = table_view(camp, ui)
    assert built == [] and {s["name"]: s["points"][-1][1] for s in view["charts"]["xp"]["series"]} == \
        {d.name: 0 for d in camp.delvers}, "the undone award's points are gone"


def test_the_long_campaigns_series_are_what_its_frames_say(long_delve):
    assert charts_panel(long_delve) == from_frames(long_delve)


def test_every_combatants_hearts_line_runs_from_the_fights_start_to_now(camp):
    ui = UI()
    perform(camp, ui, {"do": "start_session"})
    perform(camp, ui, {"do": "start_fight", "prepared": "causeway_ambush"})
    start = camp.events[-1]["seq"]
    perform(camp, ui, {"do": "initiative", "first": "party"})
    wren = camp.delver("Wren").hearts
    camp.damage("Wren", 4, source="a goblin's spear")
    hit = camp.events[-1]["seq"]
    camp.fight.next_turn()
    perform(camp, ui, {"do": "panel", "panel": "charts"})
    hearts = table_view(camp, ui)["charts"]["hearts"]
    now = camp.events[-1]["seq"]
    lines = {s["name"]: s["points"] for s in hearts["series"]}
    assert lines["Wren"] == [[start, wren], [hit, wren - 4], [now, wren - 4]], "Wren's drop is drawn from the start"
    brakka = camp.delver("Brakka").hearts
    assert lines["Brakka"] == [[start, brakka], [now, brakka]], "a delver with no change is a level line"
    assert [n for n in lines][:5] == camp.state["seats"], "the party first, in seat order, then the foes"
    assert all(p[0][0] == start and p[-1][0] == now for p in lines.values())
    assert (hearts["first"], hearts["last"]) == (start, now)


def test_an_ended_fights_lines_end_where_it_ended(camp):
    camp.start_session()
    fight = camp.encounter("causeway_ambush")
    start = camp.events[-1]["seq"]
    fight.initiative("party")
    fight.end()
    end = camp.events[-1]["seq"]
    camp.award_xp(10)  # play goes on after the fight: its lines stay where it ended
    hearts = charts_panel(camp)["hearts"]
    assert {(s["points"][0][0], s["points"][-1][0]) for s in hearts["series"]} == {(start, end)}
    camp.undo()
    camp.undo()  # the end taken back: the fight runs again, its lines drawn on to now
    hearts = charts_panel(camp)["hearts"]
    assert {s["points"][-1][0] for s in hearts["series"]} == {camp.events[-1]["seq"]}
    assert charts_panel(camp) == from_frames(camp)
