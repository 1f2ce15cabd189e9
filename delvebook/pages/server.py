"""``delvebook players``: one small server for the second screen and every player's page, with no kernel a page.

It holds the campaign read-only and follows its log (``Campaign.catch_up``) and the keeper's answers, computes each
page's view model with the table's own view code (the second screen: the players' mode; a player's page:
``mode="player"``), and serves the table's own front end (``table.js``) with a few lines standing in for
anywidget's model (``players.js``): views come by server-sent events, clicks go back as one POST each. A page that
closes holds nothing here but its connection, which ends with it.

Hardened for a table's Wi-Fi: it answers only the Host names it was told (127.0.0.1, localhost, the addresses it
listens on, ``--allow-host``), so a web page elsewhere cannot reach it through DNS rebinding; every page and every
call needs its link's secret (``links.Keys``; on 127.0.0.1 alone the second screen needs none), and a wrong or
missing one gets a plain page; a player's secret acts for that player's delvers only; a request is checked by the
one schema, against the state, and by rate before it is written; secrets never go on a command line or in the
server's log. Standard library only (``http.server``).
"""

from __future__ import annotations

import errno
import html
import ipaddress
import json
import os
import select
import signal
import socket
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from ..store.publish import pid_alive
from ..players import links
from ..players.allowed import players_at, request_refusal, request_words
from ..players.desk import MAX_WAITING
from ..players.requests import Exchange, RequestError, append, now, on_screen, request_problem, requests_file

__all__ = ["PlayersServer", "is_loopback", "local_addresses", "HEARTBEAT", "MAX_BODY", "BURST", "REFILL"]

MAX_BODY = 4096        # bytes of one click's message
HEARTBEAT = 2.0        # seconds between two messages on an idle event stream: a page gone is noticed by then
BURST, REFILL = 5, 2.0  # a player may send 5 requests at once, then one every 2 s
POLL = 0.25            # seconds between two looks at the log and the keeper's answers
PORT_RETRIES = 10      # the ports after the one asked for, tried in turn when it is taken
STATIC = {"table.js": "text/javascript", "table.css": "text/css", "players.js": "text/javascript"}
SECURITY = {"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
                                       "connect-src 'self'; img-src 'self' data:; base-uri 'none'; "
                                       "form-action 'none'; frame-ancestors 'none'",
            "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY",
            "Cache-Control": "no-store"}
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def is_loopback(ip: str) -> bool:
    if ip == "localhost":
        return True
    try:
        return ipaddress.ip_address(ip).is_loopback
    except ValueError:
        return False


def local_addresses() -> list[str]:
    """This machine's IPv4 addresses the players' devices may reach (the loopback left out)."""
    found: list[str] = []
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.append(info[4][0])
    except OSError:
        pass
    try:  # the address of the interface a packet out would leave by (no packet is sent for a UDP connect)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))
            found.append(s.getsockname()[0])
    except OSError:
        pass
    out: list[str] = []
    for a in found:
        if a not in out and not is_loopback(a) and a != "0.0.0.0":
            out.append(a)
    return out


def _page(title: str) -> bytes:
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{html.escape(title)}</title><link rel="stylesheet" href="/static/table.css"></head>'
            f'<body class="db-page"><div id="db"></div><script type="module" src="/static/players.js"></script>'
            f'</body></html>').encode("utf-8")


def _plain(text: str) -> bytes:
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
            f'content="width=device-width, initial-scale=1"><title>delvebook</title></head>'
            f'<body style="font: 20px/1.4 system-ui, sans-serif; margin: 2em"><p>{html.escape(text)}</p></body>'
            f'</html>').encode("utf-8")


