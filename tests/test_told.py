"""The narrator covers every field it must: each kind of event is told by the teller found by its class, and every
field its declaration (or a record it holds: a damage entry, a counter-attack) names is read by a telling or marked as
not told, with why (``narrate.words.untold``), as d20's stringifier has a method for every node and raises until it
is written.

What is told: every event of the bundled campaigns and of a walk through the rules (every class through its levels,
every spell, every foe, the core numbers, preparing an evening), and an event of every declared kind with every
field present (so a new kind is held to its fields before any scenario plays it), each told as the table tells it
(its sentence and lines, its title, its undo label, its one-line story)."""

from __future__ import annotations

import functools
import types
import typing
from types import SimpleNamespace

import pytest

import delvebook as db
from delvebook import narrate
from delvebook.core import declared
from delvebook.core.declared import DECLARED, Record, view
from delvebook.core.rules.load import base_rules
from delvebook.narrate.words import TELLERS, UNTOLD

import walkkit
from conftest import CAMPAIGNS, REPO

BASE = base_rules()


def _walk_events() -> list[dict]:
    """Every event the rules walk plays (``test_house_rules_walk``'s scenarios, with the shipped rules)."""
    import test_house_rules_walk as walk
    made: list = []
    init = walkkit.Walk.__init__

    def keep(self, *args, **kwargs):
        init(self, *args, **kwargs)
        made.append(self)
    walkkit.Walk.__init__ = keep
    try:
        walk.core_scenario(BASE)
        walk.names_scenario(BASE)
        for cid in BASE.classes:
            walk.class_scenario(BASE, cid)
        for spell in BASE.spells:
            walk.spell_scenario(BASE, spell)
        for foe in list(BASE.bestiary)[:3]:
            walk.foe_scenario(BASE, foe)
        for item in ("crossbow", "arrows", "lute", "chain_shirt"):
            if item in BASE.gear:
                walk.gear_scenario(BASE, item)
    finally:
        walkkit.Walk.__init__ = init
    return [e for w in made for e in w.seen if isinstance(e, dict)]


def _deeds_events() -> list[dict]:
    """What the walk leaves out: spells cast through an ability, a resisted Dispel, a namer's signature spell, a
    smite declared on a miss, a trap (and a luck die on it), an action a player asked for."""
    from test_house_rules_walk import FIGHTER, _level
    w = walkkit.Walk(BASE, seed=5)
    w.party(("Mira", "mage"), ("Cy", "cleric"), ("Rue", "namer"), ("Finn", "fighter", FIGHTER))
    _level(w, "Mira", [], [])
    _level(w, "Cy", [("specialty", "healer")], [])
    _level(w, "Rue", [], [])
    _level(w, "Finn", [("specialty", "swords")], [("technique", "oath"), ("oath", "vengeance")])
    w.do("start_session")
    w.do("encounter", foes=["goblin", "ogre"])
    w.do("initiative", first="party")
    o = walkkit.OVERRIDE
    w.do("use", who="Mira", ability="grimoire_magic", spell="find_familiar", name="Pip", keeper_override=o)
    w.do("condition", who="Goblin 1", name="warded")
    w.do("use", who="Cy", ability="divine_spellcasting", spell="dispel_magic", target="Goblin 1", condition="warded",
         resist=True, keeper_override=o)
    w.do("condition", who="Goblin 1", name="warded")
    w.do("cast", who="Cy", spell="dispel_magic", target="Goblin 1", condition="warded", resist=True,
         keeper_override=o)
    names = w.state["delvers"]["Rue"]["true_names"][:2]
    w.do("use", who="Rue", ability="naming_magic", spell="naming", names=names, description="a knot of wind",
         cost=1, keeper_override=o)
    w.do("use", who="Rue", ability="signature_spell", names=names, description="a wall of named wind", cost=2,
         name="Windwall", keeper_override=o)
    w.do("cast", who="Rue", spell="Windwall", keeper_override=o)
    w.do("attack", attacker="Finn", target="Goblin 1", smite=True, faces={"attack": [1, 1, 1], "resist": [20]},
         keeper_override=o)
    w.do("trap", who="Mira", target=30, name="a falling block", faces={"check": [1], "damage": [2, 2]})
    luck = w.engine.decide_luck(w.state["delvers"]["Mira"]["player"], 1, w.rng, len(w.seen) + 1, face=3)
    w.engine.apply(luck)
    w.seen.append(luck)
    return [e for e in w.seen if isinstance(e, dict)]


