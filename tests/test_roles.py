"""Events say who did what to whom (event format 2): every command declares its roles once, where it is registered;
every event names its actor, its targets and the side of each name; every damage and healing entry names its dealer.
A log written in format 1 opens in format 2, exactly as today's engine makes each event."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import delvebook as db
from delvebook import narrate
from delvebook.core import declared
from delvebook.core.declared import Action, BASE_VERSION, DECLARED, upcast
from delvebook.core.records import Damage
from delvebook.engine import COMMANDS, Refused, command
from delvebook.engine.combat import deal_damage
from delvebook.core.events import clone, replay
from delvebook.core.roles import KEEPER, SIDES, dealt_entries
from delvebook.store.playcheck import play_problems

from conftest import CAMPAIGNS

pd = pytest.importorskip("pandas")
from delvebook import analysis  # noqa: E402

V1_LOG = Path(__file__).resolve().parent / "data" / "v1-log"


@pytest.fixture
def camp(tmp_path):
    c = db.Campaign.open(shutil.copytree(CAMPAIGNS / "the-sunken-keep", tmp_path / "keep"))
    c.start_session()
    yield c
    c.close()


def _fight(camp: db.Campaign):
    fight = camp.encounter(["bog_goblin", "bog_goblin"])
    fight.initiative(first="party")
    return fight


def _named_in_sides(e: dict) -> None:
    sides = e["sides"]
    assert e["actor"] in sides and all(t in sides for t in e["targets"]), e
    for entry in dealt_entries(e):
        assert entry["by"] in sides, e
        assert (entry.get("target") or entry.get("who")) in sides, e
    assert set(sides.values()) <= set(SIDES), e


# ---------------------------------------------------------------- declared once, written on every event

def test_every_command_declares_its_roles_where_it_is_registered():
    assert all(fn.event is DECLARED[kind] and fn.event.roles is not None for kind, fn in COMMANDS.items())


def test_the_one_line_story_is_the_tables_sentence_then_its_lines(camp):
    fight = _fight(camp)
    e = fight.attack("Wren", "Bog goblin 1", faces={"attack": [1, 1], "resist": [19], "counter_damage": [3]})
    told = narrate.tell(e, camp)
    assert e.summary() == narrate.describe(e, camp) == "; ".join([told["text"], *told["lines"]])
    assert "Bog goblin 1 hits back: Wren takes 3" in e.summary()


def test_an_attack_is_by_its_attacker_at_its_target_and_a_counter_is_dealt_by_the_target(camp):
    fight = _fight(camp)
    e = fight.attack("Wren", "Bog goblin 1", faces={"attack": [1, 1], "resist": [19], "counter_damage": [3]})
    assert (e["actor"], e["targets"]) == ("Wren", ["Bog goblin 1"])
    assert e["sides"] == {"Wren": "party", "Bog goblin 1": "foes"}
    hit_back = e["counter"]["damage"]
    assert (hit_back["by"], hit_back["target"], hit_back["source"]) == ("Bog goblin 1", "Wren", "attack")
    row = analysis.damage(camp).iloc[-1]
    assert (row["dealer"], row["dealer_side"], row["target"], row["target_side"], row["counter"]) == \
        ("Bog goblin 1", "foes", "Wren", "party", True)


def test_a_hit_names_its_dealer_in_by_and_what_dealt_it_in_source(camp):
    fight = _fight(camp)
    e = fight.attack("Brakka", "Bog goblin 1", faces={"attack": [19, 6], "resist": [1], "damage": [2, 3]},
                     keeper_override="Brakka goes first")
    (hit,) = e["damage"]
    assert (hit["by"], hit["source"]) == ("Brakka", "Sword")
    hearts = analysis.hearts(camp)
    assert hearts[hearts["who"] == "Bog goblin 1"]["source"].iloc[-1] == "Brakka (Sword)"


def test_damage_the_keeper_deals_with_a_hazard_named_is_credited_to_the_hazard(camp):
    e = camp.damage("Wren", 2, source="a falling block", by="Falling block")
    assert e["actor"] == KEEPER and e["targets"] == ["Wren"]
    assert e["sides"] == {"keeper": "keeper", "Wren": "party", "Falling block": "hazard"}
    row = analysis.damage(camp).iloc[-1]
    assert (row["dealer"], row["dealer_side"], row["target"], row["target_side"], row["source"]) == \
        ("Falling block", "hazard", "Wren", "party", "a falling block")
    assert narrate.tell(e, camp)["text"].startswith("A falling block: Wren takes 2")


def test_the_keepers_damage_and_healing_by_hand_are_by_the_keeper_unless_told(camp):
    hurt = camp.damage("Brakka", 3)
    healed = camp.heal("Brakka", 2, source="a potion")
    for e in (hurt, healed):
        assert e["actor"] == KEEPER and e["targets"] == ["Brakka"] and e["sides"]["Brakka"] == "party"
    assert hurt["damage"][0]["by"] == KEEPER and healed["healing"][0]["by"] == KEEPER
    assert analysis.damage(camp).iloc[-1]["dealer_side"] == "keeper"
    assert camp.heal("Brakka", 1, by="Ilse")["sides"]["Ilse"] == "party"
    with pytest.raises(Refused, match="by names who or what dealt it"):
        camp.damage("Brakka", 1, by="  ")


def test_undo_and_redo_are_the_keepers(camp):
    camp.check("Wren", "stealth", 12)
    for e in (camp.undo(), camp.redo()):
        assert (e["actor"], e["targets"], e["sides"]) == (KEEPER, [], {KEEPER: "keeper"})


def test_a_check_opposed_by_dice_is_opposed_by_the_keeper_and_one_by_someone_by_them(camp):
    assert camp.check("Ilse", "lore", vs="d20+2")["targets"] == [KEEPER]
    camp.npc("Grak", "bog_goblin")
    e = camp.check("Brakka", "athletics", vs="Grak")
    assert e["targets"] == ["Grak"] and e["sides"]["Grak"] == "creatures"


def test_foes_joining_a_fight_are_on_the_foes_side_even_an_npc_who_was_a_creature(camp):
    camp.npc("Grak", "bog_goblin")
    e = camp.encounter(["bog_goblin", {"npc": "Grak"}]).camp.events[-1]
    assert e["actor"] == KEEPER and e["targets"] == ["Bog goblin 1", "Grak"]
    assert e["sides"]["Grak"] == "foes"


def test_whose_turn_begins_is_turn_of_and_the_turn_is_moved_by_the_keeper(camp):
    fight = _fight(camp)
    e = fight.next_turn()
    assert e["actor"] == KEEPER and e["targets"] == [e["turn_of"]] == [fight.actor]


def test_every_event_of_the_long_delve_names_each_role_on_a_side():
    with db.Campaign.open(CAMPAIGNS / "the-long-delve", read_only=True) as long:
        assert {e["v"] for e in long.events} == {BASE_VERSION}
        for e in long.events:
            _named_in_sides(e)


# ---------------------------------------------------------------- a v1 log opens in v2

def _raw(folder: Path) -> list[dict]:
    return [json.loads(line[2:]) for line in (folder / "log.yaml").read_text().splitlines() if line.startswith("- {")]


def test_a_log_of_format_1_opens_in_format_2_as_todays_engine_makes_each_event():
    """A campaign played by a delvebook of event format 1 (tests/data/make_v1_log.py): every kind of event, a
    counter-attack, darts (one wasted), luck and real dice, undo and redo, a familiar, damage by hand."""
    raw = _raw(V1_LOG)
    assert {e.get("v") for e in raw} == {1}
    with db.Campaign.open(V1_LOG, read_only=True) as old:
        assert {e["v"] for e in old.events} == {BASE_VERSION}
        for e in old.events:
            _named_in_sides(e)
        # each event, upgraded, is the one the rules make now, field for field (what validate checks)
        assert play_problems(old.rules, old.setup, old.events) == []
        assert old.state == replay(old.setup, raw).state  # the upgrade folds nothing: the same state
        kinds = {e["kind"] for e in old.events}
        assert {"attack", "cast", "use", "damage", "heal", "undo", "redo", "next_turn", "check"} <= kinds
        for e in old.events:
            assert narrate.tell(e, old)["text"] != e["kind"], e  # every one told in the game's words
        frames = analysis.frames(old)
        pip = frames["damage"][frames["damage"]["dealer"] == "Pip"]
        assert len(pip) and set(pip["dealer_side"]) == {"creatures"}


def test_upgrading_v1_splits_the_dealer_from_what_dealt_it_and_names_whose_turn_began():
    state = {"delvers": {"Brakka": {}}, "encounter": {"foes": {"Bog goblin 2": {}}}, "creatures": {}}
    attack = {"seq": 5, "kind": "attack", "v": 1, "args": {"attacker": "Brakka", "target": "Bog goblin 2"},
              "attacker": "Brakka", "target": "Bog goblin 2",
              "damage": [{"target": "Bog goblin 2", "source": "Brakka (Sword)", "dealt": 3}],
              "counter": {"by": "Bog goblin 2", "damage": {"target": "Brakka", "source": "Bog goblin 2 (attack, counter)"}},
              "changes": []}
    up = upcast(attack, state)
    assert up is attack and up["v"] == BASE_VERSION
    assert (up["damage"][0]["by"], up["damage"][0]["source"]) == ("Brakka", "Sword")
    assert (up["counter"]["damage"]["by"], up["counter"]["damage"]["source"]) == ("Bog goblin 2", "attack")
    assert list(up)[:6] == ["seq", "kind", "v", "actor", "targets", "sides"]
    dart = {"seq": 6, "kind": "cast", "who": "Ilse", "changes": [],
            "damage": [{"target": "Bog goblin 2", "source": "Ilse (Magic Missile, dart 2)", "dart": 2}]}
    assert upcast(dart, state)["damage"][0]["source"] == "Magic Missile"
    turn = upcast({"seq": 7, "kind": "next_turn", "v": 1, "actor": "Brakka", "changes": []}, state)
    assert (turn["actor"], turn["turn_of"], turn["targets"]) == (KEEPER, "Brakka", ["Brakka"])
    by_hand = upcast({"seq": 8, "kind": "damage", "args": {"who": "Brakka"}, "changes": [],
                             "damage": [{"target": "Brakka", "source": "Brakka (trap)"}]}, state)
    assert (by_hand["damage"][0]["by"], by_hand["damage"][0]["source"]) == (KEEPER, "Brakka (trap)")


def test_an_event_of_todays_format_or_an_unknown_one_is_left_as_it_is():
    now = {"seq": 1, "kind": "rest", "v": BASE_VERSION, "changes": []}
    newer = {"seq": 1, "kind": "rest", "v": BASE_VERSION + 1, "changes": []}
    assert upcast(clone(now), {}) == now and upcast(clone(newer), {}) == newer


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                     max_leaves=12)
_FIELDS = st.sampled_from(["who", "attacker", "target", "damage", "healing", "counter", "args", "actor", "rolls",
                           "changes", "conditions_ended", "foes", "hearing", "v"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(sorted(COMMANDS) + ["undo", "note"]), fields=st.dictionaries(_FIELDS, _JSON, max_size=6),
       state=st.dictionaries(st.sampled_from(["delvers", "encounter", "creatures"]), _JSON, max_size=3))
def test_a_v1_event_a_hand_broke_is_upgraded_as_far_as_it_goes_and_never_refused_there(kind, fields, state):
    event = {**fields, "seq": 1, "kind": kind}
    if "v" in event:
        event["v"] = 1
    up = upcast(event, state)
    assert up["v"] == BASE_VERSION and isinstance(up["actor"], str) and isinstance(up["sides"], dict)


# ---------------------------------------------------------------- a new command touches its own files only

@pytest.fixture
def trap_command():
    """A command as a new module would add it: its event declared with its roles, its telling in one place."""
    class SpringsATrap(Action, kind="springs_a_trap", actor="trap", targets=("who",)):
        trap: str
        damage: list[Damage]

    @command(SpringsATrap)
    def springs_a_trap(ctx, who: str, trap: str = "A trap", dice: str = "2d6") -> None:
        amount = ctx.roll("damage", dice, who="keeper", why=trap).total
        ctx.out(trap=trap, damage=[deal_damage(ctx, who, amount, "a trap", by=trap, armor=False)])

    @narrate.tells(SpringsATrap, title=lambda e, ctx: f"{e.trap} on {e.args['who']}")
    def _told(e, ctx, pre, hidden):
        return narrate.words.story(f"{pre}{e.trap} springs: " + narrate.fight.dealt(e.damage[0], hidden))

    yield
    COMMANDS.pop("springs_a_trap", None)
    narrate.words.TELLERS.pop(SpringsATrap, None)
    declared.forget("springs_a_trap")


def test_a_new_command_is_registered_in_its_own_module_and_read_by_every_reader(camp, trap_command):
    camp.rng = random.Random(3)
    e = camp.act("springs_a_trap", who="Wren", trap="Needle trap", faces={"damage": [2, 1]})
    assert (e["actor"], e["targets"]) == ("Needle trap", ["Wren"])
    assert e["sides"] == {"Needle trap": "hazard", "Wren": "party"}
    assert narrate.tell(e, camp)["text"].startswith("Needle trap springs: Wren takes 3")
    assert narrate.title(e, camp) == "Needle trap on Wren"
    row = analysis.damage(camp).iloc[-1]
    assert (row["dealer"], row["dealer_side"], row["target_side"]) == ("Needle trap", "hazard", "party")