class PlayersServer:
    """The campaign read-only, its players' exchanges, the views of the pages, and the HTTP server serving them."""

    def __init__(self, campaign: str | os.PathLike, *, ip: str = "127.0.0.1", port: int = 8866,
                 hide_hearts: bool = False, foe_hearts: bool = False, parent: int | None = None,
                 allow_hosts: tuple[str, ...] = (), new_links: bool = False, poll: float = POLL) -> None:
        from ..campaign import Campaign
        from ..view import UI, table_view
        self._ui, self._table_view = UI, table_view
        self.path = Path(campaign).resolve()
        self.camp = Campaign.open(self.path, read_only=True)
        self.hide_hearts, self.foe_hearts = hide_hearts, foe_hearts
        self.parent, self.poll_every = parent, poll
        self.lock = threading.RLock()           # the campaign, the exchanges and the views: one thread at a time
        self.changed = threading.Condition()    # told when the version moves on
        self.version = 0
        self.stopping = threading.Event()
        self.problem: str | None = None
        self.exchanges: dict[str, Exchange] = {}
        self.buckets: dict[str, list[float]] = {}
        self.views: dict[tuple, tuple[int, dict]] = {}
        self.shown = on_screen(self.path)       # the session whose recap the keeper shows on the second screen
        self.local = is_loopback(ip)
        self.keys = links.ensure_keys(self.path, self.players(), new=new_links)
        family = socket.AF_INET6 if ":" in ip else socket.AF_INET
        server_class = type("Server", (ThreadingHTTPServer,), {"address_family": family, "daemon_threads": True,
                                                               "allow_reuse_address": True})
        for tried in range(PORT_RETRIES + 1):  # the next ports when one is taken, as Jupyter's servers do
            try:
                self.httpd = server_class((ip, port + tried if port else 0), _Handler)
                break
            except OSError as err:
                if err.errno != errno.EADDRINUSE or not port or tried == PORT_RETRIES:
                    self.camp.close()
                    raise
        self.httpd.players = self
        self.port = self.httpd.server_address[1]
        if ip in ("0.0.0.0", "::"):
            self.hosts = local_addresses() or ["127.0.0.1"]
        else:
            self.hosts = [ip]
        names = {*LOOPBACK, *self.hosts, *allow_hosts}
        self.allowed = {f"[{h}]:{self.port}" if ":" in h else f"{h}:{self.port}" for h in names}
        if self.port == 80:
            self.allowed |= {f"[{h}]" if ":" in h else h for h in names}
        self.allowed = {h.lower() for h in self.allowed}

    # ---- who is at the table
    def players(self) -> list[str]:
        return players_at(self.camp.state)

    def exchange(self, player: str) -> Exchange:
        ex = self.exchanges.get(player)
        if ex is None:
            ex = self.exchanges[player] = Exchange(self.path, player)
            ex.poll()
        return ex

    def links(self) -> list[tuple[str, str]]:
        host = next((h for h in self.hosts if not is_loopback(h)), "127.0.0.1")
        out = [("the second screen", links.link(host, self.port, None if self.local else self.keys.table))]
        out += [(p, links.link(host, self.port, self.keys.players[p])) for p in self.players() if p in self.keys.players]
        return out

    # ---- following the keeper
    def _bump(self) -> None:
        with self.changed:
            self.version += 1
            self.changed.notify_all()

    def follow(self) -> None:
        """Every ``poll`` seconds: the keeper's new events, answers and asks; what the keeper shows on the second
        screen; a new player's link; the keeper's kernel gone (``--parent``). Runs until the server stops."""
        while not self.stopping.wait(self.poll_every):
            if self.parent is not None and not pid_alive(self.parent):
                self.stop()
                return
            changed = False
            with self.lock:
                try:
                    changed = bool(self.camp.catch_up())
                    problem = None
                except Exception as err:  # noqa: BLE001  (a bad line on disk: say so on every page, go on)
                    problem = f"the players' view cannot read the log: {err}"
                if problem != self.problem:
                    self.problem, changed = problem, True
                for player in self.players():
                    changed |= self.exchange(player).poll()
                shown = on_screen(self.path)
                if shown != self.shown:
                    self.shown, changed = shown, True
                missing = [p for p in self.players() if p not in self.keys.players]
                if missing:
                    self.keys = links.ensure_keys(self.path, self.players())
                    self._announce()
            if changed:
                self._bump()

    def _announce(self) -> None:
        links.write_server(self.path, {"pid": os.getpid(), "port": self.port, "hosts": self.hosts,
                                       "local": self.local, "started": now()})

    # ---- views
    def view(self, who: tuple[str, str | None]) -> tuple[int, str]:
        """(the version, the page's view model as JSON text) for the second screen or a player's page."""
        with self.lock:
            cached = self.views.get(who)
            if cached is not None and cached[0] == self.version:
                return cached
            if who[0] == "table":
                ui = self._ui(mode="players", hide_hearts=self.hide_hearts, foe_hearts=self.foe_hearts,
                              shown=self.shown)
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
                if not parts or not all(p.isdigit() for p in parts):
                    return f"type the faces your dice show, like '14 3', not {str(typed)[:40]!r}"
                asked["faces"] = [int(p) for p in parts]
        elif kind == "choose":
            asked = {"kind": "choose", "who": intent.get("who"), "choice": intent.get("choice"),
                     "option": intent.get("option")}
        else:
            return f"a player's page cannot ask for {str(kind)[:40]!r}"
        with self.lock:
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
        self._bump()
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

    # ---- running
    def serve(self) -> None:
        """Serve until stopped (SIGTERM, SIGINT, the keeper's kernel gone)."""
        self._announce()
        follower = threading.Thread(target=self.follow, name="follow", daemon=True)
        follower.start()
        serving = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.5},
                                   name="serve", daemon=True)
        serving.start()
        try:
            while not self.stopping.wait(0.5):
                pass
        finally:
            self.httpd.shutdown()
            self.httpd.server_close()
            links.clear_server(self.path, os.getpid())
            with self.lock:
                self.camp.close()

    def stop(self, *_: Any) -> None:
        self.stopping.set()
        with self.changed:
            self.changed.notify_all()


