"""Every rule at the table (issue 13): turns and actions, ammunition, found gear, the familiar, NPCs outside fights,
choices made once a hit is seen, and the fourteen rules that were wrong. Played through the public API
(``Campaign`` / ``Fight``) with typed dice faces; every campaign is replayed from disk at the end of its test
and must give the live state, and undo then redo gives back exactly what was there."""

from __future__ import annotations

import pytest

import delvebook as db
from delvebook.engine import Refused, queries
from delvebook.core.events import clone

FIGHTER_HEAVY = {"weapon": "heavy_weapon"}
FIGHTER_SHIELD = {"weapon": "sword_and_shield"}
FIGHTER_BOW = {"weapon": "weapon_and_bow"}


@pytest.fixture
def camp(tmp_path):
    c = db.Campaign.create(tmp_path / "c", name="Rules at the table", seed=13)
    yield c
    with db.Campaign.open(c.path, read_only=True) as again:  # the log on disk replays to the live state
        assert again.state == c.state
    c.close()


def add(camp, name, class_id, level=1, hearts=4, **choices):
    """A delver at ``level`` with its choices made (a fighter's hearts rolled as ``hearts`` on each die)."""
    start = {k: v for k, v in choices.items() if k == "weapon"}
    camp.add_delver(name, class_id, choices=start or None, faces={"hearts": [hearts]} if class_id == "fighter" else None)
    for _ in range(level - 1):
        camp.act("level_up", who=name, faces={"hearts": [hearts]} if class_id == "fighter" else None)
    for choice, option in choices.items():
        if choice != "weapon":
            camp.choose(name, choice, option)
    return camp.delver(name)


def refused(camp, fn, *args, **kw) -> str:
    """``fn`` is refused and changes nothing, on disk or in the state."""
    before, n = clone(camp.state), len(camp.events)
    with pytest.raises(Refused) as err:
        fn(*args, **kw)
    assert camp.state == before and len(camp.events) == n
    return str(err.value)


def undo_redo_is_exact(camp, k: int = 1) -> None:
    """Undo the last ``k`` actions, then redo them: the very same state."""
    before = clone(camp.state)
    for _ in range(k):
        camp.undo()
    for _ in range(k):
        camp.redo()
    assert camp.state == before


def turn(fight, name: str):
    """Play on to ``name``'s turn, with nothing used in it yet."""
    for _ in range(40):
        if fight.actor == name and not fight.may_act(name).used:
            return fight
        fight.next_turn()
    raise AssertionError(f"{name}'s turn never came")


# ---------------------------------------------------------------- 1. healing

def test_a_heal_never_lowers_hearts_above_the_maximum(camp):
    add(camp, "Cy", "cleric", level=3, specialty="healer")
    add(camp, "Bo", "rogue")
    camp.cast("Cy", "aid", target="Bo", faces={"heal": [6]})
    assert camp.delver("Bo").hearts == 18 and camp.delver("Bo").max_hearts == 12  # Aid may heal above the maximum
    camp.heal("Bo", 1)
    assert camp.delver("Bo").hearts == 18  # not 12: a heal never lowers hearts
    e = camp.use("Cy", "heal_by_touch", target="Bo", faces={"heal": [3, 4]})  # the Healer's heal too
    assert e["healing"][0]["hearts_after"] == 18 and camp.delver("Bo").hearts == 18
    assert "nothing to heal" in refused(camp, camp.use, "Cy", "lay_on_hands", target="Bo", hearts=1)
    camp.damage("Bo", 3)
    assert camp.delver("Bo").hearts == 15  # damage takes what is above the maximum first ...
    camp.heal("Bo", 5)
    assert camp.delver("Bo").hearts == 15  # ... and healing does not bring it back, nor lower it
    undo_redo_is_exact(camp, 3)


# ---------------------------------------------------------------- 2-4, 14. turns

def _three(camp, *foes):
    for name in ("Ash", "Bea", "Cole"):
        add(camp, name, "rogue")
    fight = camp.encounter(list(foes) or ["goblin"])
    return fight


def test_reordering_mid_round_changes_who_acts_next_and_never_gives_a_second_turn(camp):
    fight = _three(camp)
    fight.initiative(first="party")
    assert fight.actor == "Ash"
    fight.attack("Ash", "Goblin 1", faces={"attack": [2, 1], "resist": [20], "counter_damage": [1]})
    fight.next_turn()
    assert fight.actor == "Bea"
    fight.attack("Bea", "Goblin 1", faces={"attack": [2, 1], "resist": [20], "counter_damage": [1]})
    fight.set_order(["Bea", "Ash", "Cole"])  # B, A, C with B up, and B has acted
    assert fight.actor == "Bea"
    assert fight.next_turn()["turn_of"] == "Cole"  # Ash has had its turn this round: no second one, Bea not skipped
    assert fight.next_turn()["turn_of"] == "Goblin 1"
    seen = [fight.next_turn()["turn_of"] for _ in range(3)]
    assert seen == ["Bea", "Ash", "Cole"]  # the new order, from the next round
    undo_redo_is_exact(camp, 4)


