"""Events and the reducer: state = replay(setup, events).

The state is plain JSON-like data (dicts, lists, numbers, text). Every event of play records what
happened in the game's words (``kind``, who, the rolls with their faces) and the exact ``changes``
it made: a list of ``[path, value]`` pairs, each setting one place in the state. Folding events is
therefore exact and never re-rolls; undo appends an ``undo`` event and applies the inverse changes;
a luck die or typed faces produce an action that *replaces* the previous one (the original stays in
the log, and undoing the replacement brings it back).

Which actions stand is worked out once, by ``Ledger``: ``History`` uses it to move the state and keeps the
answer as it folds (``History.standing``, a ``Standing``: in force, replaced by, undone by), so no reader
walks the log again to ask it; ``standing(events)`` works it out over a bare log, the slow reference the
tests hold ``Standing`` to. ``History.apply`` says what the event touched (``Touched``), so views redraw
what changed without reading change paths themselves.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Any, Iterable

__all__ = ["apply_changes", "revert", "History", "Ledger", "Standing", "Touched", "replay", "standing", "clone",
           "get_path", "EVENT_VERSION", "UNDO", "REDO"]

EVENT_VERSION = 2
"""The format of the events delvebook writes: 2 names every event's roles (``roles``); 1 (or no ``v``) is read
through ``engine.upgrade_event``."""
UNDO = "undo"
REDO = "redo"
_MISSING = object()
_POOLS = frozenset({"xp_pool", "coin_pool", "xp_awarded"})


def clone(value: Any) -> Any:
    """A deep copy of JSON-like data (fast path for the types the state holds; a tuple becomes a list)."""
    t = type(value)
    if t is dict:
        out = value.copy()  # then only the containers inside are copied again: scalars are shared as they are
        for k, v in out.items():
            t = type(v)
            if t is dict or t is list or t is tuple:
                out[k] = clone(v)
        return out
    if t is list or t is tuple:
        out = list(value)
        for i, v in enumerate(out):
            t = type(v)
            if t is dict or t is list or t is tuple:
                out[i] = clone(v)
        return out
    return value


def get_path(state: Any, path: Iterable) -> Any:
    node = state
    for key in path:
        node = node[key]
    return node


def apply_changes(state: dict, changes: list) -> list:
    """Apply ``[path, value]`` changes in order; return what each place held before, in the changes' order
    (``_MISSING`` where the change appended to a list or added a key): what ``revert`` puts back.

    The one place a change meets the state (replay, play, undo): written as one loop, since a replay runs it for
    every change of the log. The state never shares a container with a change: a list or mapping is copied in."""
    olds = []
    add = olds.append
    for path, value in changes:
        node = state
        last = len(path) - 1
        i = 0
        while i < last:  # walk to the place's container without slicing the path
            node = node[path[i]]
            i += 1
        key = path[last]
        t = value.__class__
        if t is dict or t is list or t is tuple:
            value = clone(value)
        if node.__class__ is dict:
            add(node.get(key, _MISSING))
            node[key] = value
        elif key == len(node):  # an append to a list (taken back by popping it)
            node.append(value)
            add(_MISSING)
        else:
            add(node[key])
            node[key] = value
    return olds


def revert(state: dict, changes: list, olds: list) -> list:
    """Take back ``changes``, last first, given ``olds`` (what ``apply_changes`` returned for them): each place
    holds its old value again, and a place they added is gone. Returns what each place held, in the changes'
    order. ``olds`` are put back as they are (not copied): they are the state's own again."""
    taken = [None] * len(olds)
    for i in range(len(olds) - 1, -1, -1):
        path = changes[i][0]
        node = get_path(state, path[:-1])
        old = olds[i]
        if old is _MISSING:
            taken[i] = node.pop(path[-1])
        else:
            taken[i] = node[path[-1]]
            node[path[-1]] = old
    return taken


# ---------------------------------------------------------------- what an event touched

