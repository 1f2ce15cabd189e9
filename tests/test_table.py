"""The keeper's table without a browser: each intent a click sends changes the campaign (and its log on disk) as
the rules say, and the view model the page draws shows it, in the game's words. The view model is plain JSON,
a pure function of the campaign and the UI state; the page only draws it (no markup is ever built from it)."""
from __future__ import annotations

import json
import re
import shutil
from fractions import Fraction
from pathlib import Path

import pytest

pytest.importorskip("anywidget")

import delvebook as db  # noqa: E402
from delvebook.core.distribution import percent  # noqa: E402
from delvebook.engine import queries  # noqa: E402
from delvebook.store import read_log  # noqa: E402
from delvebook.table import UI, Table, perform, table_view  # noqa: E402
from delvebook.view import front  # noqa: E402
from delvebook import narrate as words  # noqa: E402  (the one teller: the table only lays its words out)

from conftest import CAMPAIGNS  # noqa: E402

STATIC = Path(db.__file__).parent / "view" / "static"
EVIL = "<img src=x onerror=alert(1)>"


@pytest.fixture
def camp(tmp_path):
    shutil.copytree(CAMPAIGNS / "the-sunken-keep", tmp_path / "keep")
    c = db.Campaign.open(tmp_path / "keep")
    yield c
    c.close()


@pytest.fixture
def ui():
    return UI()


def click(camp, ui, **intent):
    """What a click does: the intent performed, then the view the page would get."""
    perform(camp, ui, intent)
    view = table_view(camp, ui)
    json.dumps(view)  # always JSON: it is what the page receives
    return view


def kinds_on_disk(camp) -> list[str]:
    events, problems = read_log(camp.path)
    assert not problems
    return [e["kind"] for e in events]


def chip(view, name):
    return next(c for c in view["party"] if c["name"] == name)


def skill(view, label_start):
    return next(s for s in view["actor"]["checks"]["skills"] if s["label"].startswith(label_start))


def fight_started(camp, ui, first="party"):
    click(camp, ui, do="start_session")
    click(camp, ui, do="start_fight", prepared="causeway_ambush")
    return click(camp, ui, do="initiative", first=first)


def attack_button(view, target, weapon_start=""):
    row = next(r for r in view["actor"]["attacks"]["rows"] if r["name"] == target)
    return next(b for b in row["buttons"] if b["label"].startswith(weapon_start))


def action(view, name, group="abilities"):
    return next(a for a in view["actor"][group] if a["name"] == name)


# ---------------------------------------------------------------- the view model itself

def test_the_view_model_is_json_and_a_pure_function_of_the_campaign_and_the_ui(camp, ui):
    before = json.dumps(camp.state, sort_keys=True), len(camp.events)
    a, b = table_view(camp, ui), table_view(camp, ui)
    assert a == b and json.loads(json.dumps(a)) == a
    assert (json.dumps(camp.state, sort_keys=True), len(camp.events)) == before
    assert {"party", "fight", "actor", "outcome", "luck", "log", "undo", "redo", "panels", "session", "mode"} <= set(a)
    assert a["mode"] == "keeper" and [c["name"] for c in a["party"]] == ["Wren", "Brakka", "Ilse", "Father Odo", "Sable"]


def test_no_view_reads_the_whole_log_to_ask_what_stands():
    """The table and the players' view ask the campaign's History (``camp.standing``), which keeps which actions
    stand as it folds; ``events.standing(events)`` walks the whole log, per click, and grows with it."""
    import ast
    package = Path(db.__file__).parent
    readers = []
    for path in [*(package / "table").rglob("*.py"), *(package / "players").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("events") \
                    and any(a.name == "standing" for a in node.names):
                readers.append(f"{path.relative_to(package)}:{node.lineno}")
    assert readers == []


def test_every_control_carries_the_intent_it_sends_and_every_intent_is_one_the_table_knows(camp, ui):
    from delvebook.table.intents import INTENTS
    fight_started(camp, ui)
    views = [table_view(camp, ui)]
    for panel in ("keeper", "party", "charts", "play"):
        views.append(click(camp, ui, do="panel", panel=panel))
    found = []

    def walk(x):
        if isinstance(x, dict):
            if "do" in x and isinstance(x["do"], str):
                found.append(x["do"])
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    for v in views:
        walk(v)
    assert found and set(found) <= set(INTENTS), set(found) - set(INTENTS)


def test_the_page_sets_every_text_as_text_and_never_builds_markup():
    names = sorted(p.name for p in STATIC.glob("*.js"))
    assert {"table.js", "phones.js", "players.js", "prepare.js", "charts.js"} <= set(names)
    for name in names:
        js = (STATIC / name).read_text()
        for forbidden in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "DOMParser",
                          "createContextualFragment", "eval(", "new Function", "import("):
            assert forbidden not in js, (name, forbidden)
        assert not re.search(r"\bhttps?://(?!www\.w3\.org/2000/svg)", js), f"{name}: nothing from a network"
        # nothing is fetched; the players' pages speak to the server that served them over one WebSocket, at the
        # path the page's shell names (a path, never an address)
        assert "fetch(" not in js and "XMLHttpRequest" not in js, name
        assert re.findall(r"new WebSocket\(([^)]*)\)", js) == (["url.href"] if name == "players.js" else []), name
    assert "new URL(root.dataset.live, location.href)" in (STATIC / "players.js").read_text()
    js = front.esm()
    assert "textContent" in js and "createTextNode" in js


def test_the_front_end_is_one_module_joined_from_its_parts_each_import_naming_what_its_file_exports():
    parts = set(front.PARTS)
    assert {p.name for p in STATIC.glob("*.js")} - parts == {"players.js"}, "a file of static/ that is not joined"
    for name in front.PARTS:
        for file, names in front.imports(front.static(name)):
            missing = set(names) - front.exports(front.static(file))
            assert not missing, f"{name} imports {sorted(missing)} from {file}, which does not export them"
    js = front.esm()
    assert not re.search(r"^\s*import\b", js, re.M), "an import left in the joined module"
    assert re.findall(r"^export\b.*", js, re.M) == ["export default {"], "one export: the anywidget entry"
    with pytest.raises(ValueError, match="nowhere.js"):
        front.joined("x.js", 'import { h } from "./nowhere.js";\n')
    with pytest.raises(ValueError, match="cannot join"):
        front.joined("x.js", "function a() {}\nexport { a };\n")


def test_names_like_markup_reach_the_view_model_as_plain_text(tmp_path):
    c = db.Campaign.create(tmp_path / "evil", name=f"{EVIL} Keep", seed=5,
                           delvers=[{"name": EVIL, "class": "rogue", "player": "<b onmouseover=alert(3)>Mal</b>"}])
    try:
        ui = UI()
        click(c, ui, do="start_session")
        view = click(c, ui, do="check", who=EVIL, skill="stealth")
        text = json.dumps(view)
        assert EVIL in view["title"] and chip(view, EVIL)["player"] == "<b onmouseover=alert(3)>Mal</b>"
        assert EVIL in view["outcome"]["text"]
        assert "&lt;" not in text, "the view model carries text, never escaped HTML: the page sets it as text"
        c.npc(f"{EVIL} the prisoner", hearts=3, note="<script>alert(5)</script>")
        view = table_view(c, ui)
        assert view["creatures"][0]["name"] == f"{EVIL} the prisoner"
        assert view["creatures"][0]["note"] == "<script>alert(5)</script>" and "&lt;" not in json.dumps(view)
    finally:
        c.close()


def test_the_pure_table_needs_nothing_pyodide_lacks():
    for path in (Path(db.__file__).parent / "table").glob("*.py"):
        src = path.read_text()
        for mod in ("threading", "subprocess", "fcntl", "multiprocessing", "socket", "signal"):
            assert not re.search(rf"^\s*(import|from) {mod}\b", src, re.M), (path.name, mod)


# ---------------------------------------------------------------- sessions, checks, luck, real dice

def test_start_session_gives_each_player_three_luck_dice_and_the_party_strip_shows_them(camp, ui):
    view = click(camp, ui, do="start_session")
    assert kinds_on_disk(camp) == ["start_session"]
    assert view["session"]["active"] and chip(view, "Wren")["luck"] == 3 and chip(view, "Wren")["luck_max"] == 3
    assert view["outcome"]["text"] == "Session 1 begins: every player has 3 luck dice"