def test_a_reorder_before_the_actor_has_done_anything_hands_it_the_turn(camp):
    fight = _three(camp)
    fight.initiative(first="party")
    out = fight.set_order(["Cole", "Ash", "Bea"])  # Ash has done nothing yet: Cole, first now, acts
    assert fight.actor == "Cole" and out["turn_of"] == "Cole"
    assert [fight.next_turn()["turn_of"] for _ in range(3)] == ["Ash", "Bea", "Goblin 1"]


def test_an_order_set_before_initiative_is_kept(camp):
    fight = _three(camp)
    fight.set_order(["Bea", "Cole", "Ash"])
    out = fight.initiative(first="party")
    assert fight.order["party"] == ["Bea", "Cole", "Ash"] and out["turn_of"] == "Bea"


def test_a_delver_who_joins_a_fight_gets_a_turn(camp):
    fight = _three(camp)
    fight.initiative(first="party")
    camp.add_delver("Dara", "mage")
    assert fight.order["party"] == ["Ash", "Bea", "Cole", "Dara"]
    actors = [fight.next_turn()["turn_of"] for _ in range(4)]
    assert actors == ["Bea", "Cole", "Dara", "Goblin 1"]
    e = fight.attack("Goblin 1", "Dara", faces={"attack": [15], "resist": [3], "damage": [2]})
    assert e["damage"][0]["target"] == "Dara"


def test_one_action_a_turn_and_an_action_out_of_turn_is_refused_naming_whose_turn_it_is(camp):
    fight = _three(camp)
    fight.initiative(first="party")
    assert refused(camp, fight.attack, "Bea", "Goblin 1") == "it is Ash's turn, not Bea's: attack Goblin 1 uses Bea's action"
    assert refused(camp, fight.attack, "Goblin 1", "Ash").startswith("it is Ash's turn, not Goblin 1's")
    fight.attack("Ash", "Goblin 1", faces={"attack": [2, 1], "resist": [20], "counter_damage": [1]})
    msg = refused(camp, fight.attack, "Ash", "Goblin 1")
    assert msg.startswith("Ash has used its action this turn (attack Goblin 1), and it is still Ash's turn")
    assert not fight.may_act("Ash").action and fight.may_act("Ash").used == {"action": "attack Goblin 1"}
    fight.next_turn()
    assert fight.may_act("Bea").action and not fight.may_act("Ash").action


def test_no_one_acts_before_initiative_unless_the_keeper_says_so(camp):
    fight = _three(camp)
    assert "roll initiative" in refused(camp, fight.attack, "Ash", "Goblin 1")
    e = fight.attack("Ash", "Goblin 1", keeper_override="the goblin was asleep",
                     faces={"attack": [15, 1], "resist": [2], "damage": [4]})
    assert e["keeper_override"]["reason"] == "the goblin was asleep"
    assert "roll initiative" in e["keeper_override"]["waived"][0]
    assert "[keeper override: the goblin was asleep; waived: no turns yet" in e.summary()


def test_a_keeper_override_lets_a_second_action_through_and_is_recorded_and_told(camp):
    fight = _three(camp)
    fight.initiative(first="party")
    fight.attack("Ash", "Goblin 1", faces={"attack": [2, 1], "resist": [20], "counter_damage": [1]})
    e = fight.attack("Ash", "Goblin 1", keeper_override="Ash is hasted", faces={"attack": [15, 1], "resist": [2],
                                                                               "damage": [4]})
    assert e["keeper_override"] == {"reason": "Ash is hasted",
                                    "waived": [e["keeper_override"]["waived"][0]]}
    assert "it is still Ash's turn" in e["keeper_override"]["waived"][0]
    assert e.summary().endswith("]") and "keeper override: Ash is hasted" in e.summary()
    assert "says why" in refused(camp, fight.attack, "Ash", "Goblin 1", keeper_override="")
    undo_redo_is_exact(camp)


def test_sprint_hide_and_focus_use_no_action(camp):
    fight = _three(camp)
    fight.initiative(first="party")
    camp.use("Ash", "sprint")
    camp.use("Ash", "hide", target=12, faces={"check": [10, 3]})
    camp.use("Ash", "focus")
    e = fight.attack("Ash", "Goblin 1", faces={"attack": [10, 1, 6], "resist": [16]})  # the action is still there
    assert e["attack_expr"] == "d20+d6+d6"
    assert "is taken on Bea's own turn" in refused(camp, camp.use, "Bea", "sprint")
    camp.use("Bea", "dodge")  # a reaction: any moment, and nothing used
    assert fight.may_act("Bea").used == {} and fight.may_act("Ash").used == {"action": "attack Goblin 1"}


