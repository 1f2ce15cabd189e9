"""One test per rule of RULES.md (class abilities and spells are in test_abilities.py).

Outcomes are made exact with typed faces: ``faces={"attack": [15, 3], "resist": [9]}`` is what real dice
showed, validated against each die."""

from __future__ import annotations

from fractions import Fraction

import pytest

from delvebook import odds
from delvebook.core.dice import Roll
from enginekit import Table

FIGHTER_HEAVY = {"weapon": "heavy_weapon"}       # a 3d6 melee weapon
FIGHTER_SHIELD = {"weapon": "sword_and_shield"}  # sword 2d6, shield AV 1 DV 10
FIGHTER_BOW = {"weapon": "weapon_and_bow"}       # a 2d6 melee weapon, a bow, 20 arrows


def fight(t: Table, *foes: str, first: str = "party") -> None:
    t.do("encounter", foes=list(foes))
    t.do("initiative", first=first)


# ---------------------------------------------------------------- dice

def test_every_roll_records_each_die_modifier_total_and_who():
    t = Table().party(("Wren", "rogue"))
    e = t.do("check", who="Wren", skill="stealth", target=10, bonus=1, faces={"check": [12, 4]})
    rec = e["rolls"]["check"]
    assert rec == {"expr": "d20+d6+1", "faces": [12, 4], "total": 17, "who": "Wren", "why": "check (stealth)"}
    assert Roll.from_dict(rec).modifier == 1


def test_d66_rolls_tens_then_ones():
    t = Table()
    e = t.do("roll", expr="d66", why="true name", faces={"roll": [4, 2]})
    assert e["total"] == 42


# ---------------------------------------------------------------- checks, saves, skills

def test_check_meets_or_beats_the_target_number():
    t = Table().party(("Cy", "cleric"))
    assert t.do("check", who="Cy", skill="medicine", target=14, faces={"check": [10, 4]})["success"] is True
    assert t.do("check", who="Cy", skill="medicine", target=14, faces={"check": [10, 3]})["success"] is False


def test_check_records_its_exact_chance():
    t = Table().party(("Cy", "cleric"))
    e = t.do("check", who="Cy", skill="medicine", target=14)
    assert Fraction(e["chance"]) == odds("d20+d6", target=14)


def test_opposed_check_higher_total_wins():
    t = Table().party(("Wren", "rogue"), ("Bo", "fighter", FIGHTER_HEAVY))
    e = t.do("check", who="Wren", skill="stealth", vs="Bo", vs_skill="athletics",
             faces={"check": [15, 2], "opposed": [10, 3]})
    assert (e["total"], e["vs_total"], e["result"], e["success"]) == (17, 13, "win", True)


def test_opposed_tie_is_reported_and_the_defender_holds():
    t = Table().party(("Wren", "rogue"), ("Bo", "fighter", FIGHTER_HEAVY))
    e = t.do("check", who="Wren", skill="stealth", vs="Bo", vs_skill="athletics",
             faces={"check": [10, 3], "opposed": [9, 4]})
    assert e["result"] == "tie" and e["success"] is False


def test_save_is_a_check_made_to_prevent_something():
    t = Table().party(("Ada", "mage"))
    e = t.do("check", who="Ada", target=12, save=True, faces={"check": [12]})
    assert e["save"] is True and e["success"] is True and e["rolls"]["check"]["expr"] == "d20"


def test_proficiency_adds_d6_to_checks_using_the_skill():
    t = Table().party(("Ada", "mage"))
    assert t.do("check", who="Ada", skill="lore", target=10)["expr"] == "d20+d6"
    assert t.do("check", who="Ada", skill="athletics", target=10)["expr"] == "d20"


def test_expertise_adds_2d6_instead_of_d6():
    t = Table().party(("Wren", "rogue"))
    t.do("award_xp", amount=200)
    t.do("choose", who="Wren", choice="specialty", option="daggers")
    t.do("choose", who="Wren", choice="skill", option="insight")
    t.do("choose", who="Wren", choice="expertise", option="stealth")
    assert t.do("check", who="Wren", skill="stealth", target=10)["expr"] == "d20+2d6"
    fight(t, "goblin")
    assert t.do("attack", attacker="Wren", target="Goblin 1", weapon="dagger")["attack_expr"] == "d20+2d6"


def test_weapon_skill_applies_to_attacks_with_that_weapon():
    t = Table().party(("Wren", "rogue"), ("Ada", "mage", {"weapon": "staff"}))
    fight(t, "goblin", "goblin")
    assert t.do("attack", attacker="Wren", target="Goblin 1", weapon="dagger")["attack_expr"] == "d20+d6"
    t.turn("Ada")
    assert t.do("attack", attacker="Ada", target="Goblin 2", weapon="staff")["attack_expr"] == "d20"


