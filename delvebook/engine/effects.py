"""Where abilities, spells and conditions plug into the rules: registries the core rules consult.

The core commands (checks, attacks, damage, healing) never name a class feature or a class's condition:
each class module registers here what its features do, and the core asks the registry.

- ``roll_bonus``: dice a creature adds to every D20 it rolls (a blessing die).
- ``skill_boost``: an option that adds dice to a roll already using a skill (Focus), paid or used up once.
- ``attack_modifier``: what shapes every weapon attack (an order, the next-attack riders of Ferocious strike
  and Double Strike): advantage, max damage, multi-attack, extra damage.
- ``attacks_against``: what gives every attack against a creature advantage, weapon or spell (a mark).
- ``attack_edge``: what gives a creature's every attack roll, weapon or spell, advantage or max damage (the
  orders Charge! and Fire).
- ``attack_option``: a keyword a class brings to ``attack`` (smite, surprised, sentry, thrown) with its hooks:
  shaping the attack, extra damage on a hit, a check after the hits, and the choice it offers once a hit is
  seen (a smite chosen after the hit replaces the attack, re-run with the same dice).
- ``on_vanquish``: what a kill does for the attacker (a Blood Magic sword is charged).
- ``conjured_weapon``: a weapon a condition provides (the cleric's Holy Weapon), and ``conjured_names``: the ones
  a creature has now (what a view lists as attacks); ``turn_slots``: what acts in a creature's turn besides its
  action (the Holy Weapon's sword, once a turn).
- ``damage_reducer``: what comes off damage before armor (Dodge); ``armor_bonus``: AV a condition adds
  (Hold the line); ``heal_guard``: what forbids healing (Blood Magic's ban).
- ``uses`` / ``spell``: the handlers of ``use(ability)`` and of each spell's effect, with the inputs they take.
- ``casting``: a way a class casts (a mage's book, a cleric's blessings, a bard's song, a sword, naming), with
  the spells it offers now (what a view lists).

Shaping only reads (a ``Reader``), so the odds a view shows and the roll a command makes come from the same
code; anything that costs or uses something up is a ``spend`` the plan carries, which only a command pays.
A hook that reads the conditions in play and nothing else says so (``conditions_only=True``): the rules skip it
while no condition is in play (``Hooks.now``).

Standard library only: part of the pure core.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, NamedTuple

__all__ = ["AttackPlan", "Boost", "Input", "Handler", "AttackOption", "Reduction", "Casting", "Edge", "casting",
           "CASTINGS", "roll_bonus", "skill_boost", "attack_modifier", "attacks_against", "attack_edge",
           "attack_option", "on_vanquish", "Hooks", "Options", "conjured_weapon", "conjured_names", "turn_slots",
           "damage_reducer", "armor_bonus",
           "heal_guard", "uses", "spell", "TURN_SLOTS", "ROLL_BONUSES", "SKILL_BOOSTS", "ATTACK_MODIFIERS", "ATTACKS_AGAINST", "ATTACK_EDGES",
           "ATTACK_OPTIONS", "ON_VANQUISH", "CONJURED_WEAPONS", "CONJURED_NAMES", "DAMAGE_REDUCERS", "ARMOR_BONUSES", "HEAL_GUARDS",
           "USES", "SPELLS"]


# ---------------------------------------------------------------- what a plan carries

class Boost(NamedTuple):
    """Dice added to a roll, the words that say why, and what taking them costs (paid by a command only)."""

    dice: str
    said: str
    spend: Callable | None = None


@dataclass(slots=True)
class AttackPlan:
    """One attack as the rules shape it before any die is rolled (a query stops here; a command rolls it)."""

    attacker: str
    attacker_side: str
    a: Mapping
    target: str
    target_side: str
    t: Mapping
    weapon: Mapping
    asked: dict                      # the options the attack was given (advantage, bonus, smite=True, ...)
    advantage: bool = False
    max_damage: bool = False
    multi: int | None = None         # set by riders (Double Strike); an asked multi wins
    extra_damage: list = field(default_factory=list)   # dice added to every hit's damage
    attack_bonus: list = field(default_factory=list)   # dice added to the attack roll
    boosts: list = field(default_factory=list)         # skill boosts taken (Focus)
    spends: list = field(default_factory=list)         # costs and used-up conditions, in order
    state: dict = field(default_factory=dict)          # scratch for options' hooks (a smite spent on a hit)
    options: list | tuple = ()       # the class options asked for (``ATTACK_OPTIONS``: a smite), in their order
    # worked out from the above
    skill: str | None = None
    n: int = 1
    counter: bool = True
    ranged: bool = False
    timing: str = "action"           # how the attack sits in the turn economy: action, reaction (a Sentry's),
                                     # or a companion's slot in its owner's turn (the Holy Weapon's)
    base: str = ""                   # the D20 part of the attack roll
    bonus: str | None = None         # the bonus dice, rolled once for every attack of a multi-attack
    expr: str = ""                   # base and bonus as one roll (what a single attack rolls)
    resist: str = ""                 # the target's resist roll

    def spend(self, fn: Callable) -> None:
        """Something the attack uses up or pays (a condition ended, grit spent), done before the dice."""
        self.spends.append(fn)


class Edge(NamedTuple):
    """What a creature's state gives its attack rolls: advantage, max damage."""

    advantage: bool = False
    max_damage: bool = False


