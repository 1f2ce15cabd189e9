"""The keeper's widgets without a browser: each button, clicked through ``.click()``, changes the campaign and
its log on disk as the rules say, and the views show the new values (read from widget values and HTML)."""
from __future__ import annotations

import re
import shutil

import pytest

pytest.importorskip("ipywidgets")

import ipywidgets as w  # noqa: E402

import delvebook as db  # noqa: E402
from delvebook.distribution import odds, percent  # noqa: E402
from delvebook.store import read_log  # noqa: E402
from delvebook.widgets import Dashboard, card, dashboard  # noqa: E402

from conftest import CAMPAIGNS  # noqa: E402


@pytest.fixture
def camp(tmp_path):
    shutil.copytree(CAMPAIGNS / "the-sunken-keep", tmp_path / "keep")
    c = db.Campaign.open(tmp_path / "keep")
    yield c
    c.close()


@pytest.fixture
def dash(camp):
    d = Dashboard(camp)
    d.keeper.start_session.click()
    return d


def kinds_on_disk(camp) -> list[str]:
    events, problems = read_log(camp.path)
    assert not problems
    return [e["kind"] for e in events]


def data(html: str, attr: str) -> list[str]:
    return re.findall(rf'data-{attr}="([^"]*)"', html)


def _live_widgets() -> dict:
    from ipywidgets.widgets import widget
    return widget._instances


def look(dash, title: str) -> None:
    """Open the tab a keeper would be looking at: views on hidden tabs wait, and catch up when shown."""
    dash.tabs.selected_index = dash.tabs.titles.index(title)


def fight_started(dash, first="party"):
    look(dash, "Fight")
    dash.tracker.start_choice.value = ("prepared", "causeway_ambush")
    dash.tracker.start_button.click()
    (dash.tracker.party_first if first == "party" else dash.tracker.foes_first).click()
    return dash.camp.fight


# ---------------------------------------------------------------- cards and roll buttons

def test_the_card_shows_the_sheet_as_the_state_has_it(dash, camp):
    sheet = dash.party.cards["Brakka"].sheet.value
    assert "Brakka" in sheet and "Fighter" in sheet and "player Ben" in sheet and "level 1" in sheet
    assert data(sheet, "hearts")[0] == "19" and data(sheet, "max")[0] == "19"
    assert "Leather armor AV 1 · DV 10/10" in sheet and "Shield AV 1 · DV 10/10" in sheet
    assert "purse 5C" in sheet
    assert data(sheet, "luck") == ["3"]
    assert "XP 0 / 100 for level 2" in sheet
    odo = dash.party.cards["Father Odo"].sheet.value
    assert "healing points 10/10" in odo and "blessings" in odo


def test_a_skill_button_shows_its_bonus_and_exact_chance_against_the_target(dash):
    dash.table.target.value = 12
    label = dash.party.cards["Wren"]._skill_buttons["stealth"].description
    assert label == f"Stealth +D6 · {percent(odds('d20+d6', target=12), 0)} vs 12"
    dash.table.opponent.value = "Brakka"
    label = dash.party.cards["Wren"]._skill_buttons["stealth"].description
    assert label == f"Stealth +D6 · {percent(odds('d20+d6', vs='d20').win, 0)} vs Brakka"


def test_a_skill_click_rolls_the_check_logs_it_and_shows_each_die(dash, camp):
    before = len(read_log(camp.path)[0])
    dash.table.target.value = 11
    dash.party.cards["Wren"]._skill_buttons["stealth"].click()
    e = camp.events[-1]
    assert (e["kind"], e["who"], e["skill"], e["target"]) == ("check", "Wren", "stealth", 11)
    assert e["success"] == (e["total"] >= 11)
    assert kinds_on_disk(camp)[before:] == ["check"]
    shown = dash.rolls.result.value
    assert shown.count('class="delvebook-die') == 2
    assert ("succeeds" if e["success"] else "fails") in shown
    assert f'data-total="{e["total"]}"' in shown