def test_fighter_weapons_skill_covers_anything_it_can_kill_with():
    t = Table().party(("Bo", "fighter", FIGHTER_BOW))
    fight(t, "ogre")
    for weapon in ("bow", "melee_weapon_2d6", "unarmed"):  # one attack a turn
        assert t.turn("Bo").do("attack", attacker="Bo", target="Ogre 1", weapon=weapon)["attack_expr"] == "d20+d6"


def test_specialty_raises_one_weapon_type_to_2d6():
    t = Table().party(("Bo", "fighter", FIGHTER_SHIELD))
    t.do("award_xp", amount=100)
    t.do("choose", who="Bo", choice="specialty", option="swords")
    fight(t, "ogre")
    assert t.do("attack", attacker="Bo", target="Ogre 1", weapon="sword")["attack_expr"] == "d20+2d6"


# ---------------------------------------------------------------- luck dice

def test_each_player_has_three_luck_dice_per_session():
    t = Table().party(("Wren", "rogue"), ("Bo", "fighter", FIGHTER_HEAVY))
    t.do("start_session")
    assert t.state["luck"] == {"Wren": 3, "Bo": 3}


def test_luck_dice_reset_each_session():
    t = Table().party(("Wren", "rogue"))
    t.do("start_session")
    t.do("check", who="Wren", skill="stealth", target=30)
    t.luck("Wren", +1)
    assert t.state["luck"]["Wren"] == 2
    t.do("end_session")
    t.do("start_session")
    assert t.state["luck"]["Wren"] == 3  # not 5: they do not stack


def test_luck_die_is_a_d6_added_or_subtracted_after_the_roll_is_seen():
    t = Table().party(("Wren", "rogue"))
    t.do("start_session")
    e = t.do("check", who="Wren", skill="stealth", target=18, faces={"check": [14, 2]})
    assert e["success"] is False
    e = t.luck("Wren", +1, face=3)
    assert e["success"] is True and e["total"] == 19 and e["replaces"] == 2 + 1
    e = t.luck("Wren", -1, face=6)
    assert e["total"] == 13 and e["success"] is False
    assert t.state["luck"]["Wren"] == 1
    with pytest.raises(Exception, match="1..6"):
        t.luck("Wren", +1, face=7)


def test_luck_record_keeps_the_original_roll_and_every_luck_die():
    t = Table().party(("Wren", "rogue"))
    t.do("start_session")
    t.do("check", who="Wren", skill="stealth", target=18, faces={"check": [14, 2]})
    t.luck("Wren", +1, face=3)
    e = t.luck("Wren", +1, face=2)
    rec = e["rolls"]["check"]
    assert rec["base_total"] == 16 and rec["total"] == 21
    assert [(l["face"], l["sign"], l["who"]) for l in rec["luck"]] == [(3, 1, "Wren"), (2, 1, "Wren")]
    assert t.events[2]["rolls"]["check"]["total"] == 16  # the original stays in the log


def test_any_player_may_spend_luck_on_any_roll():
    t = Table().party(("Wren", "rogue"), ("Bo", "fighter", FIGHTER_HEAVY))
    t.do("start_session")
    fight(t, "goblin")
    e = t.turn("Goblin 1").do("attack", attacker="Goblin 1", target="Wren",
                              faces={"attack": [16], "resist": [12], "damage": [4]})
    assert e["results"] == ["hit"]
    e = t.luck("Bo", -1, roll="attack", face=5)  # Bo's player spends luck on the goblin's roll
    assert e["results"] == ["miss"] and t.state["luck"] == {"Wren": 3, "Bo": 2}
    t.do("end_encounter")
    t.do("roll", expr="d66", why="loot", faces={"roll": [3, 3]})  # the keeper's loot roll
    assert t.luck("Wren", +1, face=2)["total"] == 35


def test_spending_a_luck_die_you_do_not_have_is_refused():
    t = Table().party(("Wren", "rogue"))
    t.do("start_session")
    t.do("check", who="Wren", skill="stealth", target=10)
    for _ in range(3):
        t.luck("Wren", +1)
    with pytest.raises(Exception, match="no luck dice left"):
        t.luck("Wren", +1)
    assert t.state["luck"]["Wren"] == 0