def test_bless_and_sentry_use_the_action_and_sentry_attacks_are_reactions(camp):
    add(camp, "Fa", "fighter", weapon="heavy_weapon")
    add(camp, "Cy", "cleric")
    fight = camp.encounter(["goblin", "goblin"])
    fight.initiative(first="party")
    camp.use("Fa", "sentry")  # uses Fa's action and ends its turn
    assert fight.actor == "Cy"
    camp.use("Cy", "bless", target="Fa")
    assert "Bless" in fight.may_act("Cy").used["action"]
    assert "needs an action" in refused(camp, camp.use, "Cy", "bless", target="Cy")
    fight.next_turn()  # Goblin 1 comes into range: Fa's sentry attack answers on the goblin's turn
    e = fight.attack("Fa", "Goblin 1", sentry=True, faces={"attack": [2, 1, 1], "resist": [19],
                                                            "counter_damage": [1]})
    assert e["sentry_attacks_left"] == 2 and e["counter"]["possible"]  # the goblin answers: a reaction too
    assert fight.actor == "Goblin 1" and fight.may_act("Goblin 1").action  # its own action is still its own
    fight.attack("Goblin 1", "Cy", faces={"attack": [15], "resist": [2], "damage": [1]})


# ---------------------------------------------------------------- 14. ammunition

def test_a_volley_spends_two_arrows_and_an_empty_quiver_refuses(camp):
    add(camp, "Wren", "rogue", level=2, specialty="bows")
    fight = camp.encounter([{"foe": "ogre", "name": "Ogre"}])
    fight.initiative(first="party")
    e = camp.use("Wren", "bow_volley", target="Ogre",
                 faces={"attack": [12], "attack#2": [4], "bonus": [1, 1], "resist": [10], "damage": [3]})
    assert e["ammo"] == {"item": "arrow", "spent": 2, "left": 18}  # each attack of the volley spends one
    arrows = [it for it in camp.delver("Wren").data["items"] if it["item"] == "arrow"]
    assert arrows[0]["count"] == 18
    camp.take("Wren", "arrow", count=17)
    turn(fight, "Wren")
    assert refused(camp, camp.use, "Wren", "bow_volley", target="Ogre") == "Wren has 1 arrow; 2 shots need 2"
    fight.attack("Wren", "Ogre", weapon="Bow", faces={"attack": [12, 1, 1], "resist": [10], "damage": [2]})
    turn(fight, "Wren")
    assert refused(camp, fight.attack, "Wren", "Ogre", weapon="Bow") == "Wren has no arrows left for the Bow"
    camp.buy("Wren", "arrow")  # 20 arrows for a crown: back in the quiver
    assert queries.ammo_left(camp.delver("Wren").data, "arrow") == 20
    undo_redo_is_exact(camp, 2)


def test_a_crossbow_needs_its_reload_action_unless_the_crossbows_specialty(camp):
    add(camp, "Bo", "fighter", weapon="heavy_weapon")
    camp.give("Bo", "crossbow")
    camp.give("Bo", "bolt", count=20)
    fight = camp.encounter([{"foe": "ogre", "name": "Ogre"}])
    fight.initiative(first="party")
    assert "shoots once before it must be reloaded" in refused(camp, fight.attack, "Bo", "Ogre", weapon="Crossbow",
                                                               multi=2)
    e = fight.attack("Bo", "Ogre", weapon="Crossbow", faces={"attack": [12, 1], "resist": [10], "damage": [2, 2]})
    assert e["ammo"]["spent"] == 1
    turn(fight, "Bo")
    assert "not loaded: reloading it takes an action" in refused(camp, fight.attack, "Bo", "Ogre", weapon="Crossbow")
    camp.reload("Bo")  # the whole action
    assert "needs an action" in refused(camp, fight.attack, "Bo", "Ogre", weapon="Crossbow")
    turn(fight, "Bo")
    fight.attack("Bo", "Ogre", weapon="Crossbow", faces={"attack": [12, 1], "resist": [10], "damage": [2, 2]})
    fight.end()
    camp.level_up("Bo")
    camp.choose("Bo", "specialty", "crossbows")
    fight = camp.encounter([{"foe": "ogre", "name": "Ogre"}])
    fight.initiative(first="party")
    for _ in range(2):  # reloaded as part of firing: a shot every turn
        turn(fight, "Bo")
        e = fight.attack("Bo", "Ogre", weapon="Crossbow", faces={"attack": [12, 1, 1], "resist": [10],
                                                                  "damage": [1, 1]})
        assert e["attack_expr"] == "d20+2d6"  # and the crossbow skill is 2d6
    assert "as part of firing" in refused(camp, camp.reload, "Bo")


def test_a_thrown_dagger_is_a_ranged_attack_and_the_keeper_says_if_it_is_lost(camp):
    add(camp, "Wren", "rogue")
    fight = camp.encounter(["goblin"])
    fight.initiative(first="party")
    e = fight.attack("Wren", "Goblin 1", weapon="Dagger", thrown=True, faces={"attack": [2, 1], "resist": [19]})
    assert e["thrown"] and e["counter"] is None  # thrown from afar: nothing to counter in melee
    assert "ammo" not in e and len(camp.delver("Wren").weapons) == 3  # not ammunition: still on the sheet ...
    camp.drop("Wren", "dagger")  # ... until the keeper says it is lost
    assert [w["name"] for w in camp.delver("Wren").weapons] == ["Dagger", "Bow"]


# ---------------------------------------------------------------- 5. on-hit choices

