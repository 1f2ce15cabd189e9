"""The rules an audit of the engine found wrong or unread (issue 24), each played through the public API with typed
dice faces: Lay on Hands on the dead, orders that reach familiars, Continued Research from what a mage carries, the
tie inside a multi-attack, blindness and darkness, the multi-attack, tie, counter, skill and luck fields of the
core rules, an order's spell_attacks set false, the namer's signature spell written for mages, and the readings the
text leaves open listed as assumptions. Every campaign on disk is opened again at the end of its test and must
replay to the live state."""

from __future__ import annotations

import pytest

import delvebook as db
from delvebook.engine import queries
from delvebook.narrate import tell

from test_table_rules import add, refused, turn  # a delver at a level, a refusal that changes nothing, a turn

FIGHTER_SHIELD = {"weapon": "sword_and_shield"}


def _open(tmp_path, house_rules=None, name="c"):
    return db.Campaign.create(tmp_path / name, name="Rules read", seed=24, house_rules=house_rules)


@pytest.fixture
def camp(tmp_path):
    c = _open(tmp_path)
    yield c
    _replays(c)


def _replays(c) -> None:
    with db.Campaign.open(c.path, read_only=True) as again:
        assert again.state == c.state
    c.close()


def _dead(camp, who: str, face: int = 2) -> None:
    camp.damage(who, 99)
    camp.death_save(who, faces={"death_save": [face]})
    assert camp.delver(who).status == "dead"


# ---------------------------------------------------------------- 1. Lay on Hands' repeated death save

def test_lay_on_hands_repeats_a_death_save_once_for_each_death_and_a_failed_repeat_is_spent(camp):
    add(camp, "Cleo", "cleric")
    add(camp, "Wren", "rogue")
    _dead(camp, "Wren")
    e = camp.use("Cleo", "lay_on_hands_revive", target="Wren", faces={"death_save": [3]})
    assert e["revived"] is False and e["paid"] == {"healing_points": 1}
    assert camp.delver("Cleo").resources["healing_points"] == 9 and camp.delver("Wren").status == "dead"
    assert "once for each death" in refused(camp, camp.use, "Cleo", "lay_on_hands_revive", target="Wren",
                                            faces={"death_save": [6]})


def test_lay_on_hands_lifts_the_dead_on_a_six_and_a_new_death_may_be_revisited(camp):
    add(camp, "Cleo", "cleric")
    add(camp, "Wren", "rogue")
    _dead(camp, "Wren")
    assert camp.use("Cleo", "lay_on_hands_revive", target="Wren", faces={"death_save": [6]})["revived"]
    assert (camp.delver("Wren").status, camp.delver("Wren").hearts) == ("alive", 0)
    camp.advance_time(minutes=1)
    _dead(camp, "Wren")
    assert camp.use("Cleo", "lay_on_hands_revive", target="Wren", faces={"death_save": [6]})["revived"]


def test_lay_on_hands_on_the_dead_is_within_the_hour(camp):
    add(camp, "Cleo", "cleric")
    add(camp, "Wren", "rogue")
    _dead(camp, "Wren")
    camp.advance_time(minutes=61)
    assert "only within 60 minutes" in refused(camp, camp.use, "Cleo", "lay_on_hands_revive", target="Wren")


# ---------------------------------------------------------------- 2. an order reaches every friendly creature

def _commander_and_familiar(camp):
    add(camp, "Finn", "fighter", level=3, technique="commander", **FIGHTER_SHIELD)
    add(camp, "Mira", "mage")
    camp.give("Mira", "scroll", spells=["find_familiar"])
    camp.cast("Mira", "find_familiar", via="scroll", name="Pip")
    fight = camp.encounter(["goblin"])
    fight.initiative(first="party")
    return fight


def test_a_commanders_charge_reaches_a_familiar_which_attacks_with_advantage(camp):
    fight = _commander_and_familiar(camp)
    order = camp.use("Finn", "command_charge")
    assert order["hearing"] == ["Finn", "Mira", "Pip"]
    turn(fight, "Mira")
    e = fight.attack("Pip", "Goblin 1", faces={"attack": [3, 15], "resist": [9]})
    assert e["advantage"] and e["attack_expr"] == "2d20kh1" and e["results"] == ["hit"]


