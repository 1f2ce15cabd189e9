"""delvebook: run campaigns of a small dungeon-delving game from JupyterLab.

The names here are the contract that examples and outside scripts rely on (see README). Every one is
loaded when first used, so ``import delvebook.dice`` loads the dice alone and ``import delvebook`` loads
nothing heavy: the campaign, pandas (``delvebook.analysis``) and plotly (``delvebook.charts``) come
when they are asked for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the lazy names are, for readers and type checkers
    from .campaign import Campaign, Fight, Outcome
    from .dice import DiceError, Roll, parse, roll
    from .distribution import Distribution, Opposed, odds
    from .engine import Refused

__all__ = ["Campaign", "Fight", "Outcome", "Refused", "DiceError", "Roll", "parse", "roll", "Distribution",
           "Opposed", "odds"]
__version__ = "0.1.0"

_NAMES = {
    "Campaign": "campaign", "Fight": "campaign", "Outcome": "campaign", "Refused": "engine",
    "DiceError": "dice", "Roll": "dice", "parse": "dice", "roll": "dice",
    "Distribution": "distribution", "Opposed": "distribution", "odds": "distribution",
}
_MODULES = ("analysis", "charts", "report", "forecast", "table")


def __getattr__(name: str) -> Any:
    if name in _NAMES:
        value = getattr(importlib.import_module(f".{_NAMES[name]}", __name__), name)
        globals()[name] = value  # looked up once
        return value
    if name in _MODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'delvebook' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | set(_MODULES))