def _oath(camp):
    add(camp, "Fa", "fighter", level=3, weapon="sword_and_shield", specialty="armorer", technique="oath",
        oath="vengeance")
    fight = camp.encounter([{"foe": "ogre", "name": "Ogre"}, {"foe": "skeleton", "name": "Bones"}])
    fight.initiative(first="party")
    return fight


def test_a_smite_declared_on_an_attack_that_misses_spends_nothing_and_the_attack_stands(camp):
    fight = _oath(camp)
    e = fight.attack("Fa", "Ogre", smite=True, faces={"attack": [2, 1], "resist": [19], "counter_damage": [1, 1, 1]})
    assert e["results"] == ["miss"] and e["smite"] == {"spent": False, "why": "no melee hit landed"}
    assert camp.delver("Fa").grit == 7 and camp.latest_action["seq"] == e["seq"]  # logged: no free re-roll
    assert "needs an action" in refused(camp, fight.attack, "Fa", "Ogre", smite=True)


def test_a_smite_is_chosen_after_the_hit_without_rerolling_anything(camp):
    fight = _oath(camp)
    hit = fight.attack("Fa", "Ogre", faces={"attack": [15, 1], "resist": [3], "damage": [2, 3]})
    (offer,) = hit["on_hit_options"]
    assert (offer["option"], offer["cost_text"], offer["adds"], offer["hit"], offer["affordable"]) == \
        ("smite", "2 grit", "2d6", 1, True)
    assert "on the hit, Smite may be chosen (2 grit, +2d6)" in hit.summary()  # the table's words: one teller
    smitten = fight.on_hit("smite", faces={"smite": [4, 5]})
    assert smitten["replaces"] == hit["seq"] and smitten["on_hit"] == "smite" and smitten["args"]["smite"] is True
    for name in ("attack", "resist", "damage"):  # the dice already seen stay as they were
        assert smitten["rolls"][name]["faces"] == hit["rolls"][name]["faces"]
    d = smitten["damage"][0]
    assert d["raw"] == 5 + 9 and d["added"] == [{"option": "smite", "expr": "2d6", "total": 9}]
    assert camp.delver("Fa").grit == 5 and "on_hit_options" not in smitten
    camp.undo()  # the attack as it was, smite untaken
    assert camp.latest_action["seq"] == hit["seq"] and camp.delver("Fa").grit == 7
    assert fight.foe("Ogre").hearts == 20 - 5
    camp.redo()
    assert fight.foe("Ogre").hearts == 20 - 14 and camp.delver("Fa").grit == 5


def test_a_smite_against_the_undead_adds_4d6_and_only_a_hit_offers_it(camp):
    fight = _oath(camp)
    miss = fight.attack("Fa", "Bones", faces={"attack": [2, 1], "resist": [19], "counter_damage": [1]})
    assert "on_hit_options" not in miss
    assert "offers no 'smite'" in refused(camp, fight.on_hit, "smite")
    camp.undo()
    hit = fight.attack("Fa", "Bones", faces={"attack": [15, 1], "resist": [3], "damage": [1, 1]})
    assert hit["on_hit_options"][0]["adds"] == "4d6"
    e = fight.on_hit("smite", faces={"smite": [1, 1, 1, 1]})
    assert e["damage"][0]["raw"] == 6 and fight.foe("Bones").status == "dead"


def test_an_on_hit_choice_is_offered_only_to_the_latest_action(camp):
    fight = _oath(camp)
    fight.attack("Fa", "Ogre", faces={"attack": [15, 1], "resist": [3], "damage": [2, 3]})
    fight.next_turn()
    assert "offers no 'smite'" in refused(camp, fight.on_hit, "smite")


# ---------------------------------------------------------------- 6-7, 12. gear in play

def test_armorer_applies_to_any_worn_armor_however_gained_and_every_view_reports_it(camp):
    add(camp, "Bo", "fighter", level=2, weapon="sword_and_shield", specialty="armorer")
    bo = camp.delver("Bo")
    assert [(a.name, a.av, a.dv, a.dv_max) for a in bo.armor] == [("Leather armor", 2, 15, 15), ("Shield", 1, 10, 10)]
    camp.take("Bo", "leather_armor")
    camp.give("Bo", {"name": "Chain shirt", "av": 2, "dv": 12})  # found in the keep
    chain = camp.delver("Bo").armor[-1]
    assert (chain.name, chain.base_av, chain.av, chain.dv, chain.dv_max) == ("Chain shirt", 2, 3, 17, 17)
    assert queries.armor_value(camp.state, camp.rules, "Bo") == 4  # chain 3 + shield 1: what damage meets
    camp.add_delver("Wren", "rogue")
    camp.take("Bo", "Chain shirt", to="Wren")  # handed over: the Armorer's bonus stays with Bo
    worn = camp.delver("Wren").armor[0]
    assert (worn.av, worn.dv, worn.dv_max) == (2, 12, 12)
    fight = camp.encounter([{"foe": "ogre", "name": "Ogre"}])
    fight.initiative(first="foes")
    e = fight.attack("Ogre", "Bo", faces={"attack": [15, 1], "resist": [3], "damage": [3, 3, 3]})
    assert e["damage"][0]["av"] == 1  # the shield alone now
    undo_redo_is_exact(camp, 3)


