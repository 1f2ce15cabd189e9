"""Fights: every hit that did damage, credited to its dealer as the event names it, and what each fight in force was
(begun, joined, its rounds, ended)."""

from __future__ import annotations

from ..declared import Event
from ..events import History, Touched
from ..records import damage_in
from . import ENCOUNTER, Collector, fight_of

_ADD_FOES, _END = "add_foes", "end_encounter"  # the kinds of the events that add foes to a fight, and end it

__all__ = ["Damage", "Fights"]


class Damage(Collector):
    """One row per damage entry that dealt damage: its dealer (``by``) and target, each on the side the event's
    ``sides`` say, what dealt it (``source``), and the numbers."""

    FIELDS = ("seq", "session", "encounter", "round", "kind", "by", "by_side", "target", "target_side", "source",
              "counter", "raw", "av", "absorbed", "dealt", "hearts_before", "hearts_after", "vanquished",
              "death_save_due")

    def step(self, event: Event, history: History, touched: Touched) -> tuple[tuple, dict] | None:
        rows = []
        fight = sides = None
        for entry, counter in damage_in(event):
            if entry.wasted or entry.dealt is None:
                continue
            if sides is None:
                sides, fight = event.sides or {}, fight_of(event, history.state)
            by, target = entry.by, entry.target
            rows.append((event.seq, event.session, fight, event.round, event.kind, by, sides.get(by), target,
                         sides.get(target), entry.source, counter, entry.raw, entry.av, entry.absorbed, entry.dealt,
                         entry.hearts_before, entry.hearts_after, bool(entry.vanquished), bool(entry.death_save_due)))
        return (tuple(rows), {}) if rows else None


class Fights(Collector):
    """What each fight in force was, as facts in the order they happened: ``("begin", number, {...})``,
    ``("join", number, names, kinds)``, ``("round", number, round)`` (each round a fight reached first),
    ``("end", number, {...})``; ``fights()`` sums them up, one record a fight. ``last`` holds each fight's latest
    round."""

    def step(self, event: Event, history: History, touched: Touched) -> tuple[tuple, dict] | None:
        kind = event.kind
        state = history.state
        number = fight_of(event, state)
        if number is None:
            return None
        facts = []
        if kind == ENCOUNTER:
            foes = event.foes or ()
            facts.append(("begin", number, {"name": event.name, "session": event.session, "start_seq": event.seq,
                                            "start_ts": event.ts, "foe_names": [f.name for f in foes],
                                            "foe_kinds": [f.kind for f in foes]}))
        elif kind == _ADD_FOES:
            joined = (state["encounter"] or {}).get("foes") or {}
            names = list(event.foes or ())
            facts.append(("join", number, names, [(joined.get(n) or {}).get("kind") for n in names]))
        elif kind == _END:
            facts.append(("end", number, {"end_seq": event.seq, "end_ts": event.ts, "rounds": event.rounds or 0,
                                          "xp": event.xp or 0}))
        updates = {}
        reached = event.round
        if reached and reached > self.last.get(number, 0):  # a fight's rounds: the latest any of its events names
            facts.append(("round", number, reached))
            updates[number] = reached
        return (tuple(facts), updates) if facts else None

    def fights(self) -> dict[int, dict]:
        """Each fight in force, by number, in the order they began: ``encounter``, ``name``, ``session``,
        ``start_seq``, ``end_seq``, ``start_ts``, ``end_ts``, ``rounds`` (the latest round, or what the fight's end
        says), ``foe_names``, ``foe_kinds``, ``xp``, ``ended``."""
        out: dict[int, dict] = {}
        for what, number, *data in self.rows:
            if what == "begin":
                out[number] = {"encounter": number, **data[0], "foe_names": list(data[0]["foe_names"]),
                               "foe_kinds": list(data[0]["foe_kinds"]), "end_seq": None, "end_ts": None,
                               "rounds": 0, "xp": 0, "ended": False}
                continue
            fight = out.get(number)
            if fight is None:
                continue
            if what == "join":
                fight["foe_names"] += data[0]
                fight["foe_kinds"] += data[1]
            elif what == "end":
                fight.update(data[0], ended=True)
            elif what == "round":
                fight["rounds"] = max(fight["rounds"], data[0])
        return out