def test_a_check_shows_its_exact_odds_before_the_click_and_its_dice_after(camp, ui):
    view = click(camp, ui, do="start_session")
    stealth = skill(view, "Stealth")
    assert stealth["label"] == "Stealth +D6"
    assert stealth["odds"] == percent(db.odds("d20+d6", target=10), 0)
    view = click(camp, ui, **stealth["intent"])
    e = camp.events[-1]
    assert e["kind"] == "check" and e["target"] == 10 and e["skill"] == "stealth"
    out = view["outcome"]
    assert out["seq"] == e["seq"] and out["verdict"]["word"] in ("success", "failure")
    assert out["text"].startswith(f"Wren: Stealth check {e['total']} vs 10: ")
    dice = out["rolls"][0]["dice"]
    assert [d["sides"] for d in dice] == [20, 6] and [d["face"] for d in dice] == e["rolls"]["check"]["faces"]


def test_the_target_number_and_an_opponent_change_the_odds_every_button_shows(camp, ui):
    click(camp, ui, do="start_session")
    view = click(camp, ui, do="target", target=15, where="checks")
    assert skill(view, "Stealth")["odds"] == percent(db.odds("d20+d6", target=15), 0)
    assert view["actor"]["checks"]["against"] == "vs 15"
    view = click(camp, ui, do="vs", vs="Brakka", where="checks")
    expected = queries.check_odds(camp.state, camp.rules, "Wren", "stealth", vs="Brakka")
    assert skill(view, "Stealth")["odds"] == percent(expected, 0)
    view = click(camp, ui, **skill(view, "Stealth")["intent"])
    assert camp.events[-1]["vs"] == "Brakka" and "vs Brakka" in view["outcome"]["text"]
    view = click(camp, ui, do="target", target="abc", where="checks")
    assert view["refusal"]["where"] == "checks" and "whole number" in view["refusal"]["text"]


def test_a_luck_die_by_any_player_replaces_the_roll_and_the_log_marks_the_original(camp, ui):
    click(camp, ui, do="start_session")
    camp.check("Wren", "stealth", 10, faces={"check": [8, 2]})  # 10 vs 10: it succeeds, and only a die off fails it
    view = table_view(camp, ui)
    row = view["luck"]["rows"][0]
    assert row["player"] == "Ana" and row["minus"]["label"] == "\u2212 Ana" and "plus" not in row
    assert row["minus"]["title"] == "Ana spends a luck die: taken off Wren's Stealth check; any face: success " \
                                    "becomes failure"
    assert row["note"] == "a luck die added cannot change the outcome: success"
    view = click(camp, ui, do="luck_player", player="Ben", seq=view["luck"]["seq"], where="luck")
    row = view["luck"]["rows"][0]
    assert row["player"] == "Ben"  # any player may spend on any roll
    view = click(camp, ui, **row["minus"]["intent"])
    e = camp.events[-1]
    assert e["luck"] == {"player": "Ben", "roll": "check", "sign": -1, "face": e["luck"]["face"]}
    assert chip(view, "Brakka")["luck"] == 2 and chip(view, "Wren")["luck"] == 3
    assert view["outcome"]["text"].startswith("Ben spends a luck die on Wren's Stealth check: -")
    assert any(d.get("luck") == "Ben" for d in view["outcome"]["rolls"][0]["dice"])
    marks = {r["seq"]: r["mark"] for r in view["log"]}
    assert marks[e["replaces"]] == "replaced" and marks[e["seq"]] == ""


def test_after_a_foe_attacks_the_defenders_player_is_offered_the_luck_die(camp, ui):
    fight_started(camp, ui, first="foes")
    view = table_view(camp, ui)
    assert view["actor"]["name"] == "Bog goblin 1" and view["actor"]["side"] == "foe"
    view = click(camp, ui, **attack_button(view, "Sable")["intent"])
    rows = {r["name"]: r for r in view["luck"]["rows"]}
    assert rows["attack"]["player"] == "Eli" and rows["resist"]["player"] == "Eli"  # Sable's player, one click


def test_luck_is_offered_where_it_can_change_the_outcome_and_says_what_it_would_change(camp, ui):
    fight_started(camp, ui, first="foes")
    camp.fight.attack("Bog goblin 1", "Sable", faces={"attack": [3], "resist": [15], "counter_damage": [2]})
    rows = {r["name"]: r for r in table_view(camp, ui)["luck"]["rows"]}
    for name in ("attack", "resist"):  # the goblin missed by 12: no die of six turns that
        assert "plus" not in rows[name] and "minus" not in rows[name]
        assert rows[name]["note"] == "no luck die can change the outcome: miss, countered"
    assert rows["counter_damage"]["label"] == "Sable's damage roll hitting back (Dagger)"
    assert rows["counter_damage"]["plus"]["title"] == "Eli spends a luck die: added to Sable's damage roll hitting " \
                                                      "back (Dagger)"
    camp.undo()
    camp.fight.attack("Bog goblin 1", "Sable", faces={"attack": [13], "resist": [10], "damage": [1]})
    rows = {r["name"]: r for r in table_view(camp, ui)["luck"]["rows"]}
    assert rows["attack"]["minus"]["title"] == "Eli spends a luck die: taken off Bog goblin 1's attack roll; a 3 or " \
                                               "more: hit becomes a tie"
    assert "plus" not in rows["attack"] and rows["attack"]["note"] == "a luck die added cannot change the outcome: hit"


def test_real_dice_typed_replace_the_roll_and_make_the_outcome_exact(camp, ui):
    click(camp, ui, do="start_session")
    click(camp, ui, do="check", who="Wren", skill="stealth", where="checks")
    view = table_view(camp, ui)
    amend = view["luck"]["rows"][0]["amend"]
    view = click(camp, ui, **amend["submit"]["intent"], args={"faces": "14 3"})
    e = camp.events[-1]
    assert e["amended"] == ["check"] and e["rolls"]["check"]["faces"] == [14, 3] and e["total"] == 17
    assert view["outcome"]["text"].startswith("Real dice for Wren's Stealth check. Wren: Stealth check 17 vs 10: "
                                              "succeeds")
    view = click(camp, ui, **amend["submit"]["intent"], args={"faces": "14 9"})
    assert view["refusal"]["where"] == "luck" and "9" in view["refusal"]["text"]
    assert len(camp.events) == e["seq"]  # refused: nothing recorded


# ---------------------------------------------------------------- the fight

def test_a_fight_from_initiative_to_xp_with_the_party_and_the_foes_in_view(camp, ui):
    click(camp, ui, do="start_session")
    view = table_view(camp, ui)
    start = view["fight"]["start"]["prepared"][0]
    assert start["label"] == "Causeway ambush: 3 Bog goblins" and "Perception" in start["note"]
    view = click(camp, ui, **start["intent"])
    assert view["fight"]["round"] == 0 and [b["label"] for b in view["fight"]["initiative"]][0].startswith("Roll")
    view = click(camp, ui, **view["fight"]["initiative"][0]["intent"])
    e = camp.events[-1]
    assert e["kind"] == "initiative" and view["outcome"]["text"].startswith("Initiative: party ")
    assert view["party"] and all("hearts_text" in c for c in view["party"])  # the party stays in view
    # the party acts first here whatever the dice said: the keeper's ruling, undone and redone by clicks
    if e["first"] != "party":
        click(camp, ui, do="undo")
        view = click(camp, ui, do="initiative", first="party", where="fight")
    # turn by turn, the action bar is whoever's turn it is: each delver attacks the first goblin standing (Brakka
    # with his sword), each goblin the delver standing tallest; the odds on a button are the rules' odds
    view = table_view(camp, ui)
    for _ in range(60):
        foes = [f["name"] for f in view["fight"]["foes"] if not f["dead"]]
        standing = [c["name"] for c in view["party"] if c["status"] == "alive"]
        if not foes or not standing:
            break
        bar = view["actor"]
        assert bar["name"] == camp.fight.actor and bar["acting"]
        if bar["side"] == "delver" and bar.get("death_save"):
            view = click(camp, ui, **bar["death_save"]["intent"])
        elif bar["side"] == "delver" and bar["status"] == "alive":
            button = attack_button(view, foes[0], "Sword" if bar["name"] == "Brakka" else "")
            arg = button["intent"]["weapon"]
            assert button["ready"] and button["note"] == ""  # its turn, its action
            assert button["odds"] == percent(queries.hit_chance(camp.state, camp.rules, bar["name"], foes[0], arg), 0)
            view = click(camp, ui, **button["intent"])
            assert view["outcome"]["text"].startswith(f"{bar['name']} attacks {foes[0]} with ")
            rows = view["actor"]["attacks"]["rows"]
            assert all(not b["ready"] and "used its action" in b["note"] for r in rows for b in r["buttons"]), \
                "one action a turn: the next attack waits for the next turn"
        elif bar["side"] == "foe":
            tallest = max(standing, key=lambda n: camp.delver(n).hearts)
            view = click(camp, ui, **attack_button(view, tallest)["intent"])
            assert view["outcome"]["text"].startswith(f"{bar['name']} attacks {tallest} with attack: ")
        view = click(camp, ui, **view["fight"]["next"]["intent"])
    for name in [c["name"] for c in view["party"] if c["dying"]]:
        click(camp, ui, do="death_save", who=name)
    view = table_view(camp, ui)
    standing = [f for f in view["fight"]["foes"] if not f["dead"]]
    view = click(camp, ui, **view["fight"]["end"]["intent"])
    if standing:
        view = click(camp, ui, **view["confirm"]["yes"])
    e = camp.events[-1]
    assert e["kind"] == "end_encounter" and view["fight"]["running"] is False
    assert view["outcome"]["text"].startswith("The fight ends after ")
    if e.get("xp"):
        assert any("split" in line or "waits in the pool" in line for line in view["outcome"]["lines"])