def test_undoing_a_luck_die_gives_it_back_and_restores_the_roll():
    t = Table().party(("Wren", "rogue"))
    t.do("start_session")
    t.do("check", who="Wren", skill="stealth", target=18, faces={"check": [14, 2]})
    before = t.state["luck"]["Wren"]
    t.luck("Wren", +1, face=3)
    t.undo()
    assert t.state["luck"]["Wren"] == before
    assert t.engine.history.latest_action()["seq"] == 3  # the original check is in force again
    assert t.replayed() == t.state


# ---------------------------------------------------------------- hearts and death

def _drop_to_dying(t: Table, who: str = "Ada") -> dict:
    fight(t, "ogre", first="foes")
    return t.do("attack", attacker="Ogre 1", target=who,
                faces={"attack": [18, 6], "resist": [2], "damage": [6, 6, 6]})


def test_attack_leaving_a_delver_below_one_heart_calls_for_a_death_save():
    t = Table().party(("Ada", "mage"))
    e = _drop_to_dying(t)
    assert e["damage"][0]["death_save_due"] is True
    assert t.delver("Ada")["status"] == "dying" and t.delver("Ada")["hearts"] == 0
    assert "death save" in t.refused("attack", attacker="Ada", target="Ogre 1")


def test_death_save_six_or_higher_defies_death_and_lives_at_zero_hearts():
    t = Table().party(("Ada", "mage"))
    _drop_to_dying(t)
    e = t.do("death_save", who="Ada", faces={"death_save": [6]})
    assert e["success"] and t.delver("Ada")["status"] == "alive" and t.delver("Ada")["hearts"] == 0


def test_death_save_below_six_means_death():
    t = Table().party(("Ada", "mage"))
    _drop_to_dying(t)
    e = t.do("death_save", who="Ada", faces={"death_save": [5]})
    assert not e["success"] and t.delver("Ada")["status"] == "dead"
    assert "dead" in t.refused("attack", attacker="Ada", target="Ogre 1")


def test_luck_dice_can_lift_a_death_save():
    t = Table().party(("Ada", "mage"))
    t.do("start_session")
    _drop_to_dying(t)
    t.do("death_save", who="Ada", faces={"death_save": [4]})
    assert t.delver("Ada")["status"] == "dead"
    t.luck("Ada", +1, face=2)
    assert t.delver("Ada")["status"] == "alive" and t.delver("Ada")["hearts"] == 0


def test_a_further_hit_at_zero_hearts_calls_for_a_new_death_save():
    t = Table().party(("Ada", "mage"))
    _drop_to_dying(t)
    t.do("death_save", who="Ada", faces={"death_save": [6]})
    t.do("next_turn")  # Ada's turn
    e = t.turn("Ogre 1").do("attack", attacker="Ogre 1", target="Ada",
                            faces={"attack": [18, 1], "resist": [2], "damage": [1, 1, 1]})
    assert e["damage"][0]["death_save_due"] and t.delver("Ada")["status"] == "dying"


def test_hearts_never_go_below_zero_but_damage_past_zero_is_logged():
    t = Table().party(("Ada", "mage"))
    e = _drop_to_dying(t)
    d = e["damage"][0]
    assert d["hearts_after"] == 0 and d["dealt"] == 18 and d["hearts_before"] == 11


def test_foes_at_zero_hearts_are_vanquished():
    t = Table().party(("Bo", "fighter", FIGHTER_HEAVY))
    fight(t, "goblin")
    e = t.do("attack", attacker="Bo", target="Goblin 1", faces={"attack": [15, 3], "resist": [4], "damage": [2, 2, 2]})
    assert e["damage"][0]["vanquished"] and t.foe("Goblin 1")["status"] == "dead"


# ---------------------------------------------------------------- initiative and turns

def test_the_keeper_may_say_which_side_goes_first():
    t = Table().party(("Wren", "rogue"))
    t.do("encounter", foes=["goblin"])
    e = t.do("initiative", first="foes")
    assert e["initiative_rolls"] == [] and t.state["encounter"]["side"] == "foes"


def test_initiative_each_side_rolls_d6_and_ties_are_rerolled():
    t = Table().party(("Wren", "rogue"))
    t.do("encounter", foes=["goblin"])
    e = t.do("initiative", faces={"initiative_party": [4], "initiative_foes": [4],
                                  "initiative_party#2": [2], "initiative_foes#2": [5]})
    assert e["initiative_rolls"] == [[4, 4], [2, 5]] and e["first"] == "foes"


def test_party_acts_clockwise_in_seat_order():
    t = Table().party(("Wren", "rogue"), ("Bo", "fighter", FIGHTER_HEAVY), ("Ada", "mage"))
    fight(t, "goblin")
    seen = [t.do("next_turn").get("turn_of") for _ in range(2)]
    assert t.state["encounter"]["order"]["party"] == ["Wren", "Bo", "Ada"] and seen == ["Bo", "Ada"]