def test_a_luck_die_spent_by_click_costs_the_player_one_and_resolves_again(dash, camp):
    dash.party.cards["Wren"]._skill_buttons["stealth"].click()
    first = camp.events[-1]
    assert dash.rolls.player.value == "Ana"  # the roller's player is offered first
    dash.rolls.luck_minus.click()
    e = camp.events[-1]
    assert e["kind"] == "check" and e["replaces"] == first["seq"] and e["luck"]["sign"] == -1
    assert e["total"] == first["total"] - e["luck"]["face"]
    assert camp.players["Ana"] == 2
    assert data(dash.party.cards["Wren"].sheet.value, "luck") == ["2"]
    assert kinds_on_disk(camp)[-2:] == ["check", "check"]
    assert "luck die" in dash.rolls.result.value
    # the roll panel says what each player has left, under the roll it may go on
    left = dict(re.findall(r'data-player="([^"]+)" data-luck="(\d)"', dash.rolls.result.value))
    assert left == {p: str(n) for p, n in camp.players.items()} and left["Ana"] == "2"


def test_a_luck_die_redraws_its_players_card_and_the_roll_only_and_undo_gives_the_die_back(dash, camp, monkeypatch):
    wren = dash.party.cards["Wren"]
    wren._skill_buttons["stealth"].click()
    others = {n: c.sheet.value for n, c in dash.party.cards.items() if n != "Wren"}
    sent = []
    real = w.Widget._send
    monkeypatch.setattr(w.Widget, "_send", lambda self, msg, buffers=None: (sent.append(self), real(self, msg, buffers)))
    dash.rolls.luck_plus.click()
    assert camp.players["Ana"] == 2 and data(wren.sheet.value, "luck") == ["2"]
    assert set(sent) == {wren.sheet, dash.rolls.result}  # Ana's card and the roll; no other card, no button
    assert {n: c.sheet.value for n, c in dash.party.cards.items() if n != "Wren"} == others
    dash.log.undo.click()
    assert camp.players["Ana"] == 3 and data(wren.sheet.value, "luck") == ["3"]
    assert 'data-player="Ana" data-luck="3"' in dash.rolls.result.value


def test_a_player_with_no_luck_dice_left_is_refused_and_another_may_spend(dash, camp):
    card = dash.party.cards["Wren"]
    for _ in range(3):
        card._skill_buttons["stealth"].click()
        dash.rolls.luck_plus.click()
    assert camp.players["Ana"] == 0
    assert 'data-player="Ana" data-luck="0"' in dash.rolls.result.value
    card._skill_buttons["stealth"].click()
    n = len(camp.events)
    dash.rolls.player.value = "Ana"  # the picker keeps every player; the table is told she has none left
    dash.rolls.luck_plus.click()
    assert "no luck dice left" in dash.table.message.value and len(camp.events) == n
    assert len(read_log(camp.path)[0]) == n
    dash.rolls.player.value = "Ben"  # another player's die may still go on Wren's roll
    dash.rolls.luck_plus.click()
    assert camp.events[-1]["luck"]["player"] == "Ben" and len(camp.events) == n + 1
    assert "Refused" not in dash.table.message.value


def test_faces_typed_from_real_dice_replace_the_roll(dash, camp):
    dash.party.cards["Brakka"]._skill_buttons["athletics"].click()
    dash.rolls.faces.value = "14, 3"
    dash.rolls.amend_button.click()
    e = camp.events[-1]
    assert e["amended"] == ["check"] and e["total"] == 17
    assert 'data-face="14"' in dash.rolls.result.value and 'data-face="3"' in dash.rolls.result.value


def test_bad_faces_are_a_message_and_change_nothing(dash, camp):
    dash.party.cards["Brakka"]._skill_buttons["athletics"].click()
    n = len(camp.events)
    dash.rolls.faces.value = "99 3"
    dash.rolls.amend_button.click()
    assert "Refused" in dash.table.message.value
    dash.rolls.faces.value = "fourteen"
    dash.rolls.amend_button.click()
    assert "whole numbers" in dash.table.message.value
    assert len(camp.events) == n and len(read_log(camp.path)[0]) == n


# ---------------------------------------------------------------- the fight

