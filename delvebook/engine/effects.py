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
- ``attack_option``: what an option of ``attack`` does (smite, surprised, sentry, thrown; the command declares
  the keyword), with its hooks: shaping the attack, extra damage on a hit, a check after the hits, and the
  choice it offers once a hit is seen (a smite chosen after the hit replaces the attack, re-run with the same
  dice).
- ``on_vanquish``: what a kill does for the one who made it, attacking or hitting back (a Blood Magic sword is
  charged).
- ``conjured_weapon``: a weapon a condition provides (the cleric's Holy Weapon), and ``conjured_names``: the ones
  a creature has now (what a view lists as attacks); ``turn_slots``: what acts in a creature's turn besides its
  action (the Holy Weapon's sword, once a turn).
- ``sightless``: who attacks normally without sight, and when (a Tunnel Fighter, within its range).
- ``damage_reducer``: what comes off damage before armor (Dodge); ``armor_bonus``: AV a condition adds
  (Hold the line); ``heal_guard``: what forbids healing (Blood Magic's ban).
- ``uses`` / ``spell``: the handlers of ``use(ability)`` and of each spell's effect, with the inputs they take and
  what they record on the event (``records=``, a ``declared.Record``: the fields they add to a ``use`` or ``cast``
  event, checked as it is written).
- ``casting``: a way a class casts (a mage's book, a cleric's blessings, a bard's song, a sword, naming), with
  the spells it offers now (what a view lists), and what it records on a ``cast`` (``records=``).

Shaping only reads (a ``Reader``), so the odds a view shows and the roll a command makes come from the same
code; anything that costs or uses something up is a ``spend`` the plan carries, which only a command pays.
A hook that answers only because of a condition names the condition kinds it reads (``reads="blessed"``): a
registry asks it only while a condition of such a kind is in play (``Hooks.now``), and it has nothing to say
otherwise (a test holds every hook to that: each registry says, where it is made, how its hooks are asked and what
"nothing to say" is, ``quiet(hook, probe)``, so a new registry needs no edit elsewhere). A hook by option (Focus, a
Dodge) names the kinds that ready it (``readied_by="focus"``). Which options a command takes is the command's own
word (``command(Event, options=...)``): registering a hook here makes no keyword of any command.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Callable, Mapping, NamedTuple

from ..core.declared import Record, Text, Variants
from ..core.records import Damage, Healing

__all__ = ["AttackPlan", "Kill", "Boost", "Input", "Handler", "AttackOption", "Reduction", "Casting", "Edge", "casting",
           "CASTINGS", "roll_bonus", "skill_boost", "attack_modifier", "attacks_against", "attack_edge",
           "attack_option", "on_vanquish", "Hooks", "Options", "conjured_weapon", "conjured_names", "turn_slots",
           "damage_reducer", "armor_bonus", "sightless", "SIGHTLESS",
           "heal_guard", "uses", "spell", "TURN_SLOTS", "ROLL_BONUSES", "SKILL_BOOSTS", "ATTACK_MODIFIERS", "ATTACKS_AGAINST", "ATTACK_EDGES",
           "ATTACK_OPTIONS", "ON_VANQUISH", "CONJURED_WEAPONS", "CONJURED_NAMES", "DAMAGE_REDUCERS", "ARMOR_BONUSES", "HEAL_GUARDS",
           "USES", "SPELLS", "USE_RECORDS", "SPELL_RECORDS", "ByMechanics", "ByWords", "Probe"]


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
    disadvantage: bool = False       # the attacker cannot see (core.sight); worked out with advantage
    state: dict = field(default_factory=dict)          # scratch for options' hooks (a smite spent on a hit)
    options: list | tuple = ()       # the class options asked for (``ATTACK_OPTIONS``: a smite), in their order
    # worked out from the above
    skill: str | None = None
    n: int = 1
    counter: bool = True
    ranged: bool = False
    timing: str = "action"           # how the attack sits in the turn economy: action, reaction (a Sentry's),
                                     # or a companion's slot in its owner's turn (the Holy Weapon's)
    expr: str = ""                   # the attack roll: the D20 and every bonus
    base: str = ""                   # a multi-attack's D20, rolled once for each attack
    bonus: str | None = None         # a multi-attack's bonus dice, rolled once for all its attacks
    resist: str = ""                 # the target's resist roll

    def spend(self, fn: Callable) -> None:
        """Something the attack uses up or pays (a condition ended, grit spent), done before the dice."""
        self.spends.append(fn)


class Kill(NamedTuple):
    """A creature slain by a blow: who struck it (attacking, or hitting back), their side, the weapon, and whom."""

    who: str
    side: str
    weapon: Mapping
    slain: str


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
    """An input an ability or a spell takes: its keyword, its kind (``creature``, ``creatures``, ``number``,
    ``names``, ``text``, ``spell``, ``item``, ``flag``), whether it is required, a line saying what it is, and
    where its choices come from: ``choices(reader, who) -> [(value, label)]`` (the spells a bard may choose, the
    dead a cleric may touch), so a view offers only what the rule takes."""

    name: str
    kind: str
    required: bool = False
    what: str = ""
    choices: Callable | None = None


@dataclass
class Handler:
    """The code behind an ability or a spell, the inputs it takes, (a spell) what must hold before its cost is
    paid: ``ready(ctx, who, d, spell_id, s, target)`` refuses, or returns; and (an ability) why it cannot be used
    now whatever its inputs: ``problem(reader, who) -> str | None`` (a bard's spell already changed since the
    rest, no sword to trace on), what a view says before the click; and what it records on the event
    (``records``: a ``declared.Record``, None for nothing beyond the event's own fields)."""

    fn: Callable
    inputs: tuple = ()
    ready: Callable | None = None
    problem: Callable | None = None
    records: type | None = None


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

def _kinds(reads: str | tuple | list | frozenset) -> frozenset:
    """Condition kinds named as one string or several."""
    kinds = frozenset((reads,) if isinstance(reads, str) else reads)
    if not all(isinstance(k, str) and k for k in kinds):
        raise TypeError(f"condition kinds are names (reads='blessed'), not {reads!r}")
    return kinds


class Probe(NamedTuple):
    """What a registry's ``quiet`` asks a hook with: a reader and a context on one state, a creature in it (``who``,
    its sheet ``c``) and another (``other``), and ``plan()``: a fresh plan of ``who``'s attack on ``other``."""

    reader: Any
    ctx: Any
    who: str
    c: Mapping
    other: str
    plan: Callable[[], Any]


def _unchanged(fn: Callable, reader: Any, plan: "AttackPlan") -> bool:
    """Whether ``fn(reader, plan)`` leaves the plan as it was (a shaping hook with nothing to say)."""
    from ..core.events import clone
    was = {f.name: clone(getattr(plan, f.name)) for f in fields(plan)}
    fn(reader, plan)
    return {f.name: clone(getattr(plan, f.name)) for f in fields(plan)} == was


class Hooks:
    """A registry of hooks, in the order registered, each with the condition kinds it reads (``reads``): ``now``
    asks a hook only while a condition of one of its kinds is in play; a hook that names none is always asked.
    ``quiet(hook, probe) -> bool``: how a hook of this registry is asked (a ``Probe``) and whether it answered
    "nothing" (what every hook says while none of the conditions it reads is in play)."""

    __slots__ = ("_entries", "_always", "quiet")

    def __init__(self, quiet: Callable[[Callable, Probe], bool] | None = None) -> None:
        self._entries: list[tuple[Callable, frozenset]] = []
        self._always: list[Callable] = []  # the hooks that read no condition: all ``now`` gives with none in play
        self.quiet = quiet

    def add(self, fn: Callable, reads: str | tuple = ()) -> Callable:
        self._entries.append((fn, _kinds(reads)))
        self._always = [f for f, kinds in self._entries if not kinds]
        return fn

    def remove(self, fn: Callable) -> None:
        self._entries = [e for e in self._entries if e[0] is not fn]
        self._always = [f for f, kinds in self._entries if not kinds]

    def reads(self, fn: Callable) -> frozenset:
        """The condition kinds ``fn`` was registered as reading (empty: it is always asked)."""
        return next(kinds for f, kinds in self._entries if f is fn)

    def __iter__(self):
        return (fn for fn, _ in self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def now(self, state: Mapping) -> list[Callable]:
        """The hooks that may answer in ``state``: those that read no condition, and those a condition of whose
        kinds is in play."""
        conds = state["conditions"]
        if not conds:
            return self._always
        kinds = {c["kind"] for c in conds}
        return [fn for fn, reads in self._entries if not reads or not reads.isdisjoint(kinds)]


class Options(dict):
    """A registry of hooks by option name (``focus=True``, ``dodge=True``): a hook acts when its option is given, or
    while a condition that readies it is in play (a Focus taken beforehand). ``now(state, asked)`` gives the hooks
    to ask, each with whether its option was given; ``quiet`` as ``Hooks``'s (the option not given)."""

    __slots__ = ("readied_by", "quiet")

    def __init__(self, quiet: Callable[[Callable, Probe], bool] | None = None) -> None:
        super().__init__()
        self.readied_by: dict[str, frozenset] = {}  # option -> the condition kinds that ready its hook
        self.quiet = quiet

    def add(self, option: str, fn: Callable, readied_by: str | tuple = ()) -> Callable:
        self[option] = fn
        self.readied_by[option] = _kinds(readied_by)
        return fn

    def remove(self, option: str) -> None:
        del self[option]
        del self.readied_by[option]

    def now(self, state: Mapping, asked: Mapping) -> list[tuple[Callable, bool]]:
        conds = state["conditions"]
        if not conds and not asked:  # nothing given, nothing readied
            return []
        kinds = {c["kind"] for c in conds} if conds else ()
        return [(fn, given) for option, fn in self.items()
                if (given := bool(asked.get(option))) or not self.readied_by[option].isdisjoint(kinds)]


def _registrar(hooks: Hooks, fn: Callable | None, reads: str | tuple):
    """``@register`` (always asked) or ``@register(reads="kind")``: ``fn`` added to ``hooks``."""
    if fn is not None:
        return hooks.add(fn, reads)
    return lambda f: hooks.add(f, reads)


# Each registry: what its hooks take and give, and (``quiet``) how a hook is asked and what "nothing" is.
ROLL_BONUSES = Hooks(lambda fn, p: fn(p.reader, p.who) is None)                       # (reader, who) -> Boost | None
SKILL_BOOSTS = Options(lambda fn, p: fn(p.reader, p.who, p.c, "swords", False) is None)
"""option -> (reader, who, c, skill, asked) -> Boost | None"""
ATTACK_MODIFIERS = Hooks(lambda fn, p: _unchanged(fn, p.reader, p.plan()))            # (reader, plan) -> None
ATTACKS_AGAINST = Hooks(lambda fn, p: not fn(p.reader, p.who))  # (reader, target) -> bool: attacks on it have advantage
ATTACK_EDGES = Hooks(lambda fn, p: all(fn(p.reader, p.who, ranged=r, spell=s) is None
                                       for r in (False, True) for s in (False, True)))
"""(reader, attacker, *, ranged, spell) -> Edge | None"""
ATTACK_OPTIONS: dict[str, AttackOption] = {}
ON_VANQUISH = Hooks(lambda fn, p: fn(p.ctx, Kill(p.who, p.reader.combatant(p.who)[0], p.plan().weapon, p.other))
                    is None)
"""(ctx, kill) -> None"""
CONJURED_WEAPONS = Hooks(lambda fn, p: fn(p.reader, p.who, p.c, "holy weapon") is None)
"""(reader, who, c, weapon) -> weapon dict | None"""
CONJURED_NAMES = Hooks(lambda fn, p: list(fn(p.reader, p.who)) == [])
"""(reader, who) -> [the weapon argument of each conjured weapon it has now]"""
TURN_SLOTS = Hooks(lambda fn, p: list(fn(p.reader, p.who)) == [])
"""(reader, who) -> [slot names] that act in who's turn besides its action"""
DAMAGE_REDUCERS = Options(lambda fn, p: fn(p.ctx, p.who, 3, {}) is None)
"""option -> (ctx, target, raw, asked) -> Reduction | None"""
SIGHTLESS = Hooks(lambda fn, p: not fn(p.reader, p.who, ranged=False))
"""(reader, attacker, *, ranged) -> bool: it attacks normally without sight"""
ARMOR_BONUSES = Hooks(lambda fn, p: fn(p.reader, p.who) == 0)                          # (reader, who) -> int
HEAL_GUARDS = Hooks(lambda fn, p: not fn(p.reader, p.who))                  # (reader, who) -> refusal message | None


class ByMechanics(Record):
    """What ``use`` records of an ability no class module plays (a campaign's own): its effect in words, and the
    healing its mechanics give."""

    effect: Text
    healing: list[Healing] = ()


class ByWords(Record):
    """What ``cast`` records of a spell no module plays (a campaign's own, a namer's written one): its effect in
    words, and the damage or healing it gives."""

    effect: Text
    damage: list[Damage] = ()
    healing: list[Healing] = ()


USE_RECORDS = Variants("ability", default=ByMechanics)
"""What each ability records on a ``use`` event, by its id (``uses(..., records=)``)."""
SPELL_RECORDS = Variants("spell", default=ByWords)
"""What each spell records on a ``cast`` event, by its id (``spell(..., records=)``), and what each way of casting
records on any (``casting(..., records=)``)."""
USES: dict[str, Handler] = {}            # ability id -> what ``use`` does
SPELLS: dict[str, Handler] = {}          # spell id -> what the spell does, whoever casts it
CASTINGS: dict[str, Casting] = {}        # class ability id -> a way of casting


def roll_bonus(fn: Callable | None = None, *, reads: str | tuple = ()):
    """Register dice a creature adds to every D20 roll it makes: ``fn(reader, who) -> Boost | None``."""
    return _registrar(ROLL_BONUSES, fn, reads)


def skill_boost(option: str, *, readied_by: str | tuple = ()) -> Callable:
    """Register a roll option (``focus=True``) that adds dice to a roll already using a skill:
    ``fn(reader, who, c, skill, asked) -> Boost | None`` (asked: the option was given), asked only when the option
    is given or a condition of a kind in ``readied_by`` is in play (a Focus taken beforehand)."""
    return lambda fn: SKILL_BOOSTS.add(option, fn, readied_by)


def attack_modifier(fn: Callable | None = None, *, reads: str | tuple = ()):
    """Register what shapes every attack: ``fn(reader, plan)`` sets advantage, max damage, multi, extra dice."""
    return _registrar(ATTACK_MODIFIERS, fn, reads)


def attacks_against(fn: Callable | None = None, *, reads: str | tuple = ()):
    """Register what gives every attack against a creature advantage, weapon or spell (a Guiding Bolt's mark):
    ``fn(reader, target) -> bool``."""
    return _registrar(ATTACKS_AGAINST, fn, reads)


def attack_edge(fn: Callable | None = None, *, reads: str | tuple = ()):
    """Register what gives a creature's attack rolls advantage or max damage, weapon or spell alike (Charge!,
    Fire): ``fn(reader, attacker, *, ranged, spell) -> Edge | None``."""
    return _registrar(ATTACK_EDGES, fn, reads)


def attack_option(name: str, *, shape: Callable | None = None, on_hit: Callable | None = None,
                  after: Callable | None = None, what: str = "", offer: Callable | None = None) -> AttackOption:
    """Register a keyword option of ``attack`` that a class brings (see ``AttackOption``)."""
    opt = ATTACK_OPTIONS[name] = AttackOption(name, shape, on_hit, after, what, offer)
    return opt


def on_vanquish(fn: Callable | None = None, *, reads: str | tuple = ()):
    """Register what a blow that vanquishes a creature does afterwards for whoever struck it, the attacker or the
    target hitting back: ``fn(ctx, kill)`` (a ``Kill``)."""
    return _registrar(ON_VANQUISH, fn, reads)


def conjured_weapon(fn: Callable | None = None, *, reads: str | tuple = ()):
    """Register a weapon a condition provides: ``fn(reader, who, c, weapon_asked) -> weapon | None``."""
    return _registrar(CONJURED_WEAPONS, fn, reads)


def conjured_names(fn: Callable | None = None, *, reads: str | tuple = ()):
    """Register which conjured weapons a creature has now: ``fn(reader, who) -> [weapon argument]``, each one a
    ``conjured_weapon`` answers to (``"holy weapon"``), so a view lists them among its attacks."""
    return _registrar(CONJURED_NAMES, fn, reads)


def turn_slots(fn: Callable | None = None, *, reads: str | tuple = ()):
    """Register what acts in a creature's turn besides its action, once a turn each (the Holy Weapon's sword):
    ``fn(reader, who) -> [slot]``; a weapon that acts in a slot says so with ``turn_slot``."""
    return _registrar(TURN_SLOTS, fn, reads)


def sightless(fn: Callable | None = None, *, reads: str | tuple = ()):
    """Register who attacks normally without sight: ``fn(reader, attacker, *, ranged) -> bool`` (a Tunnel Fighter
    within its range)."""
    return _registrar(SIGHTLESS, fn, reads)


def damage_reducer(option: str, *, readied_by: str | tuple = ()) -> Callable:
    """Register what comes off incoming damage before armor, asked for with ``option=True`` or readied by a
    condition of a kind in ``readied_by`` (a Dodge declared beforehand): ``fn(ctx, target, raw, asked) ->
    Reduction | None``, asked only then."""
    return lambda fn: DAMAGE_REDUCERS.add(option, fn, readied_by)


def armor_bonus(fn: Callable | None = None, *, reads: str | tuple = ()):
    """Register armor value a condition adds to intact armor: ``fn(reader, who) -> int``."""
    return _registrar(ARMOR_BONUSES, fn, reads)


def heal_guard(fn: Callable | None = None, *, reads: str | tuple = ()):
    """Register what forbids healing: ``fn(reader, who) -> message | None`` (the message refuses it)."""
    return _registrar(HEAL_GUARDS, fn, reads)


def uses(*ability_ids: str, inputs: tuple = (), problem: Callable | None = None,
         records: type | None = None) -> Callable:
    """Register what ``use(who, ability)`` does for these abilities:
    ``fn(ctx, who, d, aid, a, target, opts) -> dict`` (what to record: the fields of ``records``, a
    ``declared.Record``); ``problem(reader, who)``: why it cannot be used now (see ``Handler``)."""
    def register(fn: Callable) -> Callable:
        for aid in ability_ids:
            USES[aid] = Handler(fn, tuple(inputs), problem=problem, records=records)
            USE_RECORDS.add(aid, records)
        return fn
    return register


def spell(*spell_ids: str, inputs: tuple = (), ready: Callable | None = None, records: type | None = None
          ) -> Callable:
    """Register what a spell does, whoever casts it and however it is paid for:
    ``fn(ctx, who, d, spell_id, s, target, opts) -> dict`` (what to record: the fields of ``records``, a
    ``declared.Record``); ``ready`` checks before paying."""
    def register(fn: Callable) -> Callable:
        for sid in spell_ids:
            SPELLS[sid] = Handler(fn, tuple(inputs), ready, records=records)
            SPELL_RECORDS.add(sid, records)
        return fn
    return register


def casting(ability: str, *, via: tuple = (), forced_by: tuple = (), offers: Callable | None = None,
            records: type | None = None) -> Callable:
    """Register the way of casting that comes with class ability ``ability`` (see ``Casting``), and what it records
    on a ``cast`` event beyond the spell's own (``records``: a ``declared.Record``)."""
    def register(fn: Callable) -> Callable:
        CASTINGS[ability] = Casting(ability, fn, tuple(via), tuple(forced_by), offers)
        if records is not None:
            SPELL_RECORDS.also(records)
        return fn
    return register
