"""Was the forecast right? Each fight of a campaign forecast again from the state at its start, by the documented
default and by this party's habits, beside what happened in it.

``plan(camp)`` walks the log once (``walk.walk``: each fight's start, what happened, the choices made) and fits the
habits once per session on every other session's fights (``habits.held_out``): a fight is forecast by habits that
never saw it, so the score is not flattered by the fit. ``Check`` plays the forecasts (``FIGHTS`` simulated fights
each, seeded by the fight's seq, over every core where processes fork), a slice at a time for a view (``step``) or
to the end (``run``); a fight whose held-out habits play as the default does is forecast once.

``score(pairs)`` is the reliability of one chance: the fights binned by their forecast (0-10%, 10-20%...), each
bin's share that happened with its 95% Wilson interval, and the Brier score (the mean squared gap between forecast
and outcome, 0 best) beside the score of always forecasting the base rate. ``scores(plan, rows)`` gives them for
every chance (``QUANTITIES``) and both policies: what the report's chart and the builder's tables show.

Standard library only (``analysis.calibration`` lays the same numbers out as pandas frames, and caches them).
"""

from __future__ import annotations

import sys
import time
import warnings
from typing import Any, Callable, Mapping, NamedTuple, Sequence

from ..engine import Refused
from .habits import Habits, fit, held_out
from .job import Job
from .policy import Policy
from .result import wilson
from .walk import FightRecord, Walk, walk

__all__ = ["FIGHTS", "QUANTITIES", "POLICIES", "Plan", "plan", "Check", "Bin", "Score", "score", "scores",
           "pairs", "forecast_row", "BINS"]

FIGHTS = 100
"""Simulated fights a forecast: each chance within about ±10 points (95%); a bin's mean forecast is far closer,
and the noise adds at most 0.0025 to a Brier score."""

BINS = 10
"""Bins of the reliability table: 0-10%, 10-20% ... 90-100%."""

QUANTITIES = {
    "drop": ("a delver drops below 1 heart", "delvers"),
    "death": ("a delver dies", "delvers"),
    "any_death": ("a death in the party", "fights"),
    "win": ("the party wins", "fights"),
}
"""Each chance checked: its words, and whether it is counted per delver in a fight or per fight."""

POLICIES = {"default": "the documented default", "habits": "this party's habits"}


# ---------------------------------------------------------------- what to forecast

class Plan:
    """What a check forecasts: the ``walk`` (each fight's start and what happened), the ``default`` policy, and
    per session the ``habits`` fitted without it (``learned``: the habits on every fight, what the builder uses);
    ``items(policy)``: (seq, start state, policy) per fight, ``same``: the fights whose held-out habits play as
    the default does."""

    def __init__(self, w: Walk, default: Policy, habits: Mapping[Any, Habits], learned: Habits):
        self.walk = w
        self.default = default
        self.habits = dict(habits)
        self.learned = learned
        self.fights = [r for r in w.fights if r.start is not None]

    def policy_for(self, r: FightRecord, which: str) -> Policy:
        if which == "default":
            return self.default
        h = self.habits.get(r.session, self.learned)
        return h.policy() if h.enough else self.default

    def items(self, which: str) -> list[tuple[int, dict, Policy]]:
        return [(r.start_seq, r.start, self.policy_for(r, which)) for r in self.fights]

    def same(self, r: FightRecord) -> bool:
        return repr(self.policy_for(r, "habits")) == repr(self.default)

    @property
    def learns(self) -> bool:
        """Whether any fight's held-out habits play otherwise than the default (else one policy is checked)."""
        return any(not self.same(r) for r in self.fights)


def plan(camp, policy: Policy | None = None) -> Plan:
    """Walk ``camp``'s log and fit the held-out habits (see the module); ``policy``: the default compared."""
    w = walk(camp, starts=True)
    return Plan(w, Policy() if policy is None else policy, held_out(w), fit(w.fights))


# ---------------------------------------------------------------- one forecast

def forecast_row(rules, policy: Policy, fights: int, seq: int, state: dict) -> dict:
    """One fight's forecast from the state at its start, as plain data (what a cache keeps)."""
    number = state["encounter"].get("number")
    try:
        job = Job(rules, state, None, fights=fights, seed=seq, precision=0, workers=1, policy=policy)
        d = job.run()
    except Refused as err:
        return {"seq": seq, "encounter": number, "refused": str(err)}
    return _row(seq, number, d)