def test_the_card_reports_the_av_an_armorer_gets_from_armor_found_later(camp):
    pytest.importorskip("anywidget")
    from delvebook.table import UI, table_view
    add(camp, "Bo", "fighter", level=2, weapon="heavy_weapon", specialty="armorer")
    camp.give("Bo", {"name": "Chain shirt", "av": 2, "dv": 12})
    chain = camp.delver("Bo").armor[-1]
    assert (chain.av, chain.dv) == (3, 17)
    card = table_view(camp, UI(scope="card", who="Bo"))  # the table's card of Bo (db.table.card)
    armor = next(row for row in card["actor"]["sheet"]["rows"] if row.startswith("armor: "))
    assert "Chain shirt AV 3 DV 17/17" in armor  # the card and the model agree


def test_found_gear_is_given_and_a_plus_one_swords_bonus_is_added_to_damage(camp):
    add(camp, "Bo", "fighter", level=2, weapon="sword_and_shield", specialty="swords")
    e = camp.give("Bo", "sword", bonus=1, name="Sword +1", tags=["magic"])
    assert e["weapons"] == ["Sword +1"] and "Bo gains Sword +1" in e.summary()
    fight = camp.encounter([{"foe": "ogre", "name": "Ogre"}])
    fight.initiative(first="party")
    hit = fight.attack("Bo", "Ogre", weapon="Sword +1", faces={"attack": [15, 1, 1], "resist": [3], "damage": [2, 3]})
    assert hit["damage"][0]["expr"] == "2d6+1" and hit["damage"][0]["raw"] == 6
    turn(fight, "Bo")
    dual = camp.use("Bo", "sword_dual_wield", target="Ogre",  # two swords now: a multi-attack(2)
                    faces={"attack": [12], "attack#2": [14], "bonus": [1, 1], "resist": [10],
                           "damage": [1, 1], "damage#2": [1, 1]})
    assert dual["multi"] == 2 and dual["results"] == ["hit", "hit"]
    assert "no 'hearts'" in refused(camp, camp.give, "Bo", "sword", hearts=3)
    assert "describe it" in refused(camp, camp.give, "Bo", "Vorpal blade")


def test_found_instruments_and_items_may_be_given_taken_and_dropped(camp):
    add(camp, "Wren", "rogue", level=2, specialty="bard_magic")
    camp.use("Wren", "bard_magic", choose="minor_illusion")
    assert "carries no instrument" in refused(camp, camp.cast, "Wren", "minor_illusion")
    camp.give("Wren", {"name": "Battered lute", "instrument": True})
    e = camp.cast("Wren", "minor_illusion", description="a locked door")
    assert e["instrument"] == "Battered lute"
    camp.give("Wren", "torch", count=3)
    camp.drop("Wren", "torch", count=2)
    assert [it["count"] for it in camp.delver("Wren").data["items"] if it["item"] == "torch"] == [1]
    assert "carries no 'grail'" in refused(camp, camp.take, "Wren", "grail")
    e = camp.take("Wren", "Battered lute")
    assert e["taken"] == ["Battered lute"] and "Battered lute taken from Wren" in e.summary()


# ---------------------------------------------------------------- 8. the dead

def test_the_dead_neither_level_up_nor_choose_nor_buy_nor_earn(camp):
    add(camp, "Bo", "fighter", weapon="heavy_weapon")
    add(camp, "Ada", "mage")
    camp.award_xp(198)
    camp.damage("Ada", 30)
    camp.death_save("Ada", faces={"death_save": [1]})
    assert camp.delver("Ada").status == "dead" and camp.delver("Ada").data["pending_choices"] == []
    assert "dead and gains no more levels" in refused(camp, camp.level_up, "Ada")
    assert "dead and buys nothing" in refused(camp, camp.buy, "Ada", "arrow")
    assert "dead and earns nothing" in refused(camp, camp.earn, 20, who="Ada")
    assert "dead: the living may take" in refused(camp, camp.give, "Ada", "torch")
    camp.award_xp(4)  # the living share it
    assert camp.delver("Ada").xp == 99 and camp.delver("Ada").level == 1
    assert camp.delver("Bo").level == 2
    camp.act("level_up", who="Bo", faces={"hearts": [1]})
    camp.take("Ada", "dagger", to="Bo")  # the living may take the fallen's gear
    assert "Dagger" in [w["name"] for w in camp.delver("Bo").weapons]


def test_a_dead_delver_makes_no_choice(camp):
    add(camp, "Wren", "rogue")
    camp.award_xp(100)
    camp.damage("Wren", 30)
    camp.death_save("Wren", faces={"death_save": [2]})
    assert "dead and makes no more choices" in refused(camp, camp.choose, "Wren", "specialty", "bows")


# ---------------------------------------------------------------- 9. counter-attacks

