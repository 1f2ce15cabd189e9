"""Declared events: every kind of event is a small typed class, its fields and their types, its roles and its
version, written where its command is registered (``engine``'s ``@command``).

A declaration is a ``Record`` (a mapping with declared keys) whose class body lists its fields with their types,
as a dataclass does::

    class Attack(Struck, Action, kind="attack", actor="attacker", targets=("target",)):
        weapon: str
        ammo: Ammo | None = None      # a default: the field may be absent (and reads as the default)

``kind`` registers it (``DECLARED``), ``actor`` and ``targets`` are its roles (``roles.Roles``: the engine writes
``actor``, ``targets`` and ``sides`` on the event from them), ``class_version`` is the version it writes, and an
event written by an older version is read through ``upcast_v1_v2``, ``upcast_v2_v3``... on its class (as
eventsourcing's domain events), each given the event and the state just before it.

A declaration is used three ways:

- ``problem(event)``: what in an event its declaration does not allow (a field undeclared, a value of another
  type, a required field missing), as (field, reason): the writer checks every event before it appends it;
- ``upcast(event, state_before)``: an event of an older version in today's (the reader);
- ``view(event)``: the event read through its class (``Attack(event).weapon``, ``.damage[0].dealt``): readers
  read declared fields, never keys by string, and a field that does not exist is an AttributeError.

Types: ``str`` (a name or an id: a category column), ``Text`` (words: a text column), ``Chance`` (an exact
chance as text, ``"61/96"``), ``int``, ``bool``, ``float``, ``list[T]``, ``dict[str, T]``, ``Literal[...]``,
``X | None``, another ``Record``, ``Any``. Standard library only: part of the pure core.
"""

from __future__ import annotations

import sys
import types
import typing
from types import MappingProxyType
from typing import Any, ClassVar, Iterator, Literal, Mapping, Union

from .roles import KEEPER, KEEPERS, SIDES, Roles, fill
from .typed import Chance, Text, record_problem, type_name

__all__ = ["Text", "Chance", "Side", "Field", "field", "Record", "Event", "Action", "Ended", "LuckSpent", "Override",
           "AskedBy", "Rolled", "LuckDieRolled", "DECLARED", "declaration", "declared_kind", "forget", "view",
           "problem", "upcast", "version_of", "reading", "Variants", "extend", "BASE_VERSION", "rename", "Read",
           "ROLE"]

Side = Literal["party", "foes", "creatures", "keeper", "hazard"]
assert typing.get_args(Side) == SIDES

ROLE = "-"
"""``field(column=ROLE)``: a field the frames say in their roles' columns (``actor``, ``target``), not a column of
its own (an attack's ``target``, a name the event's ``targets`` hold too)."""

BASE_VERSION = 2
"""The version of a kind that has not changed since the format that named every event's roles (the first was 1)."""

_MISSING = object()
_reads: set | None = None  # while ``reading()`` runs: every (declaration, field) read through a view


class Field:
    """One declared field of a record: its key in the mapping (``key``; read as the attribute ``attr``, the same
    but for a key that is a Python word: ``from``), its type (``annotation``, resolved when first needed), whether
    it may be absent (``default`` given: what reading an absent one gives) and the column it makes in a frame
    (``column``: its name there, when the key is no good name in SQL)."""

    __slots__ = ("name", "attr", "owner", "annotation", "default", "required", "column", "_type", "_wrap")

    def __init__(self, default: Any = _MISSING, column: str | None = None, key: str | None = None):
        self.name = key or ""
        self.attr = ""
        self.owner: type | None = None
        self.annotation: Any = None
        self.default = None if default is _MISSING else default
        self.required = default is _MISSING
        self.column = column
        self._type: Any = _MISSING
        self._wrap: Any = _MISSING

    def copy(self) -> "Field":
        f = Field(_MISSING if self.required else self.default, self.column)
        f.name, f.attr, f.owner, f.annotation = self.name, self.attr, self.owner, self.annotation
        return f

    @property
    def type(self) -> Any:
        if self._type is _MISSING:
            self._type = _resolve(self.owner, self.name, self.annotation)
        return self._type

    def read(self, obj: Any) -> Any:
        """The field's value in ``obj`` (a view), as reading the attribute gives it."""
        return getattr(obj, self.attr)

    def install(self, cls: type) -> None:
        """Make the field readable as an attribute of ``cls``'s views (a property, set on ``cls``)."""
        try:
            self.type  # resolved now if its names are defined already; else on the first read
        except TypeError:
            pass
        setattr(cls, self.attr, _reader(self, cls))

    def __repr__(self) -> str:
        owner = self.owner.__name__ if self.owner is not None else "?"
        return f"<field {owner}.{self.name}: {type_name(self.type)}{'' if self.required else ' (may be absent)'}>"


