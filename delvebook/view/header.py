"""The table's header (``header`` in table.js): the session and the game's clock, Undo and Redo saying exactly what
they take back or put back (a luck die alone, when that is all undo takes back: ``narrate.step``), the panels'
tabs, and under Pyodide the download of the campaign."""

from __future__ import annotations

import sys

from ..narrate import step
from .shared import PANELS, UI, clock

__all__ = ["header_bar", "in_browser"]


def in_browser() -> bool:
    """True under Pyodide (JupyterLite): the campaign's files live in the browser's storage."""
    return sys.platform == "emscripten"


def header_bar(camp, ui: UI, charts: bool) -> dict:
    """The header's parts of the view model: ``session``; for the keeper ``undo``, ``redo`` and (in a browser's
    storage) ``save``; ``panels``, the tabs (Charts only with ``charts``)."""
    s = camp.state
    sess = s["session"]
    out: dict = {"session": {"number": sess["number"], "active": sess["active"], "clock": clock(s["clock"]),
                             "text": (f"Session {sess['number']}" if sess["number"] else "No session yet") +
                                     (" · running" if sess["active"] else " · not running" if sess["number"] else "")}}
    if ui.mode == "keeper":
        out.update(_undo_redo(camp))
        if in_browser():  # JupyterLite: play is kept in the browser's storage, so saving it is one click away
            out["save"] = {"label": "Download zip", "intent": {"do": "download", "where": "header"},
                           "hint": "play is stored in this browser only: download the campaign folder before you "
                                   f"leave (Campaign.open(\"{camp.path.name}.zip\") reads it)"}
    out["panels"] = [{"id": p, "label": p.capitalize(), "on": p == ui.panel,
                      "intent": {"do": "panel", "panel": p, "where": "header"}}
                     for p in PANELS if p != "charts" or charts] if ui.mode == "keeper" else []
    return out


def _undo_redo(camp) -> dict:
    act, back = camp.latest_action, camp.latest_undone
    return {"undo": {"label": f"Undo {step(act, camp)}" if act else "Nothing to undo", "enabled": act is not None,
                     "intent": {"do": "undo", "where": "header"}},
            "redo": {"label": f"Redo {step(back, camp)}" if back else "Nothing to redo", "enabled": back is not None,
                     "intent": {"do": "redo", "where": "header"}}}
