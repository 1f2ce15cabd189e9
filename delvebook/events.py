"""Events and the reducer: state = replay(setup, events).

The state is plain JSON-like data (dicts, lists, numbers, text). Every event of play records what
happened in the game's words (``kind``, who, the rolls with their faces) and the exact ``changes``
it made: a list of ``[path, value]`` pairs, each setting one place in the state. Folding events is
therefore exact and never re-rolls; undo appends an ``undo`` event and applies the inverse changes;
a luck die or typed faces produce an action that *replaces* the previous one (the original stays in
the log, and undoing the replacement brings it back).

Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Any, Iterable

__all__ = ["apply_changes", "History", "replay", "clone", "get_path", "EVENT_VERSION", "UNDO", "REDO"]

EVENT_VERSION = 1
UNDO = "undo"
REDO = "redo"
_MISSING = object()


def clone(value: Any) -> Any:
    """A deep copy of JSON-like data (fast path for the types the state holds)."""
    t = type(value)
    if t is dict:
        return {k: clone(v) for k, v in value.items()}
    if t is list or t is tuple:
        return [clone(v) for v in value]
    return value


def get_path(state: Any, path: Iterable) -> Any:
    node = state
    for key in path:
        node = node[key]
    return node


def apply_changes(state: dict, changes: list) -> list:
    """Apply ``[path, value]`` changes in order; return the inverse changes (to apply in order)."""
    inverse = []
    for path, value in changes:
        node = state
        for key in path[:-1]:
            node = node[key]
        last = path[-1]
        if type(node) is list:
            if last == len(node):  # an append (its inverse pops it)
                old = _MISSING
                node.append(clone(value))
            elif value is _MISSING:
                old = node.pop(last)
            else:
                old = node[last]
                node[last] = clone(value)
        else:
            old = node.get(last, _MISSING)
            if value is _MISSING:
                node.pop(last, None)
            else:
                node[last] = clone(value)
        inverse.append((path, old))
    inverse.reverse()
    return inverse


class _Entry:
    __slots__ = ("seq", "changes", "inverse", "replaced")

    def __init__(self, seq: int, changes: list, inverse: list, replaced: "_Entry | None"):
        self.seq = seq
        self.changes = changes
        self.inverse = inverse
        self.replaced = replaced


class History:
    """Folds events into a state and keeps what undo and redo need.

    An action is any event with ``changes``. ``undo`` takes back the latest action still in force,
    ``redo`` puts back the latest undone one (a new action clears the redo stack). An action with
    ``replaces: seq`` (a luck die, typed faces) first takes back that action, which must be the latest
    in force, then applies its own changes; undoing it restores the replaced action.
    """

    def __init__(self, state: dict):
        self.state = state
        self.done: list[_Entry] = []
        self.undone: list[_Entry] = []
        self.events_by_seq: dict[int, dict] = {}

    def apply(self, event: dict) -> None:
        kind = event.get("kind")
        seq = event["seq"]
        self.events_by_seq[seq] = event
        if kind == UNDO:
            if not self.done:
                raise ValueError(f"event {seq}: undo with nothing to undo")
            entry = self.done.pop()
            if event.get("undoes") not in (None, entry.seq):
                raise ValueError(f"event {seq}: undoes {event.get('undoes')} but the latest action is {entry.seq}")
            apply_changes(self.state, entry.inverse)
            if entry.replaced is not None:
                apply_changes(self.state, entry.replaced.changes)
                self.done.append(entry.replaced)
            self.undone.append(entry)
            return
        if kind == REDO:
            if not self.undone:
                raise ValueError(f"event {seq}: redo with nothing to redo")
            entry = self.undone.pop()
            if event.get("redoes") not in (None, entry.seq):
                raise ValueError(f"event {seq}: redoes {event.get('redoes')} but the latest undone is {entry.seq}")
            if entry.replaced is not None:
                self.done.pop()
                apply_changes(self.state, entry.replaced.inverse)
            entry.inverse = apply_changes(self.state, entry.changes)
            self.done.append(entry)
            return
        changes = event.get("changes")
        if changes is None:
            return  # a note or a record that changes nothing
        replaced = None
        target = event.get("replaces")
        if target is not None:
            if not self.done or self.done[-1].seq != target:
                raise ValueError(f"event {seq}: replaces {target}, which is not the latest action in force")
            replaced = self.done.pop()
            apply_changes(self.state, replaced.inverse)
        inverse = apply_changes(self.state, changes)
        self.done.append(_Entry(seq, changes, inverse, replaced))
        self.undone.clear()

    def latest_action(self) -> dict | None:
        """The latest action still in force."""
        return self.events_by_seq[self.done[-1].seq] if self.done else None

    def latest_undone(self) -> dict | None:
        return self.events_by_seq[self.undone[-1].seq] if self.undone else None

    def in_force(self) -> list[int]:
        """Seqs of the actions in force, oldest first."""
        return [e.seq for e in self.done]


def replay(setup: dict, events: Iterable[dict]) -> History:
    """Fold ``events`` over a copy of ``setup``; the result's ``.state`` is the state after them."""
    h = History(clone(setup))
    for e in events:
        h.apply(e)
    return h
