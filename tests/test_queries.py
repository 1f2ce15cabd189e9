"""The questions views ask (engine.queries) answer with what the commands then roll, and change nothing."""

from __future__ import annotations

from fractions import Fraction

from delvebook import odds
from delvebook.engine import queries
from delvebook.core.events import clone
from enginekit import Table


def _fight(*foes) -> Table:
    t = Table(seed=4).party(("Wren", "rogue"), ("Bo", "fighter", {"weapon": "sword_and_shield"}), ("Cy", "cleric"))
    t.do("start_session")
    t.do("encounter", foes=list(foes) or [{"foe": "goblin", "name": "Gob"}])
    t.do("initiative", first="party")
    return t


def _attack_matches_query(t: Table, attacker: str, target: str, weapon=None, **asked) -> dict:
    t.turn(attacker)  # the attack is made on the attacker's turn
    before = clone(t.state)
    exprs = queries.attack_exprs(t.state, t.rules, attacker, target, weapon, **asked)
    chance = queries.attack_odds(t.state, t.rules, attacker, target, weapon, **asked)
    assert t.state == before  # a question changes nothing
    e = t.do("attack", attacker=attacker, target=target, weapon=weapon, **asked)
    assert exprs == (e["attack_expr"], e["resist_expr"])
    assert {k: str(v) for k, v in zip(("win", "tie", "lose"), chance)} == e["chance"]
    return e


def test_an_attack_rolls_what_its_odds_were_worked_out_from():
    t = _fight()
    e = _attack_matches_query(t, "Bo", "Gob")
    assert e["attack_expr"] == "d20+d6" and e["resist_expr"] == "d20"


def test_a_blessing_and_a_readied_ferocious_strike_show_in_the_odds_before_the_attack():
    t = _fight()
    t.turn("Cy").do("use", who="Cy", ability="bless", target="Bo")
    t.turn("Bo").do("use", who="Bo", ability="ferocious_strike")
    assert queries.attack_exprs(t.state, t.rules, "Bo", "Gob") == ("2d20kh1+d6+d6", "d20")
    e = _attack_matches_query(t, "Bo", "Gob")
    assert e["advantage"] is True


def test_a_marked_target_gives_advantage_to_weapon_and_spell_attacks_alike():
    t = _fight({"foe": "ogre", "name": "Ogre"})
    t.do("condition", who="Ogre", name="marked", advantage_against=True)
    weapon = queries.attack_exprs(t.state, t.rules, "Bo", "Ogre")
    spell = queries.spell_attack_odds(t.state, t.rules, "Cy", "Ogre")
    assert weapon[0].startswith("2d20kh1")
    assert spell == odds("2d20kh1+d6", vs="d20")  # the cleric's Magic, with advantage


def test_a_foe_attacks_with_its_bestiary_attack_and_a_target_may_add_a_bonus():
    t = _fight({"foe": "skeleton", "name": "Bones"})
    e = _attack_matches_query(t, "Bones", "Wren", target_bonus=2)
    assert e["attack_expr"] == "d20+d6" and e["resist_expr"] == "d20+2"


def test_the_hit_chance_a_button_shows_is_the_attacks_win_chance():
    t = _fight()
    assert queries.hit_chance(t.state, t.rules, "Bo", "Gob", 0) == odds("d20+d6", vs="d20").win
    assert queries.hit_chance(t.state, t.rules, "Bo", "Nobody") is None
    assert queries.hit_chance(t.state, t.rules, "Bo", "Bo") is None


def test_check_odds_are_the_chance_the_check_records():
    t = _fight()
    p = queries.check_odds(t.state, t.rules, "Wren", "stealth", target=12)
    e = t.do("check", who="Wren", skill="stealth", target=12)
    assert str(p) == e["chance"] and e["expr"] == queries.check_expr(t.state, t.rules, "Wren", "stealth")
    assert queries.check_odds(t.state, t.rules, "Wren", "stealth", vs="Gob") == odds("d20+d6", vs="d20").win


def test_weapons_are_listed_once_each_with_their_damage():
    t = _fight()
    assert queries.weapons(t.state, t.rules, "Wren") == [("Dagger D6", 0), ("Bow D6", 2)]
    assert queries.weapons(t.state, t.rules, "Gob") == [("Attack D6", None)]
    assert queries.weapons(t.state, t.rules, "Nobody") == []


def test_abilities_available_say_their_cost_effect_and_inputs():
    t = _fight()
    cy = {a.id: a for a in queries.abilities_available(t.state, t.rules, "Cy")}
    assert "holy_weapon" not in cy  # a level-2 specialty
    loh = cy["lay_on_hands"]
    assert loh.label == "Lay on Hands (1 healing point a heart)" and loh.affordable
    assert [i.name for i in loh.inputs if i.required] == ["hearts"]
    assert loh.effect == t.rules.ability("cleric", "lay_on_hands")["effect"]
    wren = [a.label for a in queries.abilities_available(t.state, t.rules, "Wren")]
    assert wren == ["Dodge (1 grit)", "Sprint (1 grit)", "Focus (1 grit)", "Hide (1 grit)"]


