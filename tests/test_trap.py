"""A trap springs: the delver saves (the save's die, a skill the keeper names) against a target; failed, the trap's
damage is rolled and dealt, credited to the trap, a hazard. Typed dice throughout; by the campaign's API, by the
table's card, told by the narrator, and counted by the analysis as the trap's damage."""
from __future__ import annotations

import pytest

import delvebook as db
from delvebook import analysis, narrate
from delvebook.engine import Refused


def spring(camp, faces, **args):
    args = {"who": "Wren", "target": 12, "name": "a falling block", **args}
    return camp.act("trap", faces=faces, **args)


def test_trap_a_save_that_meets_the_target_avoids_it(kept):
    spring(kept, {"check": [12]})
    e = kept.events[-1]
    assert e["success"] is True and "damage" not in e and "damage" not in e["rolls"]
    assert kept.delver("Wren").hearts == 12
    told = narrate.tell(e, kept)
    assert told["text"] == "A falling block springs on Wren: save 12 vs 12, avoided (45% chance to avoid it)"
    assert told["verdict"] == {"word": "avoided", "good": True}


def test_trap_a_failed_save_takes_the_traps_damage_credited_to_the_trap(kept):
    spring(kept, {"check": [11], "damage": [4, 5]})
    e = kept.events[-1]
    assert e["success"] is False and e["rolls"]["damage"]["faces"] == [4, 5]
    assert kept.delver("Wren").hearts == 12 - 9
    assert e["sides"]["a falling block"] == "hazard" and e["targets"] == ["Wren"]
    assert narrate.tell(e, kept)["lines"] == ["Wren takes 9 (12 -> 3 hearts)"]
    hit = analysis.damage(kept).iloc[-1]
    assert (hit["dealer"], hit["dealer_side"], hit["target"], hit["dealt"]) == ("a falling block", "hazard", "Wren", 9)


def test_trap_a_luck_die_on_the_save_lifts_it_and_the_damage_is_gone(kept):
    kept.start_session()
    spring(kept, {"check": [10], "damage": [6, 6]})
    assert kept.delver("Wren").hearts == 0 and kept.delver("Wren").status == "dying"
    kept.spend_luck(kept.delver("Wren").player, +1, roll="check", face=3)
    assert kept.delver("Wren").hearts == 12 and kept.delver("Wren").status == "alive"
    assert analysis.damage(kept).query("dealer == 'a falling block'").empty


def test_trap_the_save_rolls_the_house_rules_save_die_and_armor_absorbs_its_damage_unless_unticked(tmp_path):
    c = db.Campaign.create(tmp_path / "c", name="C", seed=1, house_rules={"core": {"save": {"die": "d12"}}})
    c.add_delver("Bo", "fighter", "Ann", faces={"hearts": [6]})  # in leather armor, AV 1
    spring(c, {"check": [11], "damage": [3, 3]}, who="Bo")
    e = c.events[-1]
    assert e["expr"] == "d12" and e["damage"][0]["av"] == 1 and e["damage"][0]["dealt"] == 5
    assert e["damage"][0]["dv"] == [{"piece": "Leather armor", "dv": 9, "broken": False}]
    assert narrate.tell(e, c)["lines"] == ["Bo takes 5 (21 -> 16 hearts) [armor absorbed 1]"]
    spring(c, {"check": [11], "damage": [3, 3]}, who="Bo", armor=False)  # a needle slips past armor
    assert c.events[-1]["damage"][0]["av"] == 0 and c.events[-1]["damage"][0]["dealt"] == 6
    c.close()


def test_trap_refuses_a_name_of_someone_here_a_target_that_is_no_number_and_the_dead(kept):
    with pytest.raises(Refused, match="someone here"):
        spring(kept, {"check": [1]}, name="Brakka")
    with pytest.raises(Refused, match="whole number"):
        spring(kept, {"check": [1]}, target="12")
    with pytest.raises(Refused, match="draws nothing|U\\+200B"):
        spring(kept, {"check": [1]}, name="a\u200bblock")
    kept.damage("Wren", 40)
    kept.death_save("Wren", faces={"death_save": [1]})
    with pytest.raises(Refused, match="dead"):
        spring(kept, {"check": [20]})


def test_trap_springs_from_the_keepers_card(kept):
    pytest.importorskip("anywidget")
    from delvebook.table import UI, perform, table_view
    ui = UI(panel="keeper")
    card = next(d for d in table_view(kept, ui)["keeper"]["deeds"] if d["form"]["id"] == "trap")
    assert [f["name"] for f in card["form"]["fields"]] == ["who", "name", "target", "skill", "damage", "armor"]
    assert card["form"]["fields"][-1]["value"] is True, "armor absorbs a trap's damage unless the keeper unticks it"
    intent = card["form"]["submit"]["intent"]
    perform(kept, ui, {**intent, "args": {"who": "Wren", "name": "", "target": "twelve", "damage": "2d6"}})
    assert ui.refusal["field"] == "target" and not [e for e in kept.events if e["kind"] == "trap"]
    card = next(d for d in table_view(kept, ui)["keeper"]["deeds"] if d["form"]["id"] == "trap")
    assert "whole number" in next(f for f in card["form"]["fields"] if f["name"] == "target")["error"]
    perform(kept, ui, {**intent, "args": {"who": "Ilse", "name": "a poisoned needle", "target": "30", "damage": "1d6",
                                          "skill": "", "armor": False}})
    assert ui.refusal is None
    e = kept.events[-1]
    assert e["kind"] == "trap" and e["who"] == "Ilse" and e["damage"][0]["by"] == "a poisoned needle"
    view = table_view(kept, ui)
    assert view["outcome"]["text"].startswith("A poisoned needle springs on Ilse: save ")