class Read(property):
    """A declared field as an attribute of a view: a read-only property; ``field`` is its declaration."""

    field: Field


def _reader(f: Field, home: type) -> Read:
    """The property reading ``f`` (its value wrapped in its record where it holds one): the plainest that fits, made
    once its type is known (a read meanwhile resolves it and puts the plain one on ``home`` in its place)."""
    key, default = f.name, f.default
    if f._type is _MISSING:
        def read(self: Any) -> Any:
            f._type = _resolve(f.owner, f.name, f.annotation)
            setattr(home, f.attr, _reader(f, home))
            return getattr(self, f.attr)
    else:
        f._wrap = wrap = _wrapper(f._type)
        if wrap is None:
            def read(self: Any) -> Any:
                if _reads is not None:
                    _reads.add((type(self), key))
                return self._data.get(key, default)
        else:
            def read(self: Any) -> Any:
                if _reads is not None:
                    _reads.add((type(self), key))
                value = self._data.get(key, _MISSING)
                return default if value is _MISSING else wrap(value)
    prop = Read(read, doc=f"{f.owner.__name__ if f.owner else ''}.{f.name}")
    prop.field = f
    return prop


def field(default: Any = _MISSING, *, column: str | None = None, key: str | None = None) -> Any:
    """A field with options: ``x: int = field(0, column="x_count")`` (a default makes it optional);
    ``from_: str = field(key="from")``: the key a Python word cannot name."""
    return Field(default, column, key)


def _resolve(owner: type | None, name: str, annotation: Any) -> Any:
    if not isinstance(annotation, str):
        return annotation
    module = sys.modules.get(owner.__module__) if owner is not None else None
    scope = {"Any": Any, "Literal": Literal, "Text": Text, "Chance": Chance, "Side": Side}
    scope.update(vars(module) if module is not None else {})
    try:
        return eval(annotation, scope)  # noqa: S307 - a declaration's own annotation, in its own module
    except Exception as err:
        raise TypeError(f"{owner.__qualname__ if owner else '?'}.{name}: cannot read its type {annotation!r} "
                        f"({err}): a record it names must be defined (or imported) in its module") from None


# ---------------------------------------------------------------- records

class Record:
    """A mapping with declared keys, read through its fields (``Record(mapping).field``). ``OPEN``: keys beyond
    the declared ones are allowed (the writer checks only those declared)."""

    __slots__ = ("_data",)
    FIELDS: ClassVar[dict[str, Field]] = {}
    OPEN: ClassVar[bool] = False

    def __init__(self, data: Mapping):
        self._data = data

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields: dict[str, Field] = {}
        for base in reversed(cls.__mro__[1:]):
            fields.update(getattr(base, "FIELDS", {}))
        for name, annotation in cls.__dict__.get("__annotations__", {}).items():
            if name.isupper() or name.startswith("_") or "ClassVar" in str(annotation):
                continue
            value = cls.__dict__.get(name, _MISSING)
            f = value if isinstance(value, Field) else Field(value)
            f.name, f.attr, f.owner, f.annotation = f.name or name, name, cls, annotation
            f.install(cls)
            fields[f.name] = f
        cls.FIELDS = fields

    @property
    def data(self) -> Mapping:
        """The mapping read (the event as it is in the log)."""
        return self._data

    def __repr__(self) -> str:
        return f"{type(self).__name__}({dict(self._data)!r})"

    def __eq__(self, other: Any) -> bool:
        return type(other) is type(self) and other._data == self._data

    __hash__ = None  # type: ignore[assignment]