def test_naming_magic_asks_for_true_names_a_description_and_a_cost():
    t = Table(seed=4).party(("Nia", "namer"))
    (naming,) = [s for s in queries.spells_available(t.state, t.rules, "Nia") if s.via == "naming"]
    assert [(i.name, i.required) for i in naming.inputs] == [("names", True), ("description", True), ("cost", True)]


def test_divine_spells_come_at_level_three_with_their_blessing():
    t = Table(seed=4).party(("Cy", "cleric"))
    assert queries.spells_available(t.state, t.rules, "Cy") == []
    t.do("level_up", who="Cy")
    t.do("level_up", who="Cy")
    labels = [s.label for s in queries.spells_available(t.state, t.rules, "Cy")]
    assert "Aid (1 blessing)" in labels and "Guiding Bolt (1 blessing)" in labels


def test_an_expertise_choice_offers_the_delvers_own_non_weapon_skills():
    t = Table(seed=4).party(("Wren", "rogue"))
    t.do("level_up", who="Wren")
    t.do("choose", who="Wren", choice="specialty", option="bows")
    t.do("level_up", who="Wren")
    pending = {p["choice"]: p for p in t.delver("Wren")["pending_choices"]}
    assert queries.choice_options(t.state, t.rules, "Wren", pending["expertise"]) == [("stealth", "stealth")]
    assert ("Insight", "insight") in queries.choice_options(t.state, t.rules, "Wren", pending["skill"])


def test_the_death_save_says_its_die_its_number_and_its_chance():
    t = Table()
    assert queries.death_save(t.state, t.rules) == ("d6", 6, Fraction(1, 6))


def test_who_may_act_and_whose_turn_it_is():
    t = _fight()
    assert queries.current_actor(t.state) == "Wren"
    t.do("damage", who="Bo", amount=99)
    assert queries.can_act(t.state, "Bo").startswith("Bo is dying")
    assert queries.able(t.state) == ["Wren", "Cy", "Gob"] and queries.can_act(t.state, "Wren") is None


def test_each_way_of_casting_offers_its_own_spells():
    t = Table(seed=4).party(("Wren", "rogue"), ("Fa", "fighter", {"weapon": "sword_and_shield"}))
    t.do("level_up", who="Wren")
    t.do("choose", who="Wren", choice="specialty", option="bard_magic")
    assert queries.spells_available(t.state, t.rules, "Wren") == []  # no song chosen yet
    t.do("use", who="Wren", ability="bard_magic", choose="firebolt")
    (song,) = queries.spells_available(t.state, t.rules, "Wren")
    assert (song.id, song.via, song.label) == ("firebolt", "bard", "Firebolt (bard, 1 grit)")
    for _ in range(2):
        t.do("level_up", who="Fa")
    t.do("choose", who="Fa", choice="specialty", option="armorer")
    t.do("choose", who="Fa", choice="technique", option="blood_magic")
    t.do("use", who="Fa", ability="blood_magic_sword", trace="light")
    (sword,) = queries.spells_available(t.state, t.rules, "Fa")
    assert (sword.id, sword.via, sword.used) == ("light", "sword", True)  # traced, not yet charged by a kill


def test_a_negative_attack_bonus_is_one_roll_with_the_d20():
    t = _fight()
    e = _attack_matches_query(t, "Gob", "Wren", bonus=-1, faces={"attack": [12], "resist": [2], "damage": [3]})
    assert e["attack_expr"] == "d20-1" and e["attack_totals"] == [11]


# ---------------------------------------------------------------- what a view greys a control by

def test_an_attack_problem_is_what_the_attack_command_refuses_with():
    t = _fight()
    assert queries.attack_problem(t.state, t.rules, "Wren", "Gob") is None  # Wren's turn, Wren's action
    why = queries.attack_problem(t.state, t.rules, "Bo", "Gob")
    assert why == t.refused("attack", attacker="Bo", target="Gob") and "it is Wren's turn" in why
    t.do("give", who="Wren", item="crossbow")
    t.do("give", who="Wren", item="bolt", count=2)
    t.do("attack", attacker="Wren", target="Gob", weapon="Crossbow", faces={"attack": [2], "resist": [20]})
    t.turn("Wren")
    why = queries.attack_problem(t.state, t.rules, "Wren", "Gob", "Crossbow")
    assert why == t.refused("attack", attacker="Wren", target="Gob", weapon="Crossbow") and "not loaded" in why


def test_the_weapons_that_reload_say_why_they_cannot_be_reloaded_as_reload_refuses():
    t = _fight()
    t.do("give", who="Bo", item="crossbow")
    [r] = queries.reloadable(t.state, t.rules, "Bo")
    assert (r.name, r.loaded, r.overridable) == ("Crossbow", True, False) and r.why == "Bo's Crossbow is already loaded"
    assert t.refused("reload", who="Bo") == r.why
    assert queries.reloadable(t.state, t.rules, "Wren") == []  # a bow needs no reload


