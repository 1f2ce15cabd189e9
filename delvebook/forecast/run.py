"""Playing many fights: seeds, blocks, early stopping, processes and progress.

Fight ``i`` of a forecast rolls its own dice, ``random.Random(seed * 2**32 + i)``, so a fight is the same whichever
process plays it. Fights are played in blocks of ``BLOCK``; the blocks are merged in order and the forecast stops
after the first block at which every interval is within ``±precision``: the same seed gives the same forecast on
one process or several. More than ``PARALLEL_FROM`` fights use every core (processes, forked on Linux, spawned
elsewhere); under Pyodide, or where processes cannot start, one process plays them all.

Standard library only.
"""

from __future__ import annotations

import os
import pickle
import random
import sys
import time
import warnings
from typing import Any, Callable, Iterable, NamedTuple, Sequence

from ..engine import Refused, play
from ..events import clone
from ..model import PARTY, present
from .fight import FightResult, Plain, play_fight
from .policy import Policy
from .result import Danger, wilson

__all__ = ["forecast", "Progress", "BLOCK", "PARALLEL_FROM", "default_workers", "text_progress",
           "notebook_progress", "auto_progress"]

BLOCK = 50
"""Fights a block: the grain of early stopping and of the work handed to a process."""

PARALLEL_FROM = 400
"""From this many fights asked, the forecast plays them on every core."""

_CACHE_LIMIT = 20_000


class Progress(NamedTuple):
    """How far a forecast has come: fights ``done`` of ``total`` asked, the widest interval's half-width so far
    (``widest``: ``0.024`` is ±2.4 points), and ``final`` on the last call (done, or stopped early)."""

    done: int
    total: int
    widest: float
    final: bool = False


# ---------------------------------------------------------------- one process's share

class _Player:
    """Plays blocks of a forecast's fights: the start of the fight, the rules, the policy, and the seed."""

    def __init__(self, rules, start: dict, policy: Policy, seed: int, budget: int):
        self.rules = rules
        self.start = start
        self.policy = policy
        self.seed = seed
        self.budget = budget
        self.cache: dict = {}  # the policy's questions answered once (attack shapes, abilities)
        # each fight begins on its own copy of the start: the state is JSON-like data, and pickle copies it at C
        # speed (twice as fast as events.clone on a five-delver party, the same values)
        self._start = pickle.dumps(start, protocol=pickle.HIGHEST_PROTOCOL)

    def fight(self, i: int) -> FightResult:
        if len(self.cache) > _CACHE_LIMIT:
            self.cache.clear()
        table = Plain(pickle.loads(self._start), self.rules, random.Random(self.seed * 2 ** 32 + i))
        return play_fight(table, self.policy, self.cache)

    def block(self, k: int) -> list[FightResult]:
        return [self.fight(i) for i in range(k * BLOCK, min((k + 1) * BLOCK, self.budget))]


_WORKER: _Player | None = None


def _init_worker(payload: dict) -> None:
    global _WORKER
    rules = payload["rules"]
    if rules is None:  # a spawned process: the rules again from the campaign file's data (not picklable)
        from ..rules.load import rules_for_campaign
        rules = rules_for_campaign(payload["campaign"])
    _WORKER = _Player(rules, payload["start"], payload["policy"], payload["seed"], payload["budget"])


def _worker_block(k: int) -> list[FightResult]:
    return _WORKER.block(k)


# ---------------------------------------------------------------- where to play

def default_workers() -> int:
    """The cores this process may use (1 under Pyodide, where there are no processes)."""
    if sys.platform == "emscripten":
        return 1
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _context():
    """A multiprocessing context, and whether its processes inherit this one's memory (fork)."""
    import multiprocessing as mp
    if sys.platform.startswith("linux") and "fork" in mp.get_all_start_methods():
        return mp.get_context("fork"), True
    return mp.get_context("spawn"), False


