"""Dice: every die an action in force rolled (luck dice included), and every luck die spent with what it changed."""

from __future__ import annotations

from typing import Any

from ..declared import Event, view
from ..events import History, Touched
from . import Collector, fight_of

__all__ = ["Rolls", "Luck", "outcome", "success", "results"]


def success(event: Event) -> bool | None:
    """Whether an action succeeded, for a kind that declares it (a check, a save, a trap's save); else None."""
    return getattr(event, "success", None)


def results(event: Event) -> Any:
    """How each attack of an action went, for a kind that declares it (an attack, an ability's); else None."""
    return getattr(event, "results", None)


def outcome(event: Event) -> str | None:
    """An action's outcome in a word: ``success``/``failure``, or an attack's results (``hit, miss``)."""
    ok = success(event)
    if ok is not None:
        return "success" if ok else "failure"
    res = results(event)
    if res is not None:
        return ", ".join(res)
    return None


class _DicePlan:
    """(sides, kept) for each die of a recorded roll, from its notation (parsed once per notation)."""

    def __init__(self) -> None:
        self.plans: dict[str, tuple | None] = {}

    def dice(self, expr: str, faces: list) -> list[tuple[int, bool]]:
        plan = self.plans.get(expr, False)
        if plan is False:
            from ..dice import parse
            ex = parse(expr)
            if any(t.keep for t in ex.terms):
                plan = None  # which dice count depends on the faces: the roll itself says
            else:
                plan = tuple((6 if t.d66 else t.sides, True) for t in ex.terms if not t.is_constant
                             for _ in range(2 if t.d66 else t.count))
            self.plans[expr] = plan
        if plan is not None and len(plan) == len(faces):
            return list(plan)
        from ..dice import parse
        return [(d.sides, d.kept) for d in parse(expr).roll(faces=faces).dice]


def _success(roll: str, event: Event) -> bool | None:
    """Whether a roll succeeded on its own: a check or death save succeeded; an attack roll hit; a resist roll held
    off every hit (None for a roll with no success of its own: damage, initiative...)."""
    base = roll.split("#", 1)[0]
    res = results(event)
    if base in ("check", "death_save"):
        return success(event)
    if base == "attack" and res is not None:
        return "hit" in res
    if base == "resist" and res is not None:
        return "hit" not in res
    return None


class Rolls(Collector):
    """One row per die an action in force rolled, its luck dice after its own dice."""

    FIELDS = ("seq", "session", "encounter", "kind", "roll", "who", "player", "why", "expr", "die", "sides", "face",
              "kept", "luck", "sign", "luck_applied", "base_total", "total", "success")

    def __init__(self) -> None:
        super().__init__()
        self._plan = _DicePlan()

    def step(self, event: Event, history: History, touched: Touched) -> tuple[tuple, dict] | None:
        rolls = getattr(event, "rolls", None)  # (an action's: undo and redo roll nothing)
        if not rolls:
            return None
        seq, kind, session = event.seq, event.kind, event.session
        fight = fight_of(event, history.state)
        delvers = history.state["delvers"]
        rows = []
        for name, r in rolls.items():
            ok = _success(name, event)
            who = r.who
            d = delvers.get(who)
            player = (d.get("player") or "keeper") if d is not None else "party" if who == "party" else "keeper"
            lucks = r.luck
            applied = sum(lk.sign * lk.face for lk in lucks)
            total = r.total
            base = r.base_total if r.base_total is not None else total
            expr, why, faces = r.expr, r.why, r.faces
            planned = self._plan.dice(expr, faces)
            for k, ((sides, kept), face) in enumerate(zip(planned, faces)):
                rows.append((seq, session, fight, kind, name, who, player, why, expr, k, sides, face, kept, False, 1,
                             applied, base, total, ok))
            for k, lk in enumerate(lucks, start=len(planned)):
                rows.append((seq, session, fight, kind, name, who, lk.who or player, why, expr, k,
                             lk.sides or 6, lk.face, True, True, lk.sign, applied, base, total, ok))
        return (tuple(rows), {}) if rows else None


class Luck(Collector):
    """One row per luck die spent and still in force: the roll it landed on, and the outcome before (the action it
    replaced) and after."""

    FIELDS = ("seq", "session", "encounter", "kind", "player", "roll", "who", "sign", "face", "total_before",
              "total_after", "outcome_before", "outcome_after")

    def step(self, event: Event, history: History, touched: Touched) -> tuple[tuple, dict] | None:
        lk = getattr(event, "luck", None)
        if not lk or event.replaces is None:
            return None
        try:
            old = view(history.event(event.replaces))
        except KeyError:
            old = view({"kind": event.kind})
        name = lk.roll
        new_roll = event.rolls.get(name)
        old_roll = (getattr(old, "rolls", None) or {}).get(name)
        row = (event.seq, event.session, fight_of(event, history.state), event.kind, lk.player, name,
               new_roll.who if new_roll else None, lk.sign, lk.face, old_roll.total if old_roll else None,
               new_roll.total if new_roll else None, outcome(old), outcome(event))
        return (row,), {}
