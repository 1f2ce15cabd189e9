"""The frames built: one replay of the log, with the collectors (``delvebook.core.collect``) following History's actions in
force, then their rows made into typed frames (``tables``). A new frame is declared where it is written, with the
collector it is made from (``@frame(name, collector=...)`` in a module of this package, found and imported): it is
built in the same replay, and goes everywhere the frames go (``frames``, the export)."""

from __future__ import annotations

import os
import weakref
from typing import Any, Callable, NamedTuple

import pandas as pd

from ..campaign import Campaign
from ..campaign.collector import collector_paused
from ..core.collect import Collector, Follower
from ..core.collect.dice import Luck, Rolls
from ..core.collect.fights import Damage, Fights
from ..core.collect.hearts import Hearts, Xp
from .fair_dice import fairness_frame
from .tables import (damage_frame, encounters_frame, events_frame, hearts_frame, levels_frame, luck_frame,
                     rolls_frame, xp_frame)

__all__ = ["build", "open_campaign", "shared_frames", "frame", "FRAMES", "Frame"]


class Frame(NamedTuple):
    """A frame declared beside its collector: ``collector()`` makes one for a replay, ``make(collector, camp)`` the
    frame from what it gathered."""

    collector: Callable[[], Collector]
    make: Callable[[Any, Campaign], pd.DataFrame]


FRAMES: dict[str, Frame] = {}
"""The frames declared with ``frame`` (beyond the built-in ones), by name."""


def frame(name: str, *, collector: Callable[[], Collector]) -> Callable:
    """Declare the frame ``name``, made by the decorated ``fn(collector, camp) -> DataFrame`` from the rows of a
    ``collector`` (a ``core.collect.Collector`` class, or a function making one) that follows the replay."""
    def register(fn: Callable) -> Callable:
        FRAMES[name] = Frame(collector, fn)
        return fn
    return register

_SHARED: "weakref.WeakKeyDictionary[Campaign, tuple[int, dict]]" = weakref.WeakKeyDictionary()


def open_campaign(x: Any) -> tuple[Campaign, bool]:
    """The campaign for ``x`` (a Campaign, or a folder opened read-only) and whether it was opened here (and so
    must be closed)."""
    if isinstance(x, Campaign):
        return x, False
    if isinstance(x, (str, os.PathLike)):
        return Campaign.open(x, read_only=True), True
    raise TypeError(f"expected a Campaign or a campaign folder, got {type(x).__name__}")


def shared_frames(camp: Campaign, progress: Callable[[str], None] | None = None,
                  keep: bool = True) -> dict[str, pd.DataFrame]:
    """The frames of an open campaign, built once per state of its log and shared (read them, do not change them);
    ``keep``: hold them for the next call while the campaign lives."""
    key = len(camp.events)
    hit = _SHARED.get(camp)
    if hit is not None and hit[0] == key:
        return hit[1]
    built = build(camp, progress)
    if keep:
        _SHARED[camp] = (key, built)
    return built


def build(camp: Campaign, progress: Callable[[str], None] | None = None) -> dict[str, pd.DataFrame]:
    """Every frame of an open campaign, by name (``progress`` is called with a line of text at each step)."""
    with collector_paused():  # every row and step lives until the frames are made: a collector's pass finds none
        return _build(camp, progress or (lambda msg: None))


def _build(camp: Campaign, say: Callable[[str], None]) -> dict[str, pd.DataFrame]:
    log = camp.events
    hearts, xp, rolls, damage, luck, fights = Hearts(), Xp(), Rolls(), Damage(), Luck(), Fights()
    declared = {name: spec.collector() for name, spec in FRAMES.items()}
    say(f"folding {len(log):,} events, following the actions in force")
    history = Follower((hearts, xp, rolls, damage, luck, fights, *declared.values())).replay(
        camp.setup, log, each=lambda i: say(f"folded {i:,} of {len(log):,} events"))
    say("making the frames")
    out = {
        "events": events_frame(log, history.standing),
        "rolls": rolls_frame(rolls.columns()),
        "hearts": hearts_frame(hearts.columns()),
        "xp": xp_frame(xp.columns()),
        "damage": damage_frame(damage.columns()),
        "luck": luck_frame(luck.columns()),
    }
    out["encounters"] = encounters_frame(fights.fights(), out["damage"], out["hearts"])
    out["fairness"] = fairness_frame(out["rolls"])
    out["levels"] = levels_frame(camp.rules)
    for name, collector in declared.items():
        out[name] = FRAMES[name].make(collector, camp)
    return out