def test_a_counter_attack_is_told_with_the_damage_it_dealt(camp, ui):
    view = fight_started(camp, ui)
    click(camp, ui, **attack_button(view, "Bog goblin 1", "Dagger")["intent"])
    view = click(camp, ui, do="amend", roll="attack", args={"faces": "2 1"}, where="luck")
    e = camp.events[-1]
    if "counter_damage" not in e["rolls"]:  # the counter's damage is rolled only when it happens
        view = click(camp, ui, do="amend", roll="resist", args={"faces": "20"}, where="luck")
        e = camp.events[-1]
    assert e["results"] == ["miss"] and e["counter"]["possible"]
    d = e["counter"]["damage"]
    assert view["outcome"]["verdict"]["word"] == "miss, countered"
    assert f"Bog goblin 1 hits back: Wren takes {d['dealt']} ({d['hearts_before']} -> {d['hearts_after']} hearts)" \
        in view["outcome"]["lines"]


def test_a_tie_means_both_sides_hit_and_a_downed_defender_does_not_hit_back(camp, ui):
    view = fight_started(camp, ui)
    click(camp, ui, **attack_button(view, "Bog goblin 1", "Dagger")["intent"])
    resist = camp.events[-1]["rolls"]["resist"]["faces"][0]
    # Wren's d20+d6 made to equal the goblin's d20: a tie
    d20, d6 = (resist - 1, 1) if resist > 1 else (None, None)
    if d20 is None:
        click(camp, ui, do="amend", roll="resist", args={"faces": "10"}, where="luck")
        d20, d6 = 9, 1
    view = click(camp, ui, do="amend", roll="attack", args={"faces": f"{d20} {d6}"}, where="luck")
    e = camp.events[-1]
    assert e["results"] == ["tie"]
    if e["counter"]["possible"]:
        assert view["outcome"]["verdict"]["word"] == "a tie"
        assert "a tie: both hit" in view["outcome"]["text"]
    else:  # the goblin went down to the tie's hit: it cannot hit back, and the words say so
        assert "a tie: Wren hits" in view["outcome"]["text"]
        assert any(line.startswith("no counter: Bog goblin 1 is down") for line in view["outcome"]["lines"])


def test_a_tie_against_a_defender_it_kills_says_the_defender_did_not_hit_back(camp, ui):
    view = fight_started(camp, ui)
    click(camp, ui, **attack_button(view, "Bog goblin 1", "Dagger")["intent"])
    view = table_view(camp, ui)
    camp.amend(attack=[9, 1], resist=[10], damage=[6])  # a tie, and the dagger's 6 drops the 4-heart goblin
    view = table_view(camp, ui)
    assert "a tie: Wren hits" in view["outcome"]["text"] and "both hit" not in view["outcome"]["text"]
    assert "no counter: Bog goblin 1 is down" in view["outcome"]["lines"]


def test_a_dying_delver_makes_a_death_save_that_shows_its_odds(camp, ui):
    click(camp, ui, do="start_session")
    view = click(camp, ui, do="damage", args={"who": "Wren", "amount": "12"}, where="keeper:by_hand")
    w = chip(view, "Wren")
    assert w["dying"] and w["badge"] == "DYING: death save!"
    ds = queries.death_save(camp.state, camp.rules)
    assert ds.target == 6 and w["death_save"]["label"] == "Death save: D6, needs 6: 17%"
    assert view["outcome"]["follow"][0]["label"] == "Death save for Wren: D6, needs 6: 17%"
    view = click(camp, ui, **w["death_save"]["intent"])
    view = click(camp, ui, do="amend", roll="death_save", args={"faces": "6"}, where="luck")
    assert view["outcome"]["text"] == "Real dice for Wren's death save. Wren's death save: 6 (needs 6: 17%): defies death, " \
                                      "alive at 0 hearts"
    assert not chip(view, "Wren")["dying"]


def test_a_foe_joining_the_fight_acts_last_on_its_side(camp, ui):
    view = fight_started(camp, ui)
    join = view["fight"]["join"]
    view = click(camp, ui, **join["submit"]["intent"], args={"foe": "marsh_wisp"})
    assert camp.events[-1]["kind"] == "add_foes"
    assert view["outcome"]["text"] == "Marsh wisp 1 joins the fight, acting last on the foes' side"
    assert [f["name"] for f in view["fight"]["foes"]][-1] == "Marsh wisp 1"
    foes_side = next(s for s in view["fight"]["order"] if s["side"] == "foes")
    assert foes_side["chips"][-1]["name"] == "Marsh wisp 1"


def test_next_turn_moves_the_action_bar_to_the_next_actor_and_a_pick_lasts_the_turn(camp, ui):
    view = fight_started(camp, ui)
    assert view["actor"]["name"] == "Wren" and view["fight"]["status"].endswith("Wren acts")
    view = click(camp, ui, do="select", who="Ilse", where="party")
    assert view["actor"]["name"] == "Ilse"
    view = click(camp, ui, **view["fight"]["next"]["intent"])
    assert view["actor"]["name"] == "Brakka" and camp.fight.actor == "Brakka"


def test_the_party_order_moves_by_one_click(camp, ui):
    view = fight_started(camp, ui)
    party = next(s for s in view["fight"]["order"] if s["side"] == "party")
    view = click(camp, ui, **party["chips"][1]["earlier"])
    assert camp.fight.order["party"][:2] == ["Brakka", "Wren"]


# ---------------------------------------------------------------- abilities and spells

def test_second_wind_says_what_it_healed(camp, ui):
    click(camp, ui, do="start_session")
    click(camp, ui, do="damage", args={"who": "Brakka", "amount": "19"}, where="keeper:by_hand")
    click(camp, ui, do="death_save", who="Brakka")
    click(camp, ui, do="amend", roll="death_save", args={"faces": "6"})
    view = click(camp, ui, do="select", who="Brakka", where="party")
    sw = action(view, "Second Wind")
    assert sw["kind"] == "button" and sw["cost"] == "2 grit" and sw["effect"] == "Heal D6 hearts."
    click(camp, ui, **sw["intent"])
    view = click(camp, ui, do="amend", roll="heal", args={"faces": "3"}, where="luck")
    assert view["outcome"]["text"] == "Real dice for Brakka's healing roll. Second Wind: Brakka heals 3 (0 -> 3 hearts)"
    assert "paid 2 grit" in view["outcome"]["lines"]


