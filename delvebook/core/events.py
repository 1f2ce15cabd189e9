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

A snapshot (``store.snapshot``) keeps what History holds besides the state as plain data (``History.saved``) and
brings it back (``History.restored``): the stacks and the standing exactly as the fold left them; each action's
changes are its event's, read when first asked, and an inverse the snapshot did not keep (it keeps the latest
``KEPT_INVERSES``) is worked out by one replay of the log the first time an undo reaches it.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Any, Iterable

from .touched import Touched

__all__ = ["apply_changes", "revert", "History", "Ledger", "Standing", "Touched", "replay", "standing", "clone",
           "get_path", "UNDO", "REDO", "KEPT_INVERSES"]

UNDO = "undo"
REDO = "redo"
_MISSING = object()
_UNKNOWN = object()  # an inverse a snapshot did not keep: worked out again by a replay if it is ever needed
KEPT_INVERSES = 64
"""How many of the latest actions in force a snapshot keeps the inverse of (``History.saved``): undoing further back
than that after a restore replays the log once to work the rest out."""


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


_CHANGES, _INVERSE = _Entry.changes, _Entry.inverse  # the slots themselves, under the properties below


def _kept_inverse(entry: _Entry) -> Any:
    """An entry's inverse as it is held (``_UNKNOWN`` for one a snapshot did not keep: not worked out here)."""
    try:
        return _INVERSE.__get__(entry)
    except AttributeError:
        return _UNKNOWN


class _Restored(_Entry):
    """An entry a snapshot brought back (``History.restored``, which makes a subclass naming its History: a snapshot
    brings back one per action in force, so each is made with its seq alone): its changes are its event's, read when
    first asked; an inverse the snapshot did not keep is worked out by one replay of the log when first asked."""

    __slots__ = ()
    _history: "_RestoredHistory"

    def __init__(self, seq: int):
        self.seq = seq
        self.replaced = None

    @property
    def changes(self) -> list:
        try:
            return _CHANGES.__get__(self)
        except AttributeError:  # not read yet
            changes = self._history.event(self.seq)["changes"]
            _CHANGES.__set__(self, changes)
            return changes

    @property
    def inverse(self) -> list | None:
        try:
            inverse = _INVERSE.__get__(self)
        except AttributeError:  # not kept by the snapshot
            self._history._work_out_inverses(self)
            inverse = _INVERSE.__get__(self)
        return inverse

    @inverse.setter
    def inverse(self, value: list | None) -> None:
        _INVERSE.__set__(self, value)

    @inverse.setter
    def inverse(self, value: list | None) -> None:
        _INVERSE.__set__(self, value)


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
        self.events_by_seq: dict[int, dict] = {}  # the events folded (a restored History: those asked for so far)
        self._event_of = None  # a restored History: (seq) -> an event before the snapshot, read when asked
        self._replayed = None  # a restored History: () -> the History a full replay of the log makes

    def event(self, seq: int) -> dict:
        """The event ``seq`` (KeyError for one this History has not folded)."""
        event = self.events_by_seq.get(seq)
        if event is None:
            if self._event_of is None:
                raise KeyError(seq)
            event = self.events_by_seq[seq] = self._event_of(seq)
        return event

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
        return self.event(done[-1].seq) if done else None

    def latest_undone(self) -> dict | None:
        undone = self.ledger.undone
        return self.event(undone[-1].seq) if undone else None

    def in_force(self) -> list[int]:
        """Seqs of the actions in force, oldest first."""
        return [e.seq for e in self.ledger.done]

    # ---- a snapshot (``store.snapshot``): what this History keeps besides the state, as plain data, and back
    def saved(self) -> dict:
        """What undo, redo and ``standing`` need besides the state, as plain JSON data: the stacks (seqs), which
        action replaced which, the inverses of the latest ``KEPT_INVERSES`` actions in force (``[]`` for a place
        the action added, ``[value]`` for what it held), and the standing's replaced and undone marks. The changes
        are not kept: they are the events'."""
        done, undone = self.ledger.done, self.ledger.undone
        replaced: dict[str, int] = {}
        seen: set[int] = set()
        for entry in (*done, *undone):
            while entry is not None and entry.seq not in seen:
                seen.add(entry.seq)
                if entry.replaced is not None:
                    replaced[str(entry.seq)] = entry.replaced.seq
                entry = entry.replaced
        inverses = {}
        for entry in done[-KEPT_INVERSES:]:
            olds = _kept_inverse(entry)
            if olds is not _UNKNOWN:
                inverses[str(entry.seq)] = [[] if old is _MISSING else [old] for old in olds]
        standing = self.standing
        return {"done": [e.seq for e in done], "undone": [e.seq for e in undone], "replaced": replaced,
                "inverses": inverses,
                "replaced_by": {str(k): v for k, v in standing._replaced_by.items()},
                "undone_by": {str(k): v for k, v in standing._undone_by.items()}}

    @staticmethod
    def restored(state: dict, saved: dict, count: int, event_of, replayed) -> "History":
        """The History that ``saved`` (what ``saved()`` returned, read back) and ``state`` stand for, after ``count``
        events: its events are read when asked (``event_of(seq)``), and an inverse the snapshot did not keep is taken
        from ``replayed(n)``, a History of the log's first ``n`` events folded from the setup, the first time one is
        needed. ValueError for data that does not hold together (a stack naming an action twice...)."""
        h = _RestoredHistory(state)
        h._event_of, h._replayed, h._last = event_of, replayed, count
        entry_of = type("_Restored", (_Restored,), {"__slots__": (), "_history": h})
        done_seqs, undone_seqs = saved["done"], saved["undone"]
        seqs = set(done_seqs)
        if len(seqs) != len(done_seqs) or not seqs.isdisjoint(undone_seqs) or len(set(undone_seqs)) != \
                len(undone_seqs):
            raise ValueError("an action stands twice in the stacks")
        if seqs and (set(map(type, done_seqs)) != {int} or min(done_seqs) < 1 or max(done_seqs) > count) or \
                any(s.__class__ is not int or not 1 <= s <= count for s in undone_seqs):
            raise ValueError("a stack holds what is not the seq of an event before the snapshot")
        done = list(map(entry_of, done_seqs))  # inverses unknown (unset) but for the latest: set below
        entries = dict(zip(done_seqs, done))
        entries.update(zip(undone_seqs, undone := list(map(entry_of, undone_seqs))))
        for e in undone:
            _INVERSE.__set__(e, None)  # taken back: it holds none until it is put back
        for key, old in saved["replaced"].items():
            newer, older = int(key), old
            if older.__class__ is not int or not 1 <= older < newer <= count:
                raise ValueError(f"{newer} cannot replace {older!r}")
            for seq in (newer, older):
                if seq not in entries:
                    entries[seq] = entry_of(seq)
                    _INVERSE.__set__(entries[seq], None)  # not in force
            entries[newer].replaced = entries[older]
        for key, olds in saved["inverses"].items():
            seq = int(key)
            if seq not in seqs or olds.__class__ is not list:
                raise ValueError(f"an inverse for {key}, which is not in force")
            _INVERSE.__set__(entries[seq], [old[0] if old else _MISSING for old in olds])
        h.ledger.done[:], h.ledger.undone[:] = done, undone
        standing = h.standing
        standing._in_force = seqs
        for name in ("replaced_by", "undone_by"):
            marks = {int(k): v for k, v in saved[name].items()}
            if any(v.__class__ is not int or v <= k for k, v in marks.items()):
                raise ValueError(f"{name}: an action marked by one that is not later")
            setattr(standing, f"_{name}", marks)
        return h