class Touched:
    """What one event changed, in the game's nouns, derived from its change paths (an undo, a redo and a
    replacing action count the changes they take back or put back too).

    ``delvers``, ``foes``: names whose sheet changed; ``creatures``: named creatures (NPCs, familiars) whose sheet
    changed, or who came or went; ``players``: players whose luck dice count changed;
    ``conditions``: ids of conditions begun, changed or ended, and ``holders``: who has (or had) them;
    ``encounter``: the fight itself (begun, ended, its order, round or turn); ``session``, ``seats``,
    ``clock``: those changed; ``pools``: ``xp_pool`` / ``coin_pool`` / ``xp_awarded``; ``other``: any other
    top-level key (``quests``, ``rooms``...); ``paths``: every change path, in the order applied."""

    __slots__ = ("paths", "delvers", "foes", "creatures", "players", "conditions", "holders", "encounter",
                 "session", "seats", "clock", "pools", "other")

    def __init__(self) -> None:
        self.paths: list[tuple] = []
        self.delvers: set[str] = set()
        self.foes: set[str] = set()
        self.creatures: set[str] = set()
        self.players: set[str] = set()
        self.conditions: set[int] = set()
        self.holders: set[str] = set()
        self.encounter = False
        self.session = False
        self.seats = False
        self.clock = False
        self.pools: set[str] = set()
        self.other: set[str] = set()

    def __bool__(self) -> bool:
        return bool(self.paths)

    def under(self, *prefix: Any) -> bool:
        """Whether any change sits under ``prefix`` (or replaced a whole branch that holds it)."""
        n = len(prefix)
        return any(p[:n] == prefix or prefix[:len(p)] == p for p in self.paths)

    def __repr__(self) -> str:
        bits = [f"{k}={sorted(getattr(self, k))}" for k in ("delvers", "foes", "creatures", "players", "conditions",
                                                          "pools", "other") if getattr(self, k)]
        bits += [k for k in ("encounter", "session", "seats", "clock") if getattr(self, k)]
        return f"Touched({', '.join(bits) or 'nothing'})"

    # ---- noting one change (called as it is applied: a condition's index means the list as it is then)
    def _note(self, state: dict, path: list, value: Any) -> None:
        head = path[0]
        n = len(path)
        if head == "conditions" and n >= 3:
            cond = state["conditions"][path[1]]
            self.conditions.add(cond["id"])
            self.holders.add(cond["who"])

    def _noted(self, path: list, new: Any, old: Any) -> None:
        self.paths.append(tuple(path))
        head = path[0]
        n = len(path)
        if head == "delvers":
            if n > 1:
                self.delvers.add(path[1])
            else:
                self.delvers |= _keys(old) | _keys(new)
        elif head == "encounter":
            if n > 2 and path[1] == "foes":
                self.foes.add(path[2])
                return
            self.encounter = True
            if n == 1:
                for enc in (old, new):
                    if isinstance(enc, dict):
                        self.foes |= set(enc.get("foes", ()))
            elif n == 2 and path[1] == "foes":
                self.foes |= _keys(old) | _keys(new)
        elif head == "luck":
            if n > 1:
                self.players.add(path[1])
            else:
                was, now = _dict(old), _dict(new)
                self.players |= {p for p in set(was) | set(now) if was.get(p, _MISSING) != now.get(p, _MISSING)}
        elif head == "conditions":
            if n == 1:
                was = {c["id"]: c for c in _list(old)}
                now = {c["id"]: c for c in _list(new)}
                for cid in set(was) | set(now):
                    a, b = was.get(cid), now.get(cid)
                    if a != b:
                        self.conditions.add(cid)
                        self.holders.add((a or b)["who"])
            elif n == 2:
                for cond in (old, new):
                    if isinstance(cond, dict):
                        self.conditions.add(cond["id"])
                        self.holders.add(cond["who"])
        elif head == "creatures":
            if n > 1:
                self.creatures.add(path[1])
            else:
                self.creatures |= _keys(old) | _keys(new)
        elif head == "session":
            self.session = True
        elif head == "seats":
            self.seats = True
        elif head == "clock":
            self.clock = True
        elif head in _POOLS:
            self.pools.add(head)
        else:
            self.other.add(head)


def _keys(x: Any) -> set:
    return set(x) if isinstance(x, dict) else set()


def _dict(x: Any) -> dict:
    return x if isinstance(x, dict) else {}


def _list(x: Any) -> list:
    return x if isinstance(x, list) else []


def _apply_noting(state: dict, changes: list, touched: Touched | None) -> list:
    """``apply_changes``, noting each change in ``touched`` as it is applied (None: note nothing)."""
    if touched is None:
        return apply_changes(state, changes)
    olds = []
    for change in changes:
        path, value = change
        touched._note(state, path, value)
        olds += apply_changes(state, (change,))
        touched._noted(path, value, olds[-1])
    return olds


def _revert_noting(state: dict, changes: list, olds: list, touched: Touched | None) -> None:
    """``revert``, noting each place put back in ``touched`` (None: note nothing)."""
    if touched is None:
        revert(state, changes, olds)
        return
    for i in range(len(olds) - 1, -1, -1):
        path = changes[i][0]
        touched._note(state, path, olds[i])
        taken = revert(state, (changes[i],), (olds[i],))
        touched._noted(path, olds[i], taken[0])


