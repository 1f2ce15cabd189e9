"""The players' view: a read-only page for a second screen or the players' own devices.

It follows the campaign's log on disk (new lines are folded in as the keeper records them, each checked as
opening checks it) and shows the party, the initiative order with the current turn, the foes as names with a
wound state (exact hearts only if the keeper says so), and the last rolls. It has no control that could change
the campaign: it never opens the campaign for writing. Every value it shows, numbers included, goes through one
escape where the page is written, so no campaign file can put markup on the players' screens.

``delvebook players CAMPAIGN`` serves it with Voila, on 127.0.0.1 unless told otherwise (then with a token), and
with ``ClosedPageKernelManager``: the kernel of a page that is gone (closed, reloaded, a phone put away) is shut
down, so reloading cannot pile up kernels.
"""

from __future__ import annotations

import math
import os
import time
from pathlib import Path
from typing import Any

from .dice import DiceError, Roll, escape_html, roll_html
from .model import current_actor, format_purse

__all__ = ["LogFollower", "render", "wound_state", "player_widget", "ClosedPageKernelManager"]

esc = escape_html


class LogFollower:
    """A read-only campaign kept up to date with the log on disk (new lines are folded in as they come, each
    checked as opening checks it: a line the campaign would not open with is an error naming it)."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._load()

    def _load(self) -> None:
        from .campaign import Campaign
        from .store import CampaignStore
        store = CampaignStore.open(self.path, read_only=True)
        camp = Campaign.open(store)
        camp.close()
        self.store = store
        self.camp = camp
        self.tail = store.follow()

    def poll(self) -> bool:
        """Fold in the complete lines appended since the last poll; True if the state changed. A log set aside
        or replaced is read again from the start."""
        appended = self.tail.poll()
        if appended.reload:
            self._load()
            return True
        for event in appended.events:
            try:
                self.camp.engine.apply(event)
            except (KeyError, IndexError, TypeError, ValueError, AttributeError):
                self._load()  # the log as a whole does not open: say where (a StoreError naming the line)
                return True
            self.store.events.append(event)
        return bool(appended.events)


def _num(value: Any) -> float:
    """A number for arithmetic in the page (a bar's width); anything else counts as 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0
    return value if math.isfinite(value) else 0


def wound_state(hearts: int, max_hearts: int, status: str) -> str:
    """How a foe looks to the players, without numbers."""
    hearts, max_hearts = _num(hearts), _num(max_hearts)
    if status == "dead" or hearts <= 0:
        return "down"
    if hearts >= max_hearts:
        return "unhurt"
    if hearts * 2 > max_hearts:
        return "wounded"
    return "badly wounded"


_CSS = """
<style>
.dbp{font-family:system-ui,sans-serif;color:#222}
.dbp h3{margin:.6em 0 .3em;font-size:1.05em;text-transform:uppercase;letter-spacing:.05em;color:#555}
.dbp-party{display:flex;flex-wrap:wrap;gap:.6em}
.dbp-card{border:1px solid #ccc;border-radius:8px;padding:.5em .7em;min-width:11em}
.dbp-card.dbp-turn,.dbp-foe.dbp-turn{outline:3px solid #e6a700}
.dbp-bar{height:.7em;background:#eee;border-radius:4px;overflow:hidden;margin:.25em 0}
.dbp-bar>div{height:100%}
.dbp-dead{opacity:.5;text-decoration:line-through}
.dbp-foes{display:flex;flex-wrap:wrap;gap:.5em}
.dbp-foe{border:1px solid #caa;border-radius:6px;padding:.3em .6em;background:#fff6f6}
.dbp-order span{margin-right:.6em}
</style>"""


def _bar(hearts: Any, max_hearts: Any) -> str:
    hearts, max_hearts = _num(hearts), _num(max_hearts)
    frac = 0 if max_hearts <= 0 else max(0.0, min(1.0, hearts / max_hearts))
    colour = "#2a9d4b" if frac > 0.5 else "#e6a700" if frac > 0.25 else "#c0392b"
    return f'<div class="dbp-bar"><div style="width:{frac * 100:.0f}%;background:{colour}"></div></div>'


def _purse(talons: Any) -> str:
    return format_purse(talons) if isinstance(talons, int) and not isinstance(talons, bool) else str(talons)


def _actor(state) -> Any:
    try:
        return current_actor(state)
    except (KeyError, IndexError, TypeError):
        return None


def _sentence(e: dict, hidden) -> str:
    from .narrate import describe
    try:
        return describe(e, hidden)
    except Exception:  # an event the narrator cannot read: its kind, shown as text
        return str(e.get("kind"))


def _roll(name: Any, record: Any) -> str:
    try:
        return roll_html(Roll.from_dict(record))
    except (DiceError, KeyError, TypeError, ValueError, AttributeError):
        return f'<div class="delvebook-roll">{esc(name)}: {esc(record)}</div>'


def render(camp, show_foe_hearts: bool = False, last_rolls: int = 5) -> str:
    """The players' page as HTML: every value from the campaign (names, numbers, words) escaped where it is
    written; arithmetic on a value that is not a number counts it as 0."""
    state = camp.state
    actor = _actor(state)
    out = [_CSS, f'<div class="dbp"><h2 class="dbp-title">{esc(state["name"] or camp.name)}</h2>']
    session = state["session"]
    out.append(f'<div class="dbp-session">Session {esc(session["number"])}'
               f'{"" if session["active"] else " (between sessions)"}</div>')
    out.append('<h3>Party</h3><div class="dbp-party">')
    for name in state["seats"]:
        d = state["delvers"][name]
        cls = "dbp-card" + (" dbp-turn" if name == actor else "") + (" dbp-dead" if d["status"] == "dead" else "")
        status = {"dying": " - dying: death save!", "dead": " - dead"}.get(d["status"], "")
        luck = state["luck"].get(d["player"], 0)
        out.append(
            f'<div class="{cls}" data-name="{esc(name)}"><b>{esc(name)}</b> '
            f'<span style="color:#666">{esc(d.get("class_name", d["class_id"]))} {esc(d["level"])}</span>'
            f'<div class="dbp-hearts">{esc(d["hearts"])}/{esc(d["max_hearts"])} hearts{esc(status)}</div>'
            f'{_bar(d["hearts"], d["max_hearts"])}'
            f'<div style="font-size:.85em;color:#555">luck {esc(luck)} · {esc(_purse(d["purse"]))}</div></div>')
    out.append("</div>")
    enc = state["encounter"]
    if enc is not None:
        out.append(f'<h3>{esc(enc["name"])} · round {esc(enc["round"])}</h3>')
        if enc["side"] is not None:
            order = []
            for side in ("party", "foes") if enc["first"] == "party" else ("foes", "party"):
                for n in enc["order"].get(side, ()):
                    mark = " dbp-turn" if n == actor else ""
                    order.append(f'<span class="dbp-o{mark}">{"&#9654; " if mark else ""}{esc(n)}</span>')
            out.append(f'<div class="dbp-order">Order: {"".join(order)}</div>')
        out.append('<div class="dbp-foes">')
        for f in enc["foes"].values():
            shown = (f'{f["hearts"]}/{f["max_hearts"]} hearts' if show_foe_hearts
                     else wound_state(f["hearts"], f["max_hearts"], f["status"]))
            mark = " dbp-turn" if f["name"] == actor else ""
            dead = " dbp-dead" if f["status"] == "dead" else ""
            out.append(f'<div class="dbp-foe{mark}{dead}" data-name="{esc(f["name"])}">{esc(f["name"])}: '
                       f'<span class="dbp-wound">{esc(shown)}</span></div>')
        out.append("</div>")
    out.append('<h3>Last rolls</h3><div class="dbp-rolls">')
    shown_rolls = 0
    hidden = () if show_foe_hearts else _NotDelvers(camp.state["delvers"])
    for e in reversed(camp.events):
        if shown_rolls >= last_rolls:
            break
        rolls = e.get("rolls")
        if not rolls or e.get("kind") in ("undo", "redo"):
            continue
        out.append(f'<div class="dbp-roll" data-seq="{esc(e.get("seq"))}"><div>{esc(_sentence(e, hidden))}</div>')
        for name, record in (rolls.items() if isinstance(rolls, dict) else ()):
            out.append(_roll(name, record))
        out.append("</div>")
        shown_rolls += 1
    out.append("</div></div>")
    return "".join(out)


class _NotDelvers:
    """Everyone who is not a delver (foes of this fight and of past ones), as a container."""

    def __init__(self, delvers):
        self.delvers = delvers

    def __contains__(self, name: object) -> bool:
        return name not in self.delvers


_FOLLOWING: set = set()  # the follow tasks of the widgets on show (an event loop holds its tasks weakly)


def player_widget(path: str | os.PathLike, interval: float = 0.25, show_foe_hearts: bool = False) -> Any:
    """An HTML widget that follows the campaign's log and re-renders when it grows (for Voila), until it is
    closed: the task that follows the log is the module's to keep (``_FOLLOWING``), never an attribute put on the
    widget, and it ends with the widget."""
    import asyncio

    from .extras import require
    require("players", "the players' view", "ipywidgets")
    import ipywidgets as w

    follower = LogFollower(path)
    view = w.HTML(render(follower.camp, show_foe_hearts))

    async def follow() -> None:
        while view.comm is not None:  # a closed widget (its page gone) has no comm: stop following for it
            await asyncio.sleep(interval)
            if view.comm is None:
                return
            try:
                if follower.poll():
                    view.value = render(follower.camp, show_foe_hearts)
            except Exception as err:  # a bad line on disk: say so, keep following
                view.value = render(follower.camp, show_foe_hearts) + \
                    f'<p class="dbp-error">{esc(err)}</p>'

    task = asyncio.get_event_loop().create_task(follow())
    _FOLLOWING.add(task)
    task.add_done_callback(_FOLLOWING.discard)
    return view


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
