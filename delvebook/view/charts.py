"""The Charts panel (``chartsEl`` in charts.js): XP progress with the level thresholds, and hearts in the latest
fight, as series the page draws as SVG (plotly.js cannot load in an offline ES module).

The series are kept up to date per event instead of computed again per click: ``ChartSeries`` is the follower the
analysis frames are built with (``delvebook.core.collect``), with the same XP and hearts collectors: an action coming in
force adds its step (worked out from the state just after it and what it touched), an action undone or replaced
takes its step back, and one put back (a redo, an undo that brings back what a luck die replaced) adds its step
again. It is built once per open campaign (a replay of the log), when the panel first shows, and then moved by the
campaign's listeners. Its points are the analysis frames' (``analysis.xp``, ``analysis.hearts``), a fight's lines
drawn from its start (every delver standing then) to its end or now: a test holds the two to each other.
"""

from __future__ import annotations

import functools
import weakref
from typing import Any

from ..campaign.collector import collector_paused
from ..core.collect import Follower
from ..core.collect.fights import Fights
from ..core.collect.hearts import Hearts, Xp
from ..core.events import History, clone
from ..core.extras import missing
from ..core.model import STATUS_DEAD
from ..core.roles import PARTY

__all__ = ["charts_available", "charts_panel", "ChartSeries"]


@functools.cache
def charts_available() -> bool:
    """Whether the analysis extra (pandas, plotly) is here: the Charts panel shows only then. Asked once per
    process (looking them up cost every view 0.09 ms, a sixth of a fresh campaign's view): an extra installed
    later shows after the kernel restarts, as its import would."""
    return not missing("pandas", "plotly")


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
_XP_WHO, _XP_SEQ, _XP_AFTER = (Xp.FIELDS.index(f) for f in ("who", "seq", "xp"))
_H_SEQ, _H_FIGHT, _H_KIND, _H_WHO, _H_SIDE, _H_HEARTS = (
    Hearts.FIELDS.index(f) for f in ("seq", "encounter", "kind", "who", "side", "hearts"))


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
    """The hearts collector, keeping each fight's lines (per combatant, in the order they first changed in it) and
    the delvers standing as each fight began (``starts``: name, seq, hearts then), each line's first point."""

    def __init__(self) -> None:
        super().__init__()
        self.fights: dict[int, dict[str, dict]] = {}  # fight -> {name: {"side", "points": [(seq, hearts)]}}
        self.starts: dict[int, list] = {}  # fight -> [(delver, seq, hearts), ...] in the party's order
        self.out: Any = _MISSING

    def push(self, step):
        begun = None
        for row in step[0]:
            fight = row[_H_FIGHT]
            if fight is None:
                continue
            if row[_H_KIND] == "encounter" and fight not in self.starts:
                begun = fight
                self.starts[fight] = [(key[1], row[_H_SEQ], now[0]) for key, now in self.last.items()
                                      if key[0] == PARTY and now[2] != STATUS_DEAD]
            line = self.fights.setdefault(fight, {}).setdefault(row[_H_WHO], {"side": row[_H_SIDE], "points": []})
            line["points"].append((row[_H_SEQ], row[_H_HEARTS]))
            self.out = _MISSING
        return super().push(step), begun

    def pop(self, step, saved) -> None:
        saved, begun = saved
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
        if begun is not None:
            del self.starts[begun]
        super().pop(step, saved)


class _FightEnds(Fights):
    """The fights collector, keeping where each fight ended (``ends``: fight -> seq) for the hearts lines."""

    def __init__(self, hearts: _FightHearts) -> None:
        super().__init__()
        self.ends: dict[int, int] = {}
        self._hearts = hearts

    def push(self, step):
        for fact in step[0]:
            if fact[0] == "end":
                self.ends[fact[1]] = fact[2]["end_seq"]
                self._hearts.out = _MISSING
        return super().push(step)

    def pop(self, step, saved) -> None:
        for fact in step[0]:
            if fact[0] == "end":
                self.ends.pop(fact[1], None)
                self._hearts.out = _MISSING
        super().pop(step, saved)


class ChartSeries(Follower):
    """XP after each award per delver, and hearts per combatant per fight, over the actions in force: the shared
    follower (``delvebook.core.collect``) with the analysis frames' own XP and hearts collectors, each keeping its points
    as the page draws them. ``follow`` is called after each event is folded."""

    def __init__(self, setup: dict):
        self._xp, self._hearts = _XpPoints(), _FightHearts()
        self._ends = _FightEnds(self._hearts)
        super().__init__((self._xp, self._hearts, self._ends))
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
        """The latest fight's hearts: each combatant's from the fight's start (the delvers standing then, in the
        party's order) or its entry (the foes, in the order they came), to the fight's end; ``first``: the seq it
        began."""
        h = self._hearts
        if h.out is _MISSING:
            if not h.fights:
                h.out = None
            else:
                number = max(h.fights)
                lines: dict[str, dict] = {}
                for who, seq, hearts in h.starts.get(number, ()):
                    lines[who] = {"name": str(who), "side": PARTY, "points": [[int(seq), int(hearts)]]}
                for who, line in h.fights[number].items():
                    drawn = lines.setdefault(who, {"name": str(who), "side": line["side"], "points": []})
                    drawn["points"] += [[int(q), int(v)] for q, v in line["points"]]
                end = self._ends.ends.get(number)
                if end is not None:  # every line of an ended fight runs to its end
                    for line in lines.values():
                        if line["points"][-1][0] != end:
                            line["points"].append([int(end), line["points"][-1][1]])
                series = list(lines.values())
                h.out = {"number": number, "first": min(s["points"][0][0] for s in series), "series": series}
        return h.out