def test_a_commander_may_name_a_familiar_or_an_npc_beside_the_party_but_not_a_foe(camp):
    fight = _commander_and_familiar(camp)
    camp.npc("Grak", "orc")
    assert camp.use("Finn", "command_fire", hearing=["Pip"])["hearing"] == ["Pip"]
    assert camp.use("Finn", "command_hold_the_line", hearing=["Grak", "Finn"])["hearing"] == ["Finn", "Grak"]
    assert "cannot take an order" in refused(camp, camp.use, "Finn", "command_retreat", hearing=["Goblin 1"])
    assert fight.round == 1


# ---------------------------------------------------------------- 3. Continued Research

def _researcher(camp):
    add(camp, "Mira", "mage", level=3)
    camp.earn("60C", who="Mira")
    return camp.delver("Mira")


def test_continued_research_copies_from_a_scroll_carried_and_destroys_the_scroll(camp):
    _researcher(camp)
    assert "carries no book or scroll" in refused(camp, camp.use, "Mira", "continued_research", spell="aid")
    camp.give("Mira", "scroll", spells=["aid"])
    purse = camp.delver("Mira").purse
    e = camp.use("Mira", "continued_research", spell="aid")
    assert e["scroll_destroyed"] and e["source"] == "scroll" and e["from"] == "Scroll of Aid"
    mira = camp.delver("Mira")
    assert "aid" in mira.spells and not any(it.get("spells") for it in mira.data["items"])
    assert mira.purse == purse - 200  # 20 crowns of ink


def test_continued_research_copies_from_a_book_carried_and_the_book_stays(camp):
    _researcher(camp)
    camp.give("Mira", "spellbook", spells=["truth", "aid"], name="Vellum grimoire")
    e = camp.use("Mira", "continued_research", spell="truth")
    assert not e["scroll_destroyed"] and e["from"] == "Vellum grimoire"
    book = next(it for it in camp.delver("Mira").data["items"] if it.get("name") == "Vellum grimoire")
    assert book["spells"] == ["truth", "aid"]
    assert [w.spell for w in queries.copyable(camp.state, camp.rules, "Mira")] == ["aid"]


def test_signature_spell_copied_out_onto_a_scroll_leaves_the_book_for_20_crowns_of_ink(camp):
    mira = _researcher(camp)
    bolt = mira.spells[0]
    camp.use("Mira", "signature_spell", spell=bolt, name="Mira's Ember", description="it burns twice as long")
    purse = camp.delver("Mira").purse
    e = camp.use("Mira", "copy_out", spell="Mira's Ember")  # by its signature name, or by the spell's id
    assert e["copied_out"] == bolt and e["onto"] == "Scroll of Mira's Ember" and e["left_the_book"]
    assert e["paid"] == {"crown": 20} and camp.delver("Mira").purse == purse - 200
    mira = camp.delver("Mira")
    assert bolt not in mira.spells, "copying it to a new spellbook or scroll removes it from yours"
    scroll = next(it for it in mira.data["items"] if it["name"] == "Scroll of Mira's Ember")
    assert scroll["spells"] == [bolt] and scroll["note"] == "Mira's signature spell: it burns twice as long"
    assert queries.signature_choice(mira.data) is None
    assert [w.spell for w in queries.copyable(camp.state, camp.rules, "Mira")] == [bolt]  # a mage may copy it back
    assert "copied out" in refused(camp, camp.use, "Mira", "signature_spell", spell=mira.spells[0], description="x")
    told = tell(camp.events[-1], camp)["text"]
    assert told.startswith("Copy a spell out: ") and "leaves Mira's book" in told


def test_a_spell_copied_out_that_is_no_signature_stays_in_the_book_and_the_copy_is_a_book_a_mage_reads(camp):
    mira = _researcher(camp)
    spell = mira.spells[1]
    e = camp.use("Mira", "copy_out", spell=spell, book=True)
    name = camp.rules.spell(spell)["name"]
    assert e["onto"] == f"Book of {name}" and not e["left_the_book"]
    mira = camp.delver("Mira")
    assert spell in mira.spells and [it.get("spells") for it in mira.data["items"] if it["item"] == "spellbook"][-1] == [spell]
    assert "holds" in refused(camp, camp.use, "Mira", "copy_out", spell="truth")
    camp.spend("Mira", f"{camp.delver('Mira').purse // 10}C", reason="ink elsewhere")
    assert "20" in refused(camp, camp.use, "Mira", "copy_out", spell=spell)


