"""A session told as a story ("previously on..."): its events, and only those that stand, in the narrator's words."""
from __future__ import annotations

import subprocess
import sys

import pytest

import delvebook as db
from delvebook import narrate
from delvebook.narrate.recap import latest_session, recaps, session_recap

from conftest import CAMPAIGNS, REPO

PARTY = [{"name": "Wren", "class": "rogue", "player": "Ana"},
         {"name": "Brakka", "class": "fighter", "player": "Ben", "choices": {"weapon": "sword_and_shield"}}]


@pytest.fixture
def camp(tmp_path):
    c = db.Campaign.create(tmp_path / "c", name="Told", seed=4, delvers=PARTY)
    yield c
    c.close()


def text(recap) -> str:
    return "\n".join(line for _, lines in recap.sections for line in lines)


def told_as_it_stands(camp, seq) -> str:
    return narrate.tell(camp.event(seq), camp)["text"]


def play_a_session(camp) -> dict:
    """Session 1: a room, a fight whose first blow is undone and struck again, a check a luck die turns, coins, XP.
    Returns the seqs that matter."""
    camp.start_session()
    camp.explore_room("the flooded crypt")
    fight = camp.encounter(["goblin"])
    fight.initiative(first="party")
    undone = fight.attack("Wren", "Goblin 1", faces={"attack": [20, 6], "resist": [1], "damage": [6]})
    camp.undo()
    fight.next_turn()
    felled = fight.attack("Brakka", "Goblin 1", faces={"attack": [20, 6], "resist": [1], "damage": [6, 6]})
    ended = fight.end()
    failed = camp.check("Wren", "stealth", 14, faces={"check": [10, 1]})
    turned = camp.spend_luck("Ana", 1, face=6)
    camp.earn({"crown": 3}, reason="a goblin's purse")
    camp.end_session()
    return {"undone": undone["seq"], "felled": felled["seq"], "ended": ended["seq"], "failed": failed["seq"],
            "turned": turned["seq"]}


def test_the_recap_names_the_sessions_events_in_the_narrators_words(camp):
    seqs = play_a_session(camp)
    r = session_recap(camp, 1)
    assert r.title == "Session 1"
    heads = [h for h, _ in r.sections]
    assert heads == ["At the table", "Where the party went", "A fight begins (Encounter 1): Goblin 1",
                     "Luck that turned a roll", "Coins and XP"]
    assert r.fights == 1 and r.died == () and r.summary == "Session 1 · 1 fight"
    words = text(r)
    assert "Wren (Ana) and Brakka (Ben)" in words
    assert "Room explored: the flooded crypt" in words
    assert "Brakka felled Goblin 1: Goblin 1 takes" in words
    assert told_as_it_stands(camp, seqs["ended"]) in words  # the fight's end, as the narrator tells it
    assert "3C earned (a goblin's purse)" in words


def test_an_undone_attack_is_not_told(camp):
    seqs = play_a_session(camp)
    words = text(session_recap(camp, 1))
    assert not camp.standing.in_force(seqs["undone"])
    assert "Wren felled" not in words
    assert told_as_it_stands(camp, seqs["undone"]) not in words


def test_a_roll_a_luck_die_replaced_is_told_as_it_stands(camp):
    seqs = play_a_session(camp)
    r = dict(session_recap(camp, 1).sections)
    assert camp.standing.replaced_by(seqs["failed"]) == seqs["turned"]
    assert r["Luck that turned a roll"] == [told_as_it_stands(camp, seqs["turned"])]
    assert r["Luck that turned a roll"][0].startswith("Ana spends a luck die on Wren's Stealth check: +6.")
    assert "succeeds" in r["Luck that turned a roll"][0]
    assert told_as_it_stands(camp, seqs["failed"]) not in text(session_recap(camp, 1))


