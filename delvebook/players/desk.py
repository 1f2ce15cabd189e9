"""The keeper's side of the players' requests: read them, answer them, record the accepted ones.

``desk_of(camp)`` is the desk of a campaign the keeper plays (its kernel is the one writer of the log). ``poll``
reads what each player's page asked since the last poll (``requests.Exchange``) and answers at once what needs no
keeper: a line that breaks the schema, a request the state refuses (another player's delver, a luck die they do
not have, a stale roll), more than ``MAX_WAITING`` waiting; a roll the keeper asked for is recorded when the
player makes it, and so is a luck die when the keeper set ``auto_luck``. The rest wait for the keeper's Accept or
Decline (``accept``, ``decline``). An accepted request becomes the event the keeper's click would have made,
recorded with who asked it (``asked_by``), undone like any other.

``follow(camp)`` polls on the kernel's event loop (as the players' view follows the log), so the keeper sees a
request without a click; ``ask`` sends a check, a save or a death save of a delver to its player's page.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
import weakref
from pathlib import Path
from typing import Any, Callable

from ..engine import Refused
from ..core.model import is_dying
from ..core.rules.schema.bounds import shorten
from . import links
from .allowed import ask_refusal, players_at, request_refusal
from .requests import ROLLS, Exchange, RequestError, answers_file, append, now, on_screen, screen_file

__all__ = ["Desk", "desk_of", "open_desk", "follow", "MAX_WAITING", "POLL_SECONDS", "POLL_BUDGET"]

MAX_WAITING = 4
"""Requests of one player that may wait for the keeper at once; more are refused (a flood never reaches the table)."""
POLL_SECONDS = 0.25
POLL_BUDGET = 0.1
"""Seconds one poll spends at most before it leaves the players it has not read to the next (each poll starts with
the next player): the kernel's event loop answers the keeper's clicks between polls."""

SCREEN = screen_file("").name

_DESKS: "weakref.WeakKeyDictionary[Any, Desk]" = weakref.WeakKeyDictionary()
_FOLLOWING: set = set()  # the poll tasks running (an event loop holds its tasks weakly)


def desk_of(camp) -> "Desk | None":
    """The desk of ``camp`` if it has one (a keeper's table made it), else None."""
    return _DESKS.get(camp)


def open_desk(camp) -> "Desk | None":
    """The desk of a campaign the keeper plays from a folder (made once), or None (read-only, in memory)."""
    if camp.read_only or getattr(camp, "path", None) is None:
        return None
    desk = _DESKS.get(camp)
    if desk is None:
        desk = _DESKS[camp] = Desk(camp)
    return desk


class Desk:
    """One campaign's players' requests, as the keeper's table sees and answers them."""

    def __init__(self, camp) -> None:
        self.camp = camp
        self.folder = Path(camp.path)
        self.auto_luck = False
        self.exchanges: dict[str, Exchange] = {}
        self.problem: str | None = None  # an answer that could not be written (a full or linked file)
        self.listeners: list[Callable[[], None]] = []
        self.server: dict | None = None       # where ``delvebook players`` (the table's Wi-Fi) listens, while it runs
        self.jupyter: dict | None = None      # the Jupyter server's pages, while they serve this campaign
        self.reached: tuple[str, str] | None = None  # (origin, base URL) as the keeper's browser reaches Jupyter
        self.keys: links.Keys | None = None
        self._started: subprocess.Popen | None = None
        self._marks: tuple = ()
        self._polls = 0
        self._links_aside: list = []  # keys.json or server.json set aside (``store.careful.Unreadable``)
        self._aside_said: list[str] = []  # what the keeper's table was last told is set aside
        pages = links.jupyter_pages()
        if pages is not None and links.served_here(pages, self.folder):  # this kernel's table served it already
            self.jupyter = {"base_url": pages["base_url"]}

    # ---- reading
    def players(self) -> list[str]:
        return players_at(self.camp.state)

    def exchange(self, player: str) -> Exchange:
        ex = self.exchanges.get(player)
        if ex is None:
            ex = self.exchanges[player] = Exchange(self.folder, player)
            ex.poll()
        return ex

    def poll(self) -> bool:
        """Read what the players asked since the last poll and answer what needs no keeper; tell the listeners
        (the keeper's tables) if anything changed. True if it did. Bounded: each file gives a poll at most
        ``store.careful.MAX_LINES`` lines, and a poll past ``POLL_BUDGET`` seconds leaves the players after to the
        next one (which starts where this one stopped)."""
        start = time.monotonic()
        changed = self._read_links()
        players = self.players()
        first = self._polls % len(players) if players else 0
        for player in players[first:] + players[:first]:
            ex = self.exchange(player)
            changed |= ex.poll()
            changed |= self._settle(ex)
            if time.monotonic() - start > POLL_BUDGET:
                break
        aside = self.set_aside()
        if aside != self._aside_said:  # a file set aside, or read again: said, or unsaid, without a click
            self._aside_said, changed = aside, True
        if changed:
            for listener in list(self.listeners):
                listener()
        return changed

    def _read_links(self) -> bool:
        """Where the players' server listens and the links' secrets, read again when their files change (and
        whether that server still runs, every few polls)."""
        marks = []
        for name in (links.SERVER, links.KEYS, SCREEN):
            try:  # (a look at the place, never through a link: what is there is read carefully, below)
                st = os.lstat(self.folder / "requests" / name)
                marks.append((st.st_mtime_ns, st.st_size, st.st_ino, st.st_mode))
            except OSError:
                marks.append(None)
        self._polls += 1
        if self.jupyter is not None and not self._polls % 8:
            changed = self._check_jupyter()
        else:
            changed = False
        if tuple(marks) == self._marks and (self.server is None or self._polls % 8):
            return changed
        aside: list = []
        info = links.read_server(self.folder, aside) if marks[0] else None
        server = info if links.server_alive(info) else None
        changed |= tuple(marks) != self._marks or server != self.server or aside != self._links_aside
        self._marks, self.server = tuple(marks), server
        self.keys = links.read_keys(self.folder, aside) if marks[1] else None
        if marks[2]:
            on_screen(self.folder, aside)
        self._links_aside = aside
        return changed

    def set_aside(self) -> list[str]:
        """Each file of the requests folder set aside now (a folder, a pipe or a link in a file's place, a file too
        large, or one of lines no page writes), once, in words: the keeper reads which and why."""
        found = list(self._links_aside)
        for ex in self.exchanges.values():
            found += [u for u in ex.set_aside() if u not in found]
        return [u.words(self.folder) for u in found]

    def _check_jupyter(self) -> bool:
        """The Jupyter server's pages still serve this campaign (its server runs), with a secret for every player."""
        pages = links.jupyter_pages()
        if pages is None or not links.served_here(pages, self.folder):
            self.jupyter = None
            return True
        if self.keys is None or any(p not in self.keys.players for p in self.players()):
            try:
                self.keys = links.ensure_keys(self.folder, self.players())
            except RequestError as err:  # keys.json unusable (a folder in its place): said beside the requests
                self.problem = str(err)
            return True
        return False

    def _settle(self, ex: Exchange) -> bool:
        """Answer what needs no keeper: refuse what is unreadable, refused by the state or one too many; record a
        roll the keeper asked for, and a luck die when ``auto_luck``. What a page would not have written (refused
        by the state, or one past those that may wait) counts against the file (``Exchange.refuse_foreign``), and
        once it is set aside the rest is forgotten, not answered; the answers go in one write."""
        batch: list[dict] = []
        waits = f"{MAX_WAITING} requests already wait for the keeper: ask again later"
        waiting, changed = 0, False
        for r in ex.pending():
            why = f"not a request: {r['problem']}" if r["kind"] == "unreadable" else \
                request_refusal(self.camp, ex, r) or (waits if waiting >= MAX_WAITING else None)
            if why is not None and r["kind"] != "unreadable" and ex.refuse_foreign(f"request {r['n']}: {why}"):
                del ex.requests[r["n"]]  # its file is set aside: the rest of it no longer stands
            elif why is not None:
                self._answer(ex, r["n"], "refused", batch, why=why)
            elif r["kind"] == "roll" or (r["kind"] == "luck" and self.auto_luck):
                self._write(ex, batch)
                ex.trusted()
                self._accept(ex, r)
            else:
                ex.trusted()
                waiting += 1
                continue
            changed = True
        self._write(ex, batch)
        return changed

    def waiting(self) -> list[dict]:
        """Every request waiting for the keeper, oldest first (each player's in turn)."""
        return [r for p in self.players() for r in self.exchange(p).pending()]

    # ---- answering
    def _answer(self, ex: Exchange, n: int, verdict: str, batch: list | None = None, **said: Any) -> bool:
        """Answer request ``n``: written now, or added to ``batch`` (``_write`` writes it); taken in at once, so
        it is not answered again whether or not it could be written."""
        line = {"re": n, "verdict": verdict, **{k: v for k, v in said.items() if v is not None}, "ts": now()}
        if isinstance(line.get("why"), str):
            line["why"] = shorten(line["why"], 300)
        ex.said(line)
        self._write(ex, [line] if batch is None else [])
        if batch is not None:
            batch.append(line)
        return True

    def _write(self, ex: Exchange, lines: list[dict]) -> None:
        """Append ``lines`` to ``ex``'s player's answers file in one write (said in ``problem`` if it cannot be)."""
        if not lines:
            return
        try:
            append(answers_file(self.folder, ex.player), *lines)
        except (RequestError, OSError) as err:
            self.problem = f"{len(lines)} answer{'s' if len(lines) > 1 else ''} to {ex.player} could not be " \
                           f"written: {_words(err)}"
        lines.clear()

    def accept(self, player: str, n: int):
        """Record request ``n`` of ``player`` as the keeper's click would (with ``asked_by``); returns the Outcome.
        Refused (said to the player too) when the state no longer allows it."""
        ex = self.exchange(player)
        ex.poll()
        r = ex.requests.get(n)
        if r is None or n in ex.answers:
            raise Refused(f"{player} has no request {n} waiting")
        why = request_refusal(self.camp, ex, r) if r["kind"] != "unreadable" else r["problem"]
        if why is not None:
            self._answer(ex, n, "refused", why=why)
            raise Refused(f"{player}'s request is refused: {why}")
        out = self._accept(ex, r)
        if out is None:
            raise Refused(ex.answers[n].get("why") or "refused")
        return out

    def _accept(self, ex: Exchange, r: dict):
        camp, n = self.camp, r["n"]
        try:
            with camp.asked(ex.player, n):
                out = self._record(ex, r)
        except Refused as err:
            self._answer(ex, n, "refused", why=str(err))
            if r["kind"] == "roll" and "faces" not in r:  # the roll cannot be made as asked: the ask ends
                self._close(ex, r["ask"], f"refused: {err}")
            return None
        self._answer(ex, n, "accepted", seq=out["seq"])
        if r["kind"] == "roll":
            self._close(ex, r["ask"], "rolled", seq=out["seq"])
        return out

    def _record(self, ex: Exchange, r: dict):
        camp, player = self.camp, ex.player
        if r["kind"] == "luck":
            return camp.spend_luck(player, r["sign"], roll=r["roll"])
        if r["kind"] == "choose":
            return camp.choose(r["who"], r["choice"], r["option"])
        ask = ex.asks[r["ask"]]
        faces = r.get("faces")
        if ask["roll"] == "death_save":
            return camp.death_save(ask["who"], faces={"death_save": faces} if faces else None)
        typed = {"faces": {"check": faces}} if faces else {}
        if ask["roll"] == "save":
            return camp.save(ask["who"], ask["target"], ask.get("skill"), **typed)
        return camp.check(ask["who"], ask.get("skill"), ask["target"], **typed)

    def decline(self, player: str, n: int, why: str | None = None) -> None:
        ex = self.exchange(player)
        ex.poll()
        if n not in ex.requests or n in ex.answers:
            raise Refused(f"{player} has no request {n} waiting")
        self._answer(ex, n, "declined", why=why or "the keeper declined it")  # an ask stays open: roll again
        self._tell()

    def _close(self, ex: Exchange, k: int, why: str, seq: int | None = None) -> None:
        line = {"closed": k, "why": why[:300], "ts": now()}
        if seq is not None:
            line["seq"] = seq
        try:
            append(answers_file(self.folder, ex.player), line)
        except (RequestError, OSError) as err:
            self.problem = f"{ex.player}'s roll {k} could not be closed: {_words(err)}"
        ex.said(line)

    def _tell(self) -> None:
        for listener in list(self.listeners):
            listener()

    # ---- asking
    def ask(self, who: str, roll: str, skill: str | None = None, target: int | None = None) -> int:
        """Send a roll of ``who`` to its player's page: ``check`` or ``save`` (a skill's or none, against
        ``target``) or ``death_save``; the player rolls it with a tap or types their dice. Returns its number."""
        s = self.camp.state
        d = s["delvers"].get(who)
        if d is None:
            raise Refused(f"{who!r} is not a delver of this party")
        player = d.get("player")
        if roll not in ROLLS:
            raise Refused(f"a player can be asked for a {', a '.join(ROLLS)}, not {roll!r}")
        if roll != "death_save":
            if type(target) is not int or not 1 <= target <= 100:
                raise Refused(f"a {roll} is rolled against a target number from 1 to 100, not {target!r}")
            if skill is not None and skill not in d.get("skills", {}):
                raise Refused(f"{who} has no skill {skill!r}")
        else:
            skill = target = None
            if not is_dying(d):
                raise Refused(f"{who} has no death save to make")
        ex = self.exchange(player)
        ask = {"ask": ex.next_ask(), "who": who, "roll": roll, "skill": skill, "target": target,
               "label": self.ask_label(who, roll, skill, target), "ts": now()}
        why = ask_refusal(self.camp, player, ask)
        if why is not None:
            raise Refused(why)
        try:
            append(answers_file(self.folder, player), ask)
        except (RequestError, OSError) as err:
            raise Refused(f"{player} cannot be sent a roll: {_words(err)}") from None
        ex.said(ask)
        self._tell()
        return ask["ask"]

    def withdraw(self, player: str, k: int) -> None:
        ex = self.exchange(player)
        if k not in ex.asks or k in ex.closed:
            raise Refused(f"{player} has no roll {k} open")
        self._close(ex, k, "withdrawn by the keeper")
        self._tell()

    def ask_label(self, who: str, roll: str, skill: str | None, target: int | None) -> str:
        if roll == "death_save":
            rule = self.camp.rules.core["death_save"]
            return f"{who}: death save ({str(rule['die']).upper()}, needs {rule['target']})"
        d = self.camp.state["delvers"][who]
        name = self.camp.rules.class_(d["class_id"])["skills"].get(skill, {}).get("name") if skill else None
        return f"{who}: {name + ' ' if name else ''}{roll} against {target}"

    # ---- serving the players' pages
    def start_server(self) -> None:
        """Serve the players' pages: by the Jupyter server this kernel runs under when it has the pages' extension
        (links that work wherever the keeper's JupyterLab is reachable), else by ``delvebook players`` on this
        machine's network (``serve_lan``)."""
        if self.jupyter is not None or self.server is not None:
            raise Refused("the players' pages are already served")
        pages = links.jupyter_pages()
        if pages is None:
            self.serve_lan()
            return
        self.keys = links.ensure_keys(self.folder, self.players())
        links.serve_here(pages, self.folder)
        self.jupyter = {"base_url": pages["base_url"]}
        self._tell()

    def serve_lan(self) -> None:
        """Start ``delvebook players`` for this campaign for the players' devices on this machine's network
        (``--ip 0.0.0.0``), as a child of this kernel: it stops when the kernel does. What it says goes to
        ``requests/server.log``: never a link (the table shows them; a link's secret is in no file but the keys')."""
        if self.server is not None:
            raise Refused("the players' server on this network already runs")
        if self._started is not None and self._started.poll() is None:
            raise Refused("the players' server is starting")
        folder = self.folder / "requests"
        folder.mkdir(mode=0o700, exist_ok=True)
        with open(folder / "server.log", "ab") as log:
            self._started = subprocess.Popen(
                [sys.executable, "-m", "delvebook", "players", str(self.folder.resolve()), "--ip", "0.0.0.0",
                 "--parent", str(os.getpid())], stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True)

    def stop_server(self) -> None:
        """Stop serving the players' pages: the Jupyter server's pages let this campaign go, and the server on this
        network this table started stops (waited for: it lets go of its port and its file of where it listens
        first), so the view drawn after the click already offers to start again."""
        stopped = False
        if self.jupyter is not None:
            pages = links.jupyter_pages()
            if pages is not None:
                links.unserve_here(pages, self.folder)
            self.jupyter = None
            stopped = True
        if self._started is not None and self._started.poll() is None:
            self._started.terminate()
            try:
                self._started.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._started.kill()
                self._started.wait(timeout=5)
            stopped = True
        if not stopped:
            raise Refused("this table serves no players' pages (stop a server started in a terminal with Ctrl-C)")
        self._marks = None  # read where it listened again, whatever the files say: its process is gone
        self._read_links()
        self._tell()

def _words(err: Exception) -> str:
    """An error met reading or writing the requests folder, as the keeper reads it (no exception's class)."""
    if isinstance(err, OSError):
        return err.strerror or "the file system refused"
    return shorten(str(err), 300)


def follow(camp, interval: float = POLL_SECONDS) -> Desk | None:
    """Poll ``camp``'s desk every ``interval`` seconds on the running event loop (the kernel's) while a keeper's
    table listens to it; one task a desk."""
    desk = open_desk(camp)
    if desk is None or any(getattr(t, "desk", None) is desk and not t.done() for t in _FOLLOWING):
        return desk

    async def poll() -> None:
        while desk.listeners:
            await asyncio.sleep(interval)
            try:
                desk.poll()
            except Exception as err:  # noqa: BLE001  (a request must never stop the table: say it, go on)
                desk.problem = f"the players' requests cannot be read: {_words(err)}"

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # made outside a running loop (a script): the loop that will run, if this thread has one
        try:
            loop = asyncio.get_event_loop_policy().get_event_loop()
        except RuntimeError:  # none: the desk is read when the table draws (each of its reads polls first)
            return desk
    task = loop.create_task(poll())
    task.desk = desk
    _FOLLOWING.add(task)
    task.add_done_callback(_FOLLOWING.discard)
    return desk