def test_initiative_rolled_by_click_sets_the_order_and_highlights_the_actor(dash, camp):
    look(dash, "Fight")
    dash.tracker.start_button.click()
    dash.tracker.roll_init.click()
    fight = camp.fight
    assert fight.round == 1 and camp.events[-1]["kind"] == "initiative"
    assert f"<b class='delvebook-current'>{fight.actor}</b>" in dash.tracker.status.value
    assert dash.tracker.attacker.value == fight.actor


def test_an_attack_takes_target_then_weapon_shows_odds_and_lowers_the_foe(dash, camp):
    fight = fight_started(dash)
    assert fight.actor == "Wren" and dash.tracker.attacker.value == "Wren"
    dash.tracker.target.value = "Bog goblin 2"  # click one
    weapon = dash.tracker.weapon_buttons[0]
    p = percent(odds("d20+d6", vs="d20").win, 0)
    assert weapon.description == f"Dagger D6 · {p} vs Bog goblin 2"
    weapon.click()  # click two
    e = camp.events[-1]
    assert (e["kind"], e["attacker"], e["target"], e["weapon"]) == ("attack", "Wren", "Bog goblin 2", "Dagger")
    hearts = fight.foe("Bog goblin 2").hearts
    assert hearts == 4 - sum(d["dealt"] for d in e["damage"])
    shown = dash.tracker.foes.value
    foe_card = shown.split('data-name="Bog goblin 2"')[1]
    assert data(foe_card, "hearts")[0] == str(hearts)
    assert dash.rolls.result.value.count('class="delvebook-roll"') >= 2  # attack and resist, both drawn


def test_undo_by_click_brings_the_foe_back_and_is_logged(dash, camp):
    fight = fight_started(dash)
    dash.tracker.target.value = "Bog goblin 1"
    for _ in range(5):  # until something lands
        dash.tracker.weapon_buttons[0].click()
        if camp.events[-1]["damage"]:
            break
    hurt = fight.foe("Bog goblin 1").hearts
    dash.log.undo.click()
    assert camp.events[-1]["kind"] == "undo"
    assert fight.foe("Bog goblin 1").hearts >= hurt
    assert kinds_on_disk(camp)[-1] == "undo"
    dash.log.redo.click()
    assert fight.foe("Bog goblin 1").hearts == hurt and kinds_on_disk(camp)[-1] == "redo"


def test_next_turn_moves_the_actor_and_the_attacker_follows(dash, camp):
    fight = fight_started(dash)
    dash.tracker.next_button.click()
    assert fight.actor == "Brakka" and dash.tracker.attacker.value == "Brakka"
    assert dash.tracker.weapon_buttons[0].description.startswith("Sword 2d6")


def test_the_party_order_changes_by_click(dash, camp):
    fight = fight_started(dash)
    dash.tracker.order_pick.value = "Brakka"
    dash.tracker.order_up.click()
    assert fight.order["party"][:2] == ["Brakka", "Wren"] and camp.events[-1]["kind"] == "set_order"


def test_a_foe_joins_mid_fight_and_gets_a_card(dash, camp):
    fight = fight_started(dash)
    dash.tracker.add_choice.value = "marsh_wisp"
    dash.tracker.add_button.click()
    assert "Marsh wisp 1" in [f.name for f in fight.foes]
    assert 'data-name="Marsh wisp 1"' in dash.tracker.foes.value


def test_a_foe_attacking_can_drop_a_delver_and_the_death_save_button_appears(dash, camp):
    fight_started(dash, first="foes")
    camp.damage("Wren", camp.delver("Wren").hearts - 1)
    dash.tracker.attacker.value = "Bog goblin 1"
    dash.tracker.target.value = "Wren"
    for _ in range(30):
        if camp.delver("Wren").status != "alive":
            break
        dash.tracker.weapon_buttons[0].click()
    assert camp.delver("Wren").status == "dying"
    assert dash.rolls.death_save.layout.display != "none" and "Wren" in dash.rolls.death_save.description
    look(dash, "Party")
    assert "DYING" in dash.party.cards["Wren"].sheet.value
    dash.rolls.death_save.click()
    assert camp.events[-1]["kind"] == "death_save" and camp.delver("Wren").status in ("alive", "dead")
    assert dash.rolls.death_save.layout.display == "none"


