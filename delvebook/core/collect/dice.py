"""Dice: every die an action in force rolled (luck dice included), and every luck die spent with what it changed."""

from __future__ import annotations

from typing import Mapping

from ..events import History, Touched
from . import Collector, fight_of

__all__ = ["Rolls", "Luck", "outcome"]


def outcome(event: Mapping) -> str | None:
    """An action's outcome in a word: ``success``/``failure``, or an attack's results (``hit, miss``)."""
    if event.get("success") is not None:
        return "success" if event["success"] else "failure"
    if event.get("results") is not None:
        return ", ".join(event["results"])
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


def _success(roll: str, event: Mapping) -> bool | None:
    """Whether a roll succeeded on its own: a check or death save succeeded; an attack roll hit; a resist roll held
    off every hit (None for a roll with no success of its own: damage, initiative...)."""
    base = roll.split("#", 1)[0]
    results = event.get("results")
    if base in ("check", "death_save"):
        return event.get("success")
    if base == "attack" and results is not None:
        return "hit" in results
    if base == "resist" and results is not None:
        return "hit" not in results
    return None


class Rolls(Collector):
    """One row per die an action in force rolled, its luck dice after its own dice."""

    FIELDS = ("seq", "session", "encounter", "kind", "roll", "who", "player", "why", "expr", "die", "sides", "face",
              "kept", "luck", "sign", "luck_applied", "base_total", "total", "success")

    def __init__(self) -> None:
        super().__init__()
        self._plan = _DicePlan()

    def step(self, event: Mapping, history: History, touched: Touched) -> tuple[tuple, dict] | None:
        rolls = event.get("rolls")
        if not rolls:
            return None
        seq, kind, session = event["seq"], event["kind"], event.get("session")
        fight = fight_of(event, history.state)
        delvers = history.state["delvers"]
        rows = []
        for name, r in rolls.items():
            ok = _success(name, event)
            who = r.get("who")
            d = delvers.get(who)
            player = (d.get("player") or "keeper") if d is not None else "party" if who == "party" else "keeper"
            lucks = r.get("luck") or ()
            applied = sum(lk["sign"] * lk["face"] for lk in lucks)
            total = r.get("total")
            base = r.get("base_total", total)
            expr, why = r["expr"], r.get("why")
            planned = self._plan.dice(expr, r["faces"])
            for k, ((sides, kept), face) in enumerate(zip(planned, r["faces"])):
                rows.append((seq, session, fight, kind, name, who, player, why, expr, k, sides, face, kept, False, 1,
                             applied, base, total, ok))
            for k, lk in enumerate(lucks, start=len(planned)):
                rows.append((seq, session, fight, kind, name, who, lk.get("who") or player, why, expr, k,
                             lk.get("sides", 6), lk["face"], True, True, lk["sign"], applied, base, total, ok))
        return (tuple(rows), {}) if rows else None


class Luck(Collector):
    """One row per luck die spent and still in force: the roll it landed on, and the outcome before (the action it
    replaced) and after."""

    FIELDS = ("seq", "session", "encounter", "kind", "player", "roll", "who", "sign", "face", "total_before",
              "total_after", "outcome_before", "outcome_after")

    def step(self, event: Mapping, history: History, touched: Touched) -> tuple[tuple, dict] | None:
        lk = event.get("luck")
        if not lk or event.get("replaces") is None:
            return None
        try:
            old = history.event(event["replaces"])
        except KeyError:
            old = {}
        name = lk.get("roll")
        new_roll = (event.get("rolls") or {}).get(name) or {}
        old_roll = (old.get("rolls") or {}).get(name) or {}
        row = (event["seq"], event.get("session"), fight_of(event, history.state), event["kind"], lk.get("player"),
               name, new_roll.get("who"), lk.get("sign"), lk.get("face"), old_roll.get("total"),
               new_roll.get("total"), outcome(old), outcome(event))
        return (row,), {}