def test_a_counter_attack_uses_a_weapon_that_fits_the_exchange_and_may_be_chosen(camp):
    add(camp, "Bo", "fighter", weapon="weapon_and_bow")
    fight = camp.encounter([{"foe": "sprite", "name": "Sprite"}, {"foe": "goblin", "name": "Gob"}])
    fight.initiative(first="foes")
    duel = fight.attack("Sprite", "Bo", counter=True,  # an archer duels with Bo: Bo answers with the bow
                        faces={"attack": [2, 1, 1], "resist": [19], "counter_damage": [3]})
    assert duel["counter"]["weapon"] == "Bow" and duel["counter"]["ammo"]["left"] == 19
    fight.next_turn()  # Gob
    melee = fight.attack("Gob", "Bo", faces={"attack": [2], "resist": [19], "counter_damage": [1, 1]})
    assert melee["counter"]["weapon"] == "Melee weapon"  # a melee exchange: the 2d6 weapon, not the bow
    camp.give("Bo", "dagger")
    turn(fight, "Gob")
    chosen = fight.attack("Gob", "Bo", counter_weapon="Dagger", faces={"attack": [2], "resist": [19],
                                                                       "counter_damage": [1]})
    assert chosen["counter"]["weapon"] == "Dagger" and chosen["counter"]["damage"]["raw"] == 1
    turn(fight, "Gob")
    assert "with a melee weapon, not the Bow" in refused(camp, fight.attack, "Gob", "Bo", counter_weapon="Bow")


def test_a_duel_with_bows_is_no_counter_for_one_without_a_ranged_weapon(camp):
    add(camp, "Bo", "fighter", weapon="heavy_weapon")
    fight = camp.encounter([{"foe": "sprite", "name": "Sprite"}])
    fight.initiative(first="foes")
    e = fight.attack("Sprite", "Bo", counter=True, faces={"attack": [2, 1, 1], "resist": [19]})
    assert e["counter"] == {"by": "Bo", "possible": False, "why": "Bo has no ranged weapon ready to answer with"}


# ---------------------------------------------------------------- 10. the familiar

def test_the_familiar_is_a_creature_that_attacks_is_attacked_and_is_lost_then_found_again(camp):
    add(camp, "Mo", "mage")
    camp.act("level_up", who="Mo")  # level 2: the whole mage spell list is in the book
    camp.cast("Mo", "find_familiar", name="Pip", form="rat")
    pip = camp.creature("Pip")
    assert (pip.hearts, pip.owner, pip.role) == (1, "Mo", "familiar")
    fight = camp.encounter([{"foe": "goblin", "name": "Gob"}])
    fight.initiative(first="party")
    e = fight.attack("Pip", "Gob", faces={"attack": [15], "resist": [3]})  # in Mo's turn, its own action
    assert e["damage"][0]["raw"] == 1 and fight.foe("Gob").hearts == 3
    assert "needs an action" in refused(camp, fight.attack, "Pip", "Gob")
    assert fight.may_act("Mo").action  # the familiar's attack is not Mo's action
    fight.next_turn()
    assert "acts in Mo's turn" in refused(camp, fight.attack, "Pip", "Gob")
    lost = fight.attack("Gob", "Pip", faces={"attack": [15], "resist": [3], "damage": [1]})
    assert lost["damage"][0]["lost"] and camp.creature("Pip").status == "dead"
    undo_redo_is_exact(camp)
    fight.end()
    camp.rest()
    again = camp.cast("Mo", "find_familiar", name="Pip", form="crow")  # lost: the spell may find another
    assert again["familiar"] == "Pip" and camp.creature("Pip").status == "alive"
    assert "only one" in refused(camp, camp.cast, "Mo", "find_familiar", name="Nib", via="wand")


# ---------------------------------------------------------------- 11. NPCs outside fights

def test_spells_checks_and_saves_work_on_a_named_npc_outside_a_fight(camp):
    add(camp, "Cy", "cleric", level=3, specialty="healer")
    grak = camp.npc("Grak", foe="bandit", note="the smuggler in the cellar")
    assert (grak.hearts, grak.role) == (8, "npc")
    camp.npc("Old Mag", hearts=5, tags=["humanoid"], skills={"insight": "proficient"})
    saved = camp.check("Old Mag", "insight", 12, faces={"check": [9, 3]})
    assert saved["expr"] == "d20+d6" and saved["success"]
    vs = camp.check("Cy", "insight", vs="Grak", faces={"check": [10, 2], "opposed": [5]})
    assert vs["result"] == "win"
    camp.save("Grak", 10, faces={"check": [12]})
    hurt = camp.cast("Cy", "inflict_wounds", target="Old Mag", faces={"save": [3], "damage": [1, 1, 1, 1]})
    assert hurt["damage"][0]["dealt"] == 4 and camp.creature("Old Mag").hearts == 1
    camp.cast("Cy", "locate_creature", creature="Grak")
    assert camp.state["conditions"][-1]["data"]["creature"] == "Grak"
    camp.cast("Cy", "truth", target="Grak", faces={"save": [3]})
    assert [c.kind for c in db.core.model.conditions_on(camp.state, "Grak")] == ["compelled_truth"]
    camp.cast("Cy", "dispel_magic", target="Grak", condition="compelled_truth", resist=True,
              faces={"check": [15, 2], "opposed": [4]})
    assert db.core.model.conditions_on(camp.state, "Grak") == []
    undo_redo_is_exact(camp, 2)


