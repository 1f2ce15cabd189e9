"""``delvebook players``: the players' pages alone, for the table's Wi-Fi, in their own small tornado server (the
same handlers as under Jupyter, ``app``), while the keeper's JupyterLab stays on 127.0.0.1.

It answers only the Host names it was told (127.0.0.1, localhost, the addresses it listens on, ``--allow-host``),
so a web page elsewhere cannot reach it through DNS rebinding; on 127.0.0.1 alone the second screen needs no secret.
A port each keeper: the one asked for, else the next ten, else any free one the system gives, said in words; a
connection that never speaks is let go after 20 s. It prints the links (with their secrets) on the keeper's own
terminal, and none when the keeper's table started it (the table shows them; its output goes to a log).
"""

from __future__ import annotations

import errno
import ipaddress
import os
import signal
import socket
import sys
from pathlib import Path
from tornado import httpserver, ioloop, netutil, web, websocket

from ..players import links
from ..players.requests import now
from ..store.publish import pid_alive
from .app import LiveMixin, PageMixin, StaticMixin, routes
from .served import Pages

__all__ = ["serve", "listen", "is_loopback", "local_addresses", "POLL", "PORT_RETRIES", "IDLE"]

POLL = 0.25            # seconds between two looks at the log and the keeper's answers
PORT_RETRIES = 10      # the ports after the one asked for, tried in turn when it is taken
IDLE = 20.0            # seconds a connection may wait to speak before it is let go
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


class _Hosts:
    """Only the Host names this server was started for are answered."""

    def prepare(self) -> None:
        host = (self.request.headers.get("Host") or "").strip().lower()  # type: ignore[attr-defined]
        if host not in self.settings["delvebook_hosts"]:  # type: ignore[attr-defined]
            self.plain(421 if host else 400, "This server answers only the addresses it was started for.")  # type: ignore[attr-defined]


class _Page(_Hosts, PageMixin, web.RequestHandler):
    pass


class _Static(_Hosts, StaticMixin, web.RequestHandler):
    pass


class _Live(_Hosts, LiveMixin, websocket.WebSocketHandler):
    pass


def listen(ip: str, port: int) -> tuple[list[socket.socket], str | None]:
    """Sockets on ``ip``: on ``port``, else the next ``PORT_RETRIES`` ports, else any free port (0: any free);
    with a sentence saying so when it is not the port asked for. OSError when none can be had."""
    tried = [port + k for k in range(PORT_RETRIES + 1) if port + k <= 65535] if port else []
    for p in tried:
        try:
            return netutil.bind_sockets(p, address=ip, reuse_port=False), None
        except OSError as err:
            if err.errno != errno.EADDRINUSE:
                raise
    sockets = netutil.bind_sockets(0, address=ip)
    if not tried:
        return sockets, None
    got = sockets[0].getsockname()[1]
    return sockets, (f"ports {tried[0]} to {tried[-1]} are taken (other keepers' servers on this machine?): "
                     f"listening on port {got} instead, which the firewall must let in")


def serve(campaign: str | os.PathLike, *, ip: str = "127.0.0.1", port: int = 8866, hide_hearts: bool = False,
          foe_hearts: bool = False, parent: int | None = None, allow_hosts: tuple[str, ...] = (),
          new_links: bool = False, qr: bool = False) -> int:
    """Serve ``campaign``'s players' pages until Ctrl-C, SIGTERM or the keeper's kernel (``parent``) is gone."""
    folder = Path(campaign).resolve()
    local = is_loopback(ip)
    options = {"hide_hearts": hide_hearts, "foe_hearts": foe_hearts, "make_keys": True, "new_links": new_links,
               "open_screen": local}
    said: list[str] = []
    pages = Pages(lambda: [(folder, options)], log=said.append)
    pages.follow()  # opened now: a campaign that cannot be served is said before any port is taken
    if folder not in pages.served:
        print(said[-1] if said else f"delvebook players: {folder} cannot be served", file=sys.stderr)
        return 1
    options["new_links"] = False
    served = pages.served[folder]
    sockets, moved = listen(ip, port)
    port = sockets[0].getsockname()[1]
    hosts = (local_addresses() or ["127.0.0.1"]) if ip in ("0.0.0.0", "::") else [ip]
    names = {*LOOPBACK, *hosts, *allow_hosts}
    allowed = {(f"[{h}]:{port}" if ":" in h else f"{h}:{port}").lower() for h in names}
    if port == 80:
        allowed |= {(f"[{h}]" if ":" in h else h).lower() for h in names}
    app = web.Application(routes("", _Page, _Static, _Live), delvebook_pages=pages, delvebook_prefix="",
                          delvebook_hosts=allowed)
    server = httpserver.HTTPServer(app, idle_connection_timeout=IDLE, body_timeout=IDLE, max_body_size=65536,
                                   xheaders=False)
    server.add_sockets(sockets)
    loop = ioloop.IOLoop.current()

    def follow() -> None:
        if parent is not None and not pid_alive(parent):
            loop.stop()
            return
        pages.follow()

    ticker = ioloop.PeriodicCallback(follow, POLL * 1000)
    ticker.start()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: loop.add_callback_from_signal(loop.stop))
    links.write_server(folder, {"pid": os.getpid(), "port": port, "hosts": hosts, "local": local,
                                "started": now()})
    where = "this machine only (--ip 0.0.0.0 for the players' phones)" if local else \
        "the players' phones on this network"
    print(f"delvebook players: {served.camp.name} read-only on port {port}, for {where}; Ctrl-C stops", flush=True)
    if moved:
        print(f"delvebook players: {moved}", flush=True)
    if parent is None:  # the keeper's terminal: the links; a table that started it shows them instead
        host = next((h for h in hosts if not is_loopback(h)), "127.0.0.1")
        keys = served.keys
        shown = [("the second screen", links.link(host, port, None if local else keys.table))]
        shown += [(p, links.link(host, port, keys.players[p])) for p in served.players() if p in keys.players]
        for name, url in shown:
            print(f"  {name}: {url}", flush=True)
            if qr:
                _print_qr(url)
        print("  (the keeper's table shows each link and its QR code in its Keeper panel)", flush=True)
    try:
        loop.start()
    finally:
        ticker.stop()
        server.stop()
        links.clear_server(folder, os.getpid())
        pages.close()
    return 0


def _print_qr(url: str) -> None:
    try:
        import segno
    except ImportError:
        return
    segno.make(url, error="m", micro=False).terminal(compact=True)
