"""A forecast played a slice at a time: the fights, their seeds and blocks, early stopping, and the processes.

Fight ``i`` rolls its own dice, ``random.Random(seed * 2**32 + i)``, so a fight is the same whichever process plays
it. A ``Job`` keeps the fights played so far in fight order (the prefix ``0..done-1``: a fight played out of order
waits for the ones before it), so every estimate it gives, partial or final, is the same on one process or several.
It checks whether to stop after each block of ``BLOCK`` fights of that prefix, and stops at the first block at which
every interval is within ``±precision`` (or what ``stop_when`` asks): the same seed gives the same forecast.

``job.step(seconds)`` plays (or, with worker processes, gathers) for about that long and returns: a table calls it
between its messages, so the kernel keeps answering clicks while a forecast runs. With one process the fights are
played a turn at a time (``fight_turns``), so even a fight of thousands of foes pauses at the end of a step; with
several, the processes play chunks of ``CHUNK`` fights, each fight sent back as it ends. ``cancel()`` stops it at
once: worker processes are ended (not waited for), and a worker whose parent is gone ends by itself, however the
parent died.
Under Pyodide, or where processes cannot start, this process plays every fight.

Standard library only.
"""

from __future__ import annotations

import os
import pickle
import random
import sys
import threading
import time
import warnings
import weakref
from typing import Any, Callable, NamedTuple, Sequence

from ..engine import Refused, play
from ..core.events import clone
from ..core.model import PARTY, present
from .fight import FightResult, fight_turns
from .policy import Policy
from .quick import Quick
from .result import Danger, wilson

__all__ = ["Job", "Progress", "BLOCK", "PARALLEL_FROM", "default_workers", "check_seed"]

BLOCK = 50
"""Fights a block: the grain of early stopping."""

CHUNK = 10
"""Fights handed to a worker process at a time, two in hand each, round the workers in turn: the prefix the
estimates read grows at every worker's pace from the first fights (a first estimate on two cores is the two
workers' work, not one's while the other's waits out of order)."""

PARALLEL_FROM = 400
"""From this many fights asked, the forecast plays them on every core."""

_CACHE_LIMIT = 20_000
_WATCH = 0.2
"""Seconds between a worker's looks at whether the process that started it is still there."""


class Progress(NamedTuple):
    """How far a forecast has come: fights ``done`` of ``total`` asked, the widest interval's half-width so far
    (``widest``: ``0.024`` is ±2.4 points), ``final`` on the last call (done, or stopped early); the ``seconds`` it
    has run, its ``rate`` (fights a second) and, while it runs, the seconds it expects still to need (``left``:
    until every interval is within its precision, or the budget; None before it can say)."""

    done: int
    total: int
    widest: float
    final: bool = False
    seconds: float = 0.0
    rate: float = 0.0
    left: float | None = None


def check_seed(seed: Any) -> None:
    """A forecast's seed is a whole number (or None: a fresh one), refused at once otherwise."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise TypeError(f"seed is a whole number (or None for a fresh one), not {type(seed).__name__} {seed!r:.40}")
    if seed is not None and not -2 ** 63 <= seed < 2 ** 63:
        raise ValueError(f"seed is a whole number within ±2**63, not one of {len(str(abs(seed)))} digits")


# ---------------------------------------------------------------- one process's share

class _Player:
    """Plays a forecast's fights: the start of the fight, the rules, the policy, and the seed."""

    def __init__(self, rules, start: dict, policy: Policy, seed: int):
        self.rules = rules
        self.policy = policy
        self.seed = seed
        self.cache: dict = {}  # the policy's questions answered once (attack shapes, abilities)
        self.plans: dict = {}  # the attacks' plans (``quick.Quick``)
        # each fight begins on its own copy of the start: the state is JSON-like data, and pickle copies it at C
        # speed (twice as fast as events.clone on a five-delver party, the same values)
        self._start = pickle.dumps(start, protocol=pickle.HIGHEST_PROTOCOL)

    def turns(self, i: int):
        """Fight ``i``, a turn at a time (``fight_turns``)."""
        if len(self.cache) > _CACHE_LIMIT:
            self.cache.clear()
        if len(self.plans) > _CACHE_LIMIT:
            self.plans.clear()
        table = Quick(pickle.loads(self._start), self.rules, random.Random(self.seed * 2 ** 32 + i), self.plans)
        return fight_turns(table, self.policy, self.cache)

    def fight(self, i: int) -> FightResult:
        turns = self.turns(i)
        while True:
            try:
                next(turns)
            except StopIteration as end:
                return end.value


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


