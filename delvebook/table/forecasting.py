"""The encounter builder's forecast, tuner and check, run between the table's messages.

The builder asks for a forecast of its draft (the foes, who sits out) against the party as it stands, by how this
party plays (``camp.habits()``: learned from its fights) or, one click away, by the documented default; ``Runner``
starts it (``camp.danger_job``: worker processes where there are cores, else this process a slice at a time), steps
it, and writes what it says so far into ``ui.forecast`` (plain data the view lays out). Once it is done, the other
policy's forecast of the same draft follows (``ui.forecast["other"]``), so the builder can set both chances side by
side where they differ. A draft changed (one foe more, a delver sitting out), the party changed, or Cancel: the
running one is dropped and its processes ended; a forecast already finished for the same draft, party and policy is
shown again at once. The tuner (``camp.tuner``, by the same policy) runs the same way into ``ui.tuning``, the
forecast waiting meanwhile. The check (``forecast.check``: every fight of the campaign forecast again by both
policies, beside what happened) runs when the keeper asks, into ``ui.builder["check"]``.

The widget drives a ``Runner`` from the kernel's event loop, a slice at a time, so clicks are answered between
slices (``Table._drive``); a test, or a script with no event loop, plays it to its end with ``settle``. Nothing
here needs threads or a subprocess of its own (under Pyodide the forecast plays in this process).
"""

from __future__ import annotations

import json
import time
from typing import Callable, Mapping

from ..engine import Refused, queries
from ..forecast import check as checking
from ..forecast.policy import Policy
from ..view import UI

__all__ = ["Runner", "settle", "FIGHTS", "SLICE", "PUSH", "forecast_key", "POLICY_LABELS"]

FIGHTS = 20_000
"""The most fights a builder's forecast plays (it stops at ±2 points long before, for every bundled encounter)."""
SLICE = 0.04
"""Seconds this process plays fights before it lets the table's messages through (one process)."""
PUSH = 0.25
"""Seconds between two views sent while a forecast refines (the first as soon as it starts)."""


CHECK_FIGHTS = checking.FIGHTS
"""Simulated fights a forecast of the builder's check plays (the report's calibration plays as many)."""
KEPT = 12
"""Finished forecasts kept to be shown again at once (the other policy one click away, a foe added then removed)."""


def forecast_key(camp, ui: UI, policy: str | None = None) -> str | None:
    """What the builder's forecast depends on: the draft, who sits out, the party as it stands (its sheets, luck
    dice), the foe types the draft names and the policy (``policy``, else the one the builder shows); a new key
    means a new forecast."""
    b = ui.builder
    if b is None or not b.get("foes"):
        return None
    s = camp.state
    party = {n: s["delvers"][n] for n in s["seats"]}
    types = {f: queries.foe_type(s, camp.rules, f) for f, _ in b["foes"]}
    return json.dumps([b["foes"], sorted(b.get("out", ())), bool(b.get("dark")), party, s["luck"], types,
                       policy or shown_policy(ui)], sort_keys=True, default=str)


def shown_policy(ui: UI) -> str:
    """The policy the builder forecasts by first: ``"habits"`` (how this party plays) unless the keeper asked for
    the documented default."""
    return "default" if (ui.builder or {}).get("policy") == "default" else "habits"


def _other(which: str) -> str:
    return "default" if which == "habits" else "habits"


def policy_labels(habits) -> dict[str, str]:
    """How the builder names each policy's chance: 'as this party plays', and 'if it fights on' (when the party's
    habits leave fights) or 'by the documented default'."""
    return {"habits": "as this party plays",
            "default": "if it fights on" if habits.retreats else "by the documented default"}


POLICY_LABELS = policy_labels


def _est(e) -> dict:
    return {"p": e.p, "lo": e.lo, "hi": e.hi}


def _forecast_summary(job, key: str, status: str) -> dict:
    d = job.danger()
    p = job.progress()
    return {"status": status, "key": key, "done": d.fights, "total": job.fights,
            "widest": d.widest if d.fights else None, "precision": job.precision, "rate": p.rate, "left": p.left,
            "seconds": p.seconds, "precise": d.precise,
            "delvers": [{"name": n, "drops": _est(x.p_drop), "dies": _est(x.p_death)} for n, x in d.delvers.items()],
            "death": _est(d.p_any_death), "wipe": _est(d.p_wipe), "win": _est(d.p_win), "fled": _est(d.p_fled),
            "rounds": str(d.rounds)}


def _habits_summary(habits) -> dict:
    return {"lines": habits.describe(), "enough": habits.enough, "learned": habits.learned, "fights": habits.fights}


