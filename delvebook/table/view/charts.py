"""The Charts panel (``chartsEl`` in table.js): XP progress with the level thresholds, and hearts in the latest
fight, as series the page draws as SVG (plotly.js cannot load in an offline ES module).

The series are kept up to date per event instead of computed again per click: ``ChartSeries`` is the follower the
analysis frames are built with (``delvebook.collect``), with the same XP and hearts collectors: an action coming in
force adds its step (worked out from the state just after it and what it touched), an action undone or replaced
takes its step back, and one put back (a redo, an undo that brings back what a luck die replaced) adds its step
again. It is built once per open campaign (a replay of the log), when the panel first shows, and then moved by the
campaign's listeners. Its points are the analysis frames' (``analysis.xp``, ``analysis.hearts``): a test holds the
two to each other.
"""

from __future__ import annotations

import importlib.util
import weakref
from typing import Any

from ...campaign import collector_paused
from ...collect import Follower
from ...collect.hearts import Hearts, Xp
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
    seq) and ``hearts`` (each combatant's hearts through the latest fight), when the analysis extra is here."""
    if not charts_available():
        return None
    series = _series_of(camp)
    xp = series.xp_series(camp.state["seats"])
    last = max([s["points"][-1][0] for s in xp] + [len(camp.events), 1])  # each delver's points go up by seq
    thresholds = [{"level": int(k), "xp": int(v)} for k, v in camp.rules.level_thresholds.items() if v > 0]
    return {"xp": {"series": xp, "thresholds": thresholds, "last": int(last)}, "hearts": series.latest_fight()}


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
_XP_WHO, _XP_SEQ, _XP_AFTER = (Xp.FIELDS.index(f) for f in ("who", "seq", "xp"))
_H_SEQ, _H_FIGHT, _H_WHO, _H_SIDE, _H_HEARTS = (Hearts.FIELDS.index(f)
                                               for f in ("seq", "encounter", "who", "side", "hearts"))


class _XpPoints(Xp):
    """The XP collector, keeping each delver's points (seq, XP after) as the page draws them."""

    def __init__(self) -> None:
        super().__init__()
        self.points: dict[str, list] = {}  # delver -> [(seq, xp after), ...]
        self.out: dict[str, list] = {}  # delver -> its points as the page gets them (made again when moved)

    def push(self, step):
        for row in step[0]:
            self.points.setdefault(row[_XP_WHO], []).append((row[_XP_SEQ], row[_XP_AFTER]))
            self.out.pop(row[_XP_WHO], None)
        return super().push(step)

    def pop(self, step, saved) -> None:
        for row in reversed(step[0]):
            who = row[_XP_WHO]
            points = self.points[who]
            points.pop()
            if not points:
                del self.points[who]
            self.out.pop(who, None)
        super().pop(step, saved)


class _FightHearts(Hearts):
    """The hearts collector, keeping each fight's lines (per combatant, in the order they first changed in it)."""

    def __init__(self) -> None:
        super().__init__()
        self.fights: dict[int, dict[str, dict]] = {}  # fight -> {name: {"side", "points": [(seq, hearts)]}}
        self.out: Any = _MISSING

    def push(self, step):
        for row in step[0]:
            fight = row[_H_FIGHT]
            if fight is not None:
                line = self.fights.setdefault(fight, {}).setdefault(row[_H_WHO], {"side": row[_H_SIDE], "points": []})
                line["points"].append((row[_H_SEQ], row[_H_HEARTS]))
                self.out = _MISSING
        return super().push(step)

    def pop(self, step, saved) -> None:
        for row in reversed(step[0]):
            fight = row[_H_FIGHT]
            if fight is None:
                continue
            lines = self.fights[fight]
            points = lines[row[_H_WHO]]["points"]
            points.pop()
            if not points:
                del lines[row[_H_WHO]]
                if not lines:
                    del self.fights[fight]
            self.out = _MISSING
        super().pop(step, saved)


class ChartSeries(Follower):
    """XP after each award per delver, and hearts per combatant per fight, over the actions in force: the shared
    follower (``delvebook.collect``) with the analysis frames' own XP and hearts collectors, each keeping its points
    as the page draws them. ``follow`` is called after each event is folded."""

    def __init__(self, setup: dict):
        self._xp, self._hearts = _XpPoints(), _FightHearts()
        super().__init__((self._xp, self._hearts))
        self.history: History | None = None
        self.seen = 0  # events followed
        self.start(setup)

    @classmethod
    def replayed(cls, setup: dict, events: list[dict]) -> "ChartSeries":
        """The series of a log, folded over a copy of ``setup`` one event at a time."""
        series = cls(setup)
        history = History(clone(setup))
        with collector_paused():  # its points live as long as the panel: a collector's pass would find none to free
            for event in events:
                series.follow(history, event, history.apply(event))
                series.seen += 1
        return series

    # ---- what the panel shows
    def xp_series(self, seats: list[str]) -> list[dict]:
        """Each seated delver's XP after each award in force, from (0, 0)."""
        out, points = self._xp.out, self._xp.points
        for who in seats:
            if who not in out:
                out[who] = [[0, 0]] + [[int(q), int(v)] for q, v in points.get(who, ())]
        return [{"name": who, "points": out[who]} for who in seats]

    def latest_fight(self) -> dict | None:
        """The latest fight's hearts: each combatant's, in the order they first changed in it."""
        h = self._hearts
        if h.out is _MISSING:
            if not h.fights:
                h.out = None
            else:
                number = max(h.fights)
                h.out = {"number": number, "series": [
                    {"name": str(who), "side": line["side"], "points": [[int(q), int(v)] for q, v in line["points"]]}
                    for who, line in h.fights[number].items()]}
        return h.out
