"""The players' view: a read-only page for a second screen or the players' own devices.

It follows the campaign's log on disk (new lines are folded in as the keeper records them) and shows
the party, the initiative order with the current turn, the foes as names with a wound state (exact
hearts only if the keeper says so), and the last rolls. It has no control that could change the
campaign: it never opens the campaign for writing.

``delvebook players CAMPAIGN`` serves it with Voila.
"""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Any

from .dice import Roll, roll_html
from .engine.combat import current_actor
from .model import format_purse

__all__ = ["LogFollower", "render", "wound_state", "player_widget"]


class LogFollower:
    """A read-only campaign kept up to date with the log on disk (new lines are folded in as they come)."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._load()

    def _load(self) -> None:
        from .campaign import Campaign
        camp = Campaign.open(self.path, read_only=True)
        camp.close()
        self.camp = camp
        self.log = self.path / "log.yaml"
        self.offset = self.log.stat().st_size if self.log.exists() else 0
        self.carry = b""

    def poll(self) -> bool:
        """Fold in any complete lines appended since the last poll; True if the state changed."""
        from .store import parse_event_line
        try:
            size = self.log.stat().st_size
        except FileNotFoundError:
            return False
        if size < self.offset:  # the keeper's side set a torn line aside: start again
            self._load()
            return True
        if size == self.offset:
            return False
        with open(self.log, "rb") as f:
            f.seek(self.offset)
            data = self.carry + f.read(size - self.offset)
        self.offset = size
        *complete, self.carry = data.split(b"\n")
        changed = False
        for raw in complete:
            event = parse_event_line(raw.decode("utf-8"), self.log, 0)
            if event is None:
                continue
            if event["seq"] <= (self.camp.events[-1]["seq"] if self.camp.events else 0):
                continue
            self.camp.events.append(event)
            self.camp.engine.apply(event)
            changed = True
        return changed


def wound_state(hearts: int, max_hearts: int, status: str) -> str:
    """How a foe looks to the players, without numbers."""
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


def _bar(hearts: int, max_hearts: int) -> str:
    frac = 0 if max_hearts <= 0 else max(0.0, min(1.0, hearts / max_hearts))
    colour = "#2a9d4b" if frac > 0.5 else "#e6a700" if frac > 0.25 else "#c0392b"
    return f'<div class="dbp-bar"><div style="width:{frac * 100:.0f}%;background:{colour}"></div></div>'


def render(camp, show_foe_hearts: bool = False, last_rolls: int = 5) -> str:
    """The players' page as HTML (every name from the campaign escaped)."""
    esc = html.escape
    state = camp.state
    actor = current_actor(state)
    out = [_CSS, f'<div class="dbp"><h2 class="dbp-title">{esc(state["name"] or camp.name)}</h2>']
    session = state["session"]
    out.append(f'<div class="dbp-session">Session {session["number"]}'
               f'{"" if session["active"] else " (between sessions)"}</div>')
    out.append('<h3>Party</h3><div class="dbp-party">')
    for name in state["seats"]:
        d = state["delvers"][name]
        cls = "dbp-card" + (" dbp-turn" if name == actor else "") + (" dbp-dead" if d["status"] == "dead" else "")
        status = {"dying": " - dying: death save!", "dead": " - dead"}.get(d["status"], "")
        luck = state["luck"].get(d["player"], 0)
        out.append(
            f'<div class="{cls}" data-name="{esc(name)}"><b>{esc(name)}</b> '
            f'<span style="color:#666">{esc(d.get("class_name", d["class_id"]))} {d["level"]}</span>'
            f'<div class="dbp-hearts">{d["hearts"]}/{d["max_hearts"]} hearts{esc(status)}</div>'
            f'{_bar(d["hearts"], d["max_hearts"])}'
            f'<div style="font-size:.85em;color:#555">luck {luck} · {esc(format_purse(d["purse"]))}</div></div>')
    out.append("</div>")
    enc = state["encounter"]
    if enc is not None:
        out.append(f'<h3>{esc(enc["name"])} · round {enc["round"]}</h3>')
        if enc["side"] is not None:
            order = []
            for side in ("party", "foes") if enc["first"] == "party" else ("foes", "party"):
                for n in enc["order"][side]:
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
    from .narrate import describe
    hidden = () if show_foe_hearts else _NotDelvers(camp.state["delvers"])
    for e in reversed(camp.events):
        if shown_rolls >= last_rolls:
            break
        if not e.get("rolls") or e.get("kind") in ("undo", "redo"):
            continue
        out.append(f'<div class="dbp-roll" data-seq="{e["seq"]}"><div>{esc(describe(e, hidden))}</div>')
        for r in e["rolls"].values():
            out.append(roll_html(Roll.from_dict(r)))
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


def player_widget(path: str | os.PathLike, interval: float = 0.25, show_foe_hearts: bool = False) -> Any:
    """An HTML widget that follows the campaign's log and re-renders when it grows (for Voila)."""
    import asyncio

    from .extras import require
    require("players", "the players' view", "ipywidgets")
    import ipywidgets as w

    follower = LogFollower(path)
    view = w.HTML(render(follower.camp, show_foe_hearts))

    async def follow() -> None:
        while True:
            await asyncio.sleep(interval)
            try:
                if follower.poll():
                    view.value = render(follower.camp, show_foe_hearts)
            except Exception as err:  # a bad line on disk: say so, keep following
                view.value = render(follower.camp, show_foe_hearts) + \
                    f'<p class="dbp-error">{html.escape(str(err))}</p>'

    view._follow_task = asyncio.get_event_loop().create_task(follow())
    return view
