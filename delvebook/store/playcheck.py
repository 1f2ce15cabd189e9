"""A log checked against the rules, event by event, as ``delvebook validate`` does after the files read well.

Each event is decided again by the engine from its kind, its arguments and the faces it recorded
(``engine.redecide``: the very path play takes, luck dice, typed faces, undo and redo included) and must be the
event the log holds, field for field (its time stamp aside); then it is folded in, and the state after it must be
one the table can show (``statecheck``). The first event that is not what the rules make is reported with its
file:line and field, and checking stops there: what follows it was played on a state the rules never made.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Iterable, Mapping

from .. import statecheck
from ..engine import ASKED_BY, COMMANDS, Engine, Refused, Unrecorded, redecide
from ..events import REDO, UNDO, clone
from ..rules.schema import show
from .errors import StoreError

__all__ = ["play_problems", "KNOWN_KINDS"]

KNOWN_KINDS = frozenset(COMMANDS) | {UNDO, REDO}
"""Every kind of event delvebook writes: the engine's commands, undo and redo."""

# when the event was recorded (the wall clock) and which player's request it answers: the table's record, not the rules'
_IGNORED = frozenset({"ts", ASKED_BY})


def _short(value: Any, limit: int = 160) -> str:
    text = show(value) if not isinstance(value, (list, dict)) else _json(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _json(value: Any) -> str:
    import json
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


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


_MISSING = object()


def play_problems(rules: Any, setup: dict, events: list, *, file: str | os.PathLike | None = None,
                  line_of: Callable[[int], int | None] | None = None) -> list[StoreError]:
    """The first event of ``events`` that is not what the rules make from ``setup`` (an empty list if none):
    an unknown kind, an action the rules refuse, dice rolled that were not recorded, a field that differs, a
    state after it that the table cannot show. Each a StoreError with ``file``:line and field."""
    engine = Engine(rules, clone(setup))
    shape = statecheck.shape_for(rules)

    def error(event: Mapping, reason: str, field: str | None = None) -> list[StoreError]:
        seq = event.get("seq")
        line = line_of(seq) if line_of is not None and isinstance(seq, int) else None
        where = "" if line is not None or file is None else f"event {seq}: "
        return [StoreError(where + reason, file, line, field)]

    for event in events:
        kind = event.get("kind")
        if kind not in KNOWN_KINDS:
            return error(event, f"{show(kind)} is not a kind of event delvebook writes (known: "
                                f"{', '.join(sorted(KNOWN_KINDS))})", "kind")
        try:
            decided = redecide(engine, event)
        except Refused as err:
            return error(event, f"the rules refuse this {kind} at this point of the log: {err}")
        except Unrecorded as err:
            return error(event, f"{err}: its rolls are not the ones this {kind} makes", "rolls")
        except (KeyError, IndexError, TypeError, ValueError, AttributeError, RecursionError) as err:
            return error(event, f"this {kind} cannot be decided again from what it records "
                                f"({type(err).__name__}: {str(err)[:160]})", "args")
        diff = _difference(event, decided)
        if diff is not None:
            field, why = diff
            return error(event, f"not what the rules make of this {kind}: {why}", field)
        try:
            engine.apply(event)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as err:
            return error(event, f"does not apply to the state ({type(err).__name__}: {str(err)[:160]})", "changes")
        # each change was checked against the table as the log was read: what may break is how the parts tie
        problems = shape.link_problems(engine.state)
        if problems:
            where, why = problems[0]
            return error(event, f"after this event the state does not hold: {statecheck.dotted_path(where)}: {why}",
                         "changes")
    last = events[-1] if events else None
    problems = shape.state_problems(engine.state)
    if problems and last is not None:
        where, why = problems[0]
        return error(last, f"after the log the state does not hold: {statecheck.dotted_path(where)}: {why}")
    return []
