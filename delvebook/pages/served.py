"""One campaign served to its players' pages, and every campaign one server serves.

``Served`` holds a campaign read-only and follows its log (``Campaign.catch_up``), its players' exchanges and what
the keeper shows on the second screen; it computes each page's view model with the table's own view code (the
second screen: the players' mode; a player's page: ``mode="player"``) once a version, and checks a player's click
(the one schema, the state, a rate and the number waiting) before it writes the request beside the log. Every file
under ``requests/`` is read and written through ``delvebook.players``.

``Pages`` is what one server serves: the campaigns (a fixed one for ``delvebook players``, or those the keepers'
tables registered with the Jupyter server), found by a link's secret, and the pages connected to each, told of every
new version. It runs on the server's event loop (tornado's): no thread, no lock.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Callable, Iterable

from ..players import links
from ..players.allowed import players_at, request_refusal, request_words
from ..players.desk import MAX_WAITING
from ..players.requests import Exchange, RequestError, append, now, on_screen, request_problem, requests_file

__all__ = ["Served", "Pages", "BURST", "REFILL", "REFUSED_LINK"]

BURST, REFILL = 5, 2.0  # a player may send 5 requests at once, then one every 2 s
REFUSED_LINK = "This link is not a link to this table (or no longer is): ask the keeper for yours."


class Served:
    """A campaign read-only, its players' exchanges and the views of its pages."""

    def __init__(self, folder: str | os.PathLike, *, hide_hearts: bool = False, foe_hearts: bool = False,
                 make_keys: bool = False, new_links: bool = False, open_screen: bool = False) -> None:
        from ..campaign import Campaign
        from ..view import UI, table_view
        self._ui, self._table_view = UI, table_view
        self.path = Path(folder).resolve()
        self.camp = Campaign.open(self.path, read_only=True)
        self.hide_hearts, self.foe_hearts = hide_hearts, foe_hearts
        self.make_keys = make_keys          # ``delvebook players`` makes the links' secrets; under Jupyter, the table
        self.open_screen = open_screen      # the second screen with no secret (this machine alone)
        self.version = 0
        self.problem: str | None = None
        self.exchanges: dict[str, Exchange] = {}
        self.buckets: dict[str, list[float]] = {}
        self.views: dict[tuple, tuple[int, str]] = {}
        self.shown = on_screen(self.path)   # the session whose recap the keeper shows on the second screen
        if make_keys:
            self.keys: links.Keys | None = links.ensure_keys(self.path, self.players(), new=new_links)
        else:
            self.keys = links.read_keys(self.path)

    # ---- who is at the table
    def players(self) -> list[str]:
        return players_at(self.camp.state)

    def exchange(self, player: str) -> Exchange:
        ex = self.exchanges.get(player)
        if ex is None:
            ex = self.exchanges[player] = Exchange(self.path, player)
            ex.poll()
        return ex

    def who(self, key: Any) -> tuple[str, str | None] | None:
        """Whose page a link's secret opens here: ``("table", None)``, ``("player", name)``, or None."""
        found = self.keys.who(key) if self.keys is not None else None
        if found is None and key == "" and self.open_screen:
            return ("table", None)
        return found

    # ---- following the keeper
    def follow(self) -> bool:
        """The keeper's new events, answers and asks, what the keeper shows on the second screen, the links'
        secrets: True when any page's view may have changed (the version moves on)."""
        try:
            changed = bool(self.camp.catch_up())
            problem = None
        except Exception as err:  # noqa: BLE001  (a bad line on disk: say so on every page, go on)
            changed, problem = False, f"the players' view cannot read the log: {err}"
        if problem != self.problem:
            self.problem, changed = problem, True
        for player in self.players():
            try:
                changed |= self.exchange(player).poll()
            except Exception as err:  # noqa: BLE001  (one player's file never stops the others' pages)
                problem = f"{player}'s requests cannot be read: {err}"
                if problem != self.problem:
                    self.problem, changed = problem, True
        shown = on_screen(self.path)
        if shown != self.shown:
            self.shown, changed = shown, True
        try:
            if self.make_keys:
                if self.keys is None or any(p not in self.keys.players for p in self.players()):
                    self.keys = links.ensure_keys(self.path, self.players())
            else:
                self.keys = links.read_keys(self.path)
        except RequestError as err:  # keys.json unusable (a folder in its place): said on the pages, never fatal
            if str(err) != self.problem:
                self.problem, changed = str(err), True
        if changed:
            self.version += 1
        return changed

    # ---- views
    def view(self, who: tuple[str, str | None]) -> tuple[int, str]:
        """(the version, the page's view model as JSON text) for the second screen or a player's page."""
        cached = self.views.get(who)
        if cached is not None and cached[0] == self.version:
            return cached
        if who[0] == "table":
            ui = self._ui(mode="players", hide_hearts=self.hide_hearts, foe_hearts=self.foe_hearts, shown=self.shown)
        else:
            ui = self._ui(mode="player", who=who[1], foe_hearts=self.foe_hearts, mine=self._mine(who[1]))
        v = self._table_view(self.camp, ui)
        if self.problem:
            v["refusal"] = {"text": self.problem, "where": None}
        out = (self.version, json.dumps(v, ensure_ascii=False))
        self.views[who] = out
        return out

    def _mine(self, player: str) -> dict:
        ex = self.exchange(player)
        said = []
        for n in sorted(ex.requests, reverse=True)[:6]:
            r, a = ex.requests[n], ex.answers.get(n)
            said.append({"n": n, "text": request_words(self.camp, ex, r, a),
                         "status": a["verdict"] if a else "waiting", "why": (a or {}).get("why") or ""})
        return {"asks": ex.open_asks(), "requests": said}

    # ---- a click from a player's page
    def request(self, player: str, intent: Any) -> str | None:
        """Write the request ``intent`` (a click on ``player``'s page) beside the log, or say why not."""
        from ..view.shape import FormError, check_shape
        if not isinstance(intent, dict):
            return "the page sent something that is not a click"
        try:
            check_shape(intent)
        except FormError as err:
            return str(err)
        kind = intent.get("do")
        if kind == "luck":
            asked = {"kind": "luck", "on": intent.get("on"), "roll": intent.get("roll"), "sign": intent.get("sign")}
        elif kind == "roll":
            asked = {"kind": "roll", "ask": intent.get("ask")}
            typed = (intent.get("args") or {}).get("faces")
            if typed not in (None, ""):
                parts = str(typed).replace(",", " ").split()
                if not parts or len(parts) > 20 or not all(p.isascii() and p.isdigit() and len(p) <= 4 for p in parts):
                    return f"type the faces your dice show, like '14 3', not {str(typed)[:40]!r}"
                asked["faces"] = [int(p) for p in parts]
        elif kind == "choose":
            asked = {"kind": "choose", "who": intent.get("who"), "choice": intent.get("choice"),
                     "option": intent.get("option")}
        else:
            return f"a player's page cannot ask for {str(kind)[:40]!r}"
        ex = self.exchange(player)
        ex.poll()
        line = {"n": ex.last + 1, "player": player, **asked, "ts": now()}
        problem = request_problem(line)
        if problem is not None:
            return f"not a request: {problem}"
        if not self._take_token(player):
            return "too many requests at once: wait a moment"
        if len(ex.pending()) >= MAX_WAITING:
            return f"{MAX_WAITING} of your requests already wait for the keeper"
        why = request_refusal(self.camp, ex, line)
        if why is not None:
            return why
        try:
            append(requests_file(self.path, player), line)
        except RequestError as err:
            return str(err)
        ex.poll()
        self.version += 1
        return None

    def _take_token(self, player: str) -> bool:
        t = time.monotonic()
        tokens, last = self.buckets.get(player, [float(BURST), t])
        tokens = min(float(BURST), tokens + (t - last) / REFILL)
        if tokens < 1:
            self.buckets[player] = [tokens, t]
            return False
        self.buckets[player] = [tokens - 1, t]
        return True

    def close(self) -> None:
        self.camp.close()