def _take_back(state: dict, entry: "_Entry", touched: Touched | None) -> None:
    """Revert an entry in force; its old values are the state's again, so it keeps none until applied anew."""
    _revert_noting(state, entry.changes, entry.inverse, touched)
    entry.inverse = None


# ---------------------------------------------------------------- which actions stand

class _Entry:
    """An action the ledger keeps: its changes, and while it is in force, what its places held before it
    (``inverse``: ``apply_changes``'s olds, for ``revert``)."""

    __slots__ = ("seq", "changes", "inverse", "replaced")

    def __init__(self, seq: int, changes: list | None, inverse: list | None, replaced: "_Entry | None"):
        self.seq = seq
        self.changes = changes
        self.inverse = inverse
        self.replaced = replaced


class Ledger:
    """The undo, redo and replaces bookkeeping, over seqs and without any state.

    An action is any event with ``changes``. ``undo`` takes back the latest action still in force (and puts
    back one it replaced), ``redo`` puts back the latest undone one (a new action clears the redo stack), and
    an action with ``replaces: seq`` first takes back that action, which must be the latest in force.
    Each step validates the event and moves the stacks; it returns the entries the caller must fold."""

    def __init__(self) -> None:
        self.done: list[_Entry] = []
        self.undone: list[_Entry] = []

    def undo(self, event: dict) -> _Entry:
        """The entry this undo takes back (any entry it had replaced is in force again)."""
        seq = event["seq"]
        if not self.done:
            raise ValueError(f"event {seq}: undo with nothing to undo")
        entry = self.done[-1]
        if event.get("undoes") not in (None, entry.seq):
            raise ValueError(f"event {seq}: undoes {event.get('undoes')} but the latest action is {entry.seq}")
        self.done.pop()
        if entry.replaced is not None:
            self.done.append(entry.replaced)
        self.undone.append(entry)
        return entry

    def redo(self, event: dict) -> _Entry:
        """The entry this redo puts back (any entry it had replaced is taken back again)."""
        seq = event["seq"]
        if not self.undone:
            raise ValueError(f"event {seq}: redo with nothing to redo")
        entry = self.undone[-1]
        if event.get("redoes") not in (None, entry.seq):
            raise ValueError(f"event {seq}: redoes {event.get('redoes')} but the latest undone is {entry.seq}")
        self.undone.pop()
        if entry.replaced is not None:
            self.done.pop()
        self.done.append(entry)
        return entry

    def act(self, event: dict, changes: list | None = None) -> _Entry:
        """A new action in force (its ``replaced`` entry, if any, is taken back); the redo stack clears."""
        seq = event["seq"]
        replaced = None
        target = event.get("replaces")
        if target is not None:
            if not self.done or self.done[-1].seq != target:
                raise ValueError(f"event {seq}: replaces {target}, which is not the latest action in force")
            replaced = self.done.pop()
        entry = _Entry(seq, changes, None, replaced)
        self.done.append(entry)
        self.undone.clear()
        return entry


def standing(events: Iterable[dict]) -> tuple[set[int], dict[int, int], dict[int, int]]:
    """Which actions stand after ``events``: (seqs in force, replaced seq -> the seq that replaced it,
    undone seq -> the undo that took it back), worked out from the whole log with the ``Ledger`` that
    ``History`` folds with. The reference for ``History.standing``, which keeps the same answer as it folds: a
    reader with a campaign asks that (``camp.standing``) instead of reading the log again."""
    ledger = Ledger()
    undone_by: dict[int, int] = {}
    for e in events:
        kind = e.get("kind")
        if kind == UNDO:
            undone_by[ledger.undo(e).seq] = e["seq"]
        elif kind == REDO:
            undone_by.pop(ledger.redo(e).seq, None)
        elif e.get("changes") is not None:
            ledger.act(e)
    replaced_by: dict[int, int] = {}
    for entry in ledger.done:
        s, r = entry.seq, entry.replaced
        while r is not None:
            replaced_by[r.seq] = s
            s, r = r.seq, r.replaced
    return {e.seq for e in ledger.done}, replaced_by, undone_by