def _row(seq: int, number: Any, d) -> dict:
    return {"seq": seq, "encounter": number, "party": d.party,
            "p_drop": [d.p_drop[n].p for n in d.party], "p_death": [d.p_death[n].p for n in d.party],
            "p_any_drop": sum(any(r.dropped) for r in d.results) / d.fights, "p_any_death": d.p_any_death.p,
            "p_win": d.p_win.p, "p_wipe": d.p_wipe.p, "rounds_median": d.rounds.median, "rounds_p90": d.rounds.p90}


_WORK: tuple | None = None


def _worker_init(work: tuple) -> None:
    global _WORK
    _WORK = work


def _worker_row(i: int) -> tuple[int, dict]:
    rules, fights, items = _WORK
    seq, state, policy = items[i]
    return i, forecast_row(rules, policy, fights, seq, state)


class Check:
    """The forecasts of a ``Plan``, played a slice at a time (``step``) or to the end (``run``): ``rows[which]``,
    one per fight (``which``: ``"default"``, ``"habits"``), ``done`` of ``total``; ``cancel()`` stops it."""

    def __init__(self, rules, p: Plan, *, fights: int = FIGHTS, workers: int | None = None,
                 progress: Callable[[int, int], Any] | None = None):
        from .job import default_workers
        self.rules, self.plan, self.fights = rules, p, fights
        self.progress = progress
        todo: list[tuple[int, dict, Policy]] = []
        self._where: list[tuple[str, int]] = []
        for which in ("default", "habits"):
            for k, (item, r) in enumerate(zip(p.items(which), p.fights)):
                if which == "habits" and p.same(r):
                    continue
                todo.append(item)
                self._where.append((which, k))
        self.rows: dict[str, list] = {w: [None] * len(p.fights) for w in ("default", "habits")}
        self.total = len(todo)
        self.done_count = 0
        self.done = self.cancelled = False
        self._todo = todo
        self._next = 0
        self._job: Job | None = None
        self._pool = None
        self._pending: set = set()
        workers = default_workers() if workers is None else max(1, int(workers))
        if workers > 1 and len(todo) > 1 and _forks():
            self._start_pool(min(workers, len(todo)))
        if not todo:
            self._finish()

    @property
    def parallel(self) -> bool:
        """Whether worker processes play the forecasts (this process then only gathers them)."""
        return self._pool is not None

    def _start_pool(self, workers: int) -> None:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor
        with warnings.catch_warnings():
            # forking from a notebook kernel (which has threads) warns on Python 3.12+; the children run the core
            warnings.filterwarnings("ignore", message=r".*fork\(\).*", category=DeprecationWarning)
            self._pool = ProcessPoolExecutor(workers, mp_context=mp.get_context("fork"), initializer=_worker_init,
                                             initargs=((self.rules, self.fights, self._todo),))
            self._pending = {self._pool.submit(_worker_row, i) for i in range(len(self._todo))}

    def _took(self, i: int, row: dict) -> None:
        which, k = self._where[i]
        self.rows[which][k] = row
        self.done_count += 1
        if self.progress:
            self.progress(self.done_count, self.total)
        if self.done_count == self.total:
            self._finish()

    def _finish(self) -> None:
        for k, r in enumerate(self.plan.fights):
            if self.rows["habits"][k] is None:
                self.rows["habits"][k] = self.rows["default"][k]
        self.done = True
        self.close()

    def step(self, seconds: float) -> bool:
        """Play (or gather) for about ``seconds``; whether it goes on."""
        if self.done:
            return False
        deadline = time.monotonic() + seconds
        if self._pool is not None:
            from concurrent.futures import FIRST_COMPLETED, wait
            while self._pending and not self.done:
                ready, self._pending = wait(self._pending, max(0.0, deadline - time.monotonic()),
                                            return_when=FIRST_COMPLETED)
                for f in ready:
                    self._took(*f.result())
                if time.monotonic() >= deadline:
                    break
            return not self.done
        while not self.done:
            if self._job is None:
                seq, state, policy = self._todo[self._next]
                try:
                    self._job = Job(self.rules, state, None, fights=self.fights, seed=seq, precision=0, workers=1,
                                    policy=policy)
                except Refused as err:
                    self._next += 1
                    self._took(self._next - 1, {"seq": seq, "encounter": state["encounter"].get("number"),
                                                "refused": str(err)})
                    continue
            self._job.step(max(0.0, deadline - time.monotonic()))
            if self._job.done:
                seq, state, _ = self._todo[self._next]
                row = _row(seq, state["encounter"].get("number"), self._job.danger())
                self._job = None
                self._next += 1
                self._took(self._next - 1, row)
            if time.monotonic() >= deadline:
                break
        return not self.done

    def run(self) -> "Check":
        try:
            while self.step(0.5):
                pass
        finally:
            if not self.done:
                self.cancel()
        return self

    def cancel(self) -> None:
        if not self.done:
            self.done = self.cancelled = True
        self.close()

    def close(self) -> None:
        self._job = None
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)  # (a worker ends with the forecast it plays)
            self._pool = None
            self._pending = set()