def _gone(sock: socket.socket) -> bool:
    """Whether the page at the other end of ``sock`` closed it (a read would end)."""
    try:
        ready, _, _ = select.select([sock], [], [], 0)
        return bool(ready) and sock.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


class _Handler(BaseHTTPRequestHandler):
    server_version = "delvebook"
    sys_version = ""
    protocol_version = "HTTP/1.0"
    timeout = 20  # seconds a connection may wait to speak (or to take a write): a silent one is let go

    @property
    def players(self) -> PlayersServer:
        return self.server.players  # type: ignore[attr-defined]

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002  (the base class's name)
        # the request line carries a link's secret: the log says the path alone
        path = urllib.parse.urlsplit(self.path).path if isinstance(self.path, str) else "?"
        sys.stderr.write(f"{self.address_string()} {self.command} {path[:80]} {args[1] if len(args) > 1 else ''}\n")

    # ---- answering
    def _send(self, status: int, body: bytes, kind: str = "text/html; charset=utf-8") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for k, v in SECURITY.items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _plain(self, status: int, text: str) -> None:
        self._send(status, _plain(text))

    def _host_ok(self) -> bool:
        host = (self.headers.get("Host") or "").strip().lower()
        if host in self.players.allowed:
            return True
        self._plain(421 if host else 400, "This server answers only the addresses it was started for.")
        return False

    def _who(self) -> tuple[str, str | None] | None:
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        key = (query.get("key") or [""])[0]
        who = self.players.keys.who(key)
        if who is None and not key and self.players.local:
            who = ("table", None)  # this machine alone: the second screen needs no secret
        return who

    # ---- methods
    def do_GET(self) -> None:  # noqa: N802  (the base class's name)
        if not self._host_ok():
            return
        path = urllib.parse.urlsplit(self.path).path
        if path.startswith("/static/") and path[8:] in STATIC:
            name = path[8:]
            from ..view import front
            body = (front.esm() if name == "table.js" else front.static(name)).encode("utf-8")
            self._send(200, body, f"{STATIC[name]}; charset=utf-8")
            return
        if path == "/favicon.ico":
            self._send(204, b"")
            return
        if path not in ("/", "/events"):
            self._plain(404, "Nothing here.")
            return
        who = self._who()
        if who is None:
            self._plain(403, "This link is not a link to this table (or no longer is): ask the keeper for yours.")
            return
        if path == "/":
            self._send(200, _page(self.players.camp.name))
        else:
            self._stream(who)

    def do_POST(self) -> None:  # noqa: N802
        if not self._host_ok():
            return
        if urllib.parse.urlsplit(self.path).path != "/intent":
            self._plain(404, "Nothing here.")
            return
        who = self._who()
        if who is None or who[0] != "player":
            self._plain(403, "Only a player's own link can ask the keeper for something.")
            return
        origin = self.headers.get("Origin")
        if origin is not None and urllib.parse.urlsplit(origin).netloc.lower() not in self.players.allowed:
            self._plain(403, "A click from another site.")
            return
        if (self.headers.get("Content-Type") or "").split(";")[0].strip() != "application/json":
            self._plain(415, "A click is sent as JSON.")
            return
        try:
            size = int(self.headers.get("Content-Length") or "-1")
        except ValueError:
            size = -1
        if not 0 <= size <= MAX_BODY:
            self._plain(413, f"A click is at most {MAX_BODY} bytes.")
            return
        try:
            message = json.loads(self.rfile.read(size).decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            message = None
        ack = message.get("id") if isinstance(message, dict) and isinstance(message.get("id"), str) else None
        intent = message.get("intent") if isinstance(message, dict) else None
        refused = self.players.request(who[1], intent)
        _, view = self.players.view(who)
        out = json.loads(view)
        out["ack"] = ack[:64] if ack else None
        if refused is not None:
            where = intent.get("where") if isinstance(intent, dict) and isinstance(intent.get("where"), str) else None
            out["refusal"] = {"text": refused, "where": where}
        status = 429 if refused and refused.startswith("too many requests") else 200
        self._send(status, json.dumps(out, ensure_ascii=False).encode("utf-8"), "application/json")

    def _stream(self, who: tuple[str, str | None]) -> None:
        """The page's view as server-sent events: each new version, and a comment every ``HEARTBEAT`` seconds
        while nothing changes; ends when the page goes (its connection closed) or the server stops."""
        players = self.players
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        for k, v in SECURITY.items():
            self.send_header(k, v)
        self.end_headers()
        last = None
        try:
            while not players.stopping.is_set():
                with players.changed:
                    if players.version == last:
                        players.changed.wait(HEARTBEAT)
                if _gone(self.connection) or players.stopping.is_set():
                    return
                version, view = players.view(who)
                if version != last:
                    self.wfile.write(b"event: view\ndata: " + view.encode("utf-8") + b"\n\n")
                    last = version
                else:
                    self.wfile.write(b": still here\n\n")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, TimeoutError, OSError):
            return


def run(campaign: str | os.PathLike, **options: Any) -> int:
    """``delvebook players``: serve until Ctrl-C or SIGTERM; prints the links (with their secrets) on this
    terminal, the keeper's, and never puts one on a command line."""
    qr = options.pop("qr", False)
    server = PlayersServer(campaign, **options)
    signal.signal(signal.SIGTERM, server.stop)
    signal.signal(signal.SIGINT, server.stop)
    where = "this machine only (--ip 0.0.0.0 for the players' phones)" if server.local else \
        "the players' phones on this network"
    print(f"delvebook players: {server.camp.name} read-only on port {server.port}, for {where}; Ctrl-C stops",
          flush=True)
    for name, url in server.links():
        print(f"  {name}: {url}", flush=True)
        if qr:
            _print_qr(url)
    print("  (the keeper's table shows each link and its QR code in its Keeper panel)", flush=True)
    server.serve()
    return 0


def _print_qr(url: str) -> None:
    try:
        import segno
    except ImportError:
        return
    segno.make(url, error="m", micro=False).terminal(compact=True)