def test_ending_the_fight_awards_xp_for_the_vanquished_and_shows_the_split(dash, camp):
    fight = fight_started(dash)
    for name in [f.name for f in fight.foes]:
        camp.damage(name, 10)
    dash.tracker.end_button.click()
    e = camp.events[-1]
    assert e["kind"] == "end_encounter" and e["xp"] == 12
    assert camp.delver("Wren").xp == 2  # 12 XP across five, the remainder waits in the pool
    assert "Wren +2" in dash.rolls.result.value
    assert dash.tracker.start_row.layout.display != "none"


def test_a_card_weapon_attacks_the_foe_picked_as_opponent(dash, camp):
    fight_started(dash)
    card_ = dash.party.cards["Wren"]
    assert card_._weapon_buttons[0][2].disabled is False or dash.table.opponent.value == ""
    dash.table.opponent.value = "Bog goblin 3"  # picked while the Fight tab is open ...
    look(dash, "Party")  # ... the card shows it when its tab is
    assert "vs Bog goblin 3" in card_._weapon_buttons[0][2].description
    card_._weapon_buttons[0][2].click()
    assert camp.events[-1]["kind"] == "attack" and camp.events[-1]["target"] == "Bog goblin 3"


# ---------------------------------------------------------------- keeper controls

def test_refused_clicks_are_shown_and_change_nothing(dash, camp):
    fight_started(dash)
    n = len(read_log(camp.path)[0])
    dash.keeper.rest.click()
    assert "Refused: no resting in the middle of a fight" in dash.table.message.value
    dash.keeper.start_session.click()  # disabled in the page, but a click from code is refused too
    assert "Refused" in dash.table.message.value
    assert len(read_log(camp.path)[0]) == n == len(camp.events)
    dash.tracker.next_button.click()
    assert dash.table.message.value == ""  # the next good click clears the message


def test_sessions_rests_quests_rooms_coins_and_xp_by_click(dash, camp):
    k = dash.keeper
    look(dash, "Keeper")
    assert camp.state["session"]["active"] and "Session 1 <b>running" in k.session.value
    k.end_session.click()
    assert not camp.state["session"]["active"] and "not running" in k.session.value
    k.quest.value = "Silence the drowned bell"
    k.quest_button.click()
    assert camp.delver("Wren").xp == 20
    look(dash, "Party")
    assert "XP 20 / 100" in dash.party.cards["Wren"].sheet.value
    look(dash, "Keeper")
    k.room.value = "The gatehouse"
    k.room_button.click()
    assert camp.delver("Wren").xp == 23
    k.coins.value = "2C"
    k.coins_to.value = "Sable"
    k.earn_button.click()
    look(dash, "Party")
    assert camp.delver("Sable").purse == 70 and "purse 7C" in dash.party.cards["Sable"].sheet.value
    look(dash, "Keeper")
    k.xp.value = 10
    k.xp_button.click()
    k.rest.click()
    assert kinds_on_disk(camp)[-6:] == ["end_session", "complete_quest", "explore_room", "earn", "award_xp", "rest"]


def test_level_up_choices_are_offered_as_options_and_chosen_by_click(dash, camp):
    look(dash, "Keeper")
    dash.keeper.xp.value = 500
    dash.keeper.xp_button.click()
    assert camp.delver("Wren").level == 2
    labels = [label for label, _ in dash.keeper.pending.options]
    assert any(label.startswith("Wren: specialty") for label in labels)
    dash.keeper.pending.value = ("Wren", "specialty")
    options = [v for _, v in dash.keeper.option.options]
    assert "daggers" in options and "bows" in options
    dash.keeper.option.value = "bows"
    dash.keeper.choose_button.click()
    assert camp.delver("Wren").choices["specialty"] == "bows"
    assert ("Wren", "specialty") not in [v for _, v in dash.keeper.pending.options]


