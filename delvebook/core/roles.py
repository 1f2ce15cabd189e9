"""Who did what to whom: the roles every event carries, declared once per command.

An event of version 2 names its ``actor`` (who acts: a delver's, a foe's or a named creature's name, or
``"keeper"`` for what the keeper does), its ``targets`` (whom the action is aimed at or is about) and ``sides``
(``{name: side}`` for every name it mentions in a role: ``party``, ``foes``, ``creatures``, ``keeper`` or
``hazard``). Every damage and healing entry names its dealer in ``by`` (its side in ``sides``), and ``source``
keeps the words of what dealt it (a weapon, a spell, the keeper's "a fall").

A command declares its roles with its event, where it is registered (``class Attack(Struck, Action, kind="attack",
actor="attacker", targets=("target",))``, ``core.declared``): a ``Roles``. ``fill`` writes them on the event the
engine makes, and on a v1 event as it is upcast (``Event.upcast_v1_v2``), from the same declaration: readers read
roles and never guess them.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Mapping, Sequence, Union

__all__ = ["KEEPER", "PARTY", "FOES", "CREATURES", "HAZARD", "SIDES", "Roles", "fill", "side_in",
           "damage_entries", "healing_entries", "dealt_entries", "side_of"]

KEEPER = "keeper"
PARTY, FOES, CREATURES, HAZARD = "party", "foes", "creatures", "hazard"
SIDES = (PARTY, FOES, CREATURES, KEEPER, HAZARD)
"""Every side a name may be on: a delver, a foe of the fight, a named creature (an NPC, a familiar), the keeper,
or a hazard (a trap, a fall: a dealer of damage that is no creature)."""

Role = Union[str, Callable[[Mapping], Any]]
"""Where a role is read from the event: the name of one of its fields or, failing that, of its arguments; or a
function of the event (for what only the event's own record says, an opposed roll's opponent)."""


class Roles:
    """A command's roles: ``actor`` (a ``Role``; None: the keeper) and ``targets`` (``Role``s, each giving a name,
    a list of names, or a list of mappings with a ``name``; an empty or missing one gives nobody)."""

    __slots__ = ("actor", "targets")

    def __init__(self, actor: Role | None = None, targets: Sequence[Role] = ()):
        self.actor = actor
        self.targets = tuple(targets)

    def __repr__(self) -> str:
        return f"Roles(actor={self.actor!r}, targets={self.targets!r})"


KEEPERS = Roles()
"""What the keeper does to no one in particular (sessions, rests, time, undo and redo)."""


def _read(event: Mapping, role: Role) -> Any:
    if callable(role):
        return role(event)
    if role in event:
        return event[role]
    args = event.get("args")
    return args.get(role) if isinstance(args, Mapping) else None


def _names(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            if isinstance(v, Mapping):
                v = v.get("name")
            if isinstance(v, str) and v:
                out.append(v)
        return out
    return []


# ---------------------------------------------------------------- where damage and healing are recorded

def damage_entries(event: Mapping) -> Iterator[tuple[Mapping, bool]]:
    """(entry, is a counter-attack) for every damage entry of an event: its ``damage`` list, then the damage of a
    counter-attack. The one place that knows where an event records damage."""
    for d in _list(event.get("damage")):
        if isinstance(d, Mapping):
            yield d, False
    counter = event.get("counter")
    if isinstance(counter, Mapping) and isinstance(counter.get("damage"), Mapping):
        yield counter["damage"], True


def healing_entries(event: Mapping) -> Iterator[Mapping]:
    """Every healing entry of an event (its ``healing`` list)."""
    for h in _list(event.get("healing")):
        if isinstance(h, Mapping):
            yield h


def dealt_entries(event: Mapping) -> Iterator[Mapping]:
    """Every damage and healing entry: what names a dealer (``by``) and whom it reached."""
    for d, _ in damage_entries(event):
        yield d
    yield from healing_entries(event)


def _list(x: Any) -> list:
    return x if isinstance(x, list) else []


# ---------------------------------------------------------------- sides

def side_in(state: Mapping, name: str) -> str | None:
    """The side of ``name`` in ``state``: party, foes or creatures; None for a name that is no one there."""
    if name in _held(state.get("delvers")):
        return PARTY
    enc = state.get("encounter")
    if isinstance(enc, Mapping) and name in _held(enc.get("foes")):
        return FOES
    if name in _held(state.get("creatures")):
        return CREATURES
    return None


def _held(x: Any) -> Any:
    return x if isinstance(x, Mapping) else ()


_PLACES = {"delvers": PARTY, "creatures": CREATURES}


def _placed(changes: Any, names: set) -> dict[str, str]:
    """{name: side} for each of ``names`` that ``changes`` put somewhere (a delver joining, foes starting a fight, an
    NPC named), the last change that places a name winning: one pass over the changes."""
    found: dict[str, str] = {}
    for change in _list(changes):
        if not (isinstance(change, (list, tuple)) and len(change) == 2 and isinstance(change[0], list)):
            continue
        path, value = change
        n = len(path)
        if not n:
            continue
        head, key, held = path[0], None, ()  # a change places one name (key), or a mapping of them (held)
        if head == "encounter":
            side = FOES
            if n >= 3 and path[1] == "foes":
                key = path[2]
            elif n == 2 and path[1] == "foes":
                held = _held(value)
            elif n == 1:
                held = _held(value.get("foes")) if isinstance(value, Mapping) else ()
        elif isinstance(head, str) and head in _PLACES:
            side = _PLACES[head]
            if n >= 2:
                key = path[1]
            else:
                held = _held(value)
        else:
            continue
        if isinstance(key, str) and key in names:
            found[key] = side
        for name in names:
            if name in held:
                found[name] = side
    return found


def side_of(name: str, state_before: Mapping, changes: Any = ()) -> str:
    """The side of a name an event mentions: the keeper; where the event's changes put it (a foe joining a fight
    is on the foes' side from then on); else where it stood before the event; else a hazard (a name that is no
    one: a trap, a fall)."""
    return _sides([name], state_before, changes)[name]


def _sides(names: list[str], state_before: Mapping, changes: Any) -> dict[str, str]:
    placed = _placed(changes, set(names) - {KEEPER})
    return {n: KEEPER if n == KEEPER else placed.get(n) or side_in(state_before, n) or HAZARD for n in names}


# ---------------------------------------------------------------- filling an event's roles

def fill(event: dict, roles: Roles, state_before: Mapping) -> dict:
    """Write ``actor``, ``targets`` and ``sides`` on ``event`` (in place; returned) from ``roles``, with every
    name's side as ``side_of`` finds it (the state before the event, and the event's own changes). The roles
    go after the event's frame (seq, kind, version, time), before its arguments."""
    actor = _names(_read(event, roles.actor)) if roles.actor is not None else []
    actor = actor[0] if actor else KEEPER
    targets: list[str] = []
    for role in roles.targets:
        for n in _names(_read(event, role)):
            if n not in targets:
                targets.append(n)
    named = [actor, *targets]
    for entry in dealt_entries(event):
        for key in ("by", "target", "who"):
            n = entry.get(key)
            if isinstance(n, str) and n:
                named.append(n)
    sides = _sides(list(dict.fromkeys(named)), state_before, event.get("changes"))
    _put_after_frame(event, {"actor": actor, "targets": targets, "sides": sides})
    return event


_FRAME = ("seq", "kind", "v", "at", "session", "encounter", "round")


def _put_after_frame(event: dict, fields: dict) -> None:
    """Set ``fields`` on ``event`` just after its frame (``_FRAME``'s keys), keeping the rest in order."""
    rest = [(k, v) for k, v in event.items() if k not in _FRAME and k not in fields]
    frame = [(k, event[k]) for k in _FRAME if k in event]
    event.clear()
    event.update(frame)
    event.update(fields)
    event.update(rest)