def _record_type(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, Record)


def _wrapper(tp: Any):
    """How a field's raw value is read: wrapped in its record (or a tuple of them, a dict of them); None: as it is.
    A value of another shape (a line a hand broke) is given as it is."""
    if _record_type(tp):
        return lambda v: tp(v) if v.__class__ is dict else v
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (Union, types.UnionType):
        arms = [a for a in args if a is not type(None)]
        if len(arms) == 1:
            return _wrapper(arms[0])
        inner = [a for a in arms if _record_type(a)]
        if inner:
            first = inner[0]
            return lambda v: first(v) if v.__class__ is dict else v
        return None
    if origin is list and args and _record_type(args[0]):
        item = args[0]
        return lambda v: tuple([item(x) if x.__class__ is dict else x for x in v]) if v.__class__ is list else v
    if origin is list and args and _wrapper(args[0]) is not None:
        wrap = _wrapper(args[0])
        return lambda v: tuple([wrap(x) for x in v]) if v.__class__ is list else v
    if origin is dict and len(args) == 2 and _wrapper(args[1]) is not None:
        wrap = _wrapper(args[1])
        return lambda v: {k: wrap(x) for k, x in v.items()} if v.__class__ is dict else v
    return None


# ---------------------------------------------------------------- events

class Event(Record):
    """What every event holds: its place in the log, its kind and version, when it happened (the game clock and
    the session; the fight and its round during one), who did what to whom (``roles``), and when it was recorded
    (``ts``, the wall clock) and whose request it answers (``asked_by``). Declared with ``kind=``, a class is
    registered as that kind's declaration; ``actor`` and ``targets`` are its roles."""

    KIND: ClassVar[str] = ""
    roles: ClassVar[Roles] = KEEPERS
    class_version: ClassVar[int] = BASE_VERSION

    seq: int
    kind: str
    v: int
    at: int = field(column="clock")
    session: int
    encounter: int | None = None
    round: int | None = None
    actor: str
    targets: list[str]
    sides: dict[str, Side]
    ts: Text | None = None
    asked_by: AskedBy | None = None

    def __init_subclass__(cls, kind: str | None = None, actor: Any = None, targets: tuple = (), **kwargs: Any):
        super().__init_subclass__(**kwargs)
        if actor is not None or targets:
            cls.roles = Roles(actor, targets)
        variants = cls.__dict__.get("VARIANTS")
        if variants is not None:
            cls.OWN_FIELDS = frozenset(cls.FIELDS)
            variants.bind(cls)
        if kind is not None:
            cls.KIND = kind
            if actor is None and not targets:
                cls.roles = KEEPERS
            known = DECLARED.get(kind)
            if known is not None and known.__qualname__ != cls.__qualname__:
                raise TypeError(f"the event kind {kind!r} is declared twice: {known.__module__}.{known.__qualname__} "
                                f"and {cls.__module__}.{cls.__qualname__}")
            DECLARED[kind] = cls

    @classmethod
    def upcast_v1_v2(cls, event: dict, state_before: Mapping) -> dict:
        """Version 1 named no roles: version 2 adds ``actor``, ``targets`` and ``sides`` from the class's roles
        (``roles.fill``, the very step the engine takes as it decides an event), names the dealer of every damage
        and healing entry in ``by`` and keeps in ``source`` only what dealt it (v1 wrote both in one text:
        ``"Brakka (Sword)"``, ``"Bog goblin 2 (Spear, counter)"``, ``"Ilse (Magic Missile, dart 2)"``). Exact,
        because it sees the state the event was decided on; nothing it changes is folded."""
        by_hand = cls.BY_HAND
        who = [event.get("attacker"), event.get("who")]
        damage = event.get("damage")
        if isinstance(damage, list):
            event["damage"] = [_dealt_by(d, "target", who, by_hand) for d in damage]
        counter = event.get("counter")
        if isinstance(counter, dict) and isinstance(counter.get("damage"), Mapping):
            counter["damage"] = _dealt_by(counter["damage"], "target", [counter.get("by")], False, ", counter")
        healing = event.get("healing")
        if isinstance(healing, list):
            event["healing"] = [_dealt_by(h, "who", [event.get("who")], by_hand) for h in healing]
        return fill(event, cls.roles, state_before)

    BY_HAND: ClassVar[bool] = False
    """The keeper's own damage or healing: v1's entries were by the keeper, in the keeper's words."""