def test_players_may_change_the_party_order():
    t = Table().party(("Wren", "rogue"), ("Bo", "fighter", FIGHTER_HEAVY))
    fight(t, "goblin")
    t.do("set_order", order=["Bo", "Wren"])
    assert t.state["encounter"]["order"]["party"] == ["Bo", "Wren"]
    assert "each delver" in t.refused("set_order", order=["Bo"])


def test_rounds_alternate_between_sides_until_the_fight_ends():
    t = Table().party(("Wren", "rogue"), ("Bo", "fighter", FIGHTER_HEAVY))
    fight(t, "goblin", "goblin")
    sides = []
    for _ in range(6):
        e = t.do("next_turn")
        sides.append((e["round"], e["side"], e["turn_of"]))
    assert sides == [(1, "party", "Bo"), (1, "foes", "Goblin 1"), (1, "foes", "Goblin 2"),
                     (2, "party", "Wren"), (2, "party", "Bo"), (2, "foes", "Goblin 1")]


# ---------------------------------------------------------------- attacks

def test_attacker_higher_hits_and_deals_damage():
    t = Table().party(("Bo", "fighter", FIGHTER_HEAVY))
    fight(t, "ogre")
    e = t.do("attack", attacker="Bo", target="Ogre 1", faces={"attack": [12, 3], "resist": [10], "damage": [1, 2, 3]})
    assert e["results"] == ["hit"] and e["damage"][0]["dealt"] == 6 and t.foe("Ogre 1")["hearts"] == 14
    assert e["counter"] is None


def test_attacker_lower_is_countered_by_a_target_that_can_counter():
    t = Table().party(("Bo", "fighter", FIGHTER_HEAVY))
    fight(t, "goblin")
    e = t.do("attack", attacker="Bo", target="Goblin 1",
             faces={"attack": [3, 1], "resist": [10], "counter_damage": [5]})
    assert e["results"] == ["miss"] and e["counter"]["damage"]["dealt"] == 4  # leather armor AV 1
    assert t.delver("Bo")["hearts"] == t.delver("Bo")["max_hearts"] - 4


def test_a_ranged_attack_that_fails_is_not_countered():
    t = Table().party(("Bo", "fighter", FIGHTER_BOW))
    fight(t, "goblin")
    e = t.do("attack", attacker="Bo", target="Goblin 1", weapon="Bow", faces={"attack": [3, 1], "resist": [10]})
    assert e["results"] == ["miss"] and e["counter"] is None
    t.turn("Goblin 1").turn("Bo")
    e = t.do("attack", attacker="Bo", target="Goblin 1", weapon="Bow", counter=True,  # a duel with bows
             faces={"attack": [3, 1], "resist": [10], "counter_damage": [3]})
    assert e["counter"]["possible"]


def test_tie_means_both_sides_hit():
    t = Table().party(("Bo", "fighter", FIGHTER_HEAVY))
    fight(t, "ogre")
    e = t.do("attack", attacker="Bo", target="Ogre 1",
             faces={"attack": [8, 2], "resist": [10], "damage": [1, 1, 1], "counter_damage": [2, 2, 2]})
    assert e["results"] == ["tie"]
    assert e["damage"][0]["dealt"] == 3 and e["counter"]["damage"]["dealt"] == 5


def test_multi_attack_rolls_an_extra_d20_and_all_bonus_dice_once():
    t = Table().party(("Bo", "fighter", FIGHTER_HEAVY))
    fight(t, "ogre")
    e = t.do("attack", attacker="Bo", target="Ogre 1", multi=2,
             faces={"attack": [14], "attack#2": [4], "bonus": [3], "resist": [11], "damage": [2, 2, 2]})
    assert e["attack_totals"] == [17, 7] and e["resist_total"] == 11 and e["results"] == ["hit", "miss"]
    assert set(e["rolls"]) >= {"attack", "attack#2", "bonus", "resist"}
    assert e["counter"] is None  # one attack hit, so the ogre cannot counter


def test_multi_attack_target_counters_only_if_every_attack_fails():
    t = Table().party(("Bo", "fighter", FIGHTER_HEAVY))
    fight(t, "ogre")
    e = t.do("attack", attacker="Bo", target="Ogre 1", multi=2,
             faces={"attack": [4], "attack#2": [5], "bonus": [1], "resist": [11], "counter_damage": [1, 1, 1]})
    assert e["results"] == ["miss", "miss"] and e["counter"]["possible"]


