"""ipywidgets views over a campaign: character cards, roll panel, initiative tracker, keeper controls, log.

Views only: a click calls the campaign's API, the campaign records the event, and every view updates its
widgets in place from the new state (``Campaign.listeners``). Imports ipywidgets; ``import delvebook`` does not.
"""

from __future__ import annotations

from ..extras import require

require("table", "delvebook.widgets (the keeper's table)", "ipywidgets")  # before the imports: names the extra

from ._base import Table
from .cards import DelverCard, sheet_html
from .dashboard import Dashboard, card, dashboard
from .keeper import KeeperControls
from .log import LogView, log_html
from .rolls import RollPanel, outcome_html
from .tracker import Tracker

__all__ = ["dashboard", "card", "Dashboard", "Table", "DelverCard", "RollPanel", "Tracker", "KeeperControls",
           "LogView", "sheet_html", "outcome_html", "log_html"]