class Ended(Record):
    """A condition an event ended, and why."""

    id: int
    kind: str
    who: str
    why: Text


class LuckSpent(Record):
    """A luck die an action was re-run with: whose, on which roll, added (+1) or taken away (-1), its face."""

    player: str
    roll: str
    sign: int
    face: int


class Override(Record):
    """The keeper's override of the table's rules of play: why, and each refusal it waived."""

    reason: Text
    waived: list[Text]


class AskedBy(Record):
    """The player whose request from their own device the keeper accepted, and the request's number."""

    player: str
    request: int


class LuckDieRolled(Record):
    """A luck die on a roll: its sides and face, added (+1) or taken away (-1), whose it was."""

    sides: int
    face: int
    sign: int
    who: str | None = None


class Rolled(Record):
    """A roll as an event records it (``dice.Roll.to_dict``): its notation, every face, the total; with luck dice,
    the total before them and each die; who rolled it and why."""

    expr: str
    faces: list[int]
    total: int
    base_total: int | None = None
    luck: list[LuckDieRolled] = field(())
    who: str | None = None
    why: Text | None = None


class Action(Event):
    """An event a command made (anything but undo and redo): its arguments, the rolls with their faces, the exact
    changes it made to the state, and what re-ran it (``replaces`` the action it took the place of: a luck die,
    real dice typed, a choice on the hit); the keeper's override; the conditions it ended."""

    args: dict[str, Any]
    rolls: dict[str, Rolled] = field(MappingProxyType({}))
    changes: list
    replaces: int | None = None
    luck: LuckSpent | None = None
    amended: list[str] = field(())
    on_hit: str | None = None
    keeper_override: Override | None = None
    conditions_ended: list[Ended] = field(())



def rename(event: dict, old: str, new: str) -> None:
    """Rename a field of ``event`` in place, keeping its place among the others (an upcaster's step)."""
    items = [(new if k == old else k, v) for k, v in event.items()]
    event.clear()
    event.update(items)


def _dealt_by(entry: Any, anchor: str, candidates: list, by_hand: bool, suffix: str = "") -> Any:
    """A v1 damage or healing entry with its dealer in ``by`` (after ``anchor``, as the engine writes it) and
    ``source`` reduced to what dealt it: v1 wrote ``"NAME (WHAT)"``, NAME one of ``candidates``."""
    if not isinstance(entry, Mapping) or "by" in entry:
        return entry
    source = entry.get("source")
    names = [c for c in candidates if isinstance(c, str)]
    by = KEEPER if by_hand or not names else names[0]
    if not by_hand and isinstance(source, str):
        for name in names:
            if source.startswith(name + " (") and source.endswith(")"):
                by, what = name, source[len(name) + 2:-1]
                dart = entry.get("dart")
                for tail in (suffix, f", dart {dart}" if dart is not None else ""):
                    if tail and what.endswith(tail):
                        what = what[:-len(tail)]
                source = what
                break
    out = {}
    for k, v in entry.items():
        out[k] = source if k == "source" else v
        if k == anchor:
            out["by"] = by
    if "by" not in out:
        out["by"] = by
    return out