def test_truths_immunity_follows_the_game_clock_across_fights(camp):
    add(camp, "Cy", "cleric", level=3, specialty="healer")
    camp.npc("Grak", foe="bandit")
    fight = camp.encounter([{"npc": "Grak"}, "goblin"])  # the smuggler fights
    fight.initiative(first="party")
    camp.cast("Cy", "truth", target="Grak", faces={"save": [15]})
    fight.end()
    assert camp.creature("Grak").status == "alive"  # out of the fight, an NPC again ...
    (immune,) = db.core.model.conditions_on(camp.state, "Grak", "truth_immune")  # ... with its 24-hour immunity
    assert "immune" in refused(camp, camp.cast, "Cy", "truth", target="Grak")
    camp.advance_time(hours=23)
    assert "immune" in refused(camp, camp.cast, "Cy", "truth", target="Grak")
    camp.advance_time(hours=1)
    camp.cast("Cy", "truth", target="Grak", faces={"save": [2]})
    assert db.core.model.conditions_on(camp.state, "Grak", "compelled_truth")


def test_a_foe_still_standing_may_stay_in_the_story_as_an_npc(camp):
    add(camp, "Cy", "cleric", level=3, specialty="healer")
    fight = camp.encounter(["bandit", "goblin"])
    fight.initiative(first="party")
    camp.cast("Cy", "truth", target="Bandit 1", faces={"save": [15]})
    e = fight.end(keep=["Bandit 1"])
    assert e["kept"] == ["Bandit 1"] and "Bandit 1 stays in the story" in e.summary()
    assert db.core.model.conditions_on(camp.state, "Bandit 1", "truth_immune")
    assert "Goblin 1" not in camp.state["creatures"]
    camp.remove_npc("Bandit 1")
    assert db.core.model.conditions_on(camp.state, "Bandit 1") == []


# ---------------------------------------------------------------- 13. Charge! and spell attacks

def _commander(camp):
    add(camp, "Fa", "fighter", level=3, specialty="armorer", technique="commander")
    add(camp, "Cy", "cleric", level=3, specialty="healer")
    fight = camp.encounter([{"foe": "ogre", "name": "Ogre"}])
    fight.initiative(first="party")
    return fight


def test_commanders_charge_gives_advantage_to_spell_attack_rolls(camp):
    fight = _commander(camp)
    camp.use("Fa", "command_charge")
    fight.next_turn()  # Cy, still the party's turn
    odds = queries.spell_attack_odds(camp.state, camp.rules, "Cy", "Ogre")
    assert odds == db.odds("2d20kh1+d6", vs="d20")
    e = camp.cast("Cy", "guiding_bolt", target="Ogre", faces={"attack": [3, 15, 2], "resist": [10],
                                                              "damage": [1, 1, 1]})
    assert e["spell_attack"]["advantage"] and e["spell_attack"]["attack_total"] == 17


def test_commanders_fire_gives_max_damage_to_ranged_spell_attacks(camp):
    fight = _commander(camp)
    camp.use("Fa", "command_fire")
    fight.next_turn()
    e = camp.cast("Cy", "guiding_bolt", target="Ogre", faces={"attack": [15, 2], "resist": [10]})
    assert e["damage"][0]["raw"] == 18 and e["damage"][0]["max_damage"]  # 3d6 at its maximum, no roll


# ---------------------------------------------------------------- the doubtful readings

def test_a_commanders_order_lasts_the_sides_turn_it_is_shouted_in(camp):
    fight = _commander(camp)
    add(camp, "Wren", "rogue")
    fight.end()
    fight = camp.encounter([{"foe": "ogre", "name": "Ogre"}])
    fight.initiative(first="foes")
    camp.use("Fa", "command_hold_the_line")  # shouted as the ogre acts: no action, any moment
    e = fight.attack("Ogre", "Wren", faces={"attack": [15, 1], "resist": [3], "damage": [2, 2, 2]})
    assert e["damage"][0]["av"] == 2 and e["damage"][0]["dealt"] == 4
    fight.next_turn()  # the foes' turn is over, and the order with it
    assert db.core.model.conditions_on(camp.state, "Wren", "hold_the_line") == []


def test_lights_blinding_touch_is_an_unarmed_attack_dealing_two_and_may_be_countered(camp):
    add(camp, "Mo", "mage")
    camp.act("level_up", who="Mo")  # level 2: Light is in the book
    fight = camp.encounter([{"foe": "goblin", "name": "Gob"}])
    fight.initiative(first="party")
    e = camp.cast("Mo", "light", target="Gob", blind=True, faces={"attack": [14], "resist": [9]})
    assert e["attack_expr"] == "d20" and e["weapon"] == "Unarmed" and e["damage"][0]["raw"] == 2 and e["blinded"]
    assert db.core.model.conditions_on(camp.state, "Gob", "blinded")
    fight.end()
    camp.rest()
    fight = camp.encounter([{"foe": "goblin", "name": "Gob 2"}])
    fight.initiative(first="party")
    miss = camp.cast("Mo", "light", target="Gob 2", blind=True, faces={"attack": [2], "resist": [9],
                                                                       "counter_damage": [3]})
    assert not miss["blinded"] and miss["counter"]["damage"]["dealt"] == 3