def test_a_scroll_read_by_a_mage_casts_its_spell_and_is_used_up(camp):
    add(camp, "Mira", "mage")
    add(camp, "Bo", "rogue")
    camp.give("Mira", "scroll", spells=["invisibility"], count=2)
    e = camp.cast("Mira", "invisibility", via="scroll", target="Bo")
    assert e["via"] == "scroll" and e["invisible"] == "Bo" and "keep" not in e
    scroll = next(it for it in camp.delver("Mira").data["items"] if it.get("spells"))
    assert scroll["count"] == 1 and camp.delver("Mira").resources["spellbook"] == 1


# ---------------------------------------------------------------- 4. the tie inside a multi-attack

def _duel(camp, house=None):
    add(camp, "Bo", "rogue")
    fight = camp.encounter(["ogre"])
    fight.initiative(first="party")
    return fight


def test_a_tie_inside_a_multi_attack_hits_and_the_target_hits_back_once(camp):
    fight = _duel(camp)
    e = fight.attack("Bo", "Ogre 1", multi=2, faces={"attack": [5], "attack#2": [12], "bonus": [2], "resist": [14],
                                                     "damage": [3], "counter_damage": [2, 2, 2]})
    assert e["attack_totals"] == [7, 14] and e["results"] == ["miss", "tie"]
    assert e["damage"][0]["dealt"] == 3 and e["counter"]["possible"] and e["counter"]["damage"]["dealt"] == 6


def test_a_multi_attack_that_lands_once_without_a_tie_is_not_countered(camp):
    fight = _duel(camp)
    e = fight.attack("Bo", "Ogre 1", multi=2, faces={"attack": [5], "attack#2": [15], "bonus": [2], "resist": [14],
                                                     "damage": [3]})
    assert e["results"] == ["miss", "hit"] and e["counter"] is None


# ---------------------------------------------------------------- 5. blindness and darkness

def test_a_blinded_creature_attacks_with_disadvantage_and_is_attacked_with_advantage(camp):
    add(camp, "Mira", "mage")
    add(camp, "Bo", "rogue")
    fight = camp.encounter(["goblin", "goblin"])
    fight.initiative(first="party")
    camp.give("Mira", "scroll", spells=["light"])
    turn(fight, "Mira")
    blind = camp.cast("Mira", "light", via="scroll", blind=True, target="Goblin 1",
                      faces={"attack": [18], "resist": [3]})
    assert blind["blinded"]
    turn(fight, "Bo")
    e = fight.attack("Bo", "Goblin 1", faces={"attack": [4, 17, 1], "resist": [6], "damage": [1]})
    assert e["advantage"] and e["attack_expr"] == "2d20kh1+d6"
    turn(fight, "Goblin 1")
    e = fight.attack("Goblin 1", "Bo", faces={"attack": [17, 4], "resist": [9], "counter_damage": [1]})
    assert e.get("disadvantage") and e["attack_expr"] == "2d20kl1" and e["results"] == ["miss"]


def test_in_darkness_attacks_are_even_and_a_tunnel_fighter_strikes_with_advantage(camp):
    add(camp, "Tor", "fighter", level=2, specialty="tunnel_fighter", **FIGHTER_SHIELD)
    add(camp, "Bo", "rogue")
    fight = camp.encounter(["goblin"], dark=True)
    fight.initiative(first="party")
    assert queries.attack_exprs(camp.state, camp.rules, "Bo", "Goblin 1")[0] == "d20+d6"  # both blind: even
    e = fight.attack("Tor", "Goblin 1", faces={"attack": [2, 16, 3], "resist": [10], "damage": [1, 1]})
    assert e["advantage"] and not e.get("disadvantage")
    bow = queries.attack_exprs(camp.state, camp.rules, "Bo", "Goblin 1", "bow")[0]
    assert bow == "d20+d6"  # (a ranged shot in the dark: blind against blind)


