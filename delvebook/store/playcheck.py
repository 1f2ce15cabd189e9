"""The one check of a log against its campaign: what ``Campaign.open`` (read-only or for play), ``store.validate``
and ``delvebook validate`` all run, so that what one refuses the others refuse, with the same file:line and field.

The log is folded into the state from the setup, event by event, each judged at its point of the log:

- an event read from a sealed line (``store.lines``: written by delvebook as the engine made it) is folded in;
  its structure was checked as it was read (the next seq, a kind, changes that are places of the state, roll
  records that are rolls);
- an event read from a line without a holding seal (written or edited by hand) is decided again by the rules
  from its kind, its arguments and the faces it recorded (``engine.redecide``: the very path play takes, luck
  dice, typed faces, undo and redo included) and must be the event the rules make, field for field (its time
  stamp aside); then it is folded in, and what ties the state together must still hold.

After the last event, the state must be one the table can show (``statecheck``). The first problem is a
StoreError naming the log's file, line and field, and checking stops there: what follows was played on a state
the rules never made. An event of an older format is brought to today's (``upgraded``) before it is compared or
folded.
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable, Iterable, Mapping

from ..core import statecheck
from ..engine import ASKED_BY, COMMANDS, Engine, Refused, Unrecorded, redecide
from ..core.declared import upcast, version_of
from ..core.events import REDO, UNDO, History, Ledger, apply_changes, clone, replay
from ..core.rules.schema import show
from .errors import StoreError

__all__ = ["KNOWN_KINDS", "ALL", "upgraded", "LogCheck", "play_log", "play_problems"]

KNOWN_KINDS = frozenset(COMMANDS) | {UNDO, REDO}
"""Every kind of event delvebook writes: the engine's commands, undo and redo."""

ALL = None
"""``unsealed=ALL``: every event is judged by the rules, sealed or not (an audit of the engine itself)."""

# when the event was recorded (the wall clock) and which player's request it answers: the table's record, not
# the rules'
_IGNORED = frozenset({"ts", ASKED_BY})
_NOT_REPLAYED = (KeyError, IndexError, TypeError, ValueError, AttributeError, RecursionError)
"""What folding an event that does not fit the state before it raises."""
_MISSING = object()


def upgraded(event: dict, state_before: dict) -> dict:
    """An event written by an older version of its kind in today's, given the state before it (its declaration's
    upcasters: ``declared.upcast``): the one place a log's event is upcast, before it is compared or folded."""
    return upcast(event, state_before)