def _check_summary(c, status: str) -> dict:
    """What the check says so far, as plain data: progress, and once done every chance's scores by policy."""
    out = {"status": status, "done": c.done_count, "total": c.total, "fights": len(c.plan.fights),
           "simulated": c.fights}
    if status == "done":
        out["scores"] = {w: {q: {"n": s.n, "brier": s.brier, "base_rate": s.base_rate, "reference": s.reference,
                                 "bins": [list(b) for b in s.bins]}
                             for q, s in by.items()} for w, by in checking.scores(c.plan, c.rows).items()}
    return out


def _tuning_summary(tuner, asked: Mapping, status: str) -> dict:
    out = {**asked, "status": status, "proposed": tuner.proposed,
           "candidates": [{"count": c.count, "death": _est(c.danger.p_any_death), "win": _est(c.danger.p_win),
                           "rounds": str(c.danger.rounds), "meets": c.meets} for c in tuner.candidates]}
    if tuner.job is not None:
        out["now"] = {"count": tuner.count, "done": tuner.job.done_fights}
    return out


class Runner:
    """The forecasts, the tuner and the check of one table (``ui_of()``: its UI state, read afresh each time)."""

    def __init__(self, camp, ui_of: Callable[[], UI]):
        self.camp = camp
        self.ui_of = ui_of
        self.job = None          # the forecast by the policy shown first
        self.key: str | None = None
        self.other = None        # then the other policy's, of the same draft
        self.other_key: str | None = None
        self.tuner = None
        self.check = None        # every fight of the campaign forecast again by both policies
        self.finished: dict[str, dict] = {}  # the latest finished forecasts by key (KEPT of them)
        self.checked: tuple | None = None    # (the log it checked, what the check said)
        self._said = 0.0  # when what the forecast says was last written (a summary costs a pass over its fights)

    @property
    def busy(self) -> bool:
        return any(x is not None for x in (self.job, self.other, self.tuner, self.check))

    @property
    def parallel(self) -> bool:
        """Whether worker processes play the fights (this process then only gathers them)."""
        job = self.tuner.job if self.tuner is not None else self.job or self.other
        if job is None:
            return self.check is not None and self.check.parallel
        return job.workers > 1

    def _policy(self, which: str) -> Policy:
        return self.camp.habits().policy() if which == "habits" else Policy()

    def sync(self) -> bool:
        """Start, keep or drop the forecasts, the tuner and the check as the UI state now asks; whether one runs."""
        ui = self.ui_of()
        key = forecast_key(self.camp, ui)
        f = ui.forecast
        if key is None:
            self._drop_job()
            ui.forecast = None
        elif f is not None and f.get("key") == key and f.get("status") in ("cancelled", "failed", "done"):
            self._drop_job(keep_other=True)  # cancelled, or done: it stays as it is until asked again
            self._sync_other(ui)
        elif self.job is None or self.key != key:
            self._start_job(ui, key)
        t = ui.tuning
        if t is None or t.get("status") not in ("asked", "running"):
            if self.tuner is not None:
                self.tuner.cancel()
                self.tuner = None
        elif t.get("status") == "asked":
            self._start_tuner(ui, t)
        self._sync_check(ui)
        return self.busy

    def _drop_job(self, keep_other: bool = False) -> None:
        if self.job is not None:
            self.job.cancel()
        self.job, self.key = None, None
        if not keep_other and self.other is not None:
            self.other.cancel()
            self.other, self.other_key = None, None

    def _start_job(self, ui: UI, key: str) -> None:
        self._drop_job()
        habits = self.camp.habits()
        which = shown_policy(ui)
        ui.forecast = {"key": key, "policy": which, "labels": policy_labels(habits), "habits": _habits_summary(habits)}
        if key in self.finished:  # the same draft, party and policy: shown again at once
            ui.forecast.update(self.finished[key])
            self._sync_other(ui)
            return
        try:
            self.job = self._job(ui, which)
        except (Refused, ValueError) as err:
            ui.forecast.update(status="failed", why=str(err))
            return
        self.key = key
        ui.forecast.update(_forecast_summary(self.job, key, "running"))

    def _job(self, ui: UI, which: str):
        b = ui.builder
        return self.camp.danger_job([{"foe": f} for f, n in b["foes"] for _ in range(n)], fights=FIGHTS,
                                    name=(b.get("name") or "").strip() or None, sitting_out=list(b["out"]),
                                    dark=bool(b.get("dark")), policy=self._policy(which))

    def _sync_other(self, ui: UI) -> None:
        """Once the forecast shown is done, the other policy's forecast of the same draft (when the party's habits
        play otherwise than the default)."""
        f = ui.forecast
        if f is None or f.get("status") != "done" or not f["habits"]["learned"]:
            return
        which = _other(f["policy"])
        key = forecast_key(self.camp, ui, which)
        if key in self.finished:
            f["other"] = {"policy": which, **self.finished[key]}
            return
        if self.other is not None and self.other_key == key:
            return
        if self.other is not None:
            self.other.cancel()
        try:
            self.other, self.other_key = self._job(ui, which), key
        except (Refused, ValueError):
            self.other, self.other_key = None, None
            return
        f["other"] = {"policy": which, **_forecast_summary(self.other, key, "running")}

    def _keep(self, key: str, summary: dict) -> None:
        self.finished.pop(key, None)
        self.finished[key] = summary
        while len(self.finished) > KEPT:
            self.finished.pop(next(iter(self.finished)))

    def _start_tuner(self, ui: UI, t: Mapping) -> None:
        if self.tuner is not None:
            self.tuner.cancel()
        b = ui.builder or {"foes": [], "out": []}
        base = [{"foe": f} for f, n in b["foes"] for _ in range(n) if f != t["foe"]]
        try:
            self.tuner = self.camp.tuner(t["foe"], t["target"], base, fights=FIGHTS, sitting_out=list(b["out"]),
                                         dark=bool(b.get("dark")), policy=self._policy(shown_policy(ui)))
        except (Refused, ValueError) as err:
            ui.tuning = {**t, "status": "failed", "why": str(err)}
            return
        ui.tuning = _tuning_summary(self.tuner, t, "running")

    def _log_key(self) -> tuple:
        events = self.camp.events
        return len(events), events[-1]["seq"] if events else 0

    def _sync_check(self, ui: UI) -> None:
        b = ui.builder
        c = (b or {}).get("check")
        if c is None or c.get("status") not in ("asked", "running"):
            if self.check is not None:
                self.check.cancel()
                self.check = None
            return
        if c.get("status") == "running":
            return
        if self.checked is not None and self.checked[0] == self._log_key():
            b["check"] = self.checked[1]
            return
        try:
            self.check = checking.Check(self.camp.rules, checking.plan(self.camp), fights=CHECK_FIGHTS)
        except (Refused, ValueError) as err:
            b["check"] = {"status": "failed", "why": str(err)}
            return
        b["check"] = _check_summary(self.check, "running")

    def step(self, seconds: float) -> bool:
        """Play the tuner (or else the forecast, the other policy's, the check) for about ``seconds`` and write what
        it says; whether anything goes on."""
        ui = self.ui_of()
        if self.tuner is not None:
            going = self.tuner.step(seconds)
            asked = {k: v for k, v in (ui.tuning or {}).items() if k in ("foe", "name", "target")}
            ui.tuning = _tuning_summary(self.tuner, asked, "running" if going else
                                        "cancelled" if self.tuner.cancelled else "done")
            if not going:
                self.tuner = None
        elif self.job is not None and (ui.forecast or {}).get("key") != self.key:
            self._drop_job()  # the builder moved on (closed, another draft) before sync() said so
        elif self.job is not None:
            self.job.step(seconds)
            done = self.job.done
            now = time.monotonic()
            if done or now - self._said >= PUSH * 0.9 or not (ui.forecast or {}).get("done"):
                self._said = now
                ui.forecast.update(_forecast_summary(self.job, self.key, "done" if done else "running"))
            if done:
                self._keep(self.key, {k: v for k, v in ui.forecast.items()
                                      if k not in ("key", "policy", "labels", "habits", "other")})
                self.job, self.key = None, None
                self._sync_other(ui)
        elif self.other is not None:
            self.other.step(seconds)
            summary = _forecast_summary(self.other, self.other_key, "done" if self.other.done else "running")
            if ui.forecast is not None and ui.forecast.get("policy"):
                ui.forecast["other"] = {"policy": _other(ui.forecast["policy"]), **summary}
            if self.other.done:
                self._keep(self.other_key, summary)
                self.other, self.other_key = None, None
        elif self.check is not None:
            going = self.check.step(seconds)
            b = ui.builder
            summary = _check_summary(self.check, "running" if going else
                                     "cancelled" if self.check.cancelled else "done")
            if b is not None:
                b["check"] = summary
            if not going:
                if summary["status"] == "done":
                    self.checked = (self._log_key(), summary)
                self.check = None
        return self.busy

    def close(self) -> None:
        self._drop_job()
        for name in ("tuner", "check"):
            x = getattr(self, name)
            if x is not None:
                x.cancel()
                setattr(self, name, None)


def settle(camp, ui: UI, runner: Runner | None = None) -> UI:
    """Play the forecasts, the tuner and the check the UI state asks for to their end (a test, or a script with no event
    loop: the widget steps them between messages instead)."""
    runner = runner or Runner(camp, lambda: ui)
    try:
        while runner.sync() and runner.step(0.5):
            pass
    finally:
        runner.close()
    return ui