def test_a_light_in_play_ends_the_darkness_and_the_keeper_may_light_a_fight(camp):
    add(camp, "Mira", "mage")
    add(camp, "Tor", "fighter", level=2, specialty="tunnel_fighter", **FIGHTER_SHIELD)
    fight = camp.encounter(["goblin"], dark=True)
    fight.initiative(first="party")
    assert queries.dark(db.engine.Reader(camp.state, camp.rules))
    assert queries.attack_exprs(camp.state, camp.rules, "Tor", "Goblin 1")[0] == "2d20kh1+d6"
    camp.give("Mira", "scroll", spells=["light"])
    camp.cast("Mira", "light", via="scroll", item="a torch-bright pebble")
    assert queries.attack_exprs(camp.state, camp.rules, "Tor", "Goblin 1")[0] == "d20+d6"
    camp.act("lighting", dark=False)
    assert "already lit" in refused(camp, camp.act, "lighting", dark=False)


def test_a_prepared_encounter_marked_dark_starts_in_darkness(tmp_path):
    c = _open(tmp_path)
    c.close()
    path = c.path / "campaign.yaml"
    path.write_text(path.read_text() + "encounters:\n  crypt:\n    foes: [goblin]\n    dark: true\n")
    with db.Campaign.open(c.path) as camp:
        assert camp.prepared_encounters["crypt"]["dark"]
        camp.add_delver("Bo", "rogue")
        camp.encounter("crypt")
        assert camp.state["encounter"]["dark"]


# ---------------------------------------------------------------- 6. the multi-attack, tie, counter, skill and luck fields

def _house_duel(tmp_path, house):
    c = _open(tmp_path, house)
    return c, _duel(c)


def test_target_rolls_two_gives_each_attack_of_a_multi_attack_its_own_resist_roll(tmp_path):
    c, fight = _house_duel(tmp_path, {"core": {"multi_attack": {"target_rolls": 2}}})
    e = fight.attack("Bo", "Ogre 1", multi=2, faces={"attack": [10], "attack#2": [10], "bonus": [1],
                                                     "resist": [12], "resist#2": [5], "damage": [2]})
    assert e["resist_totals"] == [12, 5] and e["results"] == ["miss", "hit"]
    _replays(c)


def test_bonus_dice_rolled_for_each_attack_when_not_rolled_once(tmp_path):
    c, fight = _house_duel(tmp_path, {"core": {"multi_attack": {"bonus_rolled_once": False}}})
    e = fight.attack("Bo", "Ogre 1", multi=2, faces={"attack": [10, 1], "attack#2": [10, 6], "resist": [13],
                                                     "damage": [2]})
    assert e["attack_totals"] == [11, 16] and e["results"] == ["miss", "hit"] and e["counter"] is None
    _replays(c)


def test_any_miss_is_countered_once_when_counters_do_not_need_every_attack_to_fail(tmp_path):
    c, fight = _house_duel(tmp_path, {"core": {"multi_attack": {"counter_only_if_all_fail": False}}})
    e = fight.attack("Bo", "Ogre 1", multi=2, faces={"attack": [5], "attack#2": [15], "bonus": [2], "resist": [14],
                                                     "damage": [3], "counter_damage": [1, 1, 1]})
    assert e["results"] == ["miss", "hit"] and e["counter"]["damage"]["dealt"] == 3
    _replays(c)


@pytest.mark.parametrize("tie, result, faces", [("attacker", "hit", {"damage": [3]}),
                                               ("defender", "miss", {"counter_damage": [1, 1, 1]})])
def test_a_tie_favours_whom_the_house_rules_say(tmp_path, tie, result, faces):
    c, fight = _house_duel(tmp_path, {"core": {"attack": {"tie": tie}}})
    e = fight.attack("Bo", "Ogre 1", faces={"attack": [10, 2], "resist": [12], **faces})
    assert e["results"] == [result] and (e["counter"] is not None) == (result == "miss")
    assert bool(e["damage"]) == (result == "hit")
    _replays(c)


