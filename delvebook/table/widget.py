"""The table as one anywidget: a plain ES module and a CSS file (``static/``, shipped in the package, no build
step, nothing fetched) draw the view model that ``view.table_view`` computes (the module is ``front.esm()``: the
table's ES modules, one a panel, joined into one text with ``table.js``, the entry, last).

One synced trait, ``view``. A click in the page sends one custom message (``{"type": "intent", "id", "intent"}``);
the widget performs it (``intents.perform``) and sets ``view`` once: one message each way per click. An action
made elsewhere (another cell, another widget of the same campaign) reaches the table through the campaign's
listeners and redraws it the same way. The widget holds no rule and no cache: the view is computed from state
each time. A reloaded page or a second browser gets the widget's state from the kernel: the live table.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import sys
import time
import traceback
import weakref
from typing import Any

import anywidget
import traitlets

from ..players.desk import follow as follow_requests, open_desk
from ..view import front
from .forecasting import PUSH, SLICE, Runner
from .intents import perform
from ..core.rules.schema.bounds import shorten
from ..view.slot import PLAIN
from ..view import UI, table_view
from ..view.header import in_browser

__all__ = ["Table"]

log = logging.getLogger(__name__)


def _listener(table: "Table"):
    """A campaign listener that lets a table go when nothing else holds it (a cell re-run makes a new one)."""
    ref = weakref.ref(table)

    def on_event(outcome) -> None:
        t = ref()
        if t is None:
            try:
                camp.listeners.remove(on_event)
            except ValueError:
                pass
            return
        t.campaign_changed(outcome)

    camp = table.camp
    return on_event


def _follow_requests(table: "Table") -> None:
    """The keeper's whole table follows its players' requests (``players.desk``) on the kernel's event loop and
    redraws when one comes, without a click; a table that is gone (closed, or let go) stops listening."""
    desk = open_desk(table.camp)
    if desk is None:
        return
    ref = weakref.ref(table)

    def on_requests() -> None:
        t = ref()
        if t is None or t.comm is None:
            try:
                desk.listeners.remove(on_requests)
            except ValueError:
                pass
            return
        t.requests_changed()

    desk.listeners.append(on_requests)
    follow_requests(table.camp)


def _fault(what: str, err: Exception) -> str:
    """A fault of delvebook's own as the keeper reads it: what it stopped, its words cut short, and where the rest
    is (the kernel's log holds the traceback); never the exception's class or a path the keeper did not type."""
    said = shorten(str(err.args[0]) if err.args and isinstance(err.args[0], str) else "", 200)
    return f"{what}{': ' + said if said else ''} (a fault in delvebook: the details are in the kernel's log)"


def _where(intent: Any) -> str | None:
    """Where on the page a click came from (a refusal shows there), if the message says so as it should."""
    where = intent.get("where") if isinstance(intent, dict) else None
    return where if isinstance(where, str) else None


class Table(anywidget.AnyWidget):
    """The keeper's table (or one part of it: a card, the fight, the log, a roll) for one campaign."""

    _esm = front.esm()
    _css = front.css()
    view = traitlets.Dict().tag(sync=True)

    def __init__(self, camp, *, scope: str = "table", who: str | None = None, focus: int | None = None,
                 mode: str = "keeper", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.camp = camp
        self.ui = UI(scope=scope, who=who, focus=focus, mode=mode)
        self._acting = False
        self._runner = Runner(camp, lambda: self.ui)  # the encounter builder's forecast and tuner
        self._task = None
        self.on_msg(self._on_msg)
        camp.listeners.append(_listener(self))
        if mode == "keeper" and scope == "table" and not in_browser():
            _follow_requests(self)
        self.refresh()

    def __repr__(self) -> str:  # the text a notebook keeps beside the widget, shown where widgets are not drawn
        if self.ui.scope == "table" and self.ui.mode == "keeper":
            return PLAIN
        return f"The keeper's table ({self.ui.mode}, {self.ui.scope}): it shows in JupyterLab when this cell runs."

    def refresh(self) -> None:
        """Compute the view model from the campaign as it stands and send it (one message)."""
        self.view = table_view(self.camp, self.ui)

    # ---- from the page
    def _on_msg(self, _widget, content: Any, buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        if content.get("type") == "hello":  # a page asks whether a kernel stands behind this table
            self.send({"type": "live"})
            return
        if content.get("type") != "intent":
            return
        intent = content.get("intent")
        self.handle(intent if isinstance(intent, dict) else {}, content.get("id"))

    def handle(self, intent: dict, ack: Any = None) -> Any:
        """Perform one intent as if clicked, and send the new view (what the page's message does). Whatever the
        message held, a view goes back: a UI state the view cannot draw is put back as it was before the click."""
        self._acting = True
        out = None
        before = copy.deepcopy(self.ui)
        try:
            out = perform(self.camp, self.ui, intent)
            touched = getattr(out, "touched", None)  # who the event changed: their chips flash once
            self.ui.touched = sorted(touched.delvers | touched.foes | touched.creatures) if touched is not None else []
            if intent.get("do") == "download" and self.ui.mode == "keeper":
                self.send({"type": "download", "name": f"{self.camp.path.name}.zip"}, [self.camp.export_zip()])
        except Exception as err:  # noqa: BLE001  (a bug must not leave the page waiting: say it, log it)
            log.error("delvebook table: %s", traceback.format_exc())
            self.ui.refusal = {"text": _fault("the table hit an error", err), "where": _where(intent)}
        finally:
            self._acting = False
        self.ui.ack = ack
        self._forecasts()
        try:
            self.refresh()
        except Exception as err:  # noqa: BLE001  (the page must get a view back: the table as it was, and why)
            log.error("delvebook table: %s", traceback.format_exc())
            self.ui = before
            self.ui.ack = ack
            self.ui.refusal = {"text": _fault("the table could not show that click", err), "where": _where(intent)}
            self.refresh()
        return out

    # ---- from the players' phones
    def requests_changed(self) -> None:
        """A player asked for something (or the keeper answered it elsewhere): show it, without a click."""
        if not self._acting:
            self.refresh()

    # ---- from the campaign
    def campaign_changed(self, outcome) -> None:
        """An event was recorded (by this table, another one, or code): show the campaign as it stands."""
        if self._acting:
            return  # this table's own click: it sends its view once, when the click is done
        touched = getattr(outcome, "touched", None)
        self.ui.touched = sorted(touched.delvers | touched.foes | touched.creatures) if touched is not None else []
        self.ui.refusal = None
        self._forecasts()
        self.refresh()

    # ---- the encounter builder's forecast and tuner, between messages
    def _forecasts(self) -> None:
        """Start what the builder asks for (or drop what it no longer does), and drive it from the kernel's event
        loop a slice at a time; with no running loop (a script), play it to its end now."""
        try:
            busy = self._runner.sync()
        except Exception:  # noqa: BLE001  (a forecast must never break the table: said in the builder, logged)
            log.error("delvebook table: %s", traceback.format_exc())
            self._runner.close()
            return
        if not busy or (self._task is not None and not self._task.done()):
            return
        loop = _running_loop()
        if loop is None:
            while self._runner.step(0.5):
                pass
            return
        self._task = loop.create_task(self._drive())

    async def _drive(self) -> None:
        last = 0.0
        try:
            while self.comm is not None:
                parallel = self._runner.parallel
                going = self._runner.step(0.0 if parallel else SLICE)
                now = time.monotonic()
                if not going or now - last >= PUSH:
                    last = now
                    self.refresh()
                if not going:
                    return
                await asyncio.sleep(0.03 if parallel else 0)  # the table's messages go through here
                if not self._runner.sync():
                    self.refresh()
                    return
        except Exception:  # noqa: BLE001
            log.error("delvebook table: %s", traceback.format_exc())
            self._runner.close()
        finally:
            if self.comm is None:
                self._runner.close()


def _running_loop():
    """The event loop the kernel runs (ipykernel's, Pyodide's), or None outside one."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        pass
    if sys.platform == "emscripten":  # Pyodide's loop runs on the browser's: a task scheduled on it runs
        try:
            return asyncio.get_event_loop()
        except RuntimeError:
            return None
    return None
