"""delvebook: run campaigns of a small dungeon-delving game from JupyterLab.

The names here are the contract that examples and outside scripts rely on (see README).
Importing delvebook loads neither pandas nor plotly; ``delvebook.analysis`` and
``delvebook.charts`` load them when first used.
"""

from __future__ import annotations

import importlib

from .campaign import Campaign, Fight, Outcome
from .dice import DiceError, Roll, parse, roll
from .distribution import Distribution, Opposed, odds
from .engine import Refused

__all__ = ["Campaign", "Fight", "Outcome", "Refused", "DiceError", "Roll", "parse", "roll", "Distribution",
           "Opposed", "odds"]
__version__ = "0.1.0"

_LAZY = ("analysis", "charts", "widgets", "report")


def __getattr__(name: str):
    if name in _LAZY:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'delvebook' has no attribute {name!r}")