def _preparing_events(tmp_path) -> list[dict]:
    """An evening prepared by the table's calls: the bestiary, encounters, roll tables, the seats, a retirement."""
    with db.Campaign.create(tmp_path / "prep", name="Prepared", seed=3) as camp:
        camp.add_delver("Wren", "rogue", player="Ana")
        camp.add_delver("Brakka", "fighter", player="Ben")
        camp.add_delver("Odo", "cleric", player="Ana")
        camp.set_seats(["Brakka", "Wren", "Odo"])
        camp.prepare_foe("Bog hag", 6, damage="d6", tags=["fae"])
        camp.prepare_foe("Bog hag", 7, damage="d6", tags=["fae"], id="bog_hag", change=True)
        camp.prepare_encounter("The hag's hut", {"bog_hag": 1, "goblin": 2})
        camp.prepare_table("Gems", "d6", {"1-6": "a gem"})
        camp.prepare_table("Loot", "d6", {"1-2": "a rusty dagger", "3-4": "a torch", "5-6": {"roll": "gems"}},
                           without_replacement=True)
        camp.start_session()
        camp.roll_table("loot", faces={"table": [6], "table#2": [4]})  # a gem: rolled on the gems table
        camp.roll_table("loot")
        camp.spend_luck("Ana", +1)
        camp.roll_table("loot")
        with camp.asked("Ana", 1):
            camp.check("Wren", "stealth", 12)
        camp.reset_table("loot")
        camp.remove_encounter("the_hag_s_hut")
        camp.remove_foe("bog_hag")
        camp.remove_table("loot")
        camp.retire_delver("Odo")
        return list(camp.events)


def _sample(tp, depth: int = 0):
    """A value of declared type ``tp``: every field of a record present, one item in a list (what a new kind no
    scenario plays yet is told with, so its teller is held to its fields all the same)."""
    if depth > 6:
        return None
    if isinstance(tp, type) and issubclass(tp, Record):
        return {key: _sample(f.type, depth + 1) for key, f in tp.FIELDS.items()}
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Literal:
        return args[0]
    if origin in (typing.Union, types.UnionType):
        arms = [a for a in args if a is not type(None)]
        return _sample(arms[0], depth) if arms else None
    if origin is list or tp is list:
        return [_sample(args[0], depth + 1)] if args else []
    if origin is dict or tp is dict:
        return {"Wren": _sample(args[1], depth + 1)} if len(args) == 2 else {}
    if tp is declared.Chance:
        return "1/2"
    if isinstance(tp, typing.NewType):
        return _sample(tp.__supertype__, depth)
    return {str: "Wren", int: 1, bool: True, float: 1.5}.get(tp, "x")


def _samples() -> list[dict]:
    """An event of every declared kind with every field present (``_sample``)."""
    out = []
    for kind, cls in DECLARED.items():
        e = _sample(cls)
        e.update(kind=kind, seq=1, changes=[], sides={"Wren": "party"})
        out.append(e)
    return out


@functools.lru_cache(maxsize=None)
def _bundled() -> tuple:
    out = []
    for folder in (CAMPAIGNS / "the-long-delve", REPO / "tests" / "data" / "v1-log"):
        with db.Campaign.open(folder, read_only=True) as camp:
            out.append((camp, list(camp.events)))
    return tuple(out)


@pytest.fixture(scope="module")
def told(tmp_path_factory):
    """What telling every event read of each declaration: {(class, field)}; and which fields the events held."""
    walked = _walk_events() + _deeds_events()
    prepared = _preparing_events(tmp_path_factory.mktemp("told"))
    held: dict[type, set] = {}
    with declared.reading() as seen:
        for ctx, events in [*_bundled(), (SimpleNamespace(state={}, rules=BASE), walked), (None, prepared),
                            (None, _samples())]:
            for e in events:
                narrate.tell(e, ctx)
                narrate.describe(e, ctx, hidden=("Goblin 1",))
                narrate.title(e, ctx)
                narrate.step(e, ctx)
                _note(view(e), held)
    return seen, held