def test_what_a_delver_carries_is_listed_by_name_with_its_counts():
    t = _fight()
    carried = {c.name: (c.kind, c.count, c.label) for c in queries.carried(t.state, t.rules, "Wren")}
    assert carried["Dagger"] == ("weapons", 2, "Dagger x2") and carried["Arrow"] == ("items", 20, "Arrow x20")
    t.do("drop", who="Wren", item=carried["Dagger"][2].split(" x")[0])
    assert {c.name: c.count for c in queries.carried(t.state, t.rules, "Wren")}["Dagger"] == 1


def test_a_conjured_weapon_is_listed_among_the_attacks_while_it_lasts():
    t = Table(seed=4).party(("Cy", "cleric"))
    t.do("level_up", who="Cy")
    t.do("choose", who="Cy", choice="specialty", option="holy_weapon")
    assert [label for label, _ in queries.weapons(t.state, t.rules, "Cy")] == ["Dagger D6"]
    t.do("use", who="Cy", ability="holy_weapon")
    assert queries.weapons(t.state, t.rules, "Cy")[-1] == ("Holy weapon 2d6", "holy weapon")


def test_a_refusal_by_a_rule_of_play_says_the_keeper_may_override_it():
    import pytest
    from delvebook.engine import Overridable, Refused
    t = _fight()
    with pytest.raises(Overridable, match="it is Wren's turn"):  # the turn economy: the keeper may waive it
        t.do("attack", attacker="Bo", target="Gob")
    with pytest.raises(Refused) as err:  # a rule of the game itself: no override waives it
        t.do("attack", attacker="Wren", target="Wren")
    assert not isinstance(err.value, Overridable)
    e = t.do("attack", attacker="Bo", target="Gob", keeper_override="Bo was readied",
             faces={"attack": [15, 1], "resist": [2], "damage": [3, 3]})
    assert e["keeper_override"]["reason"] == "Bo was readied" and "it is Wren's turn" in e["keeper_override"]["waived"][0]


# ---------------------------------------------------------------- a multi-attack's odds, all its attacks together

def landed_by_brute_force(attacks, resists, bonuses):
    """Every face of every die, counted: how often at least one attack lands, every attack lands, and the target
    hits back (the text: higher hits, a tie both hit, countered only if every attack fails)."""
    import itertools
    n = len(attacks)
    counts = {"any": 0, "all": 0, "countered": 0}
    total = 0
    for faces in itertools.product(*(range(1, s + 1) for s in attacks + resists + bonuses)):
        d20s, rs, bonus = faces[:n], faces[n:n + len(resists)], sum(faces[n + len(resists):])
        results = []
        for k, d20 in enumerate(d20s):
            a, r = d20 + bonus, rs[min(k, len(rs) - 1)]
            results.append("hit" if a > r else "tie" if a == r else "miss")
        total += 1
        counts["any"] += any(x != "miss" for x in results)
        counts["all"] += all(x != "miss" for x in results)
        counts["countered"] += "tie" in results or all(x == "miss" for x in results)
    return {k: Fraction(v, total) for k, v in counts.items()}


def test_a_multi_attack_2s_odds_are_the_exact_chance_at_least_one_and_both_hit_by_brute_force():
    t = _fight()
    chances = queries.attack_chances(t.state, t.rules, "Bo", "Gob", 0, multi=2)
    brute = landed_by_brute_force([20, 20], [20], [6])  # two D20s, Weapons' D6 rolled once, one D20 to resist
    assert (chances.n, chances.any, chances.all, chances.countered) == (2, brute["any"], brute["all"],
                                                                        brute["countered"])
    assert chances.each == odds("d20+d6", vs="d20") and chances.any > chances.each.win > chances.all
    e = t.turn("Bo").do("attack", attacker="Bo", target="Gob", weapon=0, multi=2,
                        faces={"attack": [3], "attack#2": [17], "bonus": [2], "resist": [12]})
    assert e["results"] == ["miss", "hit"]
    assert e["chance"] == {k: str(v) for k, v in zip(("win", "tie", "lose"), chances.each)}  # each attack's odds


def test_a_multi_attacks_odds_follow_the_house_rules_on_the_targets_rolls():
    t = Table(seed=4, house_rules={"core": {"multi_attack": {"target_rolls": 2},
                                            "attack": {"die": "d8", "resist_die": "d8"}}})
    t.party(("Wren", "rogue"))
    t.do("start_session")
    t.do("encounter", foes=[{"foe": "goblin", "name": "Gob"}])
    t.do("initiative", first="foes")
    assert queries.attack_exprs(t.state, t.rules, "Gob", "Wren", multi=2) == ("d8", "d8")
    chances = queries.attack_chances(t.state, t.rules, "Gob", "Wren", multi=2)
    brute = landed_by_brute_force([8, 8], [8, 8], [])  # each attack meets its own resist roll
    assert (chances.any, chances.all, chances.countered) == (brute["any"], brute["all"], brute["countered"])