def test_a_miss_is_not_countered_when_the_house_rules_say_no_counter_on_a_miss(tmp_path):
    c, fight = _house_duel(tmp_path, {"core": {"attack": {"counter_attack_on_miss": False}}})
    e = fight.attack("Bo", "Ogre 1", faces={"attack": [2, 1], "resist": [12]})
    assert e["results"] == ["miss"] and e["counter"] is None
    e = fight.attack("Bo", "Ogre 1", faces={"attack": [10, 2], "resist": [12], "damage": [3],
                                            "counter_damage": [1, 1, 1]}, keeper_override="a second try")
    assert e["results"] == ["tie"] and e["counter"]["possible"]  # a tie still hits both ways
    _replays(c)


def test_expertise_adds_to_proficiency_when_it_does_not_replace_it(tmp_path):
    c = _open(tmp_path, {"core": {"skill_bonus": {"expert_replaces_proficient": False}}})
    add(c, "Bo", "rogue", level=2, specialty="daggers")
    assert queries.skill_label(c.state, c.rules, "Bo", "daggers") == "Daggers +D6+2D6"
    assert queries.check_expr(c.state, c.rules, "Bo", "daggers") == "d20+d6+2d6"
    _replays(c)


def test_a_luck_die_that_may_only_be_added_refuses_a_minus(tmp_path):
    c = _open(tmp_path, {"core": {"luck_dice": {"may_subtract": False}}})
    add(c, "Bo", "rogue")
    c.start_session()
    c.check("Bo", "stealth", 15, faces={"check": [9, 2]})
    assert "only be added" in refused(c, c.spend_luck, c.delver("Bo").player, -1)
    assert c.spend_luck(c.delver("Bo").player, 1, face=4)["total"] == 15
    _replays(c)


def test_luck_dice_that_stack_add_a_sessions_dice_to_those_left(tmp_path):
    c = _open(tmp_path, {"core": {"luck_dice": {"stack": True}}})
    add(c, "Bo", "rogue")
    player = c.delver("Bo").player
    c.start_session()
    c.check("Bo", "stealth", 15, faces={"check": [9, 2]})
    c.spend_luck(player, 1, face=4)
    left = c.players[player]
    c.end_session()
    c.start_session()
    assert c.players[player] == left + 3
    _replays(c)


def test_luck_dice_that_do_not_stack_reset_to_three_each_session(camp):
    add(camp, "Bo", "rogue")
    camp.start_session()
    camp.end_session()
    camp.start_session()
    assert camp.players[camp.delver("Bo").player] == 3


# ---------------------------------------------------------------- 7. a house rule that turns a reading off

def test_an_order_whose_spell_attacks_are_off_gives_guiding_bolt_no_advantage(tmp_path):
    house = {"classes": {"fighter": {"abilities": {"command_charge": {"mechanics": {"spell_attacks": False}}}}}}
    c = _open(tmp_path, house)
    add(c, "Finn", "fighter", level=3, technique="commander", **FIGHTER_SHIELD)
    add(c, "Cy", "cleric", level=3)
    fight = c.encounter(["goblin"])
    fight.initiative(first="party")
    c.use("Finn", "command_charge")
    assert queries.attack_exprs(c.state, c.rules, "Cy", "Goblin 1")[0].startswith("2d20kh1")  # a weapon: it holds
    assert c.state["conditions"][0]["data"]["spell_attacks"] is False
    turn(fight, "Cy")
    e = c.cast("Cy", "guiding_bolt", target="Goblin 1", faces={"attack": [12, 3], "resist": [4], "damage": [1, 1, 1]})
    assert not e["spell_attack"]["advantage"] and e["spell_attack"]["attack_expr"] == "d20+d6"
    _replays(c)


# ---------------------------------------------------------------- 8. the namer's signature spell, for mages