class Standing:
    """Which actions stand, as ``History`` keeps it while it folds: the answer ``standing(events)`` gives, without
    reading the log again. Read-only to everyone but the ``History`` that owns it.

    An *action* is an event with ``changes`` (undo and redo records are not actions). Each action is in force,
    replaced (by a luck die, typed dice, an on-hit choice: the action that replaced it is in force or replaced in
    turn), or undone (by an undo that a redo has not taken back yet)."""

    __slots__ = ("_in_force", "_replaced_by", "_undone_by")

    def __init__(self) -> None:
        self._in_force: set[int] = set()
        self._replaced_by: dict[int, int] = {}
        self._undone_by: dict[int, int] = {}

    def in_force(self, seq: int) -> bool:
        """Whether the action ``seq`` is part of the state now (False for a record that changes nothing)."""
        return seq in self._in_force

    def replaced_by(self, seq: int) -> int | None:
        """The seq of the action that replaced ``seq`` (while that one stands, in force or replaced in turn)."""
        return self._replaced_by.get(seq)

    def undone_by(self, seq: int) -> int | None:
        """The seq of the undo that took ``seq`` back (None once a redo puts it back)."""
        return self._undone_by.get(seq)

    def current(self, seq: int) -> int:
        """The action that stands for ``seq`` now: ``seq`` itself, or the latest of the actions that replaced it
        (a roll view follows its action through luck dice and typed dice)."""
        replaced_by = self._replaced_by
        while seq in replaced_by:
            seq = replaced_by[seq]
        return seq

    def as_sets(self) -> tuple[set[int], dict[int, int], dict[int, int]]:
        """Copies in the shape ``standing(events)`` returns: (seqs in force, replaced_by, undone_by)."""
        return set(self._in_force), dict(self._replaced_by), dict(self._undone_by)

    def __repr__(self) -> str:
        return (f"Standing({len(self._in_force)} in force, {len(self._replaced_by)} replaced, "
                f"{len(self._undone_by)} undone)")

    # ---- moved by History as the ledger moves (each the mirror of a Ledger step)
    def _acted(self, entry: "_Entry") -> None:
        if entry.replaced is not None:
            self._in_force.discard(entry.replaced.seq)
            self._replaced_by[entry.replaced.seq] = entry.seq
        self._in_force.add(entry.seq)

    def _undid(self, entry: "_Entry", undo_seq: int) -> None:
        self._in_force.discard(entry.seq)
        self._undone_by[entry.seq] = undo_seq
        if entry.replaced is not None:  # the action it replaced stands again
            self._replaced_by.pop(entry.replaced.seq, None)
            self._in_force.add(entry.replaced.seq)

    def _redid(self, entry: "_Entry") -> None:
        self._undone_by.pop(entry.seq, None)
        self._acted(entry)


class History:
    """Folds events into a state and keeps what undo and redo need (the stacks are a ``Ledger``), and which
    actions stand (``standing``, a ``Standing``), updated with every event folded."""

    def __init__(self, state: dict):
        self.state = state
        self.ledger = Ledger()
        self.standing = Standing()
        self.events_by_seq: dict[int, dict] = {}

    @property
    def done(self) -> list[_Entry]:
        return self.ledger.done

    @property
    def undone(self) -> list[_Entry]:
        return self.ledger.undone

    def apply(self, event: dict) -> Touched:
        """Fold one event in; returns what it touched."""
        touched = Touched()
        self.fold(event, touched)
        return touched

    def fold(self, event: dict, touched: Touched | None = None) -> None:
        """Fold one event in, noting what it touched in ``touched`` if given (``apply`` makes one; a replay
        notes nothing)."""
        kind = event.get("kind")
        self.events_by_seq[event["seq"]] = event
        state = self.state
        if kind == UNDO:
            entry = self.ledger.undo(event)
            _take_back(state, entry, touched)
            if entry.replaced is not None:
                entry.replaced.inverse = _apply_noting(state, entry.replaced.changes, touched)
            self.standing._undid(entry, event["seq"])
            return
        if kind == REDO:
            entry = self.ledger.redo(event)
            if entry.replaced is not None:
                _take_back(state, entry.replaced, touched)
            entry.inverse = _apply_noting(state, entry.changes, touched)
            self.standing._redid(entry)
            return
        changes = event.get("changes")
        if changes is None:
            return  # a note or a record that changes nothing
        entry = self.ledger.act(event, changes)
        if entry.replaced is not None:
            _take_back(state, entry.replaced, touched)
        entry.inverse = _apply_noting(state, changes, touched)
        self.standing._acted(entry)

    def latest_action(self) -> dict | None:
        """The latest action still in force."""
        done = self.ledger.done
        return self.events_by_seq[done[-1].seq] if done else None

    def latest_undone(self) -> dict | None:
        undone = self.ledger.undone
        return self.events_by_seq[undone[-1].seq] if undone else None

    def in_force(self) -> list[int]:
        """Seqs of the actions in force, oldest first."""
        return [e.seq for e in self.ledger.done]


def replay(setup: dict, events: Iterable[dict]) -> History:
    """Fold ``events`` over a copy of ``setup``; the result's ``.state`` is the state after them."""
    h = History(clone(setup))
    fold = h.fold
    for e in events:
        fold(e, None)
    return h
