"""What every command shares: the context it runs in, refusals, rolls, and lookups.

A command is a function ``(ctx, **args)`` registered with ``@command(Event)``, where ``Event`` is the class that
declares the event it makes, written just above it (``core.declared``): its kind, its fields and their types, its
roles (who acts, whom it is aimed at: the engine writes them on the event) and its version. It reads the state,
rolls through ``ctx.roll`` (so every face is recorded, and a re-run can reuse them), changes the state only through
``ctx.set`` (so every change is recorded as ``[path, value]``), and writes what happened in the game's words with
``ctx.out(field=...)``, each field one its declaration names (the writer checks the event against it before it is
appended). A command that cannot be done calls ``ctx.refuse``: nothing is changed.

Standard library only: part of the pure core.
"""

from __future__ import annotations

import inspect
import random
from types import MappingProxyType
from typing import Any, Callable, Mapping, NamedTuple

from ..core.declared import Action
from ..core.dice import DiceError, Roll, parse
from ..core.events import apply_changes, clone, get_path, revert
from ..core.model import combatant, is_dead, is_dying
from ..core.rules import PROVENANCE_KEYS, Rules

__all__ = ["Refused", "Overridable", "Invalid", "Reader", "Ctx", "Play", "command", "COMMANDS", "data_items",
           "path_in"]

COMMANDS: dict[str, Callable] = {}
"""Every command by the kind of event it makes (its declaration: ``fn.event``)."""


class Refused(ValueError):
    """A command the rules do not allow, with a message a keeper understands. Nothing was changed."""


class Overridable(Refused):
    """A refusal by a rule of play the keeper may override (the turn economy, ammunition, reloading): the same
    command with ``keeper_override="why"`` waives it and records why. A view offers the override only for these."""