def test_advantage_rolls_two_d20_and_keeps_the_higher():
    t = Table().party(("Bo", "fighter", FIGHTER_HEAVY))
    fight(t, "ogre")
    e = t.do("attack", attacker="Bo", target="Ogre 1", advantage=True,
             faces={"attack": [3, 17, 2], "resist": [10], "damage": [1, 1, 1]})
    assert e["attack_expr"] == "2d20kh1+d6" and e["attack_totals"] == [19]


# ---------------------------------------------------------------- damage and armor

def test_unarmed_attacks_deal_2():
    t = Table().party(("Bo", "fighter", FIGHTER_HEAVY))
    fight(t, "ogre")
    e = t.do("attack", attacker="Bo", target="Ogre 1", weapon="unarmed", faces={"attack": [15, 1], "resist": [3]})
    assert e["damage"][0]["raw"] == 2 and "damage" not in e["rolls"]


def test_magic_weapon_adds_its_flat_bonus():
    t = Table().party(("Bo", "fighter", FIGHTER_SHIELD))
    t.state["delvers"]["Bo"]["weapons"][0]["bonus"] = 1  # a +1 sword, set up before play
    t.setup = __import__("delvebook.core.events", fromlist=["clone"]).clone(t.state)
    fight(t, "ogre")
    e = t.do("attack", attacker="Bo", target="Ogre 1", weapon="sword", faces={"attack": [15, 1], "resist": [3], "damage": [2, 3]})
    assert e["damage"][0]["expr"] == "2d6+1" and e["damage"][0]["raw"] == 6


def test_armor_reduces_damage_by_its_armor_value():
    t = Table().party(("Bo", "fighter", FIGHTER_SHIELD))
    fight(t, "ogre", first="foes")
    e = t.do("attack", attacker="Ogre 1", target="Bo", faces={"attack": [15, 1], "resist": [3], "damage": [3, 3, 3]})
    d = e["damage"][0]
    assert (d["raw"], d["av"], d["dealt"]) == (9, 2, 7)  # leather armor AV 1 + shield AV 1


def test_default_armor_values_leather_and_shield():
    t = Table().party(("Bo", "fighter", FIGHTER_SHIELD))
    pieces = {a["name"]: (a["av"], a["dv"]) for a in t.delver("Bo")["armor"]}
    assert pieces == {"Leather armor": (1, 10), "Shield": (1, 10)}


def test_each_hit_takes_one_dv_and_broken_armor_gives_no_av():
    t = Table().party(("Bo", "fighter", FIGHTER_HEAVY))
    fight(t, "goblin", first="foes")
    for k in range(10):  # the goblin's attack, each round
        e = t.turn("Goblin 1").do("attack", attacker="Goblin 1", target="Bo",
                                  faces={"attack": [15], "resist": [3], "damage": [1]})
        assert e["damage"][0]["dv"][0]["dv"] == 9 - k
        t.do("next_turn")
    assert e["damage"][0]["dv"][0]["broken"] and e["damage"][0]["dealt"] == 0
    e = t.turn("Goblin 1").do("attack", attacker="Goblin 1", target="Bo",
                              faces={"attack": [15], "resist": [3], "damage": [1]})
    assert e["damage"][0]["av"] == 0 and e["damage"][0]["dealt"] == 1 and e["damage"][0]["dv"] == []


def test_damage_never_goes_below_zero_after_armor():
    t = Table().party(("Bo", "fighter", FIGHTER_SHIELD))
    fight(t, "giant_rat", first="foes")
    e = t.do("attack", attacker="Giant rat 1", target="Bo", faces={"attack": [15], "resist": [3]})
    assert e["damage"][0]["raw"] == 2 and e["damage"][0]["dealt"] == 0


def test_armorer_adds_one_av_and_five_dv_to_worn_armor_not_shields():
    t = Table().party(("Bo", "fighter", FIGHTER_SHIELD))
    t.do("award_xp", amount=100)
    t.do("choose", who="Bo", choice="specialty", option="armorer")
    pieces = {a["name"]: (a["av"] + a["bonus_av"], a["dv"]) for a in t.delver("Bo")["armor"]}
    assert pieces == {"Leather armor": (2, 15), "Shield": (1, 10)}


# ---------------------------------------------------------------- time and conditions

def test_a_round_is_six_seconds_and_a_minute_is_ten_rounds():
    t = Table().party(("Wren", "rogue"))
    fight(t, "goblin")
    start = t.state["clock"]
    for _ in range(2 * 10):  # Wren, Goblin: two turns a round
        t.do("next_turn")
    assert t.state["encounter"]["round"] == 11 and t.state["clock"] - start == 60
    assert t.rules.duration_rounds("minute") == 10