def _forks() -> bool:
    import multiprocessing as mp
    return sys.platform.startswith("linux") and "fork" in mp.get_all_start_methods()


# ---------------------------------------------------------------- beside what happened

def pairs(p: Plan, rows: Sequence[dict | None], quantity: str) -> list[tuple[float, bool]]:
    """(forecast, happened) for one chance (a key of ``QUANTITIES``), over the fights forecast (and ended)."""
    out = []
    for r, row in zip(p.fights, rows):
        if row is None or "refused" in row or r.outcome is None:
            continue
        if quantity in ("drop", "death"):
            happened = r.dropped if quantity == "drop" else r.died
            for name, prob in zip(row["party"], row["p_drop" if quantity == "drop" else "p_death"]):
                out.append((prob, bool(happened.get(name))))
        elif quantity == "any_death":
            out.append((row["p_any_death"], any(r.died.values())))
        else:
            out.append((row["p_win"], r.outcome == "won"))
    return out


class Bin(NamedTuple):
    """One bin of the reliability table: forecasts from ``lo`` to ``hi``, ``n`` of them, their mean ``forecast``,
    the share ``observed`` that happened and its 95% interval ``ci_lo``..``ci_hi``."""

    lo: float
    hi: float
    n: int
    forecast: float
    observed: float
    ci_lo: float
    ci_hi: float

    @property
    def on_diagonal(self) -> bool:
        """Whether the mean forecast lies within the interval of what happened (the forecast was right)."""
        return self.ci_lo <= self.forecast <= self.ci_hi


class Score(NamedTuple):
    """One chance's reliability: ``n`` pairs, the ``brier`` score, the ``base_rate`` and the ``reference`` (the
    Brier score of always saying the base rate), ``skill`` (1 - brier / reference), the ``bins``."""

    n: int
    brier: float
    base_rate: float
    reference: float
    skill: float
    bins: tuple

    @property
    def on_diagonal(self) -> int:
        return sum(b.on_diagonal for b in self.bins)


def score(ps: Sequence[tuple[float, bool]]) -> Score:
    """The reliability table and Brier scores of (forecast, happened) pairs."""
    n = len(ps)
    nan = float("nan")
    if not n:
        return Score(0, nan, nan, nan, nan, ())
    base = sum(y for _, y in ps) / n
    brier = sum((p - y) ** 2 for p, y in ps) / n
    reference = base * (1 - base)
    by: dict[int, list] = {}
    for p, y in ps:
        by.setdefault(min(int(p * BINS), BINS - 1), []).append((p, y))
    bins = []
    for b in sorted(by):
        sub = by[b]
        hits = sum(y for _, y in sub)
        lo, hi = wilson(hits, len(sub))
        bins.append(Bin(b / BINS, (b + 1) / BINS, len(sub), sum(p for p, _ in sub) / len(sub), hits / len(sub),
                        lo, hi))
    return Score(n, brier, base, reference, 1 - brier / reference if reference > 0 else nan, tuple(bins))


def scores(p: Plan, rows: Mapping[str, Sequence]) -> dict[str, dict[str, Score]]:
    """``{policy: {quantity: Score}}`` for the policies checked (the habits only where they learned anything)."""
    which = ["default"] + (["habits"] if p.learns else [])
    return {w: {q: score(pairs(p, rows[w], q)) for q in QUANTITIES} for w in which}