def _watch_parent(parent: int) -> None:
    """End this worker once the process that started it is gone (killed by any signal, or crashed): it is then
    another process's child, and nothing would ever ask it for a fight again."""
    while True:
        time.sleep(_WATCH)
        if os.getppid() != parent:
            os._exit(0)


def _serve(conn, payload: dict, parent: int, others: list) -> None:
    """A worker: plays the chunks it is sent (an index; None ends it), sending each fight as it ends, then the
    chunk's end."""
    for other in others:  # the parent's ends of the other workers' pipes, inherited by a fork: not ours to hold
        try:
            other.close()
        except OSError:
            pass
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    try:
        rules = payload["rules"]
        if rules is None:  # a spawned process: the rules again from the campaign file's data (not picklable)
            from ..core.rules.load import rules_for_campaign
            rules = rules_for_campaign(payload["campaign"])
        player = _Player(rules, payload["start"], payload["policy"], payload["seed"])
        budget = payload["budget"]
        while True:
            k = conn.recv()
            if k is None:
                return
            for i in range(k * CHUNK, min((k + 1) * CHUNK, budget)):
                conn.send((i, player.fight(i)))
            conn.send((None, k))
    except (EOFError, OSError, KeyboardInterrupt):
        return
    except BaseException as err:  # noqa: BLE001  (the parent plays the rest itself, and meets a real error there)
        try:
            conn.send(("error", f"{type(err).__name__}: {err}"))
        except (OSError, ValueError):
            pass


class _Pool:
    """Worker processes playing chunks of one forecast; ended with ``close`` (or when the job is collected)."""

    def __init__(self, payload: dict, workers: int, nblocks: int):
        mp_context, forks = _context()
        if not forks:
            if payload.get("campaign") is None:
                raise OSError("a spawned process needs the campaign's rules data")
            payload = {**payload, "rules": None}
        self.nblocks = nblocks
        self.next_block = 0
        self.procs: list = []
        self.conns: list = []
        self.busy: list[int] = []
        mine = []
        with warnings.catch_warnings():
            # forking from a notebook kernel (which has threads) warns on Python 3.12+; the children run the pure core
            warnings.filterwarnings("ignore", message=r".*fork\(\).*", category=DeprecationWarning)
            try:
                for _ in range(workers):
                    here, there = mp_context.Pipe()
                    proc = mp_context.Process(target=_serve, args=(there, payload, os.getpid(), list(mine)),
                                              daemon=True)
                    proc.start()
                    there.close()
                    mine.append(here)
                    self.procs.append(proc)
                    self.conns.append(here)
                    self.busy.append(0)
            except BaseException:
                self.close()
                raise
        self._closer = weakref.finalize(self, _end, list(self.procs), list(self.conns))
        for _ in range(2):
            for w in range(len(self.conns)):
                self._feed(w)

    def _feed(self, w: int) -> None:
        if self.next_block < self.nblocks:
            self.conns[w].send(self.next_block)
            self.next_block += 1
            self.busy[w] += 1

    def gather(self, timeout: float) -> list[tuple[int, FightResult]]:
        """The fights ended since the last call (waiting up to ``timeout`` seconds for the first); raises
        ``OSError`` when a worker fails (the caller plays the rest itself)."""
        from multiprocessing.connection import wait
        got: list = []
        ready = wait(self.conns, timeout) if timeout > 0 else [c for c in self.conns if c.poll(0)]
        for conn in ready:
            w = self.conns.index(conn)
            while True:
                try:
                    if not conn.poll(0):
                        break
                    i, what = conn.recv()
                except (EOFError, OSError) as err:
                    raise OSError(f"a forecast process stopped ({err})") from None
                if i is None:
                    self.busy[w] -= 1
                    self._feed(w)
                elif i == "error":
                    raise OSError(f"a forecast process failed: {what}")
                else:
                    got.append((i, what))
        return got

    def close(self) -> None:
        closer = getattr(self, "_closer", None)
        if closer is not None:
            closer()
        else:
            _end(self.procs, self.conns)


def _end(procs: list, conns: list) -> None:
    """End worker processes now: told to stop, then ended (SIGTERM, then SIGKILL) if they are mid-fight."""
    for conn in conns:
        try:
            conn.send(None)
        except (OSError, ValueError):
            pass
    for proc in procs:
        if proc.is_alive():
            proc.terminate()
    deadline = time.monotonic() + 0.5
    for proc in procs:
        proc.join(max(0.0, deadline - time.monotonic()))
        if proc.is_alive():
            proc.kill()
            proc.join(0.5)
    for conn in conns:
        try:
            conn.close()
        except OSError:
            pass


# ---------------------------------------------------------------- the fight as it begins, and the tallies