class Invalid(Refused):
    """A refusal of something typed (a foe type, a roll table, a delver's hearts) that names the ``field`` it is
    about, as the one schema names it (``hearts``, ``entries[2].range``), so a form shows it next to that field."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field

    def __reduce__(self):
        return (type(self), (str(self), self.field))


class Takes(NamedTuple):
    """What a command takes by name: its parameters and the options it declares (in order, and as a set), the ones
    it needs, and whether it reads and checks its own (``**options`` and no declaration)."""

    order: tuple
    names: frozenset
    required: frozenset
    open_ended: bool


def command(event: type[Action], *, options: tuple[str, ...] | None = None):
    """Register ``fn`` as the command that makes ``event`` (an ``Action`` declared with its ``kind``, its fields,
    its roles and its version: ``core.declared``). ``options``: the keywords it takes in ``**options`` beyond its
    parameters (what classes bring to it: ``smite=True``, ``focus=True``), each answered by a hook in ``effects``;
    anything else is refused before the command runs. None: the command reads and checks its own (an ability's
    inputs, an item's details)."""
    if not (isinstance(event, type) and issubclass(event, Action) and event.KIND):
        raise TypeError(f"a command names the event it makes: a class declared as Action(kind=...), not {event!r}")
    kind = event.KIND

    def register(fn: Callable) -> Callable:
        params = list(inspect.signature(fn).parameters.values())[1:]  # after ctx
        named = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        order = tuple(named) + tuple(options or ())
        fn.kind = kind  # type: ignore[attr-defined]
        fn.event = event  # type: ignore[attr-defined]
        fn.options = None if options is None else tuple(options)  # type: ignore[attr-defined]
        fn.takes = Takes(order, frozenset(order),  # type: ignore[attr-defined]
                         frozenset(p.name for p in params if p.name in named and p.default is p.empty),
                         options is None and any(p.kind == p.VAR_KEYWORD for p in params))
        COMMANDS[kind] = fn
        return fn
    return register


def data_items(mapping: Mapping):
    """(key, value) pairs of a rules mapping, without its provenance keys."""
    for k, v in mapping.items():
        if k not in PROVENANCE_KEYS:
            yield k, v


_NONE: Mapping = MappingProxyType({})


def path_in(side: str, name: str) -> list:
    """Where a combatant of ``side`` (``Reader.combatant``'s first answer) sits in the state."""
    if side == "delver":
        return ["delvers", name]
    if side == "foe":
        return ["encounter", "foes", name]
    return ["creatures", name]


class Reader:
    """The state and the rules, read and never changed: the lookups every rule and every question needs.

    Queries (``engine.queries``) work on a Reader; a command's ``Ctx`` is a Reader that may also change the
    state and roll, so a question a view asks and the command that acts on it run the same code."""

    def __init__(self, state: dict, rules: Rules):
        self.state = state
        self.rules = rules
        self.core: Mapping = rules.core  # the core numbers, read by every rule (the Rules never change)

    def refuse(self, message: str):
        raise Refused(message)

    def invalid(self, problems: list, what: str = "") -> None:
        """Refuse the first of ``problems`` (the schema's ``Problem``s, paths from the top of what was typed) as an
        ``Invalid`` naming its field; nothing when there are none."""
        if problems:
            from ..core.rules.schema import field_name
            first = problems[0]
            field = field_name(first.path) or None
            raise Invalid(f"{what}{field + ': ' if field else ''}{first.reason}", field)

    def delver(self, name: str) -> dict:
        d = self.state["delvers"].get(name)
        if d is None:
            known = ", ".join(self.state["seats"]) or "none yet"
            self.refuse(f"there is no delver named {name!r} (the party: {known})")
        if d.get("retired"):
            self.refuse(f"{name} has retired from the table (kept in the history; undo brings them back)")
        return d

    def foe(self, name: str) -> dict:
        enc = self.state["encounter"]
        if enc is None or name not in enc["foes"]:
            known = ", ".join(enc["foes"]) if enc else "no encounter is running"
            self.refuse(f"there is no foe named {name!r} ({known})")
        return enc["foes"][name]

    def combatant(self, name: str) -> tuple[str, dict]:
        """("delver" | "foe" | "creature", data) for a name in the party, the current encounter, or the named
        creatures (NPCs, familiars)."""
        found = combatant(self.state, name)
        if found is not None and found[1].get("retired"):
            self.refuse(f"{name} has retired from the table (kept in the history; undo brings them back)")
        if found is None:
            enc = self.state["encounter"]
            party = ", ".join(self.state["delvers"]) or "none"
            foes = ", ".join(enc["foes"]) if enc else "no encounter"
            others = ", ".join(self.state.get("creatures", {}))
            self.refuse(f"no one named {name!r} is here (party: {party}; foes: {foes}"
                        + (f"; others: {others}" if others else "") + ")")
        return found

    def path_of(self, name: str) -> list:
        return path_in(self.combatant(name)[0], name)

    def require_able(self, name: str, doing: str) -> dict:
        """The combatant, refusing if it is dead or dying."""
        return self.able_combatant(name, doing)[1]

    def able_combatant(self, name: str, doing: str) -> tuple[str, dict]:
        """(side, combatant) as ``combatant`` answers, refusing as ``require_able`` does."""
        found = self.combatant(name)
        c = found[1]
        if is_dead(c):
            self.refuse(f"{name} is dead and cannot {doing}")
        if is_dying(c):
            self.refuse(f"{name} is dying and must make a death save before anything else")
        return found

    def require_living(self, name: str, doing: str) -> tuple[str, dict]:
        """(side, combatant), refusing if it is dead (the dying may still be the target of some things)."""
        side, c = self.combatant(name)
        if is_dead(c):
            self.refuse(f"{name} is dead and cannot {doing}")
        return side, c

    def conditions(self, who: str | None = None, kind: str | None = None) -> list[dict]:
        return [c for c in self.state["conditions"]
                if (who is None or c["who"] == who) and (kind is None or c["kind"] == kind)]

    def class_abilities(self, c: Mapping) -> Mapping:
        """A delver's class abilities by id (a foe has none), read-only."""
        if "class_id" not in c:
            return _NONE
        return self.rules.abilities(c["class_id"])


class Ctx(Reader):
    """One command being decided on the live state; changes are undone if it is refused."""

    records = True  # what it changed, rolled and said becomes an event (``Play``: nothing is recorded)

    def __init__(self, state: dict, rules: Rules, rng: random.Random, kind: str, args: dict,
                 faces: Mapping[str, Any] | None = None, recorded: Mapping[str, dict] | None = None,
                 extra_luck: Mapping[str, list] | None = None):
        Reader.__init__(self, state, rules)
        self.rng = rng
        self.kind = kind
        self.args = args
        self.faces = dict(faces) if faces else {}
        self.recorded = recorded or {}
        self.extra_luck = extra_luck or {}
        self.changes: list = []
        self._olds: list = []  # what each of ``changes`` replaced (``apply_changes``), for ``rollback``
        self.rolls: dict[str, dict] = {}
        self.roll_objects: dict[str, Roll] = {}
        self.fields: dict[str, Any] = {}
        self.used: set[str] = set()  # once-an-action options already used (a Dodge paid on the first hit)
        self.override: str | None = None  # the keeper's reason for overriding the table's rules on this action
        self.waived: list[str] = []       # what the override let through (each refusal it waived)

    def refuse_unless_overridden(self, message: str) -> bool:
        """A rule of play the keeper may override (the turn economy, ammunition, reloading): refused, unless this
        action carries a keeper's override, in which case it is waived and recorded. True if it was waived."""
        if self.override is None:
            raise Overridable(message)
        if message not in self.waived:
            self.waived.append(message)
        return True

    # ---- state
    def set(self, path: list, value: Any) -> None:
        path = list(path)
        value = clone(value)
        change = [path, value]
        self._olds += apply_changes(self.state, (change,))
        self.changes.append(change)

    def update(self, path: list, new: dict) -> None:
        """Make the mapping at ``path`` (a delver's sheet) ``new``, recorded as one change for each field that
        differs, so that the event says what it changed (not the whole sheet again); as one change of the
        whole mapping when a field of it is gone."""
        node = get_path(self.state, path)
        if node.__class__ is not dict or any(k not in new for k in node):
            self.set(path, new)
            return
        for k, v in new.items():
            if k not in node or node[k] != v:
                self.set([*path, k], v)

    def append(self, path: list, value: Any) -> None:
        """Add ``value`` at the end of the list at ``path`` (recorded as one small change)."""
        node = self.state
        for key in path:
            node = node[key]
        self.set(list(path) + [len(node)], value)

    def rollback(self) -> None:
        revert(self.state, self.changes, self._olds)
        self._olds.clear()

    def out(self, **fields: Any) -> None:
        """Record what happened, in the game's words (shown in the log and read by analysis)."""
        for k, v in fields.items():
            self.fields[k] = clone(v)

    # ---- dice
    def roll(self, name: str, expr: str, who: str | None = None, why: str | None = None) -> Roll:
        """Roll ``expr`` and record it under ``name`` (made unique: name, name#2, ...).

        Faces typed by the keeper for this name win; a re-run reuses the recorded faces; otherwise
        the campaign's seeded RNG rolls."""
        key = name
        n = 2
        while key in self.rolls:
            key = f"{name}#{n}"
            n += 1
        try:
            e = parse(expr)
        except DiceError as err:
            self.refuse(f"{why or name}: {err}")
        if key in self.faces:
            typed = self.faces.pop(key)
            typed = typed if isinstance(typed, (list, tuple)) else [typed]
            try:
                r = e.roll(faces=list(typed), who=who, why=why)
            except DiceError as err:
                self.refuse(f"faces typed for {key}: {err}")
        elif key in self.recorded:
            rec = self.recorded[key]
            if rec.get("expr") != e.text:
                r = e.roll(self.rng, who=who, why=why)  # the situation changed: roll afresh
            else:
                r = e.roll(faces=rec["faces"], who=who, why=why)
                for l in rec.get("luck", ()):
                    r = r.with_luck(l["sign"], face=l["face"], who=l.get("who"), sides=l["sides"])
        else:
            r = e.roll(self.rng, who=who, why=why)
        for l in self.extra_luck.get(key, ()):
            r = r.with_luck(l.sign, face=l.face, who=l.who, sides=l.sides)
        self.rolls[key] = r.to_dict()
        self.roll_objects[key] = r
        return r

    def check_faces_used(self) -> None:
        if self.faces:
            names = ", ".join(sorted(self.faces))
            self.refuse(f"faces were typed for rolls this action does not make: {names} "
                        f"(it rolls: {', '.join(self.rolls) or 'nothing'})")

    # ---- conditions
    def add_condition(self, kind: str, who: str, source: str | None = None, *, duration: str | None = None,
                      ends_on: str | None = None, ends_when: list[str] | None = None, **data: Any) -> dict:
        """A condition: who has it, from whom, when it started and when it ends.

        ``duration`` (minute, hour, day, round) sets an end time on the game clock; ``ends_on`` is
        ``"rest"`` or ``"turn:NAME"`` (the start of NAME's next turn); ``ends_when`` lists actions that end
        it early (``attack``, ``cast``)."""
        cid = self.state["next_condition"]
        cond = {"id": cid, "kind": kind, "who": who, "source": source, "start": self.state["clock"],
                "ends_at": (self.state["clock"] + self.rules.duration_seconds(duration)) if duration else None,
                "ends_on": ends_on, "ends_when": list(ends_when or []), "data": data}
        self.set(["next_condition"], cid + 1)
        self.append(["conditions"], cond)
        return cond

    def end_conditions(self, keep: Callable[[dict], bool], why: str) -> list[dict]:
        """Remove every condition for which ``keep`` is false; record which ended and why."""
        if not self.state["conditions"]:  # (asked at every turn and blow: most often there is none)
            return []
        ended = [c for c in self.state["conditions"] if not keep(c)]
        if ended:
            self.set(["conditions"], [c for c in self.state["conditions"] if keep(c)])
            prior = self.fields.get("conditions_ended", [])
            self.out(conditions_ended=prior + [{"id": c["id"], "kind": c["kind"], "who": c["who"], "why": why}
                                               for c in ended])
        return ended

    def end_on_action(self, who: str, action: str) -> None:
        """End conditions on ``who`` that this action ends early (Invisibility ends on an attack or a cast)."""
        if self.state["conditions"]:
            self.end_conditions(lambda c: not (c["who"] == who and action in c["ends_when"]), f"{who} {action}s")

    def advance_clock(self, seconds: int) -> None:
        now = self.state["clock"] + seconds
        self.set(["clock"], now)
        self.end_conditions(lambda c: c["ends_at"] is None or c["ends_at"] > now, "time ran out")

    # ---- resources
    def spend(self, who: str, resource: str, amount: int, what: str) -> None:
        d = self.delver(who)
        have = d["resources"].get(resource)
        if have is None:
            self.refuse(f"{who} has no {resource.replace('_', ' ')} to spend on {what}")
        if have < amount:
            self.refuse(f"{who} has {have} {resource.replace('_', ' ')}; {what} needs {amount}")
        self.set(["delvers", who, "resources", resource], have - amount)


class Play(Ctx):
    """A command played on a plain state for a simulation (the danger forecast): the same rules, but each change
    is made in place and kept, and nothing is recorded (no change list, no inverse, no clones of numbers, no roll
    records, no copies of the words said). A journal puts the state back if the command is refused (or on
    ``rollback``). A re-run (``recorded`` faces and ``extra_luck``: a death save lifted by a luck die) reads the
    faces back as ``Ctx.roll`` does, so it is played as ``Engine.decide_luck`` plays it, still recording nothing;
    faces typed take ``Ctx``'s own path."""

    records = False
    faces = recorded = extra_luck = rolls = _NONE  # (read-only and empty unless a re-run sets its own)
    override = None

    def __init__(self, state: dict, rules: Rules, rng: random.Random, kind: str, args: dict,
                 faces: Mapping[str, Any] | None = None, recorded: Mapping[str, dict] | None = None,
                 extra_luck: Mapping[str, list] | None = None):
        if faces:  # typed faces: ``Ctx``'s own roll path, which checks and records them
            Ctx.__init__(self, state, rules, rng, kind, args, faces, recorded, extra_luck)
        else:  # only what a simulated command reads or adds to (no inverse, no roll records, no copies)
            self.state = state
            self.rules = rules
            self.core = rules.core
            self.rng = rng
            self.kind = kind
            self.args = args
            self.changes = []  # (stays empty; ``faces``, ``recorded``, ``extra_luck``, ``rolls``: the class's, empty)
            self.roll_objects = {}
            self.fields = {}
            self.used = set()
            self.waived = []
            if recorded or extra_luck:  # a re-run: the faces read back in ``roll``
                self.recorded = recorded or _NONE
                self.extra_luck = extra_luck or _NONE
        self._journal: list = []  # (node, key, what was there) in the order set; key None: an append to a list

    def set(self, path: list, value: Any) -> None:
        node = self.state
        for key in path[:-1]:
            node = node[key]
        last = path[-1]
        t = type(value)
        if t is dict or t is list or t is tuple:
            value = clone(value)  # a branch set here must not be shared with another place in the state
        if type(node) is list:
            if last == len(node):
                node.append(value)
                self._journal.append((node, None, None))
                return
            self._journal.append((node, last, node[last]))
        else:
            self._journal.append((node, last, node.get(last, _ABSENT)))
        node[last] = value

    def rollback(self) -> None:
        journal = self._journal
        while journal:
            node, key, old = journal.pop()
            if key is None:
                node.pop()
            elif old is _ABSENT:
                del node[key]
            else:
                node[key] = old

    def out(self, **fields: Any) -> None:
        self.fields.update(fields)  # kept (a command may read what it said), never copied

    def roll(self, name: str, expr: str, who: str | None = None, why: str | None = None) -> Roll:
        if self.rolls is not _NONE:  # typed faces (see __init__): rolled and recorded
            return super().roll(name, expr, who, why)
        try:
            e = parse(expr)
        except DiceError as err:
            self.refuse(f"{why or name}: {err}")
        key, n = name, 2
        objects = self.roll_objects
        while key in objects:
            key = f"{name}#{n}"
            n += 1
        if self.recorded is _NONE and self.extra_luck is _NONE:
            r = objects[key] = e.roll(self.rng)
            return r
        rec = self.recorded.get(key)  # a re-run: ``Ctx.roll``'s way, without its records
        if rec is None or rec.get("expr") != e.text:
            r = e.roll(self.rng)  # the situation changed (or the roll is new): rolled afresh
        else:
            r = e.roll(faces=rec["faces"])
            for l in rec.get("luck", ()):
                r = r.with_luck(l["sign"], face=l["face"], who=l.get("who"), sides=l["sides"])
        for l in self.extra_luck.get(key, ()):
            r = r.with_luck(l.sign, face=l.face, who=l.who, sides=l.sides)
        objects[key] = r
        return r


_ABSENT = object()
