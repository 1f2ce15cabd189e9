"""What a forecast says: chances with their 95% Wilson intervals, rounds, XP and hearts, and every fight played.

Standard library only (``Danger.frame`` imports pandas when it is called).
"""

from __future__ import annotations

import html
import math
from typing import Iterable, NamedTuple, Sequence

from .fight import FLED, OUTCOMES, STALEMATE, WIPED, WON, FightResult

__all__ = ["Estimate", "Rounds", "DelverDanger", "Danger", "wilson", "Z95"]

Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval


def wilson(hits: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of ``hits`` successes in ``n`` trials (95% by default): ``(low, high)``."""
    if n <= 0:
        return 0.0, 1.0
    p = hits / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return (0.0 if hits == 0 else max(0.0, centre - half)), (1.0 if hits == n else min(1.0, centre + half))


class Estimate(NamedTuple):
    """A chance estimated from ``hits`` of ``n`` fights: ``p`` and its 95% Wilson interval ``lo``..``hi``."""

    p: float
    lo: float
    hi: float
    hits: int
    n: int

    @classmethod
    def of(cls, hits: int, n: int) -> "Estimate":
        lo, hi = wilson(hits, n)
        return cls(hits / n if n else 0.0, lo, hi, hits, n)

    @property
    def half_width(self) -> float:
        """Half the interval's width: the ``±`` of the estimate."""
        return (self.hi - self.lo) / 2

    def __contains__(self, p: float) -> bool:
        return self.lo <= p <= self.hi

    def __float__(self) -> float:
        return self.p

    def __str__(self) -> str:
        return f"{_pct(self.p)} ({_pct(self.lo)}–{_pct(self.hi)})"


class Rounds(NamedTuple):
    """How many rounds the fights lasted: the median and the 90th percentile."""

    median: float
    p90: float

    def __str__(self) -> str:
        return f"{_num(self.median)} (90%: {_num(self.p90)})"


class DelverDanger(NamedTuple):
    """One delver's forecast: the chance it drops below 1 heart, that it dies, its mean hearts at the end, and the
    XP it earns on a win (the mean over the wins)."""

    name: str
    p_drop: Estimate
    p_death: Estimate
    hearts_left: float
    max_hearts: int
    xp_on_win: float


class Danger:
    """How deadly a fight is, from ``fights`` simulated fights of this party against these foes (``delvebook.
    forecast``): per delver ``p_drop`` and ``p_death``; for the party ``p_any_death``, ``p_wipe``, ``p_win``
    (``p_fled``, ``p_stalemate`` when the policy or the round cap ends fights another way); ``rounds``;
    ``xp_on_win`` and ``hearts_left`` by delver. Each chance is an ``Estimate`` with its 95% Wilson interval.
    ``precise``: it stopped early because every interval was within ``±precision`` (``cancelled``: its progress
    callback stopped it); ``frame()``: every fight."""

    def __init__(self, results: Sequence[FightResult], *, party: Sequence[str], max_hearts: Sequence[int],
                 foes: Sequence[str], encounter: str | None, budget: int, precision: float, precise: bool,
                 seed: int, workers: int, seconds: float, policy: Iterable[str] = (), cancelled: bool = False):
        self.results = list(results)
        self.party = list(party)
        self.foes = list(foes)
        self.encounter = encounter
        self.budget = budget
        self.precision = precision
        self.precise = precise
        self.seed = seed
        self.workers = workers
        self.seconds = seconds
        self.policy = list(policy)
        self.cancelled = cancelled
        n = self.fights = len(self.results)
        rs = self.results
        wins = [r for r in rs if r.outcome == WON]
        self.delvers: dict[str, DelverDanger] = {}
        for i, name in enumerate(self.party):
            self.delvers[name] = DelverDanger(
                name, Estimate.of(sum(r.dropped[i] for r in rs), n), Estimate.of(sum(r.died[i] for r in rs), n),
                sum(r.hearts[i] for r in rs) / n if n else 0.0, max_hearts[i],
                sum(r.xp[i] for r in wins) / len(wins) if wins else 0.0)
        self.p_drop = {k: d.p_drop for k, d in self.delvers.items()}
        self.p_death = {k: d.p_death for k, d in self.delvers.items()}
        self.hearts_left = {k: d.hearts_left for k, d in self.delvers.items()}
        self.xp_on_win = {k: d.xp_on_win for k, d in self.delvers.items()}
        self.p_any_death = Estimate.of(sum(any(r.died) for r in rs), n)
        self.p_wipe = Estimate.of(sum(r.outcome == WIPED for r in rs), n)
        self.p_win = Estimate.of(len(wins), n)
        self.p_fled = Estimate.of(sum(r.outcome == FLED for r in rs), n)
        self.p_stalemate = Estimate.of(sum(r.outcome == STALEMATE for r in rs), n)
        self.rounds = Rounds(*_quantiles(sorted(r.rounds for r in rs), (0.5, 0.9)))
        self.luck_spent = sum(r.luck_spent for r in rs) / n if n else 0.0
        self.refused = sum(r.refused for r in rs)

    # ---- reading
    @property
    def estimates(self) -> dict[str, Estimate]:
        """Every chance the forecast gives, by a label (what early stopping watches)."""
        out = {}
        for name, d in self.delvers.items():
            out[f"{name} drops"] = d.p_drop
            out[f"{name} dies"] = d.p_death
        out.update({"a death": self.p_any_death, "wipe": self.p_wipe, "win": self.p_win})
        return out

    @property
    def widest(self) -> float:
        """The widest interval's half-width: the forecast is within ``±widest`` everywhere."""
        return max((e.half_width for e in self.estimates.values()), default=1.0)

    def frame(self):
        """Every fight as a row (pandas): ``fight``, ``outcome``, ``rounds``, ``deaths``, ``luck_spent``,
        ``refused``, and per delver ``NAME dropped``, ``NAME died``, ``NAME hearts``, ``NAME xp``."""
        from ..core.extras import require
        require("analysis", "Danger.frame()", "pandas")
        import pandas as pd
        rows = {"fight": range(self.fights), "outcome": [r.outcome for r in self.results],
                "rounds": [r.rounds for r in self.results], "deaths": [sum(r.died) for r in self.results],
                "luck_spent": [r.luck_spent for r in self.results], "refused": [r.refused for r in self.results]}
        for i, name in enumerate(self.party):
            rows[f"{name} dropped"] = [r.dropped[i] for r in self.results]
            rows[f"{name} died"] = [r.died[i] for r in self.results]
            rows[f"{name} hearts"] = [r.hearts[i] for r in self.results]
            rows[f"{name} xp"] = [r.xp[i] for r in self.results]
        df = pd.DataFrame(rows)
        df["outcome"] = pd.Categorical(df["outcome"], categories=list(OUTCOMES))
        return df

    # ---- showing
    def _stopped(self) -> str:
        if self.cancelled:
            return f"stopped by its caller after {self.fights:,} fights, widest ±{self.widest * 100:.1f} points"
        if self.precise:
            return f"stopped at ±{self.precision * 100:g} points after {self.fights:,} fights"
        return f"{self.fights:,} fights (the budget), widest ±{self.widest * 100:.1f} points"

    def summary(self) -> list[str]:
        """The forecast in lines of text (what the command line prints)."""
        title = f"Danger: {self.encounter or ', '.join(self.foes)}"
        lines = [title, f"{self._stopped()}; seed {self.seed}; {self.workers} process"
                 f"{'es' if self.workers != 1 else ''}; {self.seconds:.2f} s", ""]
        w = max([len(n) for n in self.party] + [6])
        lines.append(f"{'delver':<{w}}  {'drops below 1 heart':<22}  {'dies':<22}  hearts left  XP on a win")
        for d in self.delvers.values():
            lines.append(f"{d.name:<{w}}  {str(d.p_drop):<22}  {str(d.p_death):<22}  "
                         f"{_num(d.hearts_left):>5} / {d.max_hearts:<4}  {_num(d.xp_on_win)}")
        lines += ["", f"a death: {self.p_any_death}   wipe: {self.p_wipe}   the party wins: {self.p_win}"]
        extra = []
        if self.p_fled.hits:
            extra.append(f"retreats: {self.p_fled}")
        if self.p_stalemate.hits:
            extra.append(f"no end by round {_cap()}: {self.p_stalemate}")
        if extra:
            lines.append("   ".join(extra))
        lines.append(f"rounds: {self.rounds}   luck dice spent: {_num(self.luck_spent)} a fight")
        if self.refused:
            lines.append(f"{self.refused} acts the rules refused (each cost its actor the turn)")
        return lines

    def __str__(self) -> str:
        return "\n".join(self.summary())

    def __repr__(self) -> str:
        return (f"<Danger {self.encounter or ', '.join(self.foes)!r}: win {_pct(self.p_win.p)}, a death "
                f"{_pct(self.p_any_death.p)}, wipe {_pct(self.p_wipe.p)}, {self.fights} fights>")

    def _repr_html_(self) -> str:
        esc = html.escape

        def cell(e: Estimate) -> str:
            return (f'<td style="{_NUM}" title="95% interval {_pct(e.lo)} to {_pct(e.hi)} ({e.hits} of {e.n} '
                    f'fights)">{_pct(e.p)} <small>({_pct(e.lo)}–{_pct(e.hi)})</small></td>')
        rows = []
        for d in self.delvers.values():
            rows.append(f'<tr><th style="{_NAME}">{esc(d.name)}</th>{cell(d.p_drop)}{cell(d.p_death)}'
                        f'<td style="{_NUM}">{_num(d.hearts_left)} / {d.max_hearts}</td>'
                        f'<td style="{_NUM}">{_num(d.xp_on_win)}</td></tr>')
        party = [("a death", self.p_any_death), ("wipe", self.p_wipe), ("the party wins", self.p_win)]
        if self.p_fled.hits:
            party.append(("retreats", self.p_fled))
        if self.p_stalemate.hits:
            party.append((f"no end by round {_cap()}", self.p_stalemate))
        party_cells = "".join(f'<th style="{_NAME}">{esc(k)}</th>{cell(e)}' for k, e in party)
        title = esc(self.encounter or ", ".join(self.foes))
        foes = esc(", ".join(self.foes))
        return (
            '<div class="delvebook-danger">'
            f"<b>Danger: {title}</b> <small>({foes})</small>"
            '<table class="delvebook-danger-table"><thead><tr>'
            + "".join(f'<th style="{_NAME if i == 0 else _NUM}">{h}</th>' for i, h in enumerate(
                ("delver", "drops below 1 heart", "dies", "hearts left", "XP on a win")))
            + "</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>"
            f'<table class="delvebook-danger-party"><tr>{party_cells}</tr></table>'
            f"<div><small>rounds {esc(str(self.rounds))} · {esc(self._stopped())} · seed {self.seed} · "
            f"{self.workers} process{'es' if self.workers != 1 else ''} · {self.seconds:.2f} s"
            + (f" · {self.refused} acts refused" if self.refused else "") + "</small></div>"
            + (f'<details><summary><small>how the table plays</small></summary><ul>'
               + "".join(f"<li>{esc(line)}</li>" for line in self.policy) + "</ul></details>" if self.policy else "")
            + "</div>")


_NUM = "text-align:right;padding:1px 10px"
_NAME = "text-align:left;padding:1px 10px"


def _cap() -> int:
    from .fight import MAX_ROUNDS
    return MAX_ROUNDS


def _pct(p: float) -> str:
    return f"{p * 100:.1f}%"


def _num(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".") if x != int(x) else str(int(x))


def _quantiles(sorted_values: list, qs: tuple) -> list[float]:
    """Quantiles by the nearest rank above (a round count is whole: the 90th percentile is a round played)."""
    if not sorted_values:
        return [0.0 for _ in qs]
    n = len(sorted_values)
    out = []
    for q in qs:
        if q == 0.5 and n % 2 == 0:
            out.append((sorted_values[n // 2 - 1] + sorted_values[n // 2]) / 2)
        else:
            out.append(float(sorted_values[min(n - 1, max(0, math.ceil(q * n) - 1))]))
    return out
