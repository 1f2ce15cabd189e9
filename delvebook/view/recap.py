""""Last time...": the latest session told (``delvebook.narrate.recap``), folded in the Keeper panel until the keeper opens
it (nothing is computed while it is folded), with a button that shows it on the players' screen or takes it down
(``players.requests.show_on_screen``: a file beside the requests the players' server follows); and the recap the
players' screen shows (``ui.shown``)."""

from __future__ import annotations

from ..players.requests import on_screen
from ..narrate.recap import session_recap
from .shared import UI

__all__ = ["last_time", "shown_recap"]


def last_time(camp, ui: UI) -> dict | None:
    """The Keeper panel's card, or None before the first session."""
    if not camp.state["session"]["number"]:
        return None
    where = "keeper:recap"
    if not ui.recap_open:
        return {"open": False, "toggle": {"label": "Tell the last session", "intent": {"do": "recap", "where": where}}}
    r = session_recap(camp)
    up = on_screen(camp.path)
    showing = up == r.session
    return {"open": True, "summary": r.summary, "sections": r.as_dict()["sections"],
            "toggle": {"label": "Fold it", "intent": {"do": "recap", "where": where}},
            "show": {"label": "Take it off the players' screen" if showing else "Show on the players' screen",
                     "intent": {"do": "show_recap", "session": None if showing else r.session, "where": where}},
            "hint": (f"the players' screen shows session {up}'s recap above the table" if up else
                     "the players' screen shows the table (delvebook players: the second screen)")}


def shown_recap(camp, ui: UI) -> dict | None:
    """The recap the keeper shows on the players' screen (their hearts kept hidden as the screen keeps them), or
    None; a session the log no longer holds shows nothing."""
    if ui.shown is None:
        return None
    hidden = tuple(camp.state["seats"]) if ui.hide_hearts else ()
    try:
        return session_recap(camp, ui.shown, hidden).as_dict()
    except ValueError:
        return None
