"""The players' second screen as a widget in a notebook: the table's read-only players' mode (``table.players``),
following the campaign's log on disk as the keeper's kernel writes it."""

from __future__ import annotations

import os
from typing import Any

__all__ = ["player_widget", "POLL_SECONDS"]

POLL_SECONDS = 0.25
"""How often the players' view looks for new lines in the log (a keeper's click shows within about this)."""

_FOLLOWING: set = set()  # the follow tasks of the widgets on show (an event loop holds its tasks weakly)


def player_widget(path: str | os.PathLike, interval: float = POLL_SECONDS, hide_hearts: bool = False,
                  show_foe_hearts: bool = False) -> Any:
    """The players' view of the campaign in ``path``, following its log until the widget is closed.

    ``hide_hearts``: the delvers' exact hearts are not shown either, only how wounded they look;
    ``show_foe_hearts``: the foes' exact hearts are shown, not only their wounds."""
    from ..core.extras import require
    require("players", "the players' view", "ipywidgets", "anywidget")
    from .. import table
    from ..campaign import Campaign

    camp = Campaign.open(path, read_only=True)
    view = table.players(camp, hide_hearts=hide_hearts, foe_hearts=show_foe_hearts)
    _follow(view, interval)
    return view


def _follow(view: Any, interval: float) -> None:
    """Fold in the keeper's new events every ``interval`` seconds on the running event loop (the kernel's), until
    the widget is closed; the task is the module's to keep (``_FOLLOWING``), never an attribute put on the
    widget. The campaign's listeners redraw the view; a log that cannot be read is said on the screen."""
    import asyncio

    from ..players.requests import on_screen

    camp = view.camp
    view.ui.shown = on_screen(camp.path)

    async def follow() -> None:
        try:
            while view.comm is not None:  # a closed widget (its page gone) has no comm: stop following for it
                await asyncio.sleep(interval)
                if view.comm is None:
                    return
                shown = on_screen(camp.path)  # what the keeper shows on the players' screen
                if shown != view.ui.shown:
                    view.ui.shown = shown
                    view.refresh()
                try:
                    camp.catch_up()
                except Exception as err:  # noqa: BLE001  (a bad line on disk: say so, keep following)
                    problem = {"text": f"the players' view cannot read the log: {err}", "where": None}
                    if view.ui.refusal != problem:
                        view.ui.refusal = problem
                        view.refresh()
        finally:
            camp.close()

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # made outside a running loop (a script): the loop that will run
        loop = asyncio.get_event_loop_policy().get_event_loop()
    task = loop.create_task(follow())
    _FOLLOWING.add(task)
    task.add_done_callback(_FOLLOWING.discard)