class Reduction(NamedTuple):
    """Damage taken off before armor, the field of the damage record it is written in, and whether damage
    reduced to nothing still reaches the armor."""

    amount: int
    field: str
    spares_armor: bool = True


class Input(NamedTuple):
    """An input an ability or a spell takes: its keyword, its kind (``creature``, ``number``, ``names``,
    ``text``, ``spell``, ``item``, ``flag``), whether it is required, and a line saying what it is."""

    name: str
    kind: str
    required: bool = False
    what: str = ""


@dataclass
class Handler:
    """The code behind an ability or a spell, the inputs it takes, and (a spell) what must hold before its
    cost is paid: ``ready(ctx, who, d, spell_id, s, target)`` refuses, or returns."""

    fn: Callable
    inputs: tuple = ()
    ready: Callable | None = None


@dataclass
class AttackOption:
    """A keyword a class brings to ``attack``: ``shape(reader, plan)`` (may refuse, may add spends),
    ``on_hit(ctx, plan, hit_number) -> [dice]`` (extra damage on a landed hit, rolled as its own roll named after
    the option), ``after(ctx, plan, results)``, and ``offer(reader, plan, results) -> dict | None``: once the
    attack is resolved without the option, what choosing it now would do (a smite after a hit), for the outcome
    to list; choosing it re-runs the attack with the same dice (``Engine.decide_on_hit``)."""

    name: str
    shape: Callable | None = None
    on_hit: Callable | None = None
    after: Callable | None = None
    what: str = ""
    offer: Callable | None = None


@dataclass
class Casting:
    """A way of casting that comes with a class ability: ``fn(ctx, who, d, spell, target, via, opts) -> dict``;
    ``via`` words it accepts, ``forced_by`` words that pick it whatever the class; ``offers(reader, who, d, aid,
    ability) -> [SpellChoice]``: the spells it can cast now."""

    ability: str
    fn: Callable
    via: tuple = ()
    forced_by: tuple = ()
    offers: Callable | None = None


# ---------------------------------------------------------------- the registries

class Hooks(list):
    """A registry of hooks, in the order registered. A hook registered with ``conditions_only=True`` reads the
    conditions in play and nothing else, so with none in play it has nothing to say: ``now(state)`` leaves it out
    then (most of a fight; an attack would otherwise ask half a dozen such hooks for nothing)."""

    __slots__ = ("unconditional",)

    def __init__(self) -> None:
        super().__init__()
        self.unconditional: list[Callable] = []  # the hooks that may answer with no condition in play

    def add(self, fn: Callable, conditions_only: bool = False) -> Callable:
        self.append(fn)
        if not conditions_only:
            self.unconditional.append(fn)
        return fn

    def now(self, state: Mapping) -> list[Callable]:
        """The hooks that may answer in ``state``: all of them while any condition is in play."""
        return self if state["conditions"] else self.unconditional