def test_lay_on_hands_heals_the_hearts_asked_a_healing_point_each(camp, ui):
    click(camp, ui, do="start_session")
    click(camp, ui, do="damage", args={"who": "Brakka", "amount": "5"}, where="keeper:by_hand")
    view = click(camp, ui, do="select", who="Father Odo", where="party")
    loh = action(view, "Lay on Hands")
    assert loh["kind"] == "form" and loh["cost"] == "1 healing point a heart"
    view = click(camp, ui, **loh["toggle"])
    loh = action(view, "Lay on Hands")
    assert loh["open"] and [f["name"] for f in loh["form"]["fields"]] == ["target", "hearts"]
    assert "Brakka (14/19 hearts)" in [o["label"] for o in loh["form"]["fields"][0]["options"]]
    view = click(camp, ui, **loh["form"]["submit"]["intent"], args={"target": "Brakka", "hearts": "3"})
    assert view["outcome"]["text"] == "Lay on Hands: Brakka heals 3 (14 -> 17 hearts)"
    assert camp.delver("Father Odo").healing_points == 7 and chip(view, "Brakka")["hearts"] == 17
    assert not action(view, "Lay on Hands").get("open"), "the form closes once it did its work"
    view = click(camp, ui, **loh["form"]["submit"]["intent"], args={"target": "Brakka", "hearts": "9"})
    assert view["refusal"] == {"text": "Brakka is missing 2 hearts; Lay on Hands cannot heal 9",
                               "where": loh["key"], "override": None}


def test_naming_magic_uses_known_names_a_description_and_the_cost_the_table_agreed(camp, ui):
    click(camp, ui, do="start_session")
    view = click(camp, ui, do="select", who="Sable", where="party")
    naming = action(view, "Naming Magic", "spells")
    fields = {f["name"]: f for f in naming["form"]["fields"]}
    assert [o["value"] for o in fields["names"]["options"]] == ["Water", "Bind", "Sound"]
    assert list(fields) == ["names", "description", "price", "cost"]
    assert "keeper" in naming["cost"] and "(free)" not in naming["cost"]
    view = click(camp, ui, **naming["form"]["submit"]["intent"],
                 args={"names": ["Water", "Bind"], "description": "the marsh holds the eels", "price": "4", "cost": "3"})
    e = camp.events[-1]
    assert (e["kind"], e["names"], e["cost"], e["description"]) == ("cast", ["Water", "Bind"], 3, "the marsh holds the eels")
    assert camp.delver("Sable").soul_points == 4
    assert view["outcome"]["text"] == "Naming Magic: Water and Bind: 'the marsh holds the eels' for 3 soul points"
    view = click(camp, ui, **naming["form"]["submit"]["intent"], args={"names": [], "description": "x", "price": "1"})
    assert "true names" in view["refusal"]["text"]


def test_a_spell_from_the_book_is_one_click_on_its_target_with_its_odds(camp, ui):
    view = fight_started(camp, ui)
    while view["actor"]["name"] != "Ilse":  # Wren and Brakka pass: Ilse casts on her turn
        view = click(camp, ui, **view["fight"]["next"]["intent"])
    fire = action(view, "Firebolt", "spells")
    assert fire["kind"] == "chips" and [c["label"] for c in fire["chips"]] == ["Bog goblin 1", "Bog goblin 2", "Bog goblin 3"]
    odds = queries.spell_attack_odds(camp.state, camp.rules, "Ilse", "Bog goblin 2")
    assert fire["chips"][1]["odds"] == percent(odds.win + odds.tie, 0)
    view = click(camp, ui, **fire["chips"][1]["intent"])
    e = camp.events[-1]
    assert e["kind"] == "cast" and e["spell"] == "firebolt" and e["target"] == "Bog goblin 2"
    assert view["outcome"]["text"].startswith("Firebolt: ") and " at Bog goblin 2, " in view["outcome"]["text"]
    assert any(line.startswith("keep roll ") for line in view["outcome"]["lines"])


def test_abilities_show_their_costs_and_descriptions_from_the_rules_data(camp, ui):
    view = click(camp, ui, do="select", who="Father Odo", where="party")
    bless = action(view, "Bless")
    rules_bless = camp.rules.ability("cleric", "bless")
    assert bless["effect"] == rules_bless["effect"] and bless["cost"] == "1 blessing"
    assert bless["kind"] == "chips" and bless["chips"][0]["label"] == "Father Odo (self)"
    view = click(camp, ui, do="select", who="Sable", where="party")
    assert "Naming Magic" not in [a["name"] for a in view["actor"]["abilities"]], "a way of casting is a spell"


def test_attack_options_come_from_the_engine_and_change_the_odds(camp, ui):
    view = fight_started(camp, ui)
    names = [o["name"] for o in view["actor"]["attacks"]["options"]]
    assert {"advantage", "no_counter", "multi", "bonus", "focus"} <= set(names)
    assert "smite" not in names and "sentry" not in names  # the fighter's, not Wren's
    before = attack_button(view, "Bog goblin 1", "Dagger")["odds"]
    view = click(camp, ui, do="attack_option", name="advantage", value=True, where="attack")
    after = attack_button(view, "Bog goblin 1", "Dagger")["odds"]
    o = queries.attack_odds(camp.state, camp.rules, "Wren", "Bog goblin 1", 0, advantage=True)
    assert after == percent(o.win, 0) != before
    click(camp, ui, **attack_button(view, "Bog goblin 1", "Dagger")["intent"])
    assert camp.events[-1]["advantage"] is True


# ---------------------------------------------------------------- level-ups and guard rails

def test_a_level_up_choice_is_one_click_with_its_description(camp, ui):
    click(camp, ui, do="start_session")
    view = click(camp, ui, do="award_xp", args={"amount": "500", "reason": "test"}, where="keeper:xp")
    assert view["outcome"]["text"] == "500 XP for test, split 5 ways: 100 each"
    assert "Wren reaches level 2 (14 hearts, +2); to choose: specialty" in view["outcome"]["lines"]
    view = click(camp, ui, do="select", who="Wren", where="party")
    choice = view["actor"]["choices"][0]
    assert choice["title"] == "Level 2: Choose a specialty"
    bows = next(o for o in choice["options"] if o["label"] == "Bows")
    assert bows["effect"] == "You may use 1 grit to multi-attack(2) with a bow."
    view = click(camp, ui, **bows["intent"])
    assert camp.delver("Wren").choices["specialty"] == "bows"
    assert view["outcome"]["text"] == "Wren chooses Bows (specialty)"
    assert "Volley" in " ".join(a["name"] for a in view["actor"]["abilities"])


def test_levelling_up_without_the_xp_asks_once(camp, ui):
    click(camp, ui, do="panel", panel="keeper")
    view = table_view(camp, ui)
    ilse = next(l for l in view["keeper"]["levels"] if l["who"] == "Ilse")
    assert ilse["text"] == "Ilse: level 1, 0/100 XP for level 2"
    view = click(camp, ui, **ilse["intent"])
    assert kinds_on_disk(camp) == [] and view["confirm"]["text"].startswith("Ilse has 0 XP; level 2 comes at 100")
    view = click(camp, ui, **view["confirm"]["yes"])
    assert kinds_on_disk(camp) == ["level_up"] and view["confirm"] is None
    assert view["outcome"]["text"].startswith("Ilse reaches level 2")


def test_ending_a_fight_with_foes_standing_asks_once(camp, ui):
    view = fight_started(camp, ui)
    assert view["fight"]["end"]["label"] == "End fight (0 XP)"
    view = click(camp, ui, **view["fight"]["end"]["intent"])
    assert view["confirm"]["where"] == "fight" and "Bog goblin 1 (4/4 hearts)" in view["confirm"]["text"]
    assert camp.fight is not None
    view = click(camp, ui, **view["confirm"]["no"])
    assert view["confirm"] is None and camp.fight is not None
    view = click(camp, ui, **view["fight"]["end"]["intent"])
    view = click(camp, ui, **view["confirm"]["yes"])
    assert camp.fight is None and kinds_on_disk(camp)[-1] == "end_encounter"


# ---------------------------------------------------------------- undo and redo

def test_undo_names_its_target_and_the_log_marks_what_it_took_back(camp, ui):
    view = fight_started(camp, ui)
    view = click(camp, ui, **attack_button(view, "Bog goblin 2", "Dagger")["intent"])
    assert view["undo"]["label"] == "Undo Wren's attack on Bog goblin 2"
    seq = camp.events[-1]["seq"]
    view = click(camp, ui, **view["undo"]["intent"])
    assert view["outcome"]["text"] == "Undo Wren's attack on Bog goblin 2"
    assert {r["seq"]: r["mark"] for r in view["log"]}[seq] == "undone"
    assert view["redo"]["label"] == "Redo Wren's attack on Bog goblin 2"
    view = click(camp, ui, **view["redo"]["intent"])
    assert view["outcome"]["text"] == "Redo Wren's attack on Bog goblin 2"
    assert {r["seq"]: r["mark"] for r in view["log"]}[seq] == ""
    assert kinds_on_disk(camp)[-3:] == ["attack", "undo", "redo"]