def _note(value, held: dict) -> None:
    """The fields each record an event holds has (nested ones too)."""
    if isinstance(value, Record):
        held.setdefault(type(value), set()).update(value.data)
        for f in type(value).FIELDS.values():
            if f.name in value.data:
                _note(f.read(value), held)
    elif isinstance(value, (tuple, list)):
        for v in value:
            _note(v, held)
    elif isinstance(value, dict):
        for v in value.values():
            _note(v, held)


def _records(cls: type, out: set) -> set:
    """``cls`` and every record its fields hold, however deep (but for a field marked as not told: what it holds
    is not told either)."""
    if cls in out:
        return out
    out.add(cls)
    marked = _untold(cls)
    for f in cls.FIELDS.values():
        if f.name in marked:
            continue
        for t in _types(f.type):
            if isinstance(t, type) and issubclass(t, Record):
                _records(t, out)
    return out


def _types(tp) -> list:
    args = typing.get_args(tp)
    return [tp] if not args else [t for a in args for t in _types(a)]


def _untold(cls: type) -> dict:
    out: dict = {}
    for base in reversed(cls.__mro__):
        out.update(UNTOLD.get(base, {}))
    return out


def test_every_kind_of_event_is_told_by_the_teller_found_by_its_class():
    assert [kind for kind, cls in DECLARED.items() if cls not in TELLERS] == []


def _uncovered(seen: set, held: dict, events: list) -> list[str]:
    """Each field of the declarations of ``events`` (and the records they hold) neither read nor marked untold."""
    records = set()
    for cls in events:
        _records(cls, records)
    problems = []
    for cls in sorted(records, key=lambda c: c.__qualname__):
        marked = _untold(cls)
        for name in cls.FIELDS:
            if (cls, name) in seen or name in marked:
                continue
            never = name not in held.get(cls, ())
            problems.append(f"{cls.__module__}.{cls.__qualname__}.{name}: "
                            + ("never held by an event told here (play it in a scenario, or mark it)" if never else
                               "neither told nor marked as not told (narrate: tell it, or words.untold(...) why)"))
    return problems


def test_every_declared_field_is_told_or_marked_as_not_told(told):
    seen, held = told
    assert _uncovered(seen, held, list(DECLARED.values())) == []


def test_a_field_marked_as_not_told_is_a_field_that_exists():
    for cls, marks in UNTOLD.items():
        assert set(marks) <= set(cls.FIELDS), (cls, set(marks) - set(cls.FIELDS))
        assert all(isinstance(why, str) and why.strip() for why in marks.values()), cls


def test_a_declared_field_no_teller_reads_is_found_until_it_is_told_or_marked():
    from delvebook.core.declared import Action

    class Bell(Action, kind="test_bell"):
        """A bell rung: how many times, and how loud."""
        rings: int
        loud: bool

    @narrate.tells(Bell)
    def _bell(e, ctx, pre, hidden):
        return narrate.words.story(f"The bell rings {e.rings} times")
    try:
        event = {"seq": 1, "kind": "test_bell", "v": 2, "at": 0, "session": 1, "actor": "keeper", "targets": [],
                 "sides": {}, "args": {}, "changes": [], "rings": 3, "loud": True}
        with declared.reading() as seen:
            narrate.tell(event, None)
        held: dict = {}
        _note(view(event), held)
        bell = f"{__name__}.{Bell.__qualname__}."
        found = [p.split(": ")[0] for p in _uncovered(seen, held, [Bell]) if p.startswith(bell)]
        assert found == [bell + "loud"]  # rings is told; loud is not, and not marked
        narrate.words.untold(Bell, loud="the bell's sound is the keeper's to describe")
        assert [p for p in _uncovered(seen, held, [Bell]) if p.startswith(bell)] == []
    finally:
        TELLERS.pop(Bell, None)
        UNTOLD.pop(Bell, None)
        declared.forget("test_bell")
