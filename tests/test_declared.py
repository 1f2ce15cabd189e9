"""Every kind of event is declared where its command is registered: a typed, versioned class with its roles. The
writer checks each event against its declaration before it appends it; the reader upcasts an older one through it;
readers read its declared fields."""

from __future__ import annotations

import shutil

import pytest

import delvebook as db
from delvebook.core import declared
from delvebook.core.declared import Action, DECLARED, Record, Text, upcast, view
from delvebook.core.events import REDO, UNDO, clone
from delvebook.core.records import Damage
from delvebook.engine import COMMANDS, command, effects
from delvebook.store import StoreError

from conftest import CAMPAIGNS, REPO

V1_LOG = REPO / "tests" / "data" / "v1-log"
BUNDLED = [CAMPAIGNS / "the-long-delve", V1_LOG]  # (the sunken keep is prepared: its log is empty)


def test_every_kind_of_event_has_a_declaration_where_its_command_is_registered():
    assert set(COMMANDS) | {UNDO, REDO} <= set(DECLARED)
    for kind, fn in COMMANDS.items():
        cls = fn.event
        assert cls is DECLARED[kind] and cls.KIND == kind
        assert cls.__module__ == fn.__module__, f"{kind} is declared in {cls.__module__}, registered in {fn.__module__}"
        assert cls.__doc__ and cls.class_version >= 2


@pytest.mark.parametrize("folder", BUNDLED, ids=lambda p: p.name)
def test_every_recorded_event_of_the_bundled_campaigns_checks_against_its_declaration(folder):
    with db.Campaign.open(folder, read_only=True) as camp:
        problems = [(e["seq"], declared.problem(e)) for e in camp.events if declared.problem(e) is not None]
        assert len(camp.events) and problems == []


def test_a_field_a_declaration_does_not_allow_is_refused_naming_the_field():
    attack = {"seq": 3, "kind": "attack", "v": 2, "at": 0, "session": 1, "actor": "Wren", "targets": ["Gob"],
              "sides": {"Wren": "party", "Gob": "foes"}, "args": {}, "changes": [], "attacker": "Wren",
              "target": "Gob", "weapon": "Dagger", "multi": 1, "advantage": False, "attack_totals": [14],
              "resist_total": 9, "results": ["hit"], "damage": [], "counter": None, "attack_expr": "d20+d6",
              "resist_expr": "d20", "chance": {"win": "61/96", "tie": "1/30", "lose": "97/320"}}
    assert declared.problem(attack) is None
    assert declared.problem({**attack, "weapn": "x"})[0] == "weapn"
    assert declared.problem({**attack, "multi": "2"}) == ("multi", "attack: expected a whole number, got '2'")
    assert declared.problem({**attack, "results": ["hti"]})[0] == "results[0]"
    assert declared.problem({**attack, "chance": {"win": "most", "tie": "0", "lose": "0"}})[0] == "chance.win"
    assert declared.problem({k: v for k, v in attack.items() if k != "weapon"})[1].startswith("attack: missing")
    assert declared.problem({**attack, "kind": "attak"})[0] == "kind"
    hit = {"target": "Gob", "by": "Wren", "dealt": 3, "hearts_before": 4, "hearts_after": 1, "vanquishd": True}
    assert declared.problem({**attack, "damage": [hit]})[0] == "damage[0].vanquishd"


def test_what_a_spell_records_is_its_own_record_on_the_cast():
    with db.Campaign.open(CAMPAIGNS / "the-long-delve", read_only=True) as camp:
        missile = next(e for e in camp.events if e["kind"] == "cast" and e.get("spell") == "magic_missile")
    assert declared.problem(missile) is None
    assert declared.problem({**missile, "familiar": "Pip"})[0] == "familiar"  # Find Familiar's, not the missile's


@pytest.fixture
def sloppy_command():
    class Sloppy(Action, kind="sloppy"):
        """A command whose event says more than it declares."""
        said: Text

    @command(Sloppy)
    def sloppy(ctx) -> None:
        ctx.out(said="hello", unsaid=1)
    yield
    del COMMANDS["sloppy"]
    declared.forget("sloppy")


def test_the_writer_refuses_an_event_that_breaks_its_declaration_and_records_nothing(tmp_path, sloppy_command):
    with db.Campaign.open(shutil.copytree(CAMPAIGNS / "the-sunken-keep", tmp_path / "keep")) as camp:
        before = list(camp.events)
        with pytest.raises(StoreError) as err:
            camp.act("sloppy")
        assert err.value.field == "unsaid" and "sloppy" in str(err.value)
        assert camp.events == before
    with db.Campaign.open(tmp_path / "keep", read_only=True) as again:
        assert again.events == before


def test_a_view_reads_declared_fields_and_has_no_other():
    with db.Campaign.open(CAMPAIGNS / "the-long-delve", read_only=True) as camp:
        e = next(e for e in camp.events if e["kind"] == "attack" and e["damage"] and "ammo" not in e)
    a = view(e)
    assert type(a).__name__ == "Attack" and a.attacker == e["attacker"] and a.seq == e["seq"]
    assert isinstance(a.damage[0], Damage) and a.damage[0].dealt == e["damage"][0]["dealt"]
    assert a.ammo is None and a.on_hit_options == () and a.chance.win == e["chance"]["win"]
    with pytest.raises(AttributeError):
        a.attackr  # noqa: B018
    with pytest.raises(AttributeError):
        a.attacker = "someone else"


def test_an_older_event_is_read_through_its_declarations_upcasters_in_turn():
    class Shout(Record):
        loud: bool

    class Bell(Action, kind="test_bell"):
        """Rung twice: v2 rang, v3 says how loud."""
        class_version = 4
        rings: int
        loud: bool

        @classmethod
        def upcast_v2_v3(cls, event, state_before):
            event["rings"] = event.pop("rang")
            return event

        @classmethod
        def upcast_v3_v4(cls, event, state_before):
            event["loud"] = event["rings"] > 1
            return event
    try:
        old = {"seq": 1, "kind": "test_bell", "v": 2, "rang": 2}
        assert upcast(clone(old), {}) == {"seq": 1, "kind": "test_bell", "v": 4, "rings": 2, "loud": True}
        assert declared.version_of("test_bell") == 4 and declared.version_of("rest") == declared.BASE_VERSION
        newer = {"seq": 1, "kind": "test_bell", "v": 5}
        assert upcast(clone(newer), {}) == newer  # the reader refuses it, saying to upgrade delvebook
    finally:
        declared.forget("test_bell")


def test_a_record_plugged_in_adds_its_fields_where_it_plugs_in():
    from delvebook.engine.combat import Attack, Struck
    assert {"smite", "sentry_attacks_left", "blood_magic_charged"} <= set(Attack.FIELDS)  # the fighter's
    assert {"smite", "sentry_attacks_left"} <= set(DECLARED["use"].FIELDS)  # a dual wield is an attack too
    assert "dodged" in Damage.FIELDS  # the rogue's Dodge
    assert effects.SPELL_RECORDS.record("firebolt").__name__ == "SpellHit"
    assert issubclass(Attack, Struck)
