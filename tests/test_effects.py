"""Where classes plug into the rules: hooks registered by the conditions they read, and options a command declares.

A hook names the condition kinds it reads (``reads=``): the rules ask it only while such a condition is in play, so
every hook must have nothing to say otherwise. A command names the options it takes (``command(kind,
options=...)``): registering a hook makes no keyword of any command.
"""

from __future__ import annotations

import random

import pytest

from delvebook.engine import COMMANDS, Refused, effects, play, queries
from delvebook.engine.base import Ctx, Reader
from delvebook.core.events import clone
from enginekit import Table


def _fight() -> Table:
    t = Table(seed=4).party(("Wren", "rogue"), ("Bo", "fighter", {"weapon": "sword_and_shield"}), ("Cy", "cleric"))
    t.do("start_session")
    t.do("encounter", foes=[{"foe": "goblin", "name": "Gob"}])
    t.do("initiative", first="party")
    return t


def _registries() -> dict:
    return {name: reg for name, reg in vars(effects).items() if isinstance(reg, (effects.Hooks, effects.Options))}


def _kinds_of(reg, key) -> frozenset:
    """The condition kinds a hook is asked for: the ones it reads, or (a hook by option) the ones that ready it."""
    return reg.readied_by[key] if isinstance(reg, effects.Options) else reg.reads(key)


def _hooks_of(reg) -> list:
    """(key, hook) for each hook of a registry: the option and its hook, or the hook itself twice."""
    return list(reg.items()) if isinstance(reg, effects.Options) else [(fn, fn) for fn in reg]


# ---------------------------------------------------------------- asked only while its conditions are in play

def test_a_hook_registered_for_a_condition_is_asked_while_that_condition_is_in_play_and_not_otherwise():
    hooks = effects.Hooks()
    blessing, anyway = object(), object()
    hooks.add(blessing, reads="blessed")
    hooks.add(anyway)

    def in_play(*kinds):
        return {"conditions": [{"kind": k, "who": "Bo"} for k in kinds]}

    assert hooks.now(in_play()) == [anyway]
    assert hooks.now(in_play("marked", "cursed")) == [anyway]  # another condition: not the one it reads
    assert hooks.now(in_play("marked", "blessed")) == [blessing, anyway]  # in the order registered


def test_a_hook_by_option_is_asked_when_its_option_is_given_or_a_condition_readies_it():
    options = effects.Options()
    focus = object()
    options.add("focus", focus, readied_by="focus")
    none, readied = {"conditions": []}, {"conditions": [{"kind": "focus", "who": "Wren"}]}
    assert options.now(none, {}) == [] and options.now({"conditions": [{"kind": "blessed"}]}, {}) == []
    assert options.now(none, {"focus": True}) == [(focus, True)]
    assert options.now(readied, {}) == [(focus, False)]


def test_the_rules_ask_a_registered_hook_only_while_its_condition_is_in_play():
    asked = []

    def count(r, who):
        asked.append(who)

    t = _fight()
    effects.roll_bonus(reads="blessed")(count)
    try:
        t.do("use", who="Wren", ability="dodge")  # a condition in play, of another kind
        queries.check_expr(t.state, t.rules, "Bo", "stealth")
        assert asked == []
        t.turn("Cy")
        t.do("use", who="Cy", ability="bless", target="Bo")
        queries.check_expr(t.state, t.rules, "Bo", "stealth")
        assert asked == ["Bo"]
    finally:
        effects.ROLL_BONUSES.remove(count)


# ---------------------------------------------------------------- every hook has nothing to say without its kinds

_DATA = {"die": "d6", "av": 2, "advantage": True, "max_damage": True, "multi_attack": 2, "advantage_against": True,
         "damage": "2d6", "attack_bonus": "2d6", "spell": "firebolt", "attacks_left": 1, "spell_attacks": True}
"""What a condition of any kind carries here: enough for a hook that wrongly reads it to answer."""


def _with_conditions(state: dict, kinds) -> dict:
    """``state`` with a condition of each of ``kinds`` on everyone in it."""
    s = clone(state)
    names = list(s["seats"]) + list(s["encounter"]["foes"])
    s["conditions"] = [{"id": 100 + i, "kind": k, "who": n, "source": n, "start": 0, "ends_at": None,
                        "ends_on": None, "ends_when": [], "data": dict(_DATA)}
                       for i, (k, n) in enumerate((k, n) for k in sorted(kinds) for n in names)]
    return s


def _says_nothing(name: str, reg, fn, state: dict, rules, who: str) -> bool:
    """Whether hook ``fn`` of registry ``name`` answers "nothing" about ``who`` in ``state`` (and changes nothing):
    asked as the registry says its hooks are asked (its ``quiet``, declared where the registry is made)."""
    r = Reader(state, rules)
    c = r.combatant(who)[1]
    other = "Gob" if who != "Gob" else "Bo"
    ctx = Ctx(state, rules, random.Random(1), "attack", {})
    assert reg.quiet is not None, f"a new registry of hooks, {name}: say where it is made how its hooks are asked " \
                                  f"and what 'nothing' is (Hooks(quiet=...))"
    probe = effects.Probe(r, ctx, who, c, other, lambda: queries.plan_attack(r, who, other))
    try:
        quiet = reg.quiet(fn, probe)
    except Exception:  # a hook that reads what it was not registered for may well trip over it
        return False
    return quiet and not ctx.changes and not ctx.fields