class Pages:
    """The campaigns one server serves and the pages connected to them. ``sources()`` says which campaign folders
    to serve now (with the options of each); ``follow()``, called every quarter second, opens and closes them as
    it changes and tells each connected page of a new version."""

    def __init__(self, sources: Callable[[], Iterable[tuple[Path, dict]]], *, log: Callable[[str], None] = print):
        self.sources = sources
        self.log = log
        self.served: dict[Path, Served] = {}
        self.failed: dict[Path, str] = {}
        self.pages: dict[Path, set] = {}   # folder -> the connected pages (each has .tell(served))

    def follow(self) -> None:
        wanted = {}
        for folder, options in self.sources():
            wanted[Path(folder).resolve()] = options
        for folder in [f for f in self.served if f not in wanted]:
            self._drop(folder)
        for folder, options in wanted.items():
            served = self.served.get(folder)
            if served is None:
                served = self._open(folder, options)
                if served is None:
                    continue
            if served.follow():
                self.tell(served)

    def _open(self, folder: Path, options: dict) -> Served | None:
        try:
            served = Served(folder, **options)
        except Exception as err:  # noqa: BLE001  (a campaign that cannot be opened is said once, never fatal)
            said = f"delvebook pages: {folder.name}: cannot be served ({type(err).__name__}: {err})"
            if self.failed.get(folder) != said:
                self.failed[folder] = said
                self.log(said)
            return None
        self.failed.pop(folder, None)
        self.served[folder] = served
        return served

    def _drop(self, folder: Path) -> None:
        served = self.served.pop(folder)
        for page in list(self.pages.pop(folder, ())):
            page.refuse(REFUSED_LINK)
        served.close()

    def find(self, key: Any) -> tuple[Served, tuple[str, str | None]] | None:
        """The campaign and the page a link's secret opens, or None."""
        if not isinstance(key, str) or len(key) > 100:
            return None
        for served in self.served.values():
            who = served.who(key)
            if who is not None:
                return served, who
        return None

    def join(self, served: Served, page: Any) -> None:
        self.pages.setdefault(served.path, set()).add(page)

    def leave(self, page: Any) -> None:
        for pages in self.pages.values():
            pages.discard(page)

    def tell(self, served: Served) -> None:
        for page in list(self.pages.get(served.path, ())):
            page.tell()

    def connected(self) -> int:
        return sum(len(p) for p in self.pages.values())

    def close(self) -> None:
        for folder in list(self.served):
            self._drop(folder)