def test_conditions_expire_as_time_passes_and_undo_rewinds_them():
    t = Table().party(("Wren", "rogue"))
    t.state["conditions"].append({"id": 99, "kind": "lit", "who": "Wren", "source": None, "start": 0,
                                  "ends_at": 3600, "ends_on": None, "ends_when": [], "data": {}})
    t.setup = __import__("delvebook.core.events", fromlist=["clone"]).clone(t.state)
    t.do("advance_time", minutes=59)
    assert t.state["conditions"]
    e = t.do("advance_time", minutes=1)
    assert t.state["conditions"] == [] and e["conditions_ended"][0]["kind"] == "lit"
    t.undo()
    assert [c["kind"] for c in t.state["conditions"]] == ["lit"]


def test_a_rest_is_a_night_of_eight_hours():
    t = Table().party(("Wren", "rogue"))
    t.do("rest")
    assert t.state["clock"] == 8 * 3600


# ---------------------------------------------------------------- XP and levels

def test_xp_is_divided_equally_among_the_party():
    t = Table().party(("Wren", "rogue"), ("Bo", "fighter", FIGHTER_HEAVY))
    t.do("award_xp", amount=60)
    assert [t.delver(n)["xp"] for n in ("Wren", "Bo")] == [30, 30]


def test_xp_split_keeps_remainder_in_party_pool():
    t = Table().party(("Wren", "rogue"), ("Bo", "fighter", FIGHTER_HEAVY), ("Ada", "mage"))
    t.do("award_xp", amount=100)
    assert [t.delver(n)["xp"] for n in ("Wren", "Bo", "Ada")] == [33, 33, 33] and t.state["xp_pool"] == 1
    t.do("award_xp", amount=2)  # 2 + the pool's 1 = 3: one each
    assert [t.delver(n)["xp"] for n in ("Wren", "Bo", "Ada")] == [34, 34, 34] and t.state["xp_pool"] == 0


def test_dead_delvers_share_no_xp():
    t = Table().party(("Bo", "fighter", FIGHTER_HEAVY), ("Ada", "mage"))
    _drop_to_dying(t, "Ada")
    t.do("death_save", who="Ada", faces={"death_save": [1]})
    t.do("end_encounter")
    t.do("award_xp", amount=10)
    assert t.delver("Bo")["xp"] == 10 and t.delver("Ada")["xp"] == 0


def test_one_xp_per_heart_of_vanquished_enemies():
    t = Table().party(("Bo", "fighter", FIGHTER_HEAVY))
    fight(t, "goblin", "goblin")
    t.do("attack", attacker="Bo", target="Goblin 1", faces={"attack": [15, 3], "resist": [4], "damage": [2, 2, 2]})
    e = t.do("end_encounter")
    assert e["xp"] == 4 and t.delver("Bo")["xp"] == 4  # only the vanquished goblin counts


def test_one_xp_per_coin_earned_ten_talons_a_coin():
    t = Table().party(("Wren", "rogue"))
    xp0 = t.delver("Wren")["xp"]
    t.do("earn", amount="1B 2C 5T", who="Wren")
    assert t.delver("Wren")["xp"] - xp0 == 12 and t.state["coin_pool"] == 5
    t.do("earn", amount=5, who="Wren")  # the 5 + 5 talons left over make another crown
    assert t.delver("Wren")["xp"] - xp0 == 13 and t.state["coin_pool"] == 0


def test_one_hundred_xp_per_completed_quest():
    t = Table().party(("Wren", "rogue"))
    t.do("complete_quest", name="the drowned bell")
    assert t.delver("Wren")["xp"] == 100
    assert "already completed" in t.refused("complete_quest", name="the drowned bell")


def test_fifteen_xp_per_new_room_explored():
    t = Table().party(("Wren", "rogue"))
    t.do("explore_room", name="the flooded crypt")
    assert t.delver("Wren")["xp"] == 15
    assert "already explored" in t.refused("explore_room", name="the flooded crypt")


def test_levels_at_100_and_200_xp_and_level_3_is_the_cap():
    t = Table().party(("Ada", "mage"))
    t.do("award_xp", amount=99)
    assert t.delver("Ada")["level"] == 1
    e = t.do("award_xp", amount=1)
    assert t.delver("Ada")["level"] == 2 and e["level_ups"][0]["level"] == 2
    t.do("award_xp", amount=500)
    assert t.delver("Ada")["level"] == 3 and t.delver("Ada")["xp"] == 600
    assert "highest level is 3" in t.refused("level_up", who="Ada")