def test_an_ability_is_used_with_its_cost_paid_and_shown(dash, camp):
    k = dash.keeper
    look(dash, "Keeper")
    k.who.value = "Wren"
    assert "Dodge (1 grit)" in [label for label, _ in k.ability.options]
    k.ability.value = "dodge"
    k.use_button.click()
    assert camp.delver("Wren").grit == 2 and camp.events[-1]["kind"] == "use"
    look(dash, "Party")
    assert "grit <span class=\"db-pips\">●●○</span> 2/3" in dash.party.cards["Wren"].sheet.value
    assert "dodging" in dash.party.cards["Wren"].sheet.value


def test_a_spell_is_cast_from_the_book_and_a_second_cast_is_refused(dash, camp):
    k = dash.keeper
    look(dash, "Keeper")
    k.who.value = "Ilse"
    assert "light" in [v for _, v in k.spell.options]
    k.spell.value = "light"
    k.cast_button.click()
    assert camp.events[-1]["kind"] == "cast" and camp.delver("Ilse").data["spellbook_used"] == ["light"]
    assert "Light (spellbook, used)" in [label for label, _ in k.spell.options]
    look(dash, "Party")
    assert "spells used: light" in dash.party.cards["Ilse"].sheet.value
    n = len(camp.events)
    k.cast_button.click()
    assert "Refused" in dash.table.message.value and len(camp.events) == n


def test_the_download_button_offers_the_campaign_as_a_zip(dash, camp, tmp_path):
    dash.party.cards["Wren"]._skill_buttons["stealth"].click()
    dash.keeper.download_button.click()
    link = dash.keeper.download.value
    assert 'download="keep.zip"' in link
    import base64
    data64 = re.search(r"data:application/zip;base64,([A-Za-z0-9+/=]+)", link).group(1)
    z = tmp_path / "downloaded.zip"
    z.write_bytes(base64.b64decode(data64))
    with db.Campaign.open(z) as back:  # opened again: the same state and the same log
        assert back.state == camp.state and back.events == camp.events


# ---------------------------------------------------------------- views

def test_the_log_view_lists_recent_events_newest_first(dash, camp):
    dash.party.cards["Wren"]._skill_buttons["stealth"].click()
    dash.tabs.selected_index = dash._log_tab  # the list is drawn when the Log tab is shown
    rows = data(dash.log.list.value, "kind")
    assert rows[:2] == ["check", "start_session"]


def test_calls_from_a_code_cell_refresh_the_views_too(dash, camp):
    camp.award_xp(50)
    assert "XP 10 / 100" in dash.party.cards["Wren"].sheet.value
    assert "award_xp" in dash.rolls.result.value
    look(dash, "Log")
    assert data(dash.log.list.value, "kind")[0] == "award_xp"


def test_views_on_a_hidden_tab_send_nothing_and_catch_up_when_shown(dash, camp):
    fight = fight_started(dash, first="foes")  # the Fight tab is open: the party's cards are hidden
    sheet = dash.party.cards["Wren"].sheet
    before = sheet.value
    dash.tracker.attacker.value = "Bog goblin 1"
    dash.tracker.target.value = "Wren"
    for _ in range(30):
        dash.tracker.weapon_buttons[0].click()
        if camp.delver("Wren").hearts < int(data(before, "hearts")[0]):
            break
    hearts = camp.delver("Wren").hearts
    assert hearts < int(data(before, "hearts")[0]), "thirty goblin attacks and not one hit"
    assert sheet.value == before  # hidden behind the Fight tab: not redrawn
    look(dash, "Party")
    assert data(sheet.value, "hearts")[0] == str(hearts)  # shown: the wound is there
    assert fight.round >= 1 and "Round" in dash.tracker.status.value


def test_clicks_update_widgets_in_place_without_building_new_ones(dash, camp):
    fight_started(dash)
    dash.tracker.target.value = "Bog goblin 1"
    dash.party.cards["Wren"]._skill_buttons["stealth"].click()
    before = set(_live_widgets())
    for _ in range(3):
        dash.party.cards["Wren"]._skill_buttons["stealth"].click()
        dash.rolls.luck_plus.click()
        dash.tracker.weapon_buttons[0].click()
        dash.log.undo.click()
        dash.tracker.next_button.click()
    # the only new widgets are the roll panel's "on" pickers, one per set of roll names seen (kept, not rebuilt)
    pickers = {x for dd in dash.rolls._pickers.values() for x in (dd.model_id, dd.layout.model_id, dd.style.model_id)}
    assert set(_live_widgets()) - before <= pickers
    assert len(dash.rolls._pickers) <= dash.rolls._PICKERS_KEPT