class Options(dict):
    """A registry of hooks by option name (``focus=True``, ``dodge=True``): a hook acts when its option is asked for,
    or when a condition in play may have readied it (a Focus taken beforehand). ``now(state, asked)`` gives the hooks
    to ask, each with whether its option was given: with no condition in play, only those asked for."""

    __slots__ = ()

    def now(self, state: Mapping, asked: Mapping) -> list[tuple[Callable, bool]]:
        readied = bool(state["conditions"])
        return [(fn, given) for option, fn in self.items() if (given := bool(asked.get(option))) or readied]


def _registrar(hooks: Hooks, fn: Callable | None, conditions_only: bool):
    """``@register`` or ``@register(conditions_only=True)``: ``fn`` added to ``hooks``."""
    if fn is not None:
        return hooks.add(fn, conditions_only)
    return lambda f: hooks.add(f, conditions_only)


ROLL_BONUSES = Hooks()                   # (reader, who) -> Boost | None
SKILL_BOOSTS = Options()                 # option -> (reader, who, c, skill, asked) -> Boost | None
ATTACK_MODIFIERS = Hooks()               # (reader, plan) -> None
ATTACKS_AGAINST = Hooks()                # (reader, target) -> bool: attacks against it have advantage
ATTACK_EDGES = Hooks()                   # (reader, attacker, *, ranged, spell) -> Edge | None
ATTACK_OPTIONS: dict[str, AttackOption] = {}
ON_VANQUISH = Hooks()                    # (ctx, plan) -> None
CONJURED_WEAPONS = Hooks()               # (reader, who, c, weapon) -> weapon dict | None
CONJURED_NAMES = Hooks()                 # (reader, who) -> [the weapon argument of each conjured weapon it has now]
TURN_SLOTS = Hooks()                     # (reader, who) -> [slot names] that act in who's turn besides its action
DAMAGE_REDUCERS = Options()              # option -> (ctx, target, raw, asked) -> Reduction | None
ARMOR_BONUSES = Hooks()                  # (reader, who) -> int
HEAL_GUARDS = Hooks()                    # (reader, who) -> refusal message | None
USES: dict[str, Handler] = {}            # ability id -> what ``use`` does
SPELLS: dict[str, Handler] = {}          # spell id -> what the spell does, whoever casts it
CASTINGS: dict[str, Casting] = {}        # class ability id -> a way of casting


def roll_bonus(fn: Callable | None = None, *, conditions_only: bool = False):
    """Register dice a creature adds to every D20 roll it makes: ``fn(reader, who) -> Boost | None``."""
    return _registrar(ROLL_BONUSES, fn, conditions_only)


def skill_boost(option: str) -> Callable:
    """Register a roll option (``focus=True``) that adds dice to a roll already using a skill:
    ``fn(reader, who, c, skill, asked) -> Boost | None`` (asked: the option was given), asked only when the option
    is given or a condition is in play (readied: a Focus taken beforehand; ``Options.now``)."""
    def register(fn: Callable) -> Callable:
        SKILL_BOOSTS[option] = fn
        return fn
    return register


def attack_modifier(fn: Callable | None = None, *, conditions_only: bool = False):
    """Register what shapes every attack: ``fn(reader, plan)`` sets advantage, max damage, multi, extra dice."""
    return _registrar(ATTACK_MODIFIERS, fn, conditions_only)


def attacks_against(fn: Callable | None = None, *, conditions_only: bool = False):
    """Register what gives every attack against a creature advantage, weapon or spell (a Guiding Bolt's mark):
    ``fn(reader, target) -> bool``."""
    return _registrar(ATTACKS_AGAINST, fn, conditions_only)