def test_reaching_a_level_applies_its_features_and_asks_its_choices():
    t = Table().party(("Bo", "fighter", FIGHTER_HEAVY))
    max1 = t.delver("Bo")["max_hearts"]
    e = t.do("award_xp", amount=100, faces={"hearts": [4]})
    bo = t.delver("Bo")
    assert bo["max_hearts"] == max1 + 4 and bo["resource_max"]["grit"] == 5
    assert e["level_ups"][0]["choices"] == ["specialty"]
    assert [p["choice"] for p in bo["pending_choices"]] == ["specialty"]
    assert "not an option" in t.refused("choose", who="Bo", choice="specialty", option="wizardry")
    t.do("choose", who="Bo", choice="specialty", option="pugilist")
    assert t.delver("Bo")["skills"]["unarmed"] == "expert" and t.delver("Bo")["pending_choices"] == []


# ---------------------------------------------------------------- money

def test_currency_is_talons_crowns_and_bars_one_bar_ten_crowns_a_hundred_talons():
    t = Table().party(("Wren", "rogue"))
    assert t.delver("Wren")["purse"] == 50  # 5 crowns
    t.do("earn", amount={"bar": 1, "crown": 1, "talon": 1}, who="Wren")
    assert t.delver("Wren")["purse"] == 50 + 111
    t.do("buy", who="Wren", item="arrow")  # 20 arrows for 1 crown
    assert t.delver("Wren")["purse"] == 151
    assert "not enough" in t.refused("spend", who="Wren", amount="2B")


# ---------------------------------------------------------------- rests and sessions

def test_a_rest_restores_grit():
    t = Table().party(("Bo", "fighter", FIGHTER_HEAVY))
    t.state["delvers"]["Bo"]["resources"]["grit"] = 0
    t.setup = __import__("delvebook.core.events", fromlist=["clone"]).clone(t.state)
    e = t.do("rest")
    assert t.delver("Bo")["resources"]["grit"] == 3 and e["restored"] == {"Bo": {"grit": 3}}


# ---------------------------------------------------------------- the five classes

@pytest.mark.parametrize("class_id, hearts, skills, resources", [
    ("rogue", 12, {"stealth", "daggers", "bows"}, {"grit": 3}),
    ("mage", 11, {"magic", "investigation", "lore", "persuasion"}, {"spellbook": 1, "wand_charges": 0}),
    ("cleric", 12, {"magic", "insight", "medicine"}, {"healing_points": 10, "blessings": 2}),
    ("namer", 12, {"magic", "insight", "perception"}, {"soul_points": 7}),
])
def test_class_level_one_block(class_id, hearts, skills, resources):
    t = Table().party(("X", class_id))
    d = t.delver("X")
    assert d["max_hearts"] == hearts and set(d["skills"]) == skills and d["resources"] == resources
    assert d["purse"] == 50


def test_fighter_starts_with_d6_plus_15_hearts_rolled():
    t = Table()
    e = t.do("add_delver", name="Bo", class_id="fighter", faces={"hearts": [4]})
    assert e["hearts"] == 19 and t.delver("Bo")["max_hearts"] == 19


@pytest.mark.parametrize("class_id, levels", [
    ("rogue", [12, 14, 16]), ("mage", [11, 12, 13]), ("cleric", [12, 14, 16]), ("namer", [12, 14, 16]),
])
def test_hearts_per_level(class_id, levels):
    t = Table().party(("X", class_id))
    seen = [t.delver("X")["max_hearts"]]
    for _ in range(2):
        t.do("level_up", who="X")
        seen.append(t.delver("X")["max_hearts"])
    assert seen == levels


def test_fighter_gains_d6_hearts_and_grit_3_5_7():
    t = Table()
    t.do("add_delver", name="Bo", class_id="fighter", choices=FIGHTER_HEAVY, faces={"hearts": [1]})
    t.do("level_up", who="Bo", faces={"hearts": [6]})
    t.do("level_up", who="Bo", faces={"hearts": [2]})
    assert t.delver("Bo")["max_hearts"] == 16 + 6 + 2 and t.delver("Bo")["resource_max"]["grit"] == 7


def test_fighter_weapon_option_is_recorded():
    t = Table().party(("Bo", "fighter", FIGHTER_BOW))
    assert t.delver("Bo")["choices"]["weapon"] == "weapon_and_bow"
    assert {w["item"] for w in t.delver("Bo")["weapons"]} == {"melee_weapon_2d6", "bow"}