# ---------------------------------------------------------------- variants: what an ability or a spell adds

class Variants:
    """The fields one event kind gains from what plugs into it, chosen by one of its fields (``key``): each spell's
    record on ``cast`` (by ``spell``), each ability's on ``use`` (by ``ability``). ``add(value, record)``: what an
    event whose key holds ``value`` may add (None: nothing beyond the event's own); ``also(record)``: what any of
    them may add (a way of casting); ``default``: what one whose value has no record of its own may add (a
    campaign's own ability). Each record's fields become fields of the event that may be absent (only the variant
    that made an event writes them; a field two variants declare with different types reads as their union), and
    ``problem`` checks an event against its own variant's fields."""

    def __init__(self, key: str, default: type | None = None):
        self.event: Any = None  # the event class whose body says ``VARIANTS = ...`` (bound as it is declared)
        self.key = key
        self.records: dict[str, type | None] = {}
        self.shared: list[type] = []
        self.default = default
        _VARIANTS.append(self)

    def add(self, value: str, record: type | None = None) -> None:
        self.records[value] = record
        self._merge(record)

    def also(self, record: type) -> None:
        self.shared.append(record)
        self._merge(record)

    def bind(self, event: type) -> None:
        self.event = event
        for record in [self.default, *self.shared, *self.records.values()]:
            self._merge(record)

    def _merge(self, record: type | None) -> None:
        if record is not None and self.event is not None:
            _merge(self.event, record)
            _spread(self.event)

    def allowed(self, value: Any) -> frozenset:
        """The fields an event whose key holds ``value`` may hold: the event's own, the shared ones, its record's."""
        record = self.records[value] if isinstance(value, str) and value in self.records else self.default
        names = set(self.event.OWN_FIELDS)
        for r in [*self.shared, record]:
            if r is not None:
                names |= set(r.FIELDS)
        return frozenset(names)

    def record(self, value: Any) -> type | None:
        return self.records.get(value, self.default) if isinstance(value, str) else self.default


_VARIANTS: list[Variants] = []


def _merge(cls: type, record: type) -> None:
    """Add ``record``'s fields to ``cls`` (and the classes made from it) as fields that may be absent; a field it
    already has of another type reads the union."""
    for target in [cls, *_subclasses(cls)]:
        fields = dict(target.FIELDS)
        for name, f in record.FIELDS.items():
            known = fields.get(name)
            if known is None:
                g = f.copy()
                g.required = False
                g.install(target)
                fields[name] = g
            elif known.type != f.type and _union(known.type, f.type) != known.type:
                merged = known.copy()
                merged.annotation = merged._type = _union(known.type, f.type)
                merged.install(target)
                fields[name] = merged
        target.FIELDS = fields


def _spread(cls: type) -> None:
    """After ``cls`` gained fields: every event a variant made from it (or from a class made from it) plugs into
    gains them too."""
    for variants in _VARIANTS:
        if variants.event is None:
            continue
        for rec in [variants.default, *variants.shared, *variants.records.values()]:
            if rec is not None and issubclass(rec, cls) and rec is not variants.event:
                _merge(variants.event, rec)
                _spread(variants.event)
                break


def _subclasses(cls: type) -> list[type]:
    out = []
    for sub in cls.__subclasses__():
        out += [sub, *_subclasses(sub)]
    return out


def extend(cls: type, record: type) -> None:
    """What plugs into a record adds its own fields to it, declared where it plugs in: ``extend(Struck, Smited)``
    (a fighter's smite writes ``smite`` on the attack it rides). Every class made from ``cls``, and every event a
    variant made from one plugs into, gains them too (as fields that may be absent)."""
    _merge(cls, record)
    _spread(cls)


def _union(a: Any, b: Any) -> Any:
    arms = []
    for t in (a, b):
        for arm in (typing.get_args(t) if typing.get_origin(t) in (Union, types.UnionType) else (t,)):
            if arm not in arms:
                arms.append(arm)
    return Union[tuple(arms)]