def test_the_namers_signature_spell_is_written_on_a_scroll_that_a_mage_copies_and_casts(tmp_path):
    c = _open(tmp_path)
    add(c, "Nim", "namer", level=3)
    add(c, "Mira", "mage", level=3)
    names = c.delver("Nim").true_names[:2]
    e = c.use("Nim", "signature_spell", names=names, description="a veil of embers hides the caster", cost=3,
              name="Ember Veil")
    assert e["written"] == "Scroll of Ember Veil"
    assert c.cast("Nim", "Ember Veil")["paid"] == {"soul_points": 3}  # the namer still casts it for its cost
    c.take("Nim", "Scroll of Ember Veil", to="Mira")
    c.earn("20C", who="Mira")
    copied = c.use("Mira", "continued_research", spell="Ember Veil")
    assert copied["scroll_destroyed"] and copied["spell_name"] == "Ember Veil"
    mira = c.delver("Mira")
    assert "Ember Veil" in mira.spells and mira.data["written_spells"]["Ember Veil"]["by"] == "Nim"
    assert "Ember Veil (spellbook)" in [s.label for s in queries.spells_available(c.state, c.rules, "Mira")]
    cast = c.cast("Mira", "Ember Veil")
    assert cast["spell_name"] == "Ember Veil" and cast["effect"] == "a veil of embers hides the caster"
    _replays(c)


def test_a_signature_spell_written_in_a_book_may_be_copied_and_the_book_stays(tmp_path):
    c = _open(tmp_path)
    add(c, "Nim", "namer", level=3)
    add(c, "Mira", "mage", level=3)
    c.use("Nim", "signature_spell", names=c.delver("Nim").true_names[:1], description="a hush", cost=2,
          name="Hush", write="book")
    c.take("Nim", "Book of Hush", to="Mira")
    c.earn("20C", who="Mira")
    assert not c.use("Mira", "continued_research", spell="Hush")["scroll_destroyed"]
    assert any(it.get("name") == "Book of Hush" for it in c.delver("Mira").data["items"])
    _replays(c)


def test_a_signature_spell_may_not_take_the_name_of_a_spell_of_the_rules(camp):
    add(camp, "Nim", "namer", level=3)
    names = camp.delver("Nim").true_names[:1]
    assert "name of a spell of the rules" in refused(camp, camp.use, "Nim", "signature_spell", names=names,
                                                     description="a glow", cost=1, name="Light")


# ---------------------------------------------------------------- 9. readings the text leaves open, labelled

def test_the_dodge_the_keep_roll_and_healing_the_dying_are_listed_as_assumptions():
    from delvebook.core.rules.load import base_rules
    paths = {a.path for a in base_rules().assumptions()}
    assert {"classes.rogue.abilities.dodge.mechanics.damage_reduction", "spells.grimoire.spells.firebolt.keep_on",
            "core.death_save.heal_dying", "core.sight", "core.disadvantage", "gear.items.scroll"} <= paths


def test_healing_lifts_a_dying_delver_when_the_house_rules_say_so(tmp_path):
    c = _open(tmp_path, {"core": {"death_save": {"heal_dying": True}}})
    add(c, "Bo", "rogue")
    c.damage("Bo", 99)
    c.heal("Bo", 3)
    assert (c.delver("Bo").status, c.delver("Bo").hearts) == ("alive", 3)
    _replays(c)


def test_a_dying_delver_is_healed_only_after_its_death_save(camp):
    add(camp, "Cleo", "cleric")
    add(camp, "Bo", "rogue")
    camp.damage("Bo", 99)
    assert "death save before being healed" in refused(camp, camp.use, "Cleo", "lay_on_hands", target="Bo", hearts=2)


# ---------------------------------------------------------------- found on the way

def test_a_rogue_reaching_level_two_learns_no_mage_spell(camp):
    add(camp, "Bo", "rogue", level=2)
    assert camp.delver("Bo").spells == []


def test_a_bard_chooses_from_the_mage_spell_list_and_changes_once_a_rest(camp):
    add(camp, "Lark", "rogue", level=2, specialty="bard_magic")
    camp.give("Lark", "instrument")
    assert "mage spell list" in refused(camp, camp.use, "Lark", "bard_magic", choose="aid")
    camp.use("Lark", "bard_magic", choose="light")
    camp.use("Lark", "bard_magic", choose="firebolt")
    assert "once each rest" in refused(camp, camp.use, "Lark", "bard_magic", choose="invisibility")
    camp.rest()
    camp.use("Lark", "bard_magic", choose="invisibility")