def test_mage_learns_three_random_spells_repeats_rerolled():
    t = Table()
    e = t.do("add_delver", name="Ada", class_id="mage", faces={"spell": [4], "spell#2": [4], "spell#3": [2], "spell#4": [6]})
    assert e["spells"] == ["firebolt", "magic_missile", "minor_illusion"]


def test_mage_learns_the_rest_of_the_list_at_level_two():
    t = Table().party(("Ada", "mage"))
    t.do("level_up", who="Ada")
    assert sorted(t.delver("Ada")["spells"]) == sorted(t.rules.spell_lists["grimoire"]["spells"])  # all of them
    assert t.delver("Ada")["resource_max"]["wand_charges"] == 3


def test_namer_knows_three_random_true_names_repeats_rerolled():
    t = Table()
    e = t.do("add_delver", name="Nim", class_id="namer",
             faces={"true_name": [1, 2], "true_name#2": [1, 2], "true_name#3": [66], "true_name#4": [3, 4]})
    assert e["true_names"] == ["Fire", "Conceal", "Sight"]


def test_namer_gains_two_true_names_a_level():
    t = Table().party(("Nim", "namer"))
    t.do("level_up", who="Nim")
    assert len(t.delver("Nim")["true_names"]) == 5 and t.delver("Nim")["resource_max"]["soul_points"] == 10


def test_true_names_d66_table():
    t = Table()
    names = t.rules.true_names
    assert len(names) == 36 and names[11] == "Spirit" and names[36] == "Thought" and names[66] == "Conceal"


# ---------------------------------------------------------------- undo and illegal commands

def test_undo_appends_an_event_and_never_erases_history():
    t = Table().party(("Wren", "rogue"))
    t.do("award_xp", amount=10)
    n = len(t.events)
    t.undo()
    assert len(t.events) == n + 1 and t.events[-1]["kind"] == "undo" and t.delver("Wren")["xp"] == 0
    t.redo()
    assert t.delver("Wren")["xp"] == 10 and t.replayed() == t.state


def test_illegal_commands_are_refused_and_change_nothing():
    t = Table().party(("Bo", "fighter", FIGHTER_HEAVY))
    assert "no one named" in t.refused("check", who="Nobody", target=10)
    assert "no class" in t.refused("add_delver", name="Zed", class_id="paladin")
    assert "already a delver" in t.refused("add_delver", name="Bo", class_id="rogue")
    assert "no fight" in t.refused("next_turn")
    assert "bestiary" in t.refused("encounter", foes=["dragon"])
    assert "impossible" in t.refused("check", who="Bo", target=10, faces={"check": [21]})
    assert "does not make" in t.refused("check", who="Bo", target=10, faces={"nonsense": [1]})
    assert "whole number" in t.refused("award_xp", amount=-5)
    t.do("level_up", who="Bo")
    t.do("level_up", who="Bo")
    assert "highest level" in t.refused("level_up", who="Bo")


# ---------------------------------------------------------------- statistics (fixed seed)

def test_attack_hit_tie_and_counter_rates_match_the_exact_odds():
    t = Table(seed=5).party(("Bo", "fighter", FIGHTER_HEAVY))
    fight(t, "ogre")
    t.state["encounter"]["foes"]["Ogre 1"]["hearts"] = 10 ** 9  # it never falls
    t.state["encounter"]["foes"]["Ogre 1"]["max_hearts"] = 10 ** 9
    t.state["delvers"]["Bo"]["hearts"] = t.state["delvers"]["Bo"]["max_hearts"] = 10 ** 9
    n = 6000
    counts = {"hit": 0, "tie": 0, "miss": 0}
    for _ in range(n):
        e = t.engine.decide("attack", {"attacker": "Bo", "target": "Ogre 1"}, t.rng, 1)
        counts[e["results"][0]] += 1
        assert (e["counter"] is not None) == (e["results"][0] != "hit")
    exact = odds("d20+d6", vs="d20")
    for k, p in (("hit", exact.win), ("tie", exact.tie), ("miss", exact.lose)):
        sd = (float(p) * (1 - float(p)) / n) ** 0.5
        assert abs(counts[k] / n - float(p)) < 4 * sd, (k, counts[k] / n, float(p))


def test_death_saves_succeed_one_time_in_six():
    t = Table(seed=11).party(("Ada", "mage"))
    t.state["delvers"]["Ada"]["status"] = "dying"
    n = 6000
    wins = sum(t.engine.decide("death_save", {"who": "Ada"}, t.rng, 1)["success"] for _ in range(n))
    sd = (1 / 6 * 5 / 6 / n) ** 0.5
    assert abs(wins / n - 1 / 6) < 4 * sd