# ---------------------------------------------------------------- the registry

DECLARED: dict[str, type[Event]] = {}
"""Every declared kind of event, by kind: registered where each is declared (``class X(Action, kind=...)``)."""


def declaration(kind: Any) -> type[Event] | None:
    """The class declaring events of ``kind``, or None."""
    return DECLARED.get(kind) if isinstance(kind, str) else None


def declared_kind(kind: str) -> type[Event]:
    """The class declaring ``kind``; KeyError naming the kinds declared when there is none."""
    cls = DECLARED.get(kind)
    if cls is None:
        raise KeyError(f"no event of kind {kind!r} is declared (declared: {', '.join(sorted(DECLARED))})")
    return cls


def forget(kind: str) -> None:
    """Take a declaration back (a test's own command, when the test ends)."""
    DECLARED.pop(kind, None)


def version_of(kind: Any) -> int:
    """The version events of ``kind`` are written in today (a kind no one declares: the base version)."""
    cls = DECLARED.get(kind) if isinstance(kind, str) else None
    return cls.class_version if cls is not None else BASE_VERSION


def view(event: Mapping) -> Event:
    """``event`` read through its kind's declaration (an undeclared kind: through ``Event``, its frame alone)."""
    cls = DECLARED.get(event.get("kind")) if isinstance(event.get("kind"), str) else None
    return (cls or Event)(event)


def problem(event: Any) -> tuple[str | None, str] | None:
    """What in ``event`` its declaration does not allow, as (field, reason); None when it holds. A kind no class
    declares is itself the problem."""
    if not isinstance(event, dict):
        return None, f"an event is a mapping, got {type(event).__name__}"
    kind = event.get("kind")
    cls = DECLARED.get(kind) if isinstance(kind, str) else None
    if cls is None:
        return "kind", f"{kind!r} is not a declared kind of event (declared: {', '.join(sorted(DECLARED))})"
    found = record_problem(event, cls)
    if found is not None:
        return found[0], f"{kind}: {found[1]}"
    variants = cls.__dict__.get("VARIANTS")
    if variants is not None:
        value = event.get(variants.key)
        allowed = variants.allowed(value)
        for name in event:
            if name not in allowed:
                record = variants.record(value)
                said = f"{record.__module__}.{record.__qualname__}" if record is not None else "nothing more"
                return name, (f"{kind}: the {variants.key} {value!r} declares no {name} (its record: {said}; see "
                              f"where it is registered)")
    return None


def upcast(event: dict, state_before: Mapping) -> dict:
    """``event`` in the version its kind writes today, through its class's upcasters in turn (``upcast_v1_v2``,
    then ``upcast_v2_v3``...), each given the state just before the event; changed in place and returned. An
    event already in today's version, or of a version this delvebook does not know (the reader refuses those),
    is returned as it is; an old event a hand has broken is upcast as far as it can be, never refused here."""
    v = event.get("v", 1)
    kind = event.get("kind")
    cls = (DECLARED.get(kind) if isinstance(kind, str) else None) or Event
    if v.__class__ is not int or not 1 <= v < cls.class_version:
        return event
    while v < cls.class_version:
        step = getattr(cls, f"upcast_v{v}_v{v + 1}")
        v += 1
        event["v"] = v  # (first: the frame keeps its order, v after kind)
        event = step(event, state_before)
    return event


class reading:
    """``with reading() as seen:`` every (declaration, field) read through a view meanwhile is in ``seen``: what a
    reader (a teller) reads of the events it is given."""

    def __enter__(self) -> set:
        global _reads
        self._outer = _reads
        _reads = set() if _reads is None else _reads
        return _reads

    def __exit__(self, *exc: Any) -> None:
        global _reads
        _reads = self._outer


def fields_of(cls: type) -> Iterator[Field]:
    """A record's declared fields, in order."""
    return iter(cls.FIELDS.values())