def test_the_roll_picker_offers_the_latest_rolls_and_keeps_the_roll_picked(dash, camp):
    fight_started(dash)
    dash.tracker.target.value = "Bog goblin 1"
    dash.party.cards["Wren"]._skill_buttons["stealth"].click()
    assert [v for _, v in dash.rolls.roll_name.options] == ["check"]
    shapes = set()
    for i in range(12):  # hits and misses: the offered rolls follow each attack, the keeper's pick stays
        dash.tracker.weapon_buttons[0].click()
        assert [v for _, v in dash.rolls.roll_name.options] == list(camp.events[-1]["rolls"])
        dash.rolls.roll_name.value = "resist"
        # one attack a turn: the attack is made again with the real resist die the table rolled (1: it lands,
        # 20: it mostly misses), replacing the first
        dash.rolls.faces.value = "1" if i % 2 else "20"
        dash.rolls.amend_button.click()
        rolls = list(camp.events[-1]["rolls"])
        shapes.add(tuple(rolls))
        assert [v for _, v in dash.rolls.roll_name.options] == rolls
        assert dash.rolls._roll_box.children == (dash.rolls.roll_name,)
        assert dash.rolls.roll_name.value == "resist"
        dash.log.undo.click()
        dash.log.undo.click()
        assert [v for _, v in dash.rolls.roll_name.options] == ["check"]
    assert len(shapes) > 1  # both a hit's rolls and a miss's were shown (seeded campaign)
    dash.tracker.weapon_buttons[0].click()
    dash.rolls.roll_name.value = "resist"
    dash.rolls.luck_minus.click()
    assert camp.events[-1]["luck"]["roll"] == "resist"


def test_names_from_the_campaign_file_are_escaped_everywhere(tmp_path):
    evil = "<img src=x onerror=alert(1)>"
    c = db.Campaign.create(tmp_path / "evil", name="<b>Keep</b>", seed=3,
                           delvers=[{"name": evil, "class": "rogue", "player": "<script>x</script>"}],
                           bestiary={"imp": {"name": "<i>Imp</i>", "hearts": 2, "attack_bonus": 0, "damage": 1}})
    try:
        d = Dashboard(c)
        c.start_session()
        c.check(evil, "stealth", 10)
        c.encounter(["imp"])
        shown = [d.party.cards[evil].sheet.value, d.rolls.result.value, d.widget.children[1].children[0].value]
        look(d, "Log")
        shown.append(d.log.list.value)
        look(d, "Fight")
        shown += [d.tracker.foes.value, d.tracker.status.value]
        assert "Imp" in d.tracker.foes.value and "Keep" in d.widget.children[1].children[0].value
        html = " ".join(shown)
        assert "<img" not in html and "<script" not in html and "<i>Imp" not in html and "<b>Keep" not in html
        assert "&lt;img src=x onerror=alert(1)&gt;" in html
    finally:
        c.close()


def test_dashboard_and_card_build_for_a_campaign(camp):
    widget = dashboard(camp)
    assert isinstance(widget, w.VBox)
    titles = widget.children[2].titles
    assert titles[:4] == ("Party", "Fight", "Keeper", "Log")
    one = card(camp, "Wren")
    assert any("Wren" in getattr(c, "value", "") for c in one.children[2].children)
    with pytest.raises(KeyError):
        card(camp, "Nobody")
    assert isinstance(camp.dashboard(), w.VBox)


def test_a_delver_left_last_in_a_cell_shows_its_card(camp, monkeypatch):
    import IPython.display
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda *objs: shown.extend(objs))
    camp.delver("Wren")._ipython_display_()
    assert len(shown) == 1 and isinstance(shown[0], w.VBox)
    assert "Wren" in shown[0].children[0].value or "Wren" in repr(shown[0])
