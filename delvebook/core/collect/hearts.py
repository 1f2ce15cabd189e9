"""Hearts: each combatant's hearts after every action in force that changed them (or its status), and at every death
save; and XP: each delver's share of every award, with its XP and level after."""

from __future__ import annotations

from typing import Any, Mapping

from ..declared import Event
from ..events import History, Touched
from ..model import STATUS_DEAD
from ..records import Damage, Healing, damage_in, healing_in
from ..roles import CREATURES, FOES, PARTY
from . import Collector, fight_of

_DEATH_SAVE = "death_save"  # the kind of a death save's event

__all__ = ["Hearts", "Xp", "sources"]

_COMBATANTS = frozenset({PARTY, FOES, CREATURES})


def _source(entry: Damage | Healing, sides: Mapping, note: str = "") -> str | None:
    """What harmed or healed someone: 'Brakka (Sword)' for a combatant's deed, the keeper's words or the hazard's
    for the rest."""
    by, what = entry.by, entry.source
    if sides.get(by) in _COMBATANTS:
        return f"{by} ({what}{note})"
    return what


def sources(event: Event) -> dict[str, str]:
    """Whom an event harmed or healed, and by what, in words (read from its damage and healing entries)."""
    sides = event.sides or {}
    kind = event.kind
    out: dict[str, str] = {}
    for entry, counter in damage_in(event):
        if entry.wasted or entry.dealt is None:
            continue
        out[entry.target] = _source(entry, sides, ", counter" if counter else "") or kind
    for h in healing_in(event):
        out[h.who] = _source(h, sides) or kind
    return out


class Hearts(Collector):
    """One row per combatant whose hearts or status an action changed (and per death save), in the order of the
    party's seats then the foes'; ``last`` holds each combatant's (hearts, max_hearts, status) as its latest row
    says, by (side, name, fight: None for a delver)."""

    FIELDS = ("seq", "ts", "at", "session", "encounter", "round", "kind", "who", "side", "foe_kind", "player",
              "hearts", "max_hearts", "change", "status", "source", "death", "death_save", "death_save_success")

    def start(self, state: Mapping) -> None:
        for name, d in state.get("delvers", {}).items():
            now = (d.get("hearts"), d.get("max_hearts"), d.get("status"))
            self.last[(PARTY, name, None)] = now
            self.rows.append((0, None, 0, None, None, None, "setup", name, PARTY, None, d.get("player"),
                              now[0], now[1], None, now[2], "setup", now[2] == STATUS_DEAD, False, None))

    def step(self, event: Event, history: History, touched: Touched) -> tuple[tuple, dict] | None:
        kind = event.kind
        saver = event.actor if kind == _DEATH_SAVE else None
        delvers_touched, foes_touched = touched.delvers, touched.foes
        if not delvers_touched and not foes_touched and saver is None:
            return None
        if saver is not None:
            delvers_touched = delvers_touched | {saver}
        state = history.state
        enc = state["encounter"]
        fight = fight_of(event, state)
        rows: list = []
        updates: dict = {}
        said: list = []  # (what harmed or healed whom: worked out once, for the first row that needs it)
        for side, sheets, names, key_fight in ((PARTY, state["delvers"], delvers_touched, None),
                                               (FOES, enc["foes"] if enc else {}, foes_touched, fight)):
            if names:
                # in the sheets' order: the party's seats, then the foes' (one name needs no ordering)
                here = [n for n in sheets if n in names] if len(names) > 1 else [n for n in names if n in sheets]
                for name in here:
                    self._row(rows, updates, event, sheets[name], side, name, key_fight, fight, saver, said)
        return (tuple(rows), updates) if rows else None

    def _row(self, rows: list, updates: dict, event: Event, c: Mapping, side: str, name: str, key_fight: Any,
             fight: Any, saver: str | None, said: list) -> None:
        """The row of one combatant the event touched, if its hearts or status changed (or it saved from death)."""
        key = (side, name, key_fight)
        now = (c.get("hearts"), c.get("max_hearts"), c.get("status"))
        before = self.last.get(key)
        is_save = name == saver
        if before == now and not is_save:
            return
        updates[key] = now
        change = None if before is None or now[0] is None or before[0] is None else now[0] - before[0]
        kind = event.kind
        if not said:
            said.append(sources(event))
        rows.append((event.seq, event.ts, event.at, event.session, fight, event.round,
                     kind, name, side, c.get("kind") if side == FOES else None,
                     c.get("player") if side == PARTY else "keeper", now[0], now[1], change, now[2],
                     said[0].get(name, kind),
                     now[2] == STATUS_DEAD and (before is None or before[2] != STATUS_DEAD),
                     is_save, event.success if is_save else None))


class Xp(Collector):
    """One row per delver's share of each award in force, with its XP after that share and its level after the
    event (``level_up`` on its last row of an event that raised its level); ``last`` holds each delver's level."""

    FIELDS = ("seq", "ts", "at", "session", "encounter", "kind", "who", "player", "amount", "award", "reason",
              "source", "pool_before", "pool_after", "xp", "level", "level_up")

    def start(self, state: Mapping) -> None:
        for name, d in state.get("delvers", {}).items():
            self.last[name] = d.get("level")

    def step(self, event: Event, history: History, touched: Touched) -> tuple[tuple, dict] | None:
        awards = getattr(event, "xp_awards", None)  # (a kind that awards XP declares them)
        if not awards and not touched.delvers:
            return None
        delvers = history.state["delvers"]
        last = self.last
        updates = {n: delvers[n].get("level") for n in touched.delvers
                   if n in delvers and delvers[n].get("level") != last.get(n)}
        if not awards:
            return ((), updates) if updates else None
        left: dict[str, int] = {}
        for a in awards:
            for name, amount in (a.shares or {}).items():
                left[name] = left.get(name, 0) + amount
        rows: list[list[Any]] = []
        latest: dict[str, int] = {}
        fight = fight_of(event, history.state)
        for a in awards:
            for name, amount in (a.shares or {}).items():
                left[name] -= amount
                d = delvers.get(name) or {}
                latest[name] = len(rows)
                rows.append([event.seq, event.ts, event.at, event.session, fight, event.kind, name, d.get("player"),
                             amount, a.amount, a.reason, a.source, a.pool_before, a.pool_after,
                             (d.get("xp") or 0) - left[name], d.get("level"), False])
        for name, i in latest.items():
            before, after = last.get(name), rows[i][15]
            rows[i][16] = before is not None and after is not None and after > before
        return tuple(tuple(r) for r in rows), updates