def _blocks_parallel(payload: dict, nblocks: int, workers: int) -> Iterable[list[FightResult]]:
    """Each block's results, in order, played by ``workers`` processes (a few blocks ahead of the reader); the
    processes are told to stop when the reader stops."""
    from concurrent.futures import ProcessPoolExecutor
    mp_context, forks = _context()
    if not forks:
        if payload.get("campaign") is None:
            raise OSError("a spawned process needs the campaign's rules data")
        payload = {**payload, "rules": None}
    with warnings.catch_warnings():
        # forking from a notebook kernel (which has threads) warns on Python 3.12+; the children run the pure core
        warnings.filterwarnings("ignore", message=r".*fork\(\).*", category=DeprecationWarning)
        ex = ProcessPoolExecutor(workers, mp_context=mp_context, initializer=_init_worker, initargs=(payload,))
        try:
            pending: dict = {}
            ahead = 0
            for k in range(nblocks):
                while ahead < nblocks and len(pending) < 2 * workers:
                    pending[ahead] = ex.submit(_worker_block, ahead)
                    ahead += 1
                yield pending.pop(k).result()
        finally:
            ex.shutdown(wait=False, cancel_futures=True)


# ---------------------------------------------------------------- the forecast

def forecast(rules, state: dict, foes: Sequence | None = None, *, name: str | None = None, fights: int = 2000,
             seed: int | None = None, policy: Policy | None = None, precision: float = 0.02,
             progress: Callable[[Progress], Any] | bool | None = None, workers: int | None = None,
             campaign: dict | None = None, dark: bool = False) -> Danger:
    """Play up to ``fights`` fights of the party in ``state`` against ``foes`` (bestiary ids or specs; None: the
    fight running in ``state``, from where it stands) with ``rules``, in memory, and say how deadly it is.

    Stops early once every interval is within ``±precision`` (0: play them all). ``seed`` (None: a fresh one,
    kept on the result) makes it repeatable, on any number of ``workers`` (None: every core when more than
    ``PARALLEL_FROM`` fights are asked). ``progress`` is called with a ``Progress`` after each block (True: a bar
    in a notebook, a line on stderr elsewhere); if it returns False the forecast stops there (``cancelled``: a
    table's time budget, or an encounter edited meanwhile). ``campaign`` (the campaign file's data) lets spawned
    processes build the rules again; ``state`` is never changed."""
    began = time.perf_counter()
    if isinstance(fights, bool) or not isinstance(fights, int) or fights < 1:
        raise ValueError(f"fights is a whole number of at least 1, not {fights!r}")
    if not 0 <= precision < 1:
        raise ValueError(f"precision is a half-width between 0 and 1 (0.02: ±2 points), not {precision!r}")
    policy = Policy() if policy is None else policy
    if seed is None:
        seed = random.SystemRandom().randrange(2 ** 31)
    if progress is True:
        progress = auto_progress()
    start = _start(rules, state, foes, name, dark)
    enc = start["encounter"]
    party = list(enc["order"][PARTY]) or present(start)
    if not party:
        raise Refused("no delver can fight: the whole party is dead")
    nblocks = -(-fights // BLOCK)
    if workers is None:
        workers = default_workers() if fights >= PARALLEL_FROM else 1
    workers = 1 if sys.platform == "emscripten" else max(1, min(int(workers), nblocks))

    counts = _Counts(len(party))
    results: list[FightResult] = []
    cancelled = False

    def take(block: list[FightResult]) -> bool:
        """Merge the next block; True when the forecast stops here (precise enough, or its caller says so)."""
        nonlocal cancelled
        results.extend(block)
        counts.add(block)
        widest = counts.widest()
        done = precision > 0 and widest <= precision
        final = done or len(results) >= fights
        if progress and progress(Progress(len(results), fights, widest, final)) is False and not final:
            cancelled = True  # the caller has seen enough (a time budget, an encounter edited meanwhile)
        return done or cancelled

    k, stop, used = 0, False, workers
    if workers > 1:
        payload = {"rules": rules, "campaign": campaign, "start": start, "policy": policy, "seed": seed,
                   "budget": fights}
        blocks = _blocks_parallel(payload, nblocks, workers)
        try:
            while k < nblocks and not stop:
                try:
                    block = next(blocks)
                except Exception:  # processes could not start or carry the job (a policy that cannot be
                    used = 1       # pickled): this one plays what is left, the same fights (a real error in
                    break          # them shows again here)
                k += 1
                stop = take(block)
        finally:
            blocks.close()  # the processes stop
    if used == 1:
        local = _Player(rules, start, policy, seed, fights)
        while k < nblocks and not stop:
            stop = take(local.block(k))
            k += 1
    precise = stop and not cancelled
    max_hearts = [start["delvers"][n]["max_hearts"] for n in party]
    title = enc["name"] if foes is None else name  # unnamed foes: the Danger is titled by their names
    return Danger(results, party=party, max_hearts=max_hearts, foes=list(enc["foes"]), encounter=title,
                  budget=fights, precision=precision, precise=precise, seed=seed, workers=used,
                  seconds=time.perf_counter() - began, policy=policy.describe(), cancelled=cancelled)


def _start(rules, state: dict, foes: Sequence | None, name: str | None, dark: bool = False) -> dict:
    """The fight as it begins (or stands, when ``foes`` is None), on a copy of ``state``; ``dark``: in darkness."""
    start = clone(state)
    if foes is None:
        if start["encounter"] is None:
            raise Refused("no fight is running: name the foes (bestiary ids) or a prepared encounter")
        return start
    if start["encounter"] is not None:
        raise Refused("a fight is running: forecast it as it stands (no foes), or end it first")
    args = {"foes": list(foes)}
    if name is not None:
        args["name"] = name
    if dark:
        args["dark"] = True
    play(start, rules, "encounter", args, random.Random(0))
    return start


class _Counts:
    """The running tallies early stopping reads."""

    def __init__(self, n_party: int):
        self.n = 0
        self.dropped = [0] * n_party
        self.died = [0] * n_party
        self.any_death = self.wiped = self.won = 0

    def add(self, block: list[FightResult]) -> None:
        for r in block:
            self.n += 1
            for i, (a, b) in enumerate(zip(r.dropped, r.died)):
                self.dropped[i] += a
                self.died[i] += b
            self.any_death += any(r.died)
            self.wiped += r.outcome == "wiped"
            self.won += r.outcome == "won"

    def widest(self) -> float:
        hits = self.dropped + self.died + [self.any_death, self.wiped, self.won]
        return max((hi - lo) / 2 for lo, hi in (wilson(h, self.n) for h in hits))


# ---------------------------------------------------------------- showing progress

def text_progress(stream=None, width: int = 30) -> Callable[[Progress], None]:
    """A progress line rewritten in place on ``stream`` (stderr by default), ended on the last call; written only
    then when the stream is no terminal (a log file gets one line)."""
    def show(p: Progress) -> None:
        out = stream if stream is not None else sys.stderr
        if not p.final and not getattr(out, "isatty", lambda: False)():
            return
        filled = int(width * p.done / p.total) if p.total else width
        bar = "#" * filled + "-" * (width - filled)
        out.write(f"\rfights [{bar}] {p.done:,}/{p.total:,}  ±{p.widest * 100:.1f} points")
        if p.final:
            out.write("\n")
        out.flush()
    return show


def notebook_progress() -> Callable[[Progress], None]:
    """A progress bar drawn in the notebook cell (an HTML ``<progress>``, updated in place)."""
    from IPython.display import HTML, display
    handle = None

    def show(p: Progress) -> None:
        nonlocal handle
        state = "done" if p.final else "playing"
        body = HTML(f'<div class="delvebook-danger-progress"><progress value="{p.done}" max="{p.total}"></progress> '
                    f"{p.done:,} of {p.total:,} fights · ±{p.widest * 100:.1f} points · {state}</div>")
        if handle is None:
            handle = display(body, display_id=True)
        else:
            handle.update(body)
    return show


def auto_progress() -> Callable[[Progress], None]:
    """A notebook bar inside a Jupyter kernel, a line on stderr anywhere else."""
    shell = sys.modules.get("IPython")
    ip = shell.get_ipython() if shell is not None and hasattr(shell, "get_ipython") else None
    if ip is not None and getattr(ip, "kernel", None) is not None:
        return notebook_progress()
    return text_progress()
