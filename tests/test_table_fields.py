"""The action bar's per-actor fields (the attack options: advantage, multi-attack, a bonus, no counter, what a
class brings) belong to the actor and the turn they were set on: the next actor, another delver picked, or a new
turn of the same one starts with them empty, so an option set for Wren never changes Brakka's odds or attack.
The target number and the opponent of a check say the situation and stay."""
from __future__ import annotations

import pytest

pytest.importorskip("anywidget")

from delvebook.core.distribution import percent  # noqa: E402
from delvebook.engine import queries  # noqa: E402
from delvebook.table import UI, perform, table_view  # noqa: E402

from test_queries import landed_by_brute_force  # noqa: E402
from test_table import camp, click  # noqa: E402,F401  (the prepared campaign's scratch copy; a click and its view)


def in_a_fight(camp, ui):
    click(camp, ui, do="start_session")
    click(camp, ui, do="start_fight", prepared="causeway_ambush")
    return click(camp, ui, do="initiative", first="party")


def option(view, name):
    return next(o for o in view["actor"]["attacks"]["options"] if o["name"] == name)


def button(view, target, weapon):
    row = next(r for r in view["actor"]["attacks"]["rows"] if r["name"] == target)
    return next(b for b in row["buttons"] if b["label"].startswith(weapon))


def plain_odds(camp, attacker, target, weapon=0):
    return percent(queries.attack_odds(camp.state, camp.rules, attacker, target, weapon).win, 0)


def test_a_multi_attack_set_for_wren_is_not_carried_to_brakka_on_the_next_turn(camp):
    ui = UI()
    view = in_a_fight(camp, ui)
    assert view["actor"]["name"] == "Wren"
    view = click(camp, ui, do="attack_option", name="multi", value="2", where="attack")
    assert option(view, "multi")["value"] == 2
    assert button(view, "Bog goblin 1", "Dagger")["odds"].startswith("\u22651 hit ")
    view = click(camp, ui, **view["fight"]["next"]["intent"])
    assert view["actor"]["name"] == "Brakka"
    assert option(view, "multi")["value"] is None, "the field reads empty for the new actor"
    sword = button(view, "Bog goblin 1", "Sword")
    assert sword["odds"] == plain_odds(camp, "Brakka", "Bog goblin 1")
    click(camp, ui, **sword["intent"])
    assert camp.events[-1]["kind"] == "attack" and camp.events[-1]["multi"] == 1, "Brakka attacked once"


def test_the_odds_on_the_attack_button_for_multi_attack_2_are_the_exact_chance_by_brute_force(camp):
    ui = UI()
    view = in_a_fight(camp, ui)
    assert button(view, "Bog goblin 1", "Dagger")["odds"] == plain_odds(camp, "Wren", "Bog goblin 1")
    view = click(camp, ui, do="attack_option", name="multi", value="2", where="attack")
    dagger = button(view, "Bog goblin 1", "Dagger")
    assert queries.attack_exprs(camp.state, camp.rules, "Wren", "Bog goblin 1", 0, multi=2) == ("d20+d6", "d20")
    brute = landed_by_brute_force([20, 20], [20], [6])  # two D20s, the dagger skill's D6 once, one D20 resisting
    assert dagger["odds"] == f"\u22651 hit {percent(brute['any'], 0)}, both {percent(brute['all'], 0)}"
    assert f"{percent(brute['countered'], 0)}" in dagger["title"] and "at least one hits" in dagger["title"]
    click(camp, ui, do="attack_option", name="advantage", value=True, where="attack")
    view = click(camp, ui, do="attack_option", name="bonus", value="2", where="attack")
    moved = button(view, "Bog goblin 1", "Dagger")["odds"]
    assert moved != dagger["odds"], "advantage and a bonus move a multi-attack's odds"
    click(camp, ui, **dagger["intent"])
    e = camp.events[-1]
    assert e["multi"] == 2 and e["attack_expr"] == "2d20kh1+d6+2"


def test_every_attack_option_starts_empty_for_the_next_actor(camp):
    ui = UI()
    in_a_fight(camp, ui)
    for name, value in (("advantage", True), ("no_counter", True), ("bonus", "2"), ("focus", True)):
        click(camp, ui, do="attack_option", name=name, value=value, where="attack")
    view = table_view(camp, ui)
    assert all(option(view, n)["value"] for n in ("advantage", "no_counter", "bonus", "focus"))
    view = click(camp, ui, do="next_turn")
    assert [o["name"] for o in view["actor"]["attacks"]["options"] if o["value"]] == []


def test_picking_another_delver_starts_its_fields_empty_and_they_are_its_own(camp):
    ui = UI()
    in_a_fight(camp, ui)
    click(camp, ui, do="attack_option", name="advantage", value=True, where="attack")
    view = click(camp, ui, do="select", who="Brakka", where="party")
    assert not option(view, "advantage")["value"]
    assert button(view, "Bog goblin 1", "Sword")["odds"] == plain_odds(camp, "Brakka", "Bog goblin 1")
    view = click(camp, ui, do="attack_option", name="multi", value="2", where="attack")
    assert option(view, "multi")["value"] == 2 and not option(view, "advantage")["value"], \
        "Brakka's options start from none, not from Wren's"


def test_an_attack_clicked_for_one_actor_never_takes_the_options_set_for_another(camp):
    ui = UI()
    in_a_fight(camp, ui)
    click(camp, ui, do="attack_option", name="advantage", value=True, where="attack")
    # a forged (or stale) click: Brakka's attack while the options were set for Wren's turn
    perform(camp, ui, {"do": "attack", "attacker": "Brakka", "target": "Bog goblin 1", "weapon": 0,
                       "keeper_override": "a test"})
    assert camp.events[-1]["kind"] == "attack" and camp.events[-1]["advantage"] is False


def test_a_new_turn_made_in_another_cell_starts_the_fields_empty_too(camp):
    ui = UI()
    in_a_fight(camp, ui)
    click(camp, ui, do="attack_option", name="multi", value="3", where="attack")
    camp.fight.next_turn()  # code in another cell: the table only redraws
    view = table_view(camp, ui)
    assert view["actor"]["name"] == "Brakka" and option(view, "multi")["value"] is None


def test_the_same_actor_on_a_new_turn_starts_afresh(camp):
    ui = UI()
    in_a_fight(camp, ui)
    click(camp, ui, do="attack_option", name="advantage", value=True, where="attack")
    fight = camp.fight
    while True:  # round on, until Wren acts again
        fight.next_turn()
        view = table_view(camp, ui)
        if view["actor"]["name"] == "Wren":
            break
    assert camp.state["encounter"]["round"] == 2
    assert not option(view, "advantage")["value"]


def test_the_target_number_and_the_checks_opponent_stay_for_whoever_checks_next(camp):
    ui = UI()
    in_a_fight(camp, ui)
    click(camp, ui, do="target", target=15, where="checks")
    view = click(camp, ui, do="next_turn")
    assert view["actor"]["name"] == "Brakka" and view["actor"]["checks"]["target"] == 15
