"""The danger forecast: how deadly a fight is, before the first roll.

``camp.danger(foes)`` (or ``forecast(rules, state, foes)``) plays up to ``fights`` fights of the party as it stands
(hearts, armor, gear, resources, luck dice left) against the foes, by the engine's own commands in the engine's
turn order, on copies of the state in memory: nothing is written to the campaign. It returns a ``Danger``: per
delver the chance it drops below 1 heart and that it dies; for the party the chance of at least one death, of a
wipe and of a win; the rounds (median, 90th percentile), the XP each delver earns on a win and its hearts left.
Every chance carries its 95% Wilson interval, and the forecast stops early once all are within ±2 points.

The table plays by a written ``Policy`` (``policy.py`` says its defaults; a keeper passes their own): initiative
rolled; foes attack the standing delver with the fewest hearts; delvers attack the foe they can most likely drop;
luck dice on a failed death save; grit on Second Wind and Dodge below a third of their hearts; no retreat. A
campaign's forecast plays by how its own party plays (``habits.py``: when it leaves a fight, whom it attacks, how it
spends luck, fitted to its log by one walk, ``walk.py``), and by the documented default where the log is too short
(``camp.danger(..., policy="default")`` asks for the default). ``check.py`` sets both beside what happened in the
campaign's fights (reliability, Brier scores), the learned habits scored on fights they were not fitted on.

Speed: a simulated fight runs each command with ``engine.play`` (no events, no checks of them, no copies, no log,
no fsync), each attack planned once a forecast (``quick.py``, held to the plain path by a differential test), and
more than a few hundred fights use every core (``run.py``: the same seed, the same forecast).

For a view (the table's encounter builder): ``camp.danger_job(foes)`` is the same forecast played a slice at a time
(``job.Job``: ``step(seconds)`` between the view's messages, ``danger()`` the answer so far, ``cancel()``); the
blocking ``camp.danger(foes, progress=callback)`` calls back in the calling thread after every ``BLOCK`` fights and
every quarter second with a ``Progress`` (``done``, ``total``, ``widest``: the widest interval's half-width so far,
``final``, ``rate``, ``left``), and returning False stops the forecast there (``Danger.cancelled``). ``tune.tune``
proposes how many foes of a kind meet a target ("nobody dies", "a real threat").
``Danger`` is plain data: ``p_drop`` / ``p_death`` by delver, ``p_any_death``, ``p_wipe``, ``p_win`` (``Estimate``:
``p``, ``lo``, ``hi``), ``rounds``, ``xp_on_win``, ``hearts_left``, ``fights``, ``precise``, ``policy`` (lines).

Standard library only; ``Danger.frame()`` imports pandas when called. ``fight.Recorded`` plays the same fight
through a campaign (the cross-checks and ``bench/danger.py`` compare the two).
"""

from __future__ import annotations

from .fight import FLED, OUTCOMES, STALEMATE, WIPED, WON, FightResult, Plain, Recorded, play_fight
from .policy import DELVER_TARGETS, FOE_TARGETS, Act, FightView, Policy
from .result import Danger, DelverDanger, Estimate, Rounds, wilson
from .job import Job
from .tune import TARGETS, Candidate, Tuner, tune
from .habits import Habits, learn
from .run import (BLOCK, EVERY, PARALLEL_FROM, Progress, auto_progress, default_workers, forecast, notebook_progress,
                  text_progress)

__all__ = ["forecast", "Job", "EVERY", "tune", "Tuner", "Candidate", "TARGETS", "Danger", "DelverDanger", "Estimate",
           "Rounds", "Progress", "Policy", "FightView", "Act", "FOE_TARGETS", "DELVER_TARGETS", "Habits", "learn",
           "FightResult", "play_fight", "Plain", "Recorded", "wilson", "text_progress", "notebook_progress",
           "auto_progress", "default_workers", "BLOCK", "PARALLEL_FROM", "OUTCOMES", "WON", "WIPED", "FLED",
           "STALEMATE"]