def attack_edge(fn: Callable | None = None, *, conditions_only: bool = False):
    """Register what gives a creature's attack rolls advantage or max damage, weapon or spell alike (Charge!,
    Fire): ``fn(reader, attacker, *, ranged, spell) -> Edge | None``."""
    return _registrar(ATTACK_EDGES, fn, conditions_only)


def attack_option(name: str, *, shape: Callable | None = None, on_hit: Callable | None = None,
                  after: Callable | None = None, what: str = "", offer: Callable | None = None) -> AttackOption:
    """Register a keyword option of ``attack`` that a class brings (see ``AttackOption``)."""
    opt = ATTACK_OPTIONS[name] = AttackOption(name, shape, on_hit, after, what, offer)
    return opt


def on_vanquish(fn: Callable | None = None, *, conditions_only: bool = False):
    """Register what an attack that vanquishes its target does afterwards: ``fn(ctx, plan)``."""
    return _registrar(ON_VANQUISH, fn, conditions_only)


def conjured_weapon(fn: Callable | None = None, *, conditions_only: bool = False):
    """Register a weapon a condition provides: ``fn(reader, who, c, weapon_asked) -> weapon | None``."""
    return _registrar(CONJURED_WEAPONS, fn, conditions_only)


def conjured_names(fn: Callable | None = None, *, conditions_only: bool = False):
    """Register which conjured weapons a creature has now: ``fn(reader, who) -> [weapon argument]``, each one a
    ``conjured_weapon`` answers to (``"holy weapon"``), so a view lists them among its attacks."""
    return _registrar(CONJURED_NAMES, fn, conditions_only)


def turn_slots(fn: Callable | None = None, *, conditions_only: bool = False):
    """Register what acts in a creature's turn besides its action, once a turn each (the Holy Weapon's sword):
    ``fn(reader, who) -> [slot]``; a weapon that acts in a slot says so with ``turn_slot``."""
    return _registrar(TURN_SLOTS, fn, conditions_only)


def damage_reducer(option: str) -> Callable:
    """Register what comes off incoming damage before armor, asked for with ``option=True`` (or readied by a
    condition): ``fn(ctx, target, raw, asked) -> Reduction | None``, asked only then (the option given, or any
    condition in play; ``Options.now``)."""
    def register(fn: Callable) -> Callable:
        DAMAGE_REDUCERS[option] = fn
        return fn
    return register


def armor_bonus(fn: Callable | None = None, *, conditions_only: bool = False):
    """Register armor value a condition adds to intact armor: ``fn(reader, who) -> int``."""
    return _registrar(ARMOR_BONUSES, fn, conditions_only)


def heal_guard(fn: Callable | None = None, *, conditions_only: bool = False):
    """Register what forbids healing: ``fn(reader, who) -> message | None`` (the message refuses it)."""
    return _registrar(HEAL_GUARDS, fn, conditions_only)


def uses(*ability_ids: str, inputs: tuple = ()) -> Callable:
    """Register what ``use(who, ability)`` does for these abilities:
    ``fn(ctx, who, d, aid, a, target, opts) -> dict`` (what to record)."""
    def register(fn: Callable) -> Callable:
        for aid in ability_ids:
            USES[aid] = Handler(fn, tuple(inputs))
        return fn
    return register


def spell(*spell_ids: str, inputs: tuple = (), ready: Callable | None = None) -> Callable:
    """Register what a spell does, whoever casts it and however it is paid for:
    ``fn(ctx, who, d, spell_id, s, target, opts) -> dict`` (what to record); ``ready`` checks before paying."""
    def register(fn: Callable) -> Callable:
        for sid in spell_ids:
            SPELLS[sid] = Handler(fn, tuple(inputs), ready)
        return fn
    return register



def casting(ability: str, *, via: tuple = (), forced_by: tuple = (), offers: Callable | None = None) -> Callable:
    """Register the way of casting that comes with class ability ``ability`` (see ``Casting``)."""
    def register(fn: Callable) -> Callable:
        CASTINGS[ability] = Casting(ability, fn, tuple(via), tuple(forced_by), offers)
        return fn
    return register