# ---------------------------------------------------------------- the keeper's panel

def test_the_keepers_panel_shows_quests_and_rooms_with_their_notes_and_records_them(camp, ui):
    view = click(camp, ui, do="panel", panel="keeper")
    k = view["keeper"]
    quest = k["quests"]["rows"][0]
    assert quest["name"] == "Silence the drowned bell" and quest["note"] == "Saltmere pays 30 crowns."
    armory = next(r for r in k["rooms"]["rows"] if r["name"] == "The armory")
    assert "+1 sword" in armory["note"] and armory["label"] == "Explored (15 XP)"
    view = click(camp, ui, **armory["intent"])
    assert view["outcome"]["text"] == "Room explored: The armory"
    assert view["outcome"]["lines"] == ["15 XP for room: The armory, split 5 ways: 3 each"]
    assert next(r for r in view["keeper"]["rooms"]["rows"] if r["name"] == "The armory")["done"]
    view = click(camp, ui, **quest["intent"])
    assert view["outcome"]["lines"] == ["100 XP for quest: Silence the drowned bell, split 5 ways: 20 each"]
    view = click(camp, ui, **k["quests"]["form"]["submit"]["intent"], args={"name": "Silence the drowned bell"})
    assert "already completed" in view["refusal"]["text"] and view["refusal"]["where"] == "keeper:quests"


def test_coins_show_in_crowns_and_their_xp_says_how_it_splits(camp, ui):
    click(camp, ui, do="start_session")
    view = click(camp, ui, do="panel", panel="keeper")
    assert "split equally across 5 delvers present" in view["keeper"]["coins"]["hint"]
    earn = view["keeper"]["coins"]["earn"]
    view = click(camp, ui, **earn["submit"]["intent"], args={"amount": "30C", "who": "", "reason": "the bell"})
    assert view["outcome"]["text"] == "30C earned (the bell), shared by seat: Wren 6C, Brakka 6C, Ilse 6C, Father Odo 6C, Sable 6C"
    assert view["outcome"]["lines"] == ["30 XP for coins: the bell, split 5 ways: 6 each"]
    assert "Wren 11C" in view["keeper"]["coins"]["purses"]
    view = click(camp, ui, **view["keeper"]["coins"]["spend"]["submit"]["intent"],
                 args={"who": "Wren", "amount": "2C 5T", "reason": "rope"})
    assert view["outcome"]["text"] == "Wren spends 2C 5T (rope)"


def test_a_rest_says_what_came_back(camp, ui):
    click(camp, ui, do="start_session")
    click(camp, ui, do="select", who="Brakka", where="party")
    click(camp, ui, do="use", who="Brakka", ability="double_strike")
    view = click(camp, ui, do="rest", where="keeper:session")
    assert view["outcome"]["text"] == "The party rests 8 hours: Brakka: grit +1"


def test_hearts_by_hand_a_trap_and_a_potion(camp, ui):
    click(camp, ui, do="start_session")
    view = click(camp, ui, do="damage", args={"who": "Wren", "amount": "3", "source": "a dart trap"},
                 where="keeper:by_hand")
    assert view["outcome"]["text"] == "A dart trap: Wren takes 3 (12 -> 9 hearts)"
    view = click(camp, ui, do="heal", args={"who": "Wren", "amount": "2", "source": "a potion"}, where="keeper:by_hand")
    assert view["outcome"]["text"] == "A potion: Wren heals 2 (9 -> 11 hearts)"
    view = click(camp, ui, do="damage", args={"who": "Wren", "amount": "lots"}, where="keeper:by_hand")
    assert view["refusal"]["where"] == "keeper:by_hand" and "whole number" in view["refusal"]["text"]


def test_conditions_time_and_any_roll_from_the_keepers_panel(camp, ui):
    click(camp, ui, do="start_session")
    view = click(camp, ui, do="condition", args={"who": "Wren", "name": "cursed", "duration": ""},
                 where="keeper:conditions")
    assert view["outcome"]["text"] == "Wren is now cursed (the keeper's ruling)"
    assert [c["text"] for c in chip(view, "Wren")["conditions"]] == ["cursed"]
    view = click(camp, ui, do="panel", panel="keeper")
    view = click(camp, ui, **view["keeper"]["conditions"]["rows"][0]["intent"])
    assert view["outcome"]["text"] == "Ended: cursed on Wren" and not chip(view, "Wren")["conditions"]
    view = click(camp, ui, do="advance_time", hours=1, where="keeper:session")
    assert view["outcome"]["text"] == "Time passes: 1 hour" and view["session"]["clock"] == "day 1, 01:00"
    view = click(camp, ui, do="roll", args={"expr": "d66", "why": "loot"}, where="keeper:roll")
    assert re.fullmatch(r"keeper rolls d66: \d\d \(loot\)", view["outcome"]["text"])


def test_every_panel_draws_from_state(camp, ui):
    fight_started(camp, ui)
    view = click(camp, ui, do="panel", panel="party")
    assert [s["name"] for s in view["sheets"]] == camp.state["seats"]
    assert any(r.startswith("purse 5C") for r in view["sheets"][0]["rows"])
    view = click(camp, ui, do="panel", panel="nowhere")
    assert view["refusal"]["text"] == "there is no panel 'nowhere'"


def test_charts_carry_the_xp_and_hearts_series_when_the_analysis_extra_is_here(camp, ui):
    pytest.importorskip("pandas")
    fight_started(camp, ui)
    click(camp, ui, do="attack", attacker="Wren", target="Bog goblin 1", weapon=0, where="attack")
    click(camp, ui, do="award_xp", args={"amount": "50"}, where="keeper:xp")
    view = click(camp, ui, do="panel", panel="charts")
    xp = {s["name"]: s["points"][-1][1] for s in view["charts"]["xp"]["series"]}
    assert xp == {d.name: d.xp for d in camp.delvers}
    assert [t["xp"] for t in view["charts"]["xp"]["thresholds"]] == [100, 200]
    names = {s["name"] for s in view["charts"]["hearts"]["series"]}
    assert "Bog goblin 1" in names


# ---------------------------------------------------------------- the players' mode, parts of the table

def test_the_players_mode_shows_foes_as_wounds_hides_undone_rolls_and_changes_nothing(camp):
    keeper = UI()
    fight_started(camp, keeper)
    click(camp, keeper, do="attack", attacker="Wren", target="Bog goblin 1", weapon=0, where="attack")
    click(camp, keeper, do="undo")
    players = UI(mode="players", hide_hearts=True)
    view = table_view(camp, players)
    assert view["mode"] == "players" and "undo" not in view and "keeper" not in view
    assert all(f["hearts"] is None and f["hearts_text"] in ("unhurt", "wounded", "badly wounded", "down")
               for f in view["fight"]["foes"])
    assert chip(view, "Wren")["hearts"] is None
    assert all(r["mark"] == "" for r in view["log"]) and all(r["kind"] != "undo" for r in view["log"])
    n = len(camp.events)
    view = click(camp, players, do="start_session")
    assert len(camp.events) == n and view["refusal"]["text"] == "the players' screen is read-only"


def test_a_card_a_fight_a_log_and_a_roll_each_show_their_part(camp, ui):
    fight_started(camp, ui)
    card = table_view(camp, UI(scope="card", who="Ilse"))
    assert card["actor"]["name"] == "Ilse" and [c["name"] for c in card["party"]] == ["Ilse"] and "log" not in card
    fight = table_view(camp, UI(scope="fight"))
    assert fight["actor"]["name"] == "Wren" and len(fight["fight"]["foes"]) == 3
    log = table_view(camp, UI(scope="log"))
    assert set(log) >= {"log", "undo", "redo"} and "party" not in log
    out = camp.check("Wren", "stealth", 12)
    roll = UI(scope="roll", focus=out["seq"])
    assert table_view(camp, roll)["outcome"]["seq"] == out["seq"]
    camp.spend_luck("Ana", 1)
    view = table_view(camp, roll)
    assert view["outcome"]["seq"] == out["seq"] + 1, "a roll view follows its action when a luck die replaces it"
    assert view["luck"]["on"] == "Wren's Stealth check"


