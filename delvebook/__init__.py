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
    from .core.dice import DiceError, Roll, parse, roll
    from .core.distribution import Distribution, Opposed, odds
    from .engine import Refused

__all__ = ["Campaign", "Fight", "Outcome", "Refused", "DiceError", "Roll", "parse", "roll", "Distribution",
           "Opposed", "odds"]
from .core import __version__  # noqa: E402  (the core's own, a module that imports nothing)

_NAMES = {
    "Campaign": "campaign", "Fight": "campaign", "Outcome": "campaign", "Refused": "engine",
    "DiceError": "core.dice", "Roll": "core.dice", "parse": "core.dice", "roll": "core.dice",
    "Distribution": "core.distribution", "Opposed": "core.distribution", "odds": "core.distribution",
}
# the modules a script reaches as ``db.NAME``: the views, and the core's exact odds (``db.distribution.percent``)
_MODULES = {"analysis": "analysis", "charts": "charts", "report": "charts.report", "forecast": "forecast",
            "table": "table", "distribution": "core.distribution"}


def __getattr__(name: str) -> Any:
    if name in _NAMES:
        value = getattr(importlib.import_module(f".{_NAMES[name]}", __name__), name)
        globals()[name] = value  # looked up once
        return value
    if name in _MODULES:
        return importlib.import_module(f".{_MODULES[name]}", __name__)
    raise AttributeError(f"module 'delvebook' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | set(_MODULES))