def start_of(rules, state: dict, foes: Sequence | None, name: str | None, sitting_out: Sequence[str] = (),
             dark: bool = False) -> dict:
    """The fight as it begins (or stands, when ``foes`` is None), on a copy of ``state``, without the delvers
    ``sitting_out`` (a what-if: the fight without them); ``dark``: in darkness."""
    start = clone(state)
    out = [n for n in sitting_out]
    for n in out:
        if n not in start["seats"]:
            raise Refused(f"{n!r} is not at the table to sit this fight out (the party: {', '.join(start['seats'])})")
    if foes is None:
        if start["encounter"] is None:
            raise Refused("no fight is running: name the foes (bestiary ids) or a prepared encounter")
        if out:
            raise Refused("a fight running now is forecast as it stands: no one can sit it out")
        return start
    if start["encounter"] is not None:
        raise Refused("a fight is running: forecast it as it stands (no foes), or end it first")
    if out:
        start["seats"] = [n for n in start["seats"] if n not in out]
    args = {"foes": list(foes)}
    if name is not None:
        args["name"] = name
    if dark:
        args["dark"] = True
    play(start, rules, "encounter", args, random.Random(0))
    return start


class Counts:
    """The running tallies early stopping reads, by estimate ("Wren drops", "a death", "win"...)."""

    def __init__(self, party: Sequence[str]):
        self.party = list(party)
        self.n = 0
        self.dropped = [0] * len(self.party)
        self.died = [0] * len(self.party)
        self.any_death = self.wiped = self.won = 0

    def add(self, block: Sequence[FightResult]) -> None:
        for r in block:
            self.n += 1
            for i, (a, b) in enumerate(zip(r.dropped, r.died)):
                self.dropped[i] += a
                self.died[i] += b
            self.any_death += any(r.died)
            self.wiped += r.outcome == "wiped"
            self.won += r.outcome == "won"

    def hits(self) -> dict[str, int]:
        out = {}
        for name, a, b in zip(self.party, self.dropped, self.died):
            out[f"{name} drops"] = a
            out[f"{name} dies"] = b
        out.update({"a death": self.any_death, "wipe": self.wiped, "win": self.won})
        return out

    def interval(self, label: str) -> tuple[float, float]:
        return wilson(self.hits()[label], self.n)

    def widest(self) -> float:
        return max((hi - lo) / 2 for lo, hi in (wilson(h, self.n) for h in self.hits().values()))


# ---------------------------------------------------------------- the job

