"""What the actions in force add, kept in step with History as it folds: one follower, and the collectors the
analysis frames and the table's Charts panel read.

An action's *step* is what it adds: rows (a hearts row per combatant whose hearts it changed, a row per die it
rolled...) and the latest values it leaves under a key (each combatant's hearts as its latest row says). A step is
worked out once, when the action first comes in force, from the event, the state just after it and what it
touched (``events.Touched``): no collector reads change paths, nor guesses roles (it reads the event's ``actor``,
``targets``, ``sides`` and each damage entry's ``by``), nor picks a field by its key: it reads the event through its
declaration (``declared.view``: ``event.damage``, a damage entry's ``.dealt``).

A ``Follower`` is told of every event History folds (``follow``): it takes back the steps of the actions History
took back (an undo; an action a luck die or typed dice replaced), newest first, and adds the steps of those it put
on (a new action; a redo; an action brought back by undoing what replaced it). So its collectors always hold what
the actions in force add, in the order they happened: a finished log replayed gives the analysis frames
(``Follower.replay``), and a table following its campaign event by event keeps its charts without reading the log
again.

Standard library only: part of the pure core (the analysis package turns the rows into pandas frames).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

from ..declared import Event, view
from ..events import History, Touched, clone

__all__ = ["Collector", "Follower", "fight_of", "ENCOUNTER"]

ENCOUNTER = "encounter"
"""The kind of the event that begins a fight."""

_MISSING = object()
_NOTHING = ()  # the steps of an action that adds nothing to any collector (most of them), and what pushing it saved


def fight_of(event: Event, state: Mapping) -> int | None:
    """The number of the fight an event belongs to, from the state just after it: the event's own ``encounter``;
    for the event that begins a fight, or one recorded while a fight runs without naming it, the running fight."""
    number = event.encounter
    if number is None or event.kind == ENCOUNTER:
        enc = state.get("encounter")
        if isinstance(enc, Mapping):
            return enc.get("number", number)
    return number


class Collector:
    """Rows that actions add (``rows``, oldest first, each a tuple in the order of ``FIELDS``) and the latest value
    they leave under a key (``last``), both put back exactly when an action is taken back.

    A subclass says what an action adds: ``step(event, history, touched)`` (the event read through its declaration)
    returns ``(rows, updates)`` (a tuple of rows; a dict of ``last`` values to set), or None for nothing;
    ``start(state)`` adds what the setup holds before any event. ``step`` may read ``last``: it holds what the
    actions in force before this one left."""

    FIELDS: tuple[str, ...] = ()

    def __init__(self) -> None:
        self.rows: list[tuple] = []
        self.last: dict = {}

    def start(self, state: Mapping) -> None:
        """What the setup holds before the first event (nothing, unless a collector says otherwise)."""

    def step(self, event: Event, history: History, touched: Touched) -> tuple[tuple, dict] | None:
        return None

    def push(self, step: tuple[tuple, dict]) -> tuple:
        """Add a step; returns what ``pop`` needs to take it back (the ``last`` values it overwrote)."""
        rows, updates = step
        self.rows.extend(rows)
        if not updates:
            return ()
        last = self.last
        saved = tuple([(key, last.get(key, _MISSING)) for key in updates])
        last.update(updates)
        return saved

    def pop(self, step: tuple[tuple, dict], saved: tuple) -> None:
        """Take back the latest step pushed."""
        rows, _ = step
        if rows:
            del self.rows[-len(rows):]
        last = self.last
        for key, old in reversed(saved):
            if old is _MISSING:
                del last[key]
            else:
                last[key] = old

    def columns(self) -> dict[str, list]:
        """The rows as columns, by field."""
        if not self.rows:
            return {f: [] for f in self.FIELDS}
        return {f: list(col) for f, col in zip(self.FIELDS, zip(*self.rows))}


class Follower:
    """Keeps its collectors in step with History's actions in force (see the module's docstring)."""

    def __init__(self, collectors: Sequence[Collector]):
        self.collectors = tuple(collectors)
        self._steps: dict[int, tuple] = {}  # seq -> each collector's step for an action that has been in force
        # the actions in force, oldest first: their seqs, and what each push saved (two lists: most actions add
        # nothing, and then both hold a shared constant, not a tuple of their own for the collector to walk)
        self._seqs: list[int] = []
        self._saved: list[tuple] = []

    def start(self, setup: Mapping) -> None:
        """Let each collector take what the setup holds, before the first event."""
        for c in self.collectors:
            c.start(setup)

    def follow(self, history: History, event: Mapping, touched: Touched) -> None:
        """Match the steps to ``history``'s actions in force just after it folded ``event``: take back the steps of
        the actions it took back, newest first, then add those of the actions it put on (a new action's step worked
        out now, from the state just after it and what it ``touched``)."""
        done, seqs = history.done, self._seqs
        k = min(len(done), len(seqs))
        while k and done[k - 1].seq != seqs[k - 1]:
            k -= 1
        while len(seqs) > k:
            self._pop()
        for entry in done[k:]:
            steps = self._steps.get(entry.seq)
            if steps is None:
                if entry.seq != event["seq"]:
                    raise LookupError(f"event {entry.seq} stands again but was never followed")
                read = view(event)
                steps = [c.step(read, history, touched) for c in self.collectors]
                steps = self._steps[entry.seq] = tuple(steps) if any(steps) else _NOTHING
            self._push(entry.seq, steps)

    def _push(self, seq: int, steps: tuple) -> None:
        self._seqs.append(seq)
        self._saved.append(_NOTHING if steps is _NOTHING else
                           tuple([c.push(s) if s else None for c, s in zip(self.collectors, steps)]))

    def _pop(self) -> None:
        seq, saved = self._seqs.pop(), self._saved.pop()
        steps = self._steps[seq]
        if steps is _NOTHING:
            return
        for c, s, sv in zip(reversed(self.collectors), reversed(steps), reversed(saved)):
            if s:
                c.pop(s, sv)

    def replay(self, setup: Mapping, events: Iterable[Mapping],
               each: Callable[[int], Any] | None = None) -> History:
        """Fold ``events`` over a copy of ``setup``, following each; returns the History (its ``standing`` says
        which actions stand). ``each`` is called with the count of events folded, every 5,000."""
        self.start(setup)
        history = History(clone(setup))
        for i, event in enumerate(events, 1):
            self.follow(history, event, history.apply(event))
            if each is not None and i % 5000 == 0:
                each(i)
        return history
