"""The encounter builder's forecast and tuner, run between the table's messages.

The builder asks for a forecast of its draft (the foes, who sits out) against the party as it stands; ``Runner``
starts it (``camp.danger_job``: worker processes where there are cores, else this process a slice at a time), steps
it, and writes what it says so far into ``ui.forecast`` (plain data the view lays out). A draft changed (one foe
more, a delver sitting out), the party changed, or Cancel: the running one is dropped and its processes ended. The
tuner (``camp.tuner``) runs the same way into ``ui.tuning``, the forecast waiting meanwhile.

The widget drives a ``Runner`` from the kernel's event loop, a slice at a time, so clicks are answered between
slices (``Table._drive``); a test, or a script with no event loop, plays it to its end with ``settle``. Nothing
here needs threads or a subprocess of its own (under Pyodide the forecast plays in this process).
"""

from __future__ import annotations

import json
import time
from typing import Callable, Mapping

from ..engine import Refused, queries
from ..view import UI

__all__ = ["Runner", "settle", "FIGHTS", "SLICE", "PUSH", "forecast_key"]

FIGHTS = 20_000
"""The most fights a builder's forecast plays (it stops at ±2 points long before, for every bundled encounter)."""
SLICE = 0.04
"""Seconds this process plays fights before it lets the table's messages through (one process)."""
PUSH = 0.25
"""Seconds between two views sent while a forecast refines (the first as soon as it starts)."""


def forecast_key(camp, ui: UI) -> str | None:
    """What the builder's forecast depends on: the draft, who sits out, and the party as it stands (its sheets, luck
    dice) and the foe types the draft names; a new key means a new forecast."""
    b = ui.builder
    if b is None or not b.get("foes"):
        return None
    s = camp.state
    party = {n: s["delvers"][n] for n in s["seats"]}
    types = {f: queries.foe_type(s, camp.rules, f) for f, _ in b["foes"]}
    return json.dumps([b["foes"], sorted(b.get("out", ())), bool(b.get("dark")), party, s["luck"], types],
                      sort_keys=True, default=str)


def _est(e) -> dict:
    return {"p": e.p, "lo": e.lo, "hi": e.hi}


def _forecast_summary(job, key: str, status: str) -> dict:
    d = job.danger()
    p = job.progress()
    return {"status": status, "key": key, "done": d.fights, "total": job.fights,
            "widest": d.widest if d.fights else None, "precision": job.precision, "rate": p.rate, "left": p.left,
            "seconds": p.seconds, "precise": d.precise,
            "delvers": [{"name": n, "drops": _est(x.p_drop), "dies": _est(x.p_death)} for n, x in d.delvers.items()],
            "death": _est(d.p_any_death), "wipe": _est(d.p_wipe), "win": _est(d.p_win), "rounds": str(d.rounds)}


def _tuning_summary(tuner, asked: Mapping, status: str) -> dict:
    out = {**asked, "status": status, "proposed": tuner.proposed,
           "candidates": [{"count": c.count, "death": _est(c.danger.p_any_death), "win": _est(c.danger.p_win),
                           "rounds": str(c.danger.rounds), "meets": c.meets} for c in tuner.candidates]}
    if tuner.job is not None:
        out["now"] = {"count": tuner.count, "done": tuner.job.done_fights}
    return out


class Runner:
    """The forecast and the tuner of one table (``ui_of()``: its UI state, read afresh each time)."""

    def __init__(self, camp, ui_of: Callable[[], UI]):
        self.camp = camp
        self.ui_of = ui_of
        self.job = None
        self.key: str | None = None
        self.tuner = None
        self._said = 0.0  # when what the forecast says was last written (a summary costs a pass over its fights)

    @property
    def busy(self) -> bool:
        return self.job is not None or self.tuner is not None

    @property
    def parallel(self) -> bool:
        """Whether worker processes play the fights (this process then only gathers them)."""
        job = self.tuner.job if self.tuner is not None else self.job
        return job is not None and job.workers > 1

    def sync(self) -> bool:
        """Start, keep or drop the forecast and the tuner as the UI state now asks; whether one runs."""
        ui = self.ui_of()
        key = forecast_key(self.camp, ui)
        f = ui.forecast
        if key is None:
            self._drop_job()
            ui.forecast = None
        elif f is not None and f.get("key") == key and f.get("status") in ("cancelled", "failed", "done"):
            self._drop_job()  # the keeper cancelled it, or it is done: it stays as it is until asked again
        elif self.job is None or self.key != key:
            self._start_job(ui, key)
        t = ui.tuning
        if t is None or t.get("status") not in ("asked", "running"):
            if self.tuner is not None:
                self.tuner.cancel()
                self.tuner = None
        elif t.get("status") == "asked":
            self._start_tuner(ui, t)
        return self.busy

    def _drop_job(self) -> None:
        if self.job is not None:
            self.job.cancel()
        self.job, self.key = None, None

    def _start_job(self, ui: UI, key: str) -> None:
        self._drop_job()
        b = ui.builder
        try:
            self.job = self.camp.danger_job([{"foe": f} for f, n in b["foes"] for _ in range(n)], fights=FIGHTS,
                                            name=(b.get("name") or "").strip() or None, sitting_out=list(b["out"]),
                                            dark=bool(b.get("dark")))
        except (Refused, ValueError) as err:
            ui.forecast = {"status": "failed", "key": key, "why": str(err)}
            return
        self.key = key
        ui.forecast = _forecast_summary(self.job, key, "running")

    def _start_tuner(self, ui: UI, t: Mapping) -> None:
        if self.tuner is not None:
            self.tuner.cancel()
        b = ui.builder or {"foes": [], "out": []}
        base = [{"foe": f} for f, n in b["foes"] for _ in range(n) if f != t["foe"]]
        try:
            self.tuner = self.camp.tuner(t["foe"], t["target"], base, fights=FIGHTS, sitting_out=list(b["out"]),
                                         dark=bool(b.get("dark")))
        except (Refused, ValueError) as err:
            ui.tuning = {**t, "status": "failed", "why": str(err)}
            return
        ui.tuning = _tuning_summary(self.tuner, t, "running")

    def step(self, seconds: float) -> bool:
        """Play the tuner (or else the forecast) for about ``seconds`` and write what it says; whether it goes on."""
        ui = self.ui_of()
        if self.tuner is not None:
            going = self.tuner.step(seconds)
            asked = {k: v for k, v in (ui.tuning or {}).items() if k in ("foe", "name", "target")}
            ui.tuning = _tuning_summary(self.tuner, asked, "running" if going else
                                        "cancelled" if self.tuner.cancelled else "done")
            if not going:
                self.tuner = None
        elif self.job is not None:
            self.job.step(seconds)
            done = self.job.done
            now = time.monotonic()
            if done or now - self._said >= PUSH * 0.9 or not (ui.forecast or {}).get("done"):
                self._said = now
                ui.forecast = _forecast_summary(self.job, self.key, "done" if done else "running")
            if done:
                self.job, self.key = None, None
        return self.busy

    def close(self) -> None:
        self._drop_job()
        if self.tuner is not None:
            self.tuner.cancel()
            self.tuner = None


def settle(camp, ui: UI, runner: Runner | None = None) -> UI:
    """Play the forecast and the tuner the UI state asks for to their end (a test, or a script with no event
    loop: the widget steps them between messages instead)."""
    runner = runner or Runner(camp, lambda: ui)
    try:
        while runner.sync() and runner.step(0.5):
            pass
    finally:
        runner.close()
    return ui