class _RestoredHistory(History):
    """A History a snapshot brought back (``History.restored``): it knows how far it has folded, so that an inverse
    the snapshot did not keep is worked out from a replay of the log up to there."""

    _folding: int | None = None  # the seq of the event being folded, while it is
    _last = 0  # the seq of the latest event folded

    def fold(self, event: dict, touched: Touched | None = None) -> None:
        self._folding = event["seq"]
        try:
            History.fold(self, event, touched)
        finally:
            self._folding = None
        self._last = event["seq"]

    def _work_out_inverses(self, asked: _Entry) -> None:
        """Every inverse the snapshot did not keep (and ``asked``'s, an action being taken back), from a replay of
        the log up to where this History stands: an action's inverse depends only on the actions in force below it,
        which the replay stacks the same."""
        upto = self._last if self._folding is None else self._folding - 1
        replayed = {e.seq: e for e in self._replayed(upto).ledger.done}
        for entry in (*self.ledger.done, asked):
            if _kept_inverse(entry) is _UNKNOWN:
                twin = replayed.get(entry.seq)
                if twin is None:
                    raise RuntimeError(f"action {entry.seq} is in force here but not in the log replayed")
                _INVERSE.__set__(entry, twin.inverse)


def replay(setup: dict, events: Iterable[dict]) -> History:
    """Fold ``events`` over a copy of ``setup``; the result's ``.state`` is the state after them."""
    h = History(clone(setup))
    fold = h.fold
    for e in events:
        fold(e, None)
    return h
