"""The log view: recent events, one plain sentence each (escaped), newest first, with undo and redo."""

from __future__ import annotations

import ipywidgets as w

from ..narrate import describe
from ._base import Table, button, esc, put

__all__ = ["LogView", "log_html"]


def _row(e: dict) -> str:
    try:
        text = describe(e)
    except (KeyError, TypeError, ValueError):  # an event a human edited by hand: still listed
        text = str(e.get("kind"))
    return (f'<div data-seq="{esc(e.get("seq"))}" data-kind="{esc(e.get("kind"))}">'
            f'<span class="db-seq">#{esc(e.get("seq"))}</span>{esc(text)}</div>')


def log_html(events: list[dict], count: int = 15, cache: dict | None = None) -> str:
    """The latest ``count`` events, newest first; ``cache`` keeps rows by seq (events never change)."""
    rows = []
    for e in reversed(events[-count:]):
        if cache is None:
            rows.append(_row(e))
            continue
        key = e.get("seq")
        if key not in cache:
            cache[key] = _row(e)
        rows.append(cache[key])
    if not rows:
        rows.append("<div><i>Nothing has happened yet.</i></div>")
    return f'<div class="db-log">{"".join(rows)}</div>'


class LogView:
    """Recent events with undo and redo (the buttons can live elsewhere: see ``buttons``)."""

    def __init__(self, table: Table, count: int = 15, with_buttons: bool = True):
        self.table = table
        self.camp = table.camp
        self.count = count
        self._rows: dict = {}
        self.list = w.HTML()
        self.list.add_class("delvebook-log")
        # fixed tooltips: a tooltip naming the latest action would cost a message to the page on every click
        self.undo = button("↶ Undo", lambda: table.act(self.camp.undo), cls="delvebook-undo",
                           tooltip="Undo the latest action still in force (the roll panel and the log show it)")
        self.redo = button("↷ Redo", lambda: table.act(self.camp.redo), cls="delvebook-redo",
                           tooltip="Redo the latest action undone")
        self.buttons = w.HBox([self.undo, self.redo])
        self.widget = w.VBox([self.buttons, self.list] if with_buttons else [self.list])
        self.showing = True  # a dashboard says when its Log tab is hidden: the list then waits until shown
        self._stale = False
        table.add(self)
        self.refresh()

    def show(self, showing: bool) -> None:
        self.showing = showing
        if showing and self._stale:
            self.list.value = log_html(self.camp.events, self.count, self._rows)
            self._stale = False

    def refresh(self) -> None:
        if self.showing:
            self.list.value = log_html(self.camp.events, self.count, self._rows)
        else:
            self._stale = True
        put(self.undo, disabled=not self.camp.can_undo)
        put(self.redo, disabled=not self.camp.can_redo)
