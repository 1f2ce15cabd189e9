"""The Charts panel (``chartsEl`` in table.js): XP progress with the level thresholds, and hearts in the latest
fight, as series the page draws as SVG (plotly.js cannot load in an offline ES module).

The series are kept up to date per event instead of computed again per click: ``ChartSeries`` holds, for each
action in force, the points it added (its *step*), and follows the campaign's History: an action coming in force
adds its step (worked out from the state just after it and what it touched), an action undone or replaced takes
its step back, and one put back (a redo, an undo that brings back what a luck die replaced) adds its step again.
It is built once per open campaign (a replay of the log), when the panel first shows, and then moved by the
campaign's listeners. The points are the ones the analysis frames give (``analysis.xp``, ``analysis.hearts``,
folded over the actions in force): a test holds the two to each other.
"""

from __future__ import annotations

import importlib.util
import weakref
from typing import Any

from ...events import History, clone

__all__ = ["charts_available", "charts_panel", "ChartSeries"]


def charts_available() -> bool:
    """Whether the analysis extra (pandas, plotly) is here: the Charts panel shows only then."""
    try:
        return all(importlib.util.find_spec(m) is not None for m in ("pandas", "plotly"))
    except (ImportError, ValueError):
        return False


def charts_panel(camp) -> dict | None:
    """The panel's series: ``xp`` (each seated delver's XP after each award, the level thresholds, the latest
    seq) and ``hearts`` (each combatant's hearts through the latest fight, from its start to its end or now:
    ``first``, ``last``), when the analysis extra is here."""
    if not charts_available():
        return None
    series = _series_of(camp)
    xp = series.xp_series(camp.state["seats"])
    last = max([s["points"][-1][0] for s in xp] + [len(camp.events), 1])  # each delver's points go up by seq
    thresholds = [{"level": int(k), "xp": int(v)} for k, v in camp.rules.level_thresholds.items() if v > 0]
    return {"xp": {"series": xp, "thresholds": thresholds, "last": int(last)},
            "hearts": _to_now(series.latest_fight(), camp)}


def _to_now(fight: dict | None, camp) -> dict | None:
    """The latest fight's lines, each drawn on to the fight's last event: its end, or, while it runs, the latest
    event (a combatant whose hearts have not changed since is a level line to now, not a lone point)."""
    if fight is None:
        return None
    enc = camp.state["encounter"]
    running = enc is not None and enc["number"] == fight["number"]
    ends = [s["points"][-1][0] for s in fight["series"]]
    last = max(ends + ([int(camp.events[-1]["seq"])] if running and camp.events else []))
    return {**fight, "last": last,
            "series": [s if s["points"][-1][0] == last else {**s, "points": s["points"] + [[last, s["points"][-1][1]]]}
                       for s in fight["series"]]}


# ---------------------------------------------------------------- kept per open campaign

_SERIES: "weakref.WeakKeyDictionary[Any, ChartSeries]" = weakref.WeakKeyDictionary()


def _series_of(camp) -> "ChartSeries":
    """The campaign's series, built on first use and moved by its listeners from then on; built again if they
    lost track (a read-only campaign that read its log again, a listener that did not hear an event)."""
    series = _SERIES.get(camp)
    history = camp.engine.history
    if series is None or series.history is not history or series.seen != len(camp.events):
        series = ChartSeries.replayed(camp.setup, camp.events)
        series.history = history
        if camp not in _SERIES:
            camp.listeners.insert(0, _listener(camp))  # first: the tables it redraws then read it moved
        _SERIES[camp] = series
    return series


def _listener(camp):
    ref = weakref.ref(camp)

    def on_event(outcome) -> None:
        camp = ref()
        series = _SERIES.get(camp) if camp is not None else None
        if series is None or series.history is None:
            return
        if outcome.touched is None or series.history is not camp.engine.history:
            series.history = None  # lost track: the panel builds its series again when it next shows
            return
        series.seen += 1
        try:
            series.follow(camp.engine.history, outcome, outcome.touched)
        except Exception:  # noqa: BLE001  (the event is recorded: the panel builds again, and says why, if it must)
            series.history = None
    return on_event