# ---------------------------------------------------------------- the widget

def _messages(t):
    sent = []
    send = t.comm.send
    t.comm.send = lambda *a, **k: (sent.append(k.get("data") or a[0]), send(*a, **k))
    return sent


def page_click(t, intent, ack="page:1"):
    """A message as the page sends it."""
    t._handle_msg({"content": {"data": {"method": "custom", "content": {"type": "intent", "id": ack,
                                                                          "intent": intent}}}, "buffers": []})


def test_a_click_is_one_message_in_and_one_view_out(camp):
    t = Table(camp)
    sent = _messages(t)
    page_click(t, {"do": "start_session", "where": "keeper:session"}, "p:1")
    assert [m["method"] for m in sent] == ["update"] and list(sent[0]["state"]) == ["view"]
    assert t.view["ack"] == "p:1" and t.view["outcome"]["text"].startswith("Session 1 begins")
    page_click(t, {"do": "panel", "panel": "keeper", "where": "header"}, "p:2")
    page_click(t, {"do": "start_session", "where": "keeper:session"}, "p:3")  # refused: still one answer
    assert len(sent) == 3 and t.view["ack"] == "p:3" and "still running" in t.view["refusal"]["text"]


def test_an_action_made_in_another_cell_redraws_the_table(camp):
    t = Table(camp)
    card = Table(camp, scope="card", who="Wren")
    sent = _messages(t)
    camp.start_session()
    camp.check("Wren", "stealth", 12)
    assert len(sent) == 2 and t.view["outcome"]["kind"] == "check" and card.view["outcome"]["kind"] == "check"
    page_click(card, {"do": "luck", "player": "Ana", "sign": 1, "roll": "check", "where": "luck"})
    assert t.view["outcome"]["text"].startswith("Ana spends a luck die"), "one table's click redraws the others"


def test_a_bug_in_an_intent_is_said_on_the_table_not_left_waiting(camp, monkeypatch):
    from delvebook.table import intents
    t = Table(camp)
    monkeypatch.setitem(intents.INTENTS, "rest", lambda c, u, i: 1 / 0)
    page_click(t, {"do": "rest", "where": "keeper:session"}, "p:9")
    said = t.view["refusal"]["text"]
    assert t.view["ack"] == "p:9" and said.startswith("the table hit an error: division by zero")
    assert "ZeroDivisionError" not in said and "kernel's log" in said, "words, not the exception's name"


def test_the_download_sends_the_campaign_folder_as_zip_bytes(camp):
    t = Table(camp)
    sent = []
    t.send = lambda content, buffers=None: sent.append((content, buffers))
    page_click(t, {"do": "download", "where": "keeper:download"})
    (content, buffers), = sent
    assert content == {"type": "download", "name": "keep.zip"} and buffers[0][:2] == b"PK"


def test_the_campaign_finds_the_tables_views_as_entry_points(camp):
    from delvebook.campaign import view
    import delvebook.table as table
    for name in ("dashboard", "card", "fight", "log", "roll", "players"):
        assert view(name) is getattr(table, name)
    assert isinstance(camp.dashboard(), Table)
    assert table.card(camp, "Wren").view["scope"] == "card"


def test_a_delver_a_fight_and_an_outcome_left_last_in_a_cell_show_their_live_views(camp, monkeypatch):
    import IPython.display
    from delvebook.campaign import Outcome
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda *a, **kw: shown.append((a, kw)))
    camp.start_session()
    fight = camp.encounter("causeway_ambush")
    out = fight.initiative(first="party")
    for thing in (camp.delver("Wren"), fight, out):
        thing._ipython_display_()
    ((card,), _), ((tracker,), _), ((roll,), _) = shown
    assert (card.ui.scope, card.ui.who) == ("card", "Wren") and tracker.ui.scope == "fight"
    assert (roll.ui.scope, roll.ui.focus) == ("roll", out["seq"]) and roll.camp is camp
    camp.check("Wren", "stealth", 12)
    assert tracker.view["outcome"]["kind"] == "check", "live: a call in another cell redraws them"
    shown.clear()
    Outcome(dict(out))._ipython_display_()  # an event no campaign recorded here: its own HTML, drawn once
    ((data,), kw), = shown
    assert kw == {"raw": True} and data["text/html"].startswith('<div class="delvebook-outcome">')


def test_the_play_copy_opens_once_per_kernel_and_changes_nothing_on_disk(tmp_path, monkeypatch):
    from delvebook.table import play_copy
    monkeypatch.delenv("DELVEBOOK_CAMPAIGN", raising=False)
    first = play_copy(CAMPAIGNS / "the-sunken-keep", tmp_path / "play")
    try:
        folder = tmp_path / "play" / "the-sunken-keep"
        files = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file() and p.name != ".delvebook.lock"}
        again = play_copy(CAMPAIGNS / "the-sunken-keep", tmp_path / "play")
        assert again is first, "a re-run cell gets the campaign this kernel has open (no lock error)"
        assert {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file() and p.name != ".delvebook.lock"} == files
        first.close()
        reopened = play_copy(CAMPAIGNS / "the-sunken-keep", tmp_path / "play")
        assert reopened is not first and not reopened.read_only
        reopened.close()
    finally:
        first.close()


# ---------------------------------------------------------------- the words

def test_outcome_words_name_abilities_spells_and_foes_by_their_names(camp):
    e = {"kind": "use", "who": "Brakka", "ability": "second_wind", "ability_name": "Second Wind", "paid": {"grit": 2},
         "healing": [{"who": "Brakka", "amount": 3, "hearts_before": 0, "hearts_after": 3}]}
    assert words.tell(e, camp)["text"] == "Second Wind: Brakka heals 3 (0 -> 3 hearts)"
    assert words.title({"kind": "attack", "attacker": "Brakka", "target": "Bog goblin 2"}, camp) == \
        "Brakka's attack on Bog goblin 2"
    assert words.money(camp.rules, 300) == "30C" and words.money(camp.rules, 25) == "2C 5T"
    assert words.pct(str(Fraction(1, 6))) == "17%"


# ---------------------------------------------------------------- the rules' API at the table: turns, gear, NPCs

@pytest.fixture
def scratch(tmp_path):
    """A new campaign for the rules a first-level party lacks: ``add`` puts in a delver at a level, with choices."""
    c = db.Campaign.create(tmp_path / "scratch", name="Scratch", seed=21)
    c.start_session()
    yield c
    c.close()


def add(camp, name, class_id, level=1, **choices):
    start = {k: v for k, v in choices.items() if k == "weapon"}
    hearts = {"hearts": [4]} if class_id == "fighter" else None
    camp.add_delver(name, class_id, player=f"{name}'s player", choices=start or None, faces=hearts)
    for _ in range(level - 1):
        camp.act("level_up", who=name, faces=hearts, keeper_override="a scratch party starts high")
    for choice, option in choices.items():
        if choice != "weapon":
            camp.choose(name, choice, option)


def next_until(camp, ui, name):
    """Click Next turn until ``name`` acts (the action bar is theirs)."""
    view = table_view(camp, ui)
    for _ in range(20):
        if view["actor"]["name"] == name and camp.fight.actor == name:
            return view
        view = click(camp, ui, **view["fight"]["next"]["intent"])
    raise AssertionError(f"{name}'s turn never came")


def test_an_attack_out_of_turn_is_refused_and_the_keepers_override_lets_it_through_with_the_reason(camp, ui):
    fight_started(camp, ui)  # the party first: Wren's turn
    view = click(camp, ui, do="select", who="Brakka", where="party")
    button = attack_button(view, "Bog goblin 1", "Sword")
    assert not button["ready"] and button["note"] == \
        "it is Wren's turn, not Brakka's: attack Bog goblin 1 uses Brakka's action"  # queries.attack_problem
    view = click(camp, ui, **button["intent"])
    assert view["refusal"]["text"] == button["note"] and len(camp.events) == 3  # nothing recorded
    form = view["refusal"]["override"]
    assert form["submit"]["label"] == "Keeper's override" and form["fields"][0]["name"] == "keeper_override"
    view = click(camp, ui, **form["submit"]["intent"], args={"keeper_override": "Brakka readied his sword"})
    e = camp.events[-1]
    assert e["kind"] == "attack" and e["attacker"] == "Brakka" and view["refusal"] is None
    assert e["keeper_override"] == {"reason": "Brakka readied his sword", "waived": [button["note"]]}
    assert view["outcome"]["text"].startswith("Brakka attacks Bog goblin 1 with Sword: ")
    assert f"the keeper's override: Brakka readied his sword (waived: {button['note']})" in view["outcome"]["lines"]
    assert kinds_on_disk(camp)[-1] == "attack"


