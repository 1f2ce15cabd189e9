"""Playing a forecast to its end, and showing its progress: ``forecast()`` drives a ``job.Job`` (the fights, their
seeds and blocks, early stopping, the processes) and tells a callback how far it has come.

Fight ``i`` of a forecast rolls its own dice, ``random.Random(seed * 2**32 + i)``, so a fight is the same whichever
process plays it; the forecast stops after the first block of ``BLOCK`` fights at which every interval is within
``±precision``: the same seed gives the same forecast on one process or several. More than ``PARALLEL_FROM`` fights
use every core (at most the cores there are); under Pyodide, or where processes cannot start, one process plays them
all.

Standard library only.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Callable, Sequence

from .job import BLOCK, PARALLEL_FROM, Job, Progress, check_seed, default_workers, start_of
from .policy import Policy
from .result import Danger

__all__ = ["forecast", "Progress", "BLOCK", "PARALLEL_FROM", "default_workers", "text_progress",
           "notebook_progress", "auto_progress", "EVERY"]

EVERY = 0.25
"""Seconds between two calls of a forecast's progress callback while fights are played (besides one after each
block): a first estimate within half a second of the start, then four a second."""

def _start(rules, state: dict, foes: Sequence | None, name: str | None, dark: bool = False) -> dict:
    """The fight as it begins (or stands, when ``foes`` is None), on a copy of ``state`` (``job.start_of``); ``dark``:
    in darkness."""
    return start_of(rules, state, foes, name, dark=dark)


# ---------------------------------------------------------------- the forecast

def forecast(rules, state: dict, foes: Sequence | None = None, *, name: str | None = None, fights: int = 2000,
             seed: int | None = None, policy: Policy | None = None, precision: float = 0.02,
             progress: Callable[[Progress], Any] | bool | None = None, workers: int | None = None,
             campaign: dict | None = None, sitting_out: Sequence[str] = (), dark: bool = False,
             clock: Callable[[], float] = time.monotonic) -> Danger:
    """Play up to ``fights`` fights of the party in ``state`` against ``foes`` (bestiary ids or specs; None: the
    fight running in ``state``, from where it stands) with ``rules``, in memory, and say how deadly it is.

    Stops early once every interval is within ``±precision`` (0: play them all). ``seed`` (a whole number; None: a
    fresh one, kept on the result) makes it repeatable, on any number of ``workers`` (None: every core when more
    than ``PARALLEL_FROM`` fights are asked; never more than the cores). ``progress`` is called with a ``Progress``
    after each block and every ``EVERY`` seconds between (True: a bar in a notebook, a line on stderr elsewhere); if
    it returns False the forecast stops there (``cancelled``: a table's time budget, or an encounter edited
    meanwhile); Ctrl-C ends the worker processes before it propagates. ``sitting_out``: delvers who do
    not fight (a what-if); ``dark``: the fight in darkness. ``campaign`` (the campaign file's data) lets spawned processes build the rules again;
    ``state`` is never changed. ``clock``: where time is read (a test's own)."""
    check_seed(seed)
    if progress is True:
        progress = auto_progress()
    job = Job(rules, state, foes, name=name, fights=fights, seed=seed, policy=policy, precision=precision,
              workers=workers, campaign=campaign, sitting_out=sitting_out, dark=dark, clock=clock,
              on_block=progress or None)
    last = job.began
    try:
        while not job.done:
            job.step(EVERY / 2)
            now = clock()
            if progress and not job.done and job.results and now - last >= EVERY:
                last = now
                if progress(job.progress()) is False:
                    job.cancel()
    finally:
        job.close()
    return job.danger()


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
        out.write(f"\rfights [{bar}] {p.done:,}/{p.total:,}  ±{p.widest * 100:.1f} points{_pace(p)}")
        if p.final:
            out.write("\n")
        out.flush()
    return show


def _pace(p: Progress) -> str:
    """'  340 fights/s, about 4 s left' (its rate, and the time it still expects to need), or '' before it can say."""
    if not p.rate:
        return ""
    if p.final:
        return f"  {p.rate:,.0f} fights/s, {p.seconds:.1f} s"
    left = "" if p.left is None else f", about {p.left:.0f} s left" if p.left >= 1 else ", under a second left"
    return f"  {p.rate:,.0f} fights/s{left}   "


def notebook_progress() -> Callable[[Progress], None]:
    """A progress bar drawn in the notebook cell (an HTML ``<progress>``, updated in place)."""
    from IPython.display import HTML, display
    handle = None

    def show(p: Progress) -> None:
        nonlocal handle
        state = "done" if p.final else "playing"
        body = HTML(f'<div class="delvebook-danger-progress"><progress value="{p.done}" max="{p.total}"></progress> '
                    f"{p.done:,} of {p.total:,} fights · ±{p.widest * 100:.1f} points · {state}{_pace(p)}</div>")
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