def test_a_death_save_follows_any_harm_below_one_heart_even_a_blood_magic_sacrifice(camp):
    add(camp, "Nia", "namer", level=2)
    camp.damage("Nia", 13)
    assert camp.delver("Nia").hearts == 1
    e = camp.use("Nia", "blood_magic", faces={"soul_points": [3]})
    assert e["death_save_due"] == "Nia" and camp.delver("Nia").status == "dying"
    camp.death_save("Nia", faces={"death_save": [6]})
    assert camp.delver("Nia").status == "alive" and camp.delver("Nia").hearts == 0


def test_a_campaign_may_read_death_saves_as_after_an_attack_only(tmp_path):
    with db.Campaign.create(tmp_path / "strict", name="Strict", seed=2,
                            house_rules={"core": {"death_save": {"after": "attack"}}}) as camp:
        camp.add_delver("Ada", "mage")
        camp.damage("Ada", 20)  # a trap: below 1 heart, but no attack
        assert camp.delver("Ada").status == "alive" and camp.delver("Ada").hearts == 0
        fight = camp.encounter([{"foe": "goblin", "name": "Gob"}])
        fight.initiative(first="foes")
        e = fight.attack("Gob", "Ada", faces={"attack": [15], "resist": [3], "damage": [2]})
        assert e["damage"][0]["death_save_due"] and camp.delver("Ada").status == "dying"


def test_a_level_up_during_blood_magics_healing_ban_raises_the_maximum_only(camp):
    add(camp, "Nia", "namer", level=2)
    camp.use("Nia", "blood_magic", faces={"soul_points": [2]})
    assert camp.delver("Nia").hearts == 13
    e = camp.level_up("Nia")
    up = e["level_ups"][0]
    assert up["max_hearts"] == 16 and up["hearts_gained"] == 2 and "healed" in up["hearts_held_back"]
    assert camp.delver("Nia").hearts == 13  # the two hearts the level adds wait for the ban to end
    camp.rest()
    camp.heal("Nia", 3)
    assert camp.delver("Nia").hearts == 16


def test_armor_meets_every_spell_and_each_dart_as_the_rules_data_says(tmp_path):
    with db.Campaign.create(tmp_path / "m", name="Darts", seed=5,
                            house_rules={"core": {"spell_damage": {"per_dart": False}}}) as camp:
        camp.add_delver("Mo", "mage")
        camp.act("level_up", who="Mo")
        camp.add_delver("Fa", "fighter", faces={"hearts": [4]})  # leather armor, AV 1
        e = camp.cast("Mo", "magic_missile", target="Fa")
        assert [(d["raw"], d["dealt"]) for d in e["damage"]] == [(6, 5)]  # one blow: armor meets it once


def test_every_doubtful_reading_is_settled_in_the_rules_data_and_listed():
    from delvebook.core.rules.load import base_rules  # what `delvebook rules --assumptions` lists
    listed = {a.path for a in base_rules().assumptions()}
    for path in ("core.turns.orders_last", "core.turns.unmarked", "core.turns.companions", "core.turns.checks",
                 "core.spell_damage", "spells.grimoire.spells.light.touch_damage",
                 "classes.cleric.abilities.lay_on_hands_revive.mechanics.once_per_death",
                 "classes.rogue.abilities.bard_magic.mechanics.change", "core.death_save.after", "core.level_up",
                 "classes.fighter.abilities.smite.mechanics.on_hit",
                 "classes.fighter.abilities.command_charge.mechanics.spell_attacks",
                 "core.ammunition.per_attack", "core.ammunition.thrown",
                 "spells.grimoire.spells.find_familiar.familiar.lost_below"):
        assert path in listed, path


def test_the_holy_weapon_attacks_in_the_clerics_turn_without_its_action(camp):
    add(camp, "Cy", "cleric", level=2, specialty="holy_weapon")
    add(camp, "Bo", "rogue")
    fight = camp.encounter([{"foe": "ogre", "name": "Ogre"}])
    fight.initiative(first="party")
    camp.use("Cy", "holy_weapon")  # conjuring it is Cy's action ...
    e = fight.attack("Cy", "Ogre", weapon="holy weapon", faces={"attack": [5, 3, 4], "resist": [11],
                                                                "damage": [6, 5]})
    assert e["results"] == ["hit"]  # ... and the sword attacks in the same turn, in its own slot
    assert fight.may_act("Cy").used == {"action": "Holy Weapon", "holy_weapon": "attack Ogre"}
    assert "holy weapon has already acted" in refused(camp, fight.attack, "Cy", "Ogre", weapon="holy weapon")
    fight.next_turn()
    assert "it is Bo's turn, not Cy's" in refused(camp, fight.attack, "Cy", "Ogre", weapon="holy weapon")
    turn(fight, "Cy")
    assert fight.may_act("Cy").left == ("action", "holy_weapon")