def test_a_refusal_by_a_rule_of_the_game_offers_no_override(camp, ui):
    view = click(camp, ui, do="end_session", where="keeper:session")  # no session is running: not a rule of play
    assert view["refusal"]["text"] and view["refusal"]["override"] is None


def test_found_gear_is_given_from_the_keepers_panel_and_a_plus_one_sword_is_on_the_sheet(camp, ui):
    view = click(camp, ui, do="panel", panel="keeper")
    form = view["keeper"]["give"]
    assert [f["name"] for f in form["fields"]] == ["who", "item", "name", "bonus", "count"]
    view = click(camp, ui, **form["submit"]["intent"], args={"who": "Brakka", "item": "sword", "name": "Sword +1",
                                                               "bonus": "1", "count": "1"})
    e = camp.events[-1]
    assert e["kind"] == "give" and e["weapons"] == ["Sword +1"] and view["refusal"] is None
    assert view["outcome"]["text"] == "Brakka gains Sword +1"
    sword = next(w for w in camp.delver("Brakka").data["weapons"] if w["name"] == "Sword +1")
    assert sword["bonus"] == 1 and sword["item"] == "sword"
    view = click(camp, ui, do="panel", panel="party")
    sheet = next(x for x in view["sheets"] if x["name"] == "Brakka")
    assert "weapons: Sword 2d6, Sword +1 2d6" in sheet["rows"]
    assert view["undo"]["label"] == "Undo Sword +1 found by Brakka"


def test_a_smite_is_offered_once_the_hit_is_seen_and_taken_by_one_click(scratch, ui):
    add(scratch, "Fa", "fighter", level=3, weapon="sword_and_shield", specialty="armorer", technique="oath",
        oath="vengeance")
    fight = scratch.encounter([{"foe": "ogre", "name": "Ogre"}])
    fight.initiative(first="party")
    view = table_view(scratch, ui)
    click(scratch, ui, **attack_button(view, "Ogre", "Sword")["intent"])
    view = click(scratch, ui, do="amend", roll="attack", args={"faces": "15 1"}, where="luck")
    if scratch.events[-1]["results"] != ["hit"]:
        view = click(scratch, ui, do="amend", roll="resist", args={"faces": "3"}, where="luck")
    hit = scratch.events[-1]
    assert hit["results"] == ["hit"] and hit["on_hit_options"][0]["option"] == "smite"
    [smite] = [b for b in view["outcome"]["follow"] if b.get("on_hit")]
    assert smite["label"] == "Smite (2 grit, +2d6)" and smite["enabled"]
    assert "on the hit, Smite may be chosen (2 grit, +2d6)" in view["outcome"]["lines"]
    view = click(scratch, ui, **smite["intent"])
    e = scratch.events[-1]
    assert e["on_hit"] == "smite" and e["replaces"] == hit["seq"] and scratch.delver("Fa").grit == 5
    assert e["rolls"]["attack"]["faces"] == hit["rolls"]["attack"]["faces"]  # nothing rolled again
    assert view["outcome"]["text"].startswith("Smite chosen on the hit. Fa attacks Ogre with Sword: ")
    added = e["damage"][0]["added"][0]["total"]
    assert any(f"smite +{added}" in line for line in view["outcome"]["lines"])
    assert not [b for b in view["outcome"]["follow"] if b.get("on_hit")], "a smite is chosen once"
    view = click(scratch, ui, do="undo", where="header")  # the attack as it was, the smite untaken
    assert scratch.delver("Fa").grit == 7 and scratch.latest_action["seq"] == hit["seq"]
    assert [b["on_hit"] for b in view["outcome"]["follow"] if b.get("on_hit")] == []  # the undo is the latest event
    assert [o["option"] for o in scratch.latest_action["on_hit_options"]] == ["smite"]


def test_ending_a_fight_may_keep_a_foe_standing_in_the_story_as_an_npc(camp, ui):
    view = fight_started(camp, ui)
    view = click(camp, ui, **view["fight"]["end"]["intent"])
    [keep] = view["confirm"]["also"]
    assert keep["label"] == "End, keeping them in the story as NPCs"
    view = click(camp, ui, **keep["intent"])
    e = camp.events[-1]
    assert e["kind"] == "end_encounter" and e["kept"] == ["Bog goblin 1", "Bog goblin 2", "Bog goblin 3"]
    assert "Bog goblin 1, Bog goblin 2 and Bog goblin 3 stay in the story as NPCs" in view["outcome"]["lines"]
    assert [(c["name"], c["role"]) for c in view["creatures"]][0] == ("Bog goblin 1", "NPC")
    view = click(camp, ui, do="panel", panel="keeper")
    row = view["keeper"]["npcs"]["rows"][0]
    assert row["text"] == "Bog goblin 1: NPC, 4/4 hearts" and row["label"] == "Leaves the story"
    view = click(camp, ui, **row["intent"])
    assert camp.events[-1]["kind"] == "remove_npc" and view["outcome"]["text"] == "Bog goblin 1 leaves the story"
    assert "Bog goblin 1" not in [c["name"] for c in view["creatures"]]


def test_the_keeper_names_an_npc_from_the_bestiary_or_typed_and_it_stands_beside_the_party(camp, ui):
    view = click(camp, ui, do="panel", panel="keeper")
    form = view["keeper"]["npcs"]["form"]
    assert [f["name"] for f in form["fields"]] == ["name", "foe", "hearts", "note"]
    view = click(camp, ui, **form["submit"]["intent"], args={"name": "Mossy Tom"})
    assert view["refusal"]["text"] == "an NPC comes from the bestiary, or is typed with its hearts"
    view = click(camp, ui, **form["submit"]["intent"], args={"name": "Grak", "foe": "bog_goblin", "note": "a prisoner"})
    assert camp.creature("Grak").kind == "bog_goblin" and view["outcome"]["text"] == \
        "Grak enters the story (Bog goblin, 4 hearts)" and view["outcome"]["lines"] == ["a prisoner"]
    view = click(camp, ui, **form["submit"]["intent"], args={"name": "Old Mag", "foe": "", "hearts": "5"})
    assert camp.creature("Old Mag").max_hearts == 5
    strip = {c["name"]: c for c in view["creatures"]}
    assert (strip["Grak"]["role"], strip["Grak"]["kind"], strip["Grak"]["hearts_text"]) == ("NPC", "Bog goblin", "4/4")
    assert strip["Grak"]["note"] == "a prisoner" and strip["Old Mag"]["hearts_text"] == "5/5"
    view = click(camp, ui, do="panel", panel="play")
    view = click(camp, ui, do="select", who="Father Odo", where="party")
    vs = [o["value"] for o in view["actor"]["checks"]["vs_options"]]
    assert "Grak" in vs  # a check against the NPC (Insight against a liar)
    bless = action(view, "Bless")
    assert "Grak" in [c["intent"]["target"] for c in bless["chips"]]  # and spells aimed at it
    view = click(camp, ui, **strip["Grak"]["select"])
    assert view["actor"]["name"] == "Grak" and view["actor"]["role"] == "NPC" and view["actor"]["attacks"] is None
    with db.Campaign.open(camp.path, read_only=True) as again:  # on disk, as the table showed it
        assert {c.name for c in again.creatures} == {"Grak", "Old Mag"}