def _short(value: Any, limit: int = 160) -> str:
    if isinstance(value, (list, dict)):
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError):
            text = repr(value)
    else:
        text = show(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _difference(logged: Mapping, decided: Mapping) -> tuple[str, str] | None:
    """The first field where the logged event is not the one the rules make: (field, what differs)."""
    for key in list(decided) + [k for k in logged if k not in decided]:
        if key in _IGNORED:
            continue
        if key not in logged:
            return key, f"missing: the rules record {_short(decided[key])}"
        if key not in decided:
            return key, f"the rules record no {key}; the log says {_short(logged[key])}"
        a, b = logged[key], decided[key]
        if a == b and type(a) is type(b):
            continue
        if isinstance(a, list) and isinstance(b, list):
            for i in range(max(len(a), len(b))):
                if i >= len(a):
                    return f"{key}[{i}]", f"missing: the rules make {_short(b[i])}"
                if i >= len(b):
                    return f"{key}[{i}]", f"the rules make no more; the log says {_short(a[i])}"
                if a[i] != b[i]:
                    return f"{key}[{i}]", f"the rules make {_short(b[i])}; the log says {_short(a[i])}"
        if isinstance(a, Mapping) and isinstance(b, Mapping):
            for k in list(b) + [k for k in a if k not in b]:
                if a.get(k, _MISSING) != b.get(k, _MISSING):
                    return (f"{key}.{k}", f"the rules make {_short(b.get(k, 'nothing'))}; the log says "
                                          f"{_short(a.get(k, 'nothing'))}")
        return key, f"the rules make {_short(b)}; the log says {_short(a)}"
    return None


def _does_not_fold(history: History, event: Mapping) -> tuple[str, str] | None:
    """(field, why) when ``event`` cannot be folded into ``history`` as it stands (an undo with nothing to undo, a
    replacement of an action that is not the latest, a change with no place in the state), or None. Tried on
    copies: ``history`` is left as it is."""
    kind = event.get("kind")
    trial = Ledger()
    trial.done[:], trial.undone[:] = history.ledger.done, history.ledger.undone
    try:
        if kind == UNDO:
            trial.undo(event)
        elif kind == REDO:
            trial.redo(event)
        elif event.get("changes") is not None:
            trial.act(event)
    except _NOT_REPLAYED as err:
        return (kind if kind in (UNDO, REDO) else "replaces"), f"does not apply to the log before it: {err}"
    changes = event.get("changes")
    if kind in (UNDO, REDO) or event.get("replaces") is not None or not isinstance(changes, list):
        return None
    state = clone(history.state)
    for i, change in enumerate(changes):
        try:
            apply_changes(state, [change])
        except _NOT_REPLAYED:
            path = change[0] if isinstance(change, list) and change else change
            where = statecheck.dotted_path(path) if isinstance(path, list) else show(path)
            return f"changes[{i}]", (f"{where}: no such place in the state at this point (a change sets a field "
                                     f"that exists, or adds one at the end of a list)")
    return None


class LogCheck:
    """The one check, over an engine whose state it folds the log into (a new one from ``setup``, or a campaign's
    own to judge what it catches up with). ``file`` and ``line_of(seq)`` say where each event is in the log."""

    def __init__(self, rules: Any, setup: dict, *, engine: Engine | None = None,
                 file: str | os.PathLike | None = None, line_of: Callable[[int], int | None] | None = None):
        self.setup = setup
        self.engine = engine if engine is not None else Engine(rules, setup, history=History(clone(setup)))
        self.shape = statecheck.shape_for(rules)
        self.file = file
        self.line_of = line_of

    def error(self, event: Mapping, reason: str, field: str | None = None, line: int | None = None) -> StoreError:
        seq = event.get("seq")
        if line is None and self.line_of is not None and seq.__class__ is int:
            line = self.line_of(seq)
        where = "" if line is not None or self.file is None else f"event {seq}: "
        return StoreError(where + reason, self.file, line, field)

    def fold(self, events: list, unsealed: Iterable[int] | None = ALL) -> None:
        """Fold ``events`` in order, judging those at the indexes ``unsealed`` (all of them for ``ALL``) by the
        rules; raise the first problem. An event brought to today's format takes its place in ``events``."""
        history = self.engine.history
        fold = history.fold
        marks = list(range(len(events)) if unsealed is ALL else unsealed) + [len(events)]
        start = 0
        for stop in marks:
            i = start
            try:
                for i in range(start, stop):
                    event = events[i]
                    if event.get("v", 1) != version_of(event["kind"]):
                        event = events[i] = upgraded(event, history.state)
                    fold(event, None)
            except _NOT_REPLAYED as err:
                raise self._not_replayed(events, i, err) from None
            if stop < len(events):
                events[stop] = self.take(events[stop], True, lambda e: fold(e, None))[0]
            start = stop + 1

    def take(self, event: dict, judged: bool, fold_in: Callable[[dict], Any], line: int | None = None
             ) -> tuple[dict, Any]:
        """One event, brought to today's format, then judged by the rules (``judged``: read from a line without a
        holding seal) or simply folded in (``fold_in``): (the event, what ``fold_in`` returned)."""
        if event.get("v", 1) != version_of(event.get("kind")):
            event = upgraded(event, self.engine.state)
        if judged:
            return event, self.judge(event, fold_in, line)
        try:
            return event, fold_in(event)
        except _NOT_REPLAYED as err:
            raise self.error(event, f"does not apply to the state ({type(err).__name__}: {str(err)[:160]})",
                             "changes", line) from None

    def judge(self, event: dict, fold_in: Callable[[dict], Any], line: int | None = None) -> Any:
        """Decide ``event`` again by the rules at this point of the log, then fold it in (``fold_in``; what it
        returns is returned); raise the first problem. An event that does not even fold into the state before it
        (a change with no place there, an undo with nothing to undo) is named as such, before what the rules would
        have made instead."""
        kind = event.get("kind")
        if kind not in KNOWN_KINDS:
            raise self.error(event, f"{show(kind)} is not a kind of event delvebook writes (known: "
                                    f"{', '.join(sorted(KNOWN_KINDS))})", "kind", line)
        verdict = None
        try:
            decided = redecide(self.engine, event)
        except Refused as err:
            verdict = f"the rules refuse this {kind} at this point of the log: {err}", None
        except Unrecorded as err:
            verdict = f"{err}: its rolls are not the ones this {kind} makes", "rolls"
        except (KeyError, IndexError, TypeError, ValueError, AttributeError, RecursionError) as err:
            verdict = (f"this {kind} cannot be decided again from what it records "
                       f"({type(err).__name__}: {str(err)[:160]})", "args")
        else:
            diff = _difference(event, decided)
            if diff is not None:
                verdict = f"not what the rules make of this {kind}: {diff[1]}", diff[0]
        state = self.engine.state
        if verdict is not None:
            found = _does_not_fold(self.engine.history, event)
            reason, field = (found[1], found[0]) if found is not None else verdict
            raise self.error(event, reason, field, line)
        try:
            touched = fold_in(event)
        except _NOT_REPLAYED as err:
            raise self.error(event, f"does not apply to the state ({type(err).__name__}: {str(err)[:160]})",
                             "changes", line) from None
        try:
            problems = self.shape.link_problems(state)
        except (KeyError, IndexError, TypeError, AttributeError):
            problems = self.shape.state_problems(state)
        if problems:
            where, why = problems[0]
            raise self.error(event, f"after this event the state does not hold: {statecheck.dotted_path(where)}: "
                                    f"{why}", "changes", line)
        return touched

    def finish(self, events: list | Callable[[], list]) -> None:
        """After the last event: the state must be one the table can show; else the first event after which it
        is not is named (the log folded again from the setup, one event at a time: only a log that fails).
        ``events``: the whole log, or a function giving it (read only then)."""
        if not self.shape.state_problems(self.engine.state):
            return
        if callable(events):
            events = events()
        history = History(clone(self.setup))
        for event in events:
            history.fold(event, None)
            problems = self.shape.state_problems(history.state)
            if problems:
                where, why = problems[0]
                raise self.error(event, f"after this event the state does not hold: {statecheck.dotted_path(where)}: "
                                        f"{why}", "changes" if event.get("changes") is not None else None)
        raise StoreError("the log does not replay (no single event to blame)", self.file)  # pragma: no cover

    def _not_replayed(self, events: list, i: int, err: BaseException) -> StoreError:
        """The error for ``events[i]``, which does not fold into the state before it: that state made again from
        the setup (only a log that fails comes here), and what does not fit it named."""
        event = events[i]
        found = _does_not_fold(replay(self.setup, events[:i]), event)
        if found is not None:
            return self.error(event, found[1], found[0])
        return self.error(event, f"does not apply: {type(err).__name__}: {err}", "changes")


def play_log(rules: Any, setup: dict, events: list, *, unsealed: Iterable[int] | None = ALL,
             file: str | os.PathLike | None = None, campaign_file: str | os.PathLike | None = None,
             line_of: Callable[[int], int | None] | None = None, restored: History | None = None,
             every: Callable[[], list] | None = None) -> Engine:
    """The engine after ``events`` folded over ``setup`` by the one check (see the module): the events at the
    indexes ``unsealed`` (every event for ``ALL``) are judged by the rules. Raises the first problem as a
    StoreError naming ``file``:line and the field (a setup that does not hold names ``campaign_file``).

    ``restored``: a History a snapshot brought back (``store.snapshot``), after which ``events`` (their indexes in
    ``unsealed``) are the lines that follow; ``every`` gives the whole log, read only if the state fails its check."""
    shape = statecheck.shape_for(rules)
    problems = shape.state_problems(setup)
    if problems:
        where, why = problems[0]
        raise StoreError(f"the party this file sets up does not hold: {statecheck.dotted_path(where)}: {why}",
                         campaign_file)
    engine = None if restored is None else Engine(rules, setup, history=restored)
    check = LogCheck(rules, setup, engine=engine, file=file, line_of=line_of)
    check.fold(events, unsealed)
    if restored is None or events:  # a snapshot's state was checked as it was read (``store.snapshot``)
        check.finish(events if every is None else every)
    return check.engine


def play_problems(rules: Any, setup: dict, events: list, *, file: str | os.PathLike | None = None,
                  line_of: Callable[[int], int | None] | None = None,
                  unsealed: Iterable[int] | None = ALL) -> list[StoreError]:
    """The first problem of ``events`` by the one check, in a list (empty if none): by default every event is
    decided again by the rules, sealed or not (an audit of the engine's own log)."""
    try:
        play_log(rules, setup, list(events), unsealed=unsealed, file=file, line_of=line_of)
    except StoreError as err:
        return [err]
    return []
