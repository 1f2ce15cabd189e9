"""Tuning an encounter: how many foes of a kind meet what the keeper wants of the fight.

The keeper states a target, "nobody dies" (the chance of a death at most 5%) or "a real threat" (the party wins at
most 80% of the time), and a kind of foe; the tuner forecasts the encounter with one of them more at a time (beside
the foes already in it) and proposes the count that meets it: the most that keeps everyone alive, or the fewest that
make a real threat, with each candidate's forecast. A candidate's forecast stops as soon as its interval is clear of
the target (or within ``precision``), so tuning costs a few forecasts' worth of fights, not one each at ±2 points.

``Tuner`` is played a slice at a time like a ``Job`` (``step``, ``cancel``); ``tune()`` plays it to its end.

Standard library only.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Sequence

from .job import Counts, Job
from .result import Danger

__all__ = ["TARGETS", "Target", "Candidate", "Tuner", "tune"]


class Target(NamedTuple):
    """What a keeper wants of a fight: the estimate watched (a ``Danger.estimates`` label), the most it may be, and
    whether more foes make it (the most foes that meet it) or fewer (the fewest that meet it)."""

    label: str
    at_most: float
    words: str
    more_is_closer: bool  # True: the fewest foes that bring it down to at_most ("a real threat")

    def met_by(self, danger: Danger) -> bool:
        return danger.estimates[self.label].p <= self.at_most


TARGETS: dict[str, Target] = {
    "nobody dies": Target("a death", 0.05, "the chance of a death at most 5%", False),
    "a real threat": Target("win", 0.80, "the party wins at most 80% of the time", True),
}
"""The targets a keeper can ask for, by their words."""


class Candidate(NamedTuple):
    """One count tried: how many of the foe, its forecast, and whether it meets the target."""

    count: int
    danger: Danger
    meets: bool


class Tuner:
    """Tries 1, 2, 3... of ``foe`` beside ``base`` (one forecast each) until the target's answer is known (see the
    module); ``proposed`` is the count to use (None: none meets it), ``candidates`` every count tried."""

    def __init__(self, rules, state: dict, foe: str, target: str = "nobody dies", base: Sequence = (), *,
                 most: int = 12, fights: int = 4000, seed: int | None = None, precision: float = 0.02,
                 make_job: Callable[..., Job] | None = None, **options: Any):
        if target not in TARGETS:
            raise ValueError(f"a target is one of {', '.join(map(repr, TARGETS))}, not {target!r}")
        if isinstance(most, bool) or not isinstance(most, int) or not 1 <= most <= 100:
            raise ValueError(f"most is a whole number of foes from 1 to 100, not {most!r}")
        self.target = TARGETS[target]
        self.target_words = target
        self.foe = foe
        self.base = list(base)
        self.most = most
        self.candidates: list[Candidate] = []
        self.proposed: int | None = None
        self.done = self.cancelled = False
        self._make = make_job or (lambda foes, **kw: Job(rules, state, foes, **kw))
        self._kw = dict(fights=fights, seed=seed, precision=precision, **options)
        self._job: Job | None = None
        self._next(1)

    def _next(self, count: int) -> None:
        t, precision = self.target, self._kw["precision"]

        def decided(counts: Counts) -> bool:
            lo, hi = counts.interval(t.label)
            return (hi - lo) / 2 <= precision or hi <= t.at_most or lo > t.at_most
        self.count = count
        self._job = self._make(self.base + [self.foe] * count, stop_when=decided, **self._kw)

    @property
    def job(self) -> Job | None:
        """The forecast being played now (its ``danger()`` so far), or None once tuning is done."""
        return self._job

    def step(self, seconds: float) -> bool:
        """Play the candidate now tried for about ``seconds``; returns whether tuning goes on."""
        if self.done:
            return False
        job = self._job
        job.step(seconds)
        if not job.done:
            return True
        d = job.danger()
        meets = self.target.met_by(d)
        self.candidates.append(Candidate(self.count, d, meets))
        if self.target.more_is_closer:  # a real threat: the fewest foes that meet it
            if meets:
                return self._finish(self.count)
        elif meets:  # nobody dies: the most foes that still meet it
            self.proposed = self.count
        else:
            return self._finish(self.proposed)
        if self.count >= self.most:
            return self._finish(self.proposed if not self.target.more_is_closer else None)
        self._next(self.count + 1)
        return True

    def _finish(self, proposed: int | None) -> bool:
        self.proposed = proposed
        self.done = True
        self._job = None
        return False

    def cancel(self) -> None:
        if self._job is not None:
            self._job.cancel()
        self._job = None
        if not self.done:
            self.done = self.cancelled = True

    def run(self) -> "Tuner":
        try:
            while self.step(0.5):
                pass
        finally:
            self.cancel() if not self.done else None
        return self

    def summary(self) -> list[str]:
        """The tuning in lines of text: each count tried, and the count proposed."""
        t = self.target
        lines = [f"Tuning {self.foe} for {self.target_words!r} ({t.words})"]
        for c in self.candidates:
            lines.append(f"  {c.count}: a death {c.danger.p_any_death}, the party wins {c.danger.p_win}, "
                         f"rounds {c.danger.rounds}{'  meets it' if c.meets else ''}")
        if self.proposed is None:
            lines.append("no count tried meets it" if self.candidates else "nothing tried")
        else:
            lines.append(f"proposed: {self.proposed}")
        return lines

    def __str__(self) -> str:
        return "\n".join(self.summary())


def tune(rules, state: dict, foe: str, target: str = "nobody dies", base: Sequence = (), **options: Any) -> Tuner:
    """``Tuner(...)`` played to its end (see ``Tuner``)."""
    return Tuner(rules, state, foe, target, base, **options).run()