def _registration_problems(registries: dict, state: dict, rules) -> list[str]:
    """Each hook that has something to say while none of the condition kinds it is asked for is in play (with a
    condition of every other kind the engine's hooks read on everyone, and a keeper's curse): registered for the
    wrong kinds, the rules would miss what it says."""
    every_kind = {"cursed"}.union(*(_kinds_of(reg, key) for regs in (_registries(), registries)
                                    for reg in regs.values() for key, _ in _hooks_of(reg)))
    problems = []
    for name, reg in registries.items():
        for key, fn in _hooks_of(reg):
            kinds = _kinds_of(reg, key)
            if not kinds and isinstance(reg, effects.Hooks):
                continue  # asked always
            s = _with_conditions(state, every_kind - kinds)
            for who in list(s["seats"]) + list(s["encounter"]["foes"]):
                if not _says_nothing(name, reg, fn, s, rules, who):
                    problems.append(f"{name}: {fn.__qualname__} (asked for {sorted(kinds)}) answered about {who}")
                    break
    return problems


def test_every_hook_has_nothing_to_say_while_none_of_the_conditions_it_reads_is_in_play():
    t = _fight()
    registries = _registries()
    assert _registration_problems(registries, t.state, t.rules) == []
    asked_by_kind = [fn for reg in registries.values() for key, fn in _hooks_of(reg) if _kinds_of(reg, key)]
    assert len(asked_by_kind) >= 11  # the blessing, the mark, the riders, the orders, Hold the line, the Holy
    # Weapon's two, Blood Magic's charge and ban, Focus and the Dodge


def test_a_hook_registered_for_the_wrong_condition_is_caught():
    t = _fight()
    blessing = next(fn for fn in effects.ROLL_BONUSES if effects.ROLL_BONUSES.reads(fn) == {"blessed"})
    wrong = effects.Hooks(effects.ROLL_BONUSES.quiet)
    wrong.add(blessing, reads="marked")  # it reads "blessed": asked only under a mark, a blessing would go unseen
    problems = _registration_problems({"ROLL_BONUSES": wrong}, t.state, t.rules)
    assert len(problems) == 1 and "marked" in problems[0]
    right = effects.Hooks(effects.ROLL_BONUSES.quiet)
    right.add(blessing, reads="blessed")
    assert _registration_problems({"ROLL_BONUSES": right}, t.state, t.rules) == []


def test_a_new_registry_says_where_it_is_made_how_its_hooks_are_asked():
    t = _fight()
    unsaid = effects.Hooks()  # no quiet: nothing says what "nothing to say" is for its hooks
    unsaid.add(lambda r, who: None, reads="blessed")
    with pytest.raises(AssertionError, match="say where it is made how its hooks are asked"):
        _registration_problems({"NEW_HOOKS": unsaid}, t.state, t.rules)
    said = effects.Hooks(lambda fn, p: fn(p.reader, p.who) is None)
    said.add(lambda r, who: None, reads="blessed")
    assert _registration_problems({"NEW_HOOKS": said}, t.state, t.rules) == []


def test_a_condition_kind_is_a_name():
    with pytest.raises(TypeError, match="condition kinds are names"):
        effects.Hooks().add(print, reads=("blessed", 3))


# ---------------------------------------------------------------- options a command declares

def test_a_new_damage_reducer_makes_no_keyword_of_a_command_that_does_not_declare_it():
    t = _fight()
    effects.damage_reducer("stoneskin", readied_by="stoneskin")(lambda ctx, target, raw, asked: None)
    try:
        assert "'stoneskin'" in t.refused("attack", attacker="Wren", target="Gob", stoneskin=True)
        assert "'stoneskin'" in t.refused("damage", who="Wren", amount=2, stoneskin=True)
        assert "'stoneskin'" in t.refused("check", who="Wren", skill="stealth", target=10, stoneskin=True)
        with pytest.raises(Refused, match="'stoneskin'"):  # the forecast's path refuses it alike
            play(clone(t.state), t.rules, "attack", {"attacker": "Wren", "target": "Gob", "stoneskin": True},
                 random.Random(1))
    finally:
        effects.DAMAGE_REDUCERS.remove("stoneskin")


def test_the_options_a_command_declares_are_the_ones_it_takes():
    t = _fight()
    e = t.do("damage", who="Wren", amount=2, dodge=True, faces={"dodge": [1]})  # declared: taken
    assert e["damage"][0]["dodged"] == 1
    message = t.refused("damage", who="Wren", amount=2, focus=True)  # Focus is an option of rolls, not of damage
    assert "'focus'" in message and "dodge" in message


def test_every_option_a_command_declares_has_a_hook_and_every_option_hook_a_command():
    declared = {o for fn in COMMANDS.values() for o in (fn.options or ())}
    hooked = set(effects.ATTACK_OPTIONS) | set(effects.SKILL_BOOSTS) | set(effects.DAMAGE_REDUCERS)
    assert declared == hooked
