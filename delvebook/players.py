"""The players' view: the keeper's table in its read-only players' mode, for a second screen or the players' own
devices, following the campaign's log on disk.

``player_widget(path)`` opens the campaign read-only (it never takes the keeper's write lock) and shows it with the
same front end as the keeper's table (``delvebook.table.players``): big type across the whole screen, the party,
the fight with its order and the foes as wounds, the latest action and the last rolls as they stand (an undone or
replaced roll is left out), and nothing to click: its view model holds no intent. A task on the kernel's event
loop folds in what the keeper appends (``Campaign.catch_up``) every ``interval`` seconds, and stops when the widget
closes (its page gone).

``delvebook players CAMPAIGN`` serves it with Voila (``players.ipynb`` calls :func:`served`), on 127.0.0.1 unless
told otherwise (then with a token), and with ``ClosedPageKernelManager``: the kernel of a page that is gone
(closed, reloaded, a phone put away) is shut down, so reloading cannot pile up kernels.
"""

from __future__ import annotations

import os
import time
from typing import Any

__all__ = ["player_widget", "served", "ClosedPageKernelManager", "POLL_SECONDS"]

POLL_SECONDS = 0.25
"""How often the players' view looks for new lines in the log (a keeper's click shows within about this)."""

_FOLLOWING: set = set()  # the follow tasks of the widgets on show (an event loop holds its tasks weakly)


def player_widget(path: str | os.PathLike, interval: float = POLL_SECONDS, hide_hearts: bool = False,
                  show_foe_hearts: bool = False) -> Any:
    """The players' view of the campaign in ``path``, following its log until the widget is closed.

    ``hide_hearts``: the delvers' exact hearts are not shown either, only how wounded they look;
    ``show_foe_hearts``: the foes' exact hearts are shown, not only their wounds."""
    from .extras import require
    require("players", "the players' view", "ipywidgets", "anywidget")
    from . import table
    from .campaign import Campaign

    camp = Campaign.open(path, read_only=True)
    view = table.players(camp, hide_hearts=hide_hearts, foe_hearts=show_foe_hearts)
    _follow(view, interval)
    return view


def served() -> Any:
    """The players' view as ``delvebook players`` asks for it (through the environment of the kernel Voila
    starts: ``DELVEBOOK_CAMPAIGN``, ``DELVEBOOK_HIDE_HEARTS``, ``DELVEBOOK_SHOW_FOE_HEARTS``)."""
    env = os.environ
    return player_widget(env["DELVEBOOK_CAMPAIGN"], hide_hearts=env.get("DELVEBOOK_HIDE_HEARTS") == "1",
                         show_foe_hearts=env.get("DELVEBOOK_SHOW_FOE_HEARTS") == "1")


def _follow(view: Any, interval: float) -> None:
    """Fold in the keeper's new events every ``interval`` seconds on the running event loop (the kernel's), until
    the widget is closed; the task is the module's to keep (``_FOLLOWING``), never an attribute put on the
    widget. The campaign's listeners redraw the view; a log that cannot be read is said on the screen."""
    import asyncio

    camp = view.camp

    async def follow() -> None:
        try:
            while view.comm is not None:  # a closed widget (its page gone) has no comm: stop following for it
                await asyncio.sleep(interval)
                if view.comm is None:
                    return
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


# ---------------------------------------------------------------- serving: kernels of pages that are gone

NEVER_CONNECTED_GRACE = 60.0
"""Seconds (at least; three times the culling time if that is longer) a kernel may wait for its page to connect
the first time (Voila runs the notebook before it sends the page; a request given up halfway never connects)."""


def _closed_page_kernel_manager():
    from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager

    class ClosedPageKernelManager(AsyncMappingKernelManager):
        """Voila's kernel manager, culling by pages instead of idleness: a kernel with no page connected for
        ``cull_idle_timeout`` seconds is shut down, however busy it is (the players' view follows the log, so
        its kernel is never idle while the keeper plays). Voila also shuts a kernel down when its page unloads;
        this catches the pages that go without unloading (a crashed tab, a phone put to sleep, a dropped
        network)."""

        def __init__(self, **kwargs: Any):
            super().__init__(**kwargs)
            self.pages: dict[str, int] = {}  # kernel id -> pages connected now
            self.alone_since: dict[str, float] = {}  # kernel id -> when its last page went (or it started)

        async def start_kernel(self, *args: Any, **kwargs: Any) -> str:
            kernel_id = await super().start_kernel(*args, **kwargs)
            self.pages[kernel_id] = 0
            grace = max(NEVER_CONNECTED_GRACE, 3 * self.cull_idle_timeout)
            self.alone_since[kernel_id] = time.monotonic() + grace - self.cull_idle_timeout
            return kernel_id

        def notify_connect(self, kernel_id: str) -> None:
            super().notify_connect(kernel_id)
            self.pages[kernel_id] = self.pages.get(kernel_id, 0) + 1
            self.alone_since.pop(kernel_id, None)

        def notify_disconnect(self, kernel_id: str) -> None:
            super().notify_disconnect(kernel_id)
            left = self.pages.get(kernel_id, 1) - 1
            self.pages[kernel_id] = max(0, left)
            if left <= 0:
                self.alone_since[kernel_id] = time.monotonic()

        async def cull_kernels(self) -> None:
            now = time.monotonic()
            for kernel_id in list(self.list_kernel_ids()):
                since = self.alone_since.get(kernel_id)
                if since is None or now - since < self.cull_idle_timeout:
                    continue
                self.log.info("delvebook players: shutting down kernel %s: no page has been connected to it "
                              "for %.0f s", kernel_id, now - since)
                try:
                    await self.shutdown_kernel(kernel_id)
                except Exception as err:  # pragma: no cover - a kernel that is already going
                    self.log.warning("delvebook players: could not shut down kernel %s: %s", kernel_id, err)
                self.alone_since.pop(kernel_id, None)
                self.pages.pop(kernel_id, None)

    return ClosedPageKernelManager


def __getattr__(name: str) -> Any:
    # Made on first use, so that importing the players' view in a kernel does not import the server
    if name == "ClosedPageKernelManager":
        cls = _closed_page_kernel_manager()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