def test_a_delver_drops_gear_and_the_keeper_takes_some_away_or_hands_it_over(camp, ui):
    view = click(camp, ui, do="select", who="Wren", where="party")
    gear = {g["name"]: g for g in view["actor"]["gear"]}
    assert set(gear) == {"Buy", "Drop", "Take"}
    items = [o["label"] for o in gear["Drop"]["form"]["fields"][0]["options"]]
    assert "Dagger x2" in items and "Arrow x20" in items  # queries.carried
    view = click(camp, ui, **gear["Drop"]["toggle"])
    assert {g["name"]: g for g in view["actor"]["gear"]}["Drop"]["open"]
    view = click(camp, ui, **gear["Drop"]["form"]["submit"]["intent"], args={"item": "Dagger", "count": "1"})
    assert camp.events[-1]["kind"] == "drop" and view["outcome"]["text"] == "Wren drops Dagger"
    assert [w["name"] for w in camp.delver("Wren").weapons].count("Dagger") == 1
    take = {g["name"]: g for g in view["actor"]["gear"]}["Take"]
    assert [o["value"] for o in take["form"]["fields"][2]["options"]] == ["", "Brakka", "Ilse", "Father Odo", "Sable"]
    view = click(camp, ui, **take["form"]["submit"]["intent"], args={"item": "Arrow", "count": "5", "to": "Brakka"})
    assert view["outcome"]["text"] == "Arrow taken from Wren, handed to Brakka"
    arrows = lambda who: sum(i.get("count", 1) for i in camp.delver(who).data["items"] if i.get("item") == "arrow")
    assert (arrows("Wren"), arrows("Brakka")) == (15, 5)
    view = click(camp, ui, **take["form"]["submit"]["intent"], args={"item": "Arrow", "count": "99"})
    assert view["refusal"]["text"] == "Wren has 15 Arrow, not 99" and view["refusal"]["override"] is None


def test_a_crossbow_is_reloaded_by_a_click_that_takes_the_action(camp, ui):
    camp.give("Brakka", "crossbow")
    camp.give("Brakka", "bolt", count=10)
    fight_started(camp, ui)
    view = next_until(camp, ui, "Brakka")
    [reload] = [g for g in view["actor"]["gear"] if g["name"] == "Reload Crossbow"]
    assert not reload["ready"] and reload["note"] == "Brakka's Crossbow is already loaded"
    bow = attack_button(view, "Bog goblin 1", "Crossbow")
    assert bow["ready"]
    click(camp, ui, **bow["intent"])
    assert camp.events[-1]["ammo"] == {"item": "bolt", "spent": 1, "left": 9}
    view = table_view(camp, ui)
    [reload] = [g for g in view["actor"]["gear"] if g["name"] == "Reload Crossbow"]
    assert not reload["ready"] and "used its action" in reload["note"]
    view = click(camp, ui, **view["fight"]["next"]["intent"])
    view = next_until(camp, ui, "Brakka")
    standing = [f["name"] for f in view["fight"]["foes"] if not f["dead"]]
    bow = attack_button(view, standing[0], "Crossbow")
    assert not bow["ready"] and bow["note"] == "Brakka's Crossbow is not loaded: reloading it takes an action (reload)"
    [reload] = [g for g in view["actor"]["gear"] if g["name"] == "Reload Crossbow"]
    assert reload["ready"] and reload["cost"] == "an action" and reload["kind"] == "button"
    view = click(camp, ui, **reload["intent"])
    assert camp.events[-1]["kind"] == "reload" and view["outcome"]["text"] == "Brakka reloads the Crossbow"
    bow = attack_button(view, standing[0], "Crossbow")
    assert not bow["ready"] and "used its action this turn (reloading the Crossbow)" in bow["note"]


def test_a_familiar_stands_beside_the_party_acts_in_its_mages_turn_and_can_be_attacked(scratch, ui):
    add(scratch, "Mo", "mage", level=2)
    add(scratch, "Bo", "rogue")
    scratch.cast("Mo", "find_familiar", name="Pip", form="rat")
    view = table_view(scratch, ui)
    [pip] = view["creatures"]
    assert (pip["name"], pip["role"], pip["hearts_text"]) == ("Pip", "Mo's familiar", "1/1")
    fight = scratch.encounter([{"foe": "goblin", "name": "Gob"}])
    fight.initiative(first="party")
    view = table_view(scratch, ui)
    assert view["actor"]["name"] == "Mo" and view["creatures"][0]["acting"]  # Mo's turn is Pip's too
    view = click(scratch, ui, **view["creatures"][0]["select"])
    bar = view["actor"]
    assert bar["name"] == "Pip" and bar["role"] == "Mo's familiar: acts in Mo's turn"
    button = attack_button(view, "Gob")
    assert button["label"] == "Attack 1" and button["ready"]
    click(scratch, ui, **button["intent"])
    click(scratch, ui, do="amend", roll="attack", args={"faces": "15"}, where="luck")
    view = click(scratch, ui, do="amend", roll="resist", args={"faces": "3"}, where="luck")  # a hit: no counter
    e = scratch.events[-1]
    assert e["attacker"] == "Pip" and e["target"] == "Gob" and e["results"] == ["hit"]
    assert view["outcome"]["text"].startswith("Real dice for Gob's roll to resist. Pip attacks Gob with attack: 15 vs 3, hit")
    assert queries.may_act(scratch.state, scratch.rules, "Mo").action  # Pip's attack was not Mo's action
    view = click(scratch, ui, **view["fight"]["next"]["intent"])  # Bo's turn: Pip waits for Mo's
    view = click(scratch, ui, do="select", who="Pip", where="party")
    assert "acts in Mo's turn" in attack_button(view, "Gob")["note"]
    view = next_until(scratch, ui, "Gob")
    assert [r["name"] for r in view["actor"]["attacks"]["rows"]] == ["Mo", "Bo", "Pip"]  # the goblin may go for Pip


def test_a_conjured_holy_weapon_is_an_attack_button_that_acts_in_its_own_slot(scratch, ui):
    add(scratch, "Cy", "cleric", level=2, specialty="holy_weapon")
    fight = scratch.encounter([{"foe": "ogre", "name": "Ogre"}])
    fight.initiative(first="party")
    view = table_view(scratch, ui)
    assert [b["label"] for b in view["actor"]["attacks"]["rows"][0]["buttons"]] == ["Dagger D6"]
    view = click(scratch, ui, **action(view, "Holy Weapon")["intent"])
    assert scratch.events[-1]["kind"] == "use"
    sword = attack_button(view, "Ogre", "Holy weapon")
    assert sword["label"] == "Holy weapon 2d6" and sword["ready"]  # Cy's action is used, the sword's slot is not
    assert sword["odds"] == percent(queries.hit_chance(scratch.state, scratch.rules, "Cy", "Ogre", "holy weapon"), 0)
    assert not attack_button(view, "Ogre", "Dagger")["ready"]
    view = click(scratch, ui, **sword["intent"])
    e = scratch.events[-1]
    assert e["kind"] == "attack" and e["weapon"] == "Holy weapon"
    assert "holy weapon has already acted" in attack_button(view, "Ogre", "Holy weapon")["note"]


def test_a_resource_the_delver_does_not_have_yet_is_not_on_the_card(camp, ui):
    view = table_view(camp, ui)
    assert camp.state["delvers"]["Ilse"]["level"] == 1 and camp.state["delvers"]["Ilse"]["resource_max"].get("wand_charges", 0) == 0
    texts = [r["text"] for r in chip(view, "Ilse")["resources"]]
    assert texts == ["spellbook 1/1"], texts  # no "wand charges 0/0" before level 2 brings the wand


def test_a_new_mage_and_a_new_namer_outcome_names_the_spells_and_true_names_the_dice_gave(camp, ui):
    camp.add_delver("Mira", "mage", "Zed", faces={"spell": [5], "spell#2": [1], "spell#3": [5], "spell#4": [2]})
    out = table_view(camp, ui)["outcome"]
    assert out["text"] == "Mira joins the party (mage, 11 hearts, player Zed)"
    assert out["lines"] == ["Mira's spellbook: Invisibility, Light and Magic Missile",
                            "Mira's starting choices: weapon: dagger (the first option)"]
    assert [r["label"] for r in out["rolls"]] == ["Mira's random spell roll", "Mira's 2nd random spell roll",
                                                  "Mira's 3rd random spell roll", "Mira's 4th random spell roll"]
    camp.add_delver("Nim", "namer", "Yu", faces={"true_name": [1, 2], "true_name#2": [6, 3], "true_name#3": [6, 5]})
    assert table_view(camp, ui)["outcome"]["lines"] == ["Nim's true names: Fire, Bind and Locate"]
    camp.level_up("Mira")
    level = table_view(camp, ui)["outcome"]["text"]
    assert "Mira reaches level 2" in level and "learns Find Familiar, Firebolt and Minor Illusion" in level