# ---------------------------------------------------------------- the series, step by step

_MISSING = object()
_NOTHING = ((), ())  # the step of most actions (a check, a move of the turn): one shared


class ChartSeries:
    """XP after each award per delver, and hearts per combatant per fight, over the actions in force, kept as
    the History they follow moves. ``follow`` is called after each event is folded."""

    def __init__(self, setup: dict):
        self.history: History | None = None
        self.seen = 0  # events followed
        self.xp: dict[str, list] = {}  # delver -> [(seq, xp after), ...]
        self.fights: dict[int, dict[str, dict]] = {}  # fight number -> {name: {"side", "points": [(seq, hearts)]}}
        # (side, name, fight or None for a delver) -> (hearts, max_hearts, status) as its latest point says
        self.last: dict[tuple, tuple] = {}
        for name, d in setup.get("delvers", {}).items():
            self.last[("party", name, None)] = (d.get("hearts"), d.get("max_hearts"), d.get("status"))
        self._steps: dict[int, tuple] = {}  # seq -> the step of an action that has been in force
        self._stack: list[tuple[int, Any]] = []  # the actions in force: (seq, what its step overwrote in .last)
        self._xp_out: dict[str, list] = {}  # delver -> its points as the page gets them (made again when moved)
        self._fight_out: Any = _MISSING

    @classmethod
    def replayed(cls, setup: dict, events: list[dict]) -> "ChartSeries":
        """The series of a log, folded over a copy of ``setup`` one event at a time."""
        series = cls(setup)
        history = History(clone(setup))
        for event in events:
            touched = history.apply(event)
            series.seen += 1
            series.follow(history, event, touched)
        return series

    # ---- following History's actions in force
    def follow(self, history: History, event: dict, touched) -> None:
        """Match the actions in force to ``history``'s after it folded ``event``: take back the steps of the
        actions it took back, newest first, then add the steps of those it put on (a new action's step is worked
        out now, from the state just after it and what it ``touched``)."""
        done, stack = history.done, self._stack
        k = min(len(done), len(stack))
        while k and done[k - 1].seq != stack[k - 1][0]:
            k -= 1
        while len(stack) > k:
            self._pop()
        for entry in done[k:]:
            step = self._steps.get(entry.seq)
            if step is None:
                if entry.seq != event["seq"]:
                    raise LookupError(f"event {entry.seq} stands again but was never followed")
                step = self._steps[entry.seq] = self._step(event, history.state, touched)
            self._push(entry.seq, step)

    def _push(self, seq: int, step: tuple) -> None:
        xp_rows, heart_rows = step
        saved = [] if heart_rows else ()
        for who, at, value in xp_rows:
            self.xp.setdefault(who, []).append((at, value))
        for key, now, fight in heart_rows:
            saved.append((key, self.last.get(key, _MISSING)))
            self.last[key] = now
            if fight is not None:
                line = self.fights.setdefault(fight, {}).setdefault(key[1], {"side": key[0], "points": []})
                line["points"].append((seq, now[0]))
        self._stack.append((seq, saved))
        self._changed(xp_rows, heart_rows)

    def _pop(self) -> None:
        seq, saved = self._stack.pop()
        xp_rows, heart_rows = self._steps[seq]
        for who, _, _ in reversed(xp_rows):
            points = self.xp[who]
            points.pop()
            if not points:
                del self.xp[who]
        for (key, _, fight), (_, before) in zip(reversed(heart_rows), reversed(saved)):
            if before is _MISSING:
                del self.last[key]
            else:
                self.last[key] = before
            if fight is not None:
                lines = self.fights[fight]
                lines[key[1]]["points"].pop()
                if not lines[key[1]]["points"]:
                    del lines[key[1]]
                    if not lines:
                        del self.fights[fight]
        self._changed(xp_rows, heart_rows)

    def _changed(self, xp_rows, heart_rows) -> None:
        for who, _, _ in xp_rows:
            self._xp_out.pop(who, None)
        if heart_rows:
            self._fight_out = _MISSING

    # ---- one action's step
    def _step(self, event: dict, state: dict, touched) -> tuple:
        """The points an action adds, from the state just after it: each delver's XP after its share of an
        award; the hearts of each combatant it touched whose hearts or status changed (and of whoever rolled a
        death save), in the fight the event happened in. A fight's start gives every delver standing a point
        (every foe has one: it entered), and its end a point to every line of it, so each line runs from the
        fight's start (or the foe's entry) to its end."""
        kind, seq = event.get("kind"), event["seq"]
        delvers = state["delvers"]
        xp_rows = []
        awards = event.get("xp_awards") or ()
        left: dict[str, int] = {}
        for a in awards:
            for name, amount in (a.get("shares") or {}).items():
                left[name] = left.get(name, 0) + amount
        for a in awards:
            for name, amount in (a.get("shares") or {}).items():
                left[name] -= amount
                xp_rows.append((name, seq, ((delvers.get(name) or {}).get("xp") or 0) - left[name]))
        enc = state["encounter"]
        begins = kind == "encounter" and enc is not None
        fight = event.get("encounter") if not begins else enc["number"]
        saved_by = event.get("who") if kind == "death_save" else None
        names = touched.delvers | touched.foes
        rows: dict[tuple, tuple] = {}
        for side, sheets, key_fight in (("party", delvers, None),
                                        ("foes", enc["foes"] if enc else {}, fight)):
            for name, c in sheets.items():
                start = begins and side == "party" and name in state["seats"] and c.get("status") != "dead"
                if name not in names and name != saved_by and not start:
                    continue
                key = (side, name, key_fight)
                now = (c.get("hearts"), c.get("max_hearts"), c.get("status"))
                if self.last.get(key) == now and name != saved_by and not start:
                    continue
                rows[key] = (key, now, fight)
        if kind == "end_encounter" and fight in self.fights:  # every line of the fight ends where it ends
            for name, line in self.fights[fight].items():
                key = ("party", name, None) if line["side"] == "party" else (line["side"], name, fight)
                if key not in rows and key in self.last:
                    now = self.last[key] if key[2] is not None or name not in delvers else \
                        (delvers[name].get("hearts"), delvers[name].get("max_hearts"), delvers[name].get("status"))
                    rows[key] = (key, now, fight)
        heart_rows = tuple(rows.values())
        return (tuple(xp_rows), heart_rows) if xp_rows or heart_rows else _NOTHING

    # ---- what the panel shows
    def xp_series(self, seats: list[str]) -> list[dict]:
        """Each seated delver's XP after each award in force, from (0, 0)."""
        out = self._xp_out
        for who in seats:
            if who not in out:
                out[who] = [[0, 0]] + [[int(q), int(v)] for q, v in self.xp.get(who, ())]
        return [{"name": who, "points": out[who]} for who in seats]

    def latest_fight(self) -> dict | None:
        """The latest fight's hearts: each combatant's from the fight's start (the delvers standing then, in seat
        order) or its entry (the foes, in the order they came), to the fight's end; ``first``: the seq it began."""
        if self._fight_out is _MISSING:
            if not self.fights:
                self._fight_out = None
            else:
                number = max(self.fights)
                series = [{"name": str(who), "side": line["side"],
                           "points": [[int(q), int(h)] for q, h in line["points"]]}
                          for who, line in self.fights[number].items()]
                self._fight_out = {"number": number, "first": min(s["points"][0][0] for s in series),
                                   "series": series}
        return self._fight_out