def test_a_death_a_death_save_and_the_closest_call_are_told_with_their_fight(camp):
    camp.start_session()
    fight = camp.encounter(["goblin"])
    fight.initiative(first="foes")
    camp.damage("Wren", 5)
    camp.damage("Brakka", camp.delver("Brakka").hearts)
    camp.death_save("Brakka", faces={"death_save": [6]})
    fight.end()
    camp.damage("Wren", camp.delver("Wren").hearts)
    camp.death_save("Wren", faces={"death_save": [1]})  # after the fight: still its story
    camp.end_session()
    r = session_recap(camp)
    fights = dict(r.sections)["A fight begins (Encounter 1): Goblin 1"]
    assert r.died == ("Wren",) and r.summary == "Session 1 · 1 fight · Wren died"
    assert any(line.startswith("Brakka's death save: 6") and "defies death" in line for line in fights)
    assert fights[-1].startswith("Wren's death save: 1") and fights[-1].endswith("Wren dies")
    camp.start_session()
    fight = camp.encounter(["goblin"])
    camp.damage("Brakka", 2)
    fight.end()
    camp.end_session()
    fights = dict(session_recap(camp, 2).sections)["A fight begins (Encounter 2): Goblin 1"]
    assert any(line.startswith("Closest call: the keeper hit Brakka: Brakka takes 2") for line in fights)


def test_the_latest_session_that_ended_is_told_unless_another_is_asked(camp):
    with pytest.raises(ValueError):
        session_recap(camp)
    camp.start_session()
    camp.explore_room("a")
    assert latest_session(camp) == 1  # running, none ended: the one running
    camp.end_session()
    camp.start_session()
    camp.explore_room("b")
    assert latest_session(camp) == 1 and session_recap(camp).session == 1
    assert "Room explored: b" in text(session_recap(camp, 2))
    assert [r.session for r in recaps(camp)] == [1, 2]
    with pytest.raises(ValueError):
        session_recap(camp, 9)


def test_markdown_and_html_show_names_as_text(tmp_path):
    hostile = [{"name": "<b>*Wren*</b>", "class": "rogue", "player": "Ana_[1]"}]
    with db.Campaign.create(tmp_path / "h", name="Hostile", seed=1, delvers=hostile) as c:
        c.start_session()
        c.explore_room("<script>alert(1)</script>")
        c.end_session()
        r = session_recap(c)
        md = db.analysis.recap(c)
    assert "<" not in md.replace("\\<", "") and "\\<script>alert(1)\\</script>" in md
    assert "\\<b>\\*Wren\\*\\</b> (Ana\\_\\[1\\])" in md
    assert "<script>" not in r.html() and "&lt;script&gt;alert(1)&lt;/script&gt;" in r.html()
    assert r.as_dict()["sections"][0] == {"heading": "At the table", "lines": ["<b>*Wren*</b> (Ana_[1])"]}


def test_the_command_line_tells_a_session_of_the_long_delve():
    run = subprocess.run([sys.executable, "-m", "delvebook", "recap", str(CAMPAIGNS / "the-long-delve"), "--session",
                          "10"], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("## Session 10\n")
    assert "Tamsin joins the party (rogue, 12 hearts, player Cleo)" in run.stdout
    assert "Ilse dies" in run.stdout and "Father Odo dies" in run.stdout
    bad = subprocess.run([sys.executable, "-m", "delvebook", "recap", str(CAMPAIGNS / "the-long-delve"), "--session",
                          "999"], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert bad.returncode == 1 and "no session 999" in bad.stderr


def test_the_report_folds_a_telling_of_each_session(long_delve):
    from delvebook.charts.report import report_html
    page = report_html(long_delve, calibration=False)
    assert page.count("<details><summary>Session ") == 95
    assert "<summary>Session 10 · 5 fights · Ilse and Father Odo died</summary>" in page
    assert "<h2>Previously on... each session told</h2>" in page
    assert session_recap(long_delve, 12).html() in page


def test_the_recap_credits_hearts_taken_by_hand_to_what_the_keeper_named(camp):
    camp.start_session()
    fight = camp.encounter(["goblin"])
    fight.initiative(first="party")
    fell = camp.damage("Wren", 5, source="a collapsing floor")
    fight.end(keep=["Goblin 1"])
    camp.end_session()
    lines = dict(session_recap(camp, 1).sections)["A fight begins (Encounter 1): Goblin 1"]
    assert "Closest call: a collapsing floor hit Wren: Wren takes 5 (12 -> 7 hearts)" in lines
    assert not any("keeper hit" in line for line in lines)
    assert narrate.tell(camp.event(fell["seq"]), camp)["text"] == "A collapsing floor: Wren takes 5 (12 -> 7 hearts)"