class Job:
    """One forecast, played ``step`` by ``step`` (see the module). ``danger()`` is the answer so far (the fights
    ``0..done-1``); ``done`` once it stopped (``precise``, the budget reached, or ``cancelled``)."""

    def __init__(self, rules, state: dict, foes: Sequence | None = None, *, name: str | None = None,
                 fights: int = 2000, seed: int | None = None, policy: Policy | None = None,
                 precision: float = 0.02, workers: int | None = None, campaign: dict | None = None,
                 sitting_out: Sequence[str] = (), dark: bool = False,
                 stop_when: Callable[[Counts], bool] | None = None,
                 on_block: Callable[[Progress], Any] | None = None, clock: Callable[[], float] = time.monotonic):
        check_seed(seed)
        if isinstance(fights, bool) or not isinstance(fights, int) or fights < 1:
            raise ValueError(f"fights is a whole number of at least 1, not {fights!r}")
        if isinstance(precision, bool) or not isinstance(precision, (int, float)) or not 0 <= precision < 1:
            raise ValueError(f"precision is a half-width between 0 and 1 (0.02: ±2 points), not {precision!r}")
        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
            raise ValueError(f"workers is a whole number of at least 1, not {workers!r}")
        self.clock = clock
        self.began = clock()
        self.policy = Policy() if policy is None else policy
        self.seed = random.SystemRandom().randrange(2 ** 31) if seed is None else seed
        self.fights = fights
        self.precision = precision
        self.stop_when = stop_when
        self.on_block = on_block
        self.start = start_of(rules, state, foes, name, sitting_out, dark)
        enc = self.start["encounter"]
        self.party = list(enc["order"][PARTY]) or present(self.start)
        if not self.party:
            raise Refused("no delver can fight: the whole party is dead" if not sitting_out else
                          "no delver is left to fight: everyone sits it out")
        self.max_hearts = [self.start["delvers"][n]["max_hearts"] for n in self.party]
        self.foes = list(enc["foes"])
        self.title = enc["name"] if foes is None else name
        self.results: list[FightResult] = []
        self.counts = Counts(self.party)
        self.done = self.precise = self.cancelled = False
        self._ahead: dict[int, FightResult] = {}
        self._rules, self._campaign = rules, campaign
        nblocks = -(-fights // BLOCK)
        cores = default_workers()
        if workers is None:
            workers = cores if fights >= PARALLEL_FROM else 1
        self.workers = 1 if cores == 1 else max(1, min(workers, cores, nblocks))
        self._pool: _Pool | None = None
        self._local: _Player | None = None
        self._turns = None  # the fight this process is playing, a turn at a time
        self._next = 0      # the next fight this process plays
        if self.workers > 1:
            payload = {"rules": rules, "campaign": campaign, "start": self.start, "policy": self.policy,
                       "seed": self.seed, "budget": fights}
            try:
                self._pool = _Pool(payload, self.workers, -(-fights // CHUNK))
            except Exception:  # processes could not start (a policy that cannot be pickled): this one plays them
                self.workers = 1

    # ---- reading
    @property
    def done_fights(self) -> int:
        return len(self.results)

    @property
    def seconds(self) -> float:
        return self.clock() - self.began

    def widest(self) -> float:
        return self.counts.widest() if self.results else 1.0

    def progress(self) -> Progress:
        n, secs = len(self.results), self.seconds
        rate = n / secs if secs > 0 else 0.0
        left = None
        if self.done:
            left = 0.0
        elif n and rate > 0:
            need = self.fights
            if self.precision > 0:
                widest = self.widest()
                need = min(self.fights, max(n + 1, int(n * (widest / self.precision) ** 2)))
            left = (need - n) / rate
        return Progress(n, self.fights, self.widest(), self.done, secs, rate, left)

    def danger(self) -> Danger:
        """The forecast from the fights played so far (all of them once it is done)."""
        return Danger(self.results, party=self.party, max_hearts=self.max_hearts, foes=self.foes,
                      encounter=self.title, budget=self.fights, precision=self.precision, precise=self.precise,
                      seed=self.seed, workers=self.workers, seconds=self.seconds, policy=self.policy.describe(),
                      cancelled=self.cancelled)

    # ---- playing
    def step(self, seconds: float) -> Progress:
        """Play (or gather what the worker processes played) for about ``seconds``; returns where it stands."""
        if self.done:
            return self.progress()
        deadline = self.clock() + seconds
        if self._pool is not None:
            try:
                while not self.done:
                    for i, result in self._pool.gather(max(0.0, min(0.05, deadline - self.clock()))):
                        self._take(i, result)
                        if self.done:
                            break
                    if self.clock() >= deadline:
                        break
            except OSError:  # a worker failed: this process plays what is left, the same fights
                self._pool.close()
                self._pool = None
                self.workers = 1
                self._next = len(self.results)
                self._ahead.clear()
            if self._pool is not None or self.done:
                return self.progress()
        if self._local is None:
            self._local = _Player(self._rules, self.start, self.policy, self.seed)
        while not self.done:
            if self._turns is None:
                self._turns = self._local.turns(self._next)
            try:
                next(self._turns)
            except StopIteration as end:
                self._turns = None
                self._next += 1
                self._take(self._next - 1, end.value)
                continue
            if self.clock() >= deadline:
                break
        return self.progress()

    def run(self) -> Danger:
        """Play it to its end (every fight asked, or until it stops early)."""
        try:
            while not self.done:
                self.step(0.5)
        finally:
            self.close()
        return self.danger()

    def _take(self, i: int, result: FightResult) -> None:
        """A fight ended: fights join the prefix in order; at each block's end, whether to stop."""
        if i != len(self.results):
            self._ahead[i] = result
            return
        ahead = self._ahead
        while True:
            self.results.append(result)
            self.counts.add((result,))
            n = len(self.results)
            if n % BLOCK == 0 or n == self.fights:
                self._block_ended()
                if self.done:
                    return
            result = ahead.pop(n, None)
            if result is None:
                return

    def _block_ended(self) -> None:
        n = len(self.results)
        if self.stop_when is not None:
            stop = self.stop_when(self.counts)
        else:
            stop = self.precision > 0 and self.counts.widest() <= self.precision
        if stop:
            self.precise = True
        if stop or n >= self.fights:
            self.done = True
            self.close()
        if self.on_block is not None and self.on_block(self.progress()) is False and not self.done:
            self.cancel()

    def cancel(self) -> None:
        """Stop now: the answer is the fights played so far (``cancelled``); worker processes end at once."""
        if not self.done:
            self.cancelled = True
            self.done = True
        self.close()

    def close(self) -> None:
        """End the worker processes (the job keeps what it played)."""
        self._turns = None
        if self._pool is not None:
            self._pool.close()
            self._pool = None
