"""The players' pages as tornado handlers: the same ones under the Jupyter server the table runs in
(``extension``) and alone for the table's Wi-Fi (``alone``, ``delvebook players``).

Under a prefix P (``<base_url>delvebook`` in Jupyter, nothing alone):

- ``P/`` (and any path under it that is none of the below): the page, one fixed shell of HTML that loads the
  table's own front end; it carries no secret and says nothing of any campaign;
- ``P/static/<name>``: ``players.js``, ``table.js``, ``table.css``;
- ``P/live``: one WebSocket a page. The page reads its link's secret from the link's fragment (``#<secret>``: a
  browser never sends a fragment to a server, a proxy or a log), sends it as its first message, and gets its view
  model and every new version over this one connection; its clicks go back on it and are answered on it. A browser
  keeps six HTTP/1.1 connections to a host, and WebSockets are not counted among them: a dozen pages of one
  origin all follow.

Every answer carries a Content-Security-Policy that sandboxes the page (an opaque origin: it holds no cookie of the
server and reads no answer of any other path, so even the keeper opening a link in a logged-in browser gives that
page no Jupyter API), allows only scripts from the server itself (no inline script), and no frame.
"""

from __future__ import annotations

import html
import json
from typing import Any

from tornado import websocket

from .served import Pages, REFUSED_LINK, Served

__all__ = ["PageMixin", "StaticMixin", "LiveMixin", "routes", "MAX_MESSAGE", "HEARTBEAT", "CSP", "SECURITY"]

MAX_MESSAGE = 4096      # bytes of one message from a page (a click); a larger one closes its connection
HEARTBEAT = 10.0        # seconds between two pings on an idle connection: a page gone is noticed by then
STATIC = {"table.js": "text/javascript", "table.css": "text/css", "players.js": "text/javascript"}
CSP = ("sandbox allow-scripts; default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
       "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
SECURITY = {"Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY",
            "Cache-Control": "no-store", "Cross-Origin-Resource-Policy": "same-origin"}


def _shell(prefix: str) -> bytes:
    p = html.escape(prefix, quote=True)
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>delvebook</title><link rel="icon" href="data:,"><link rel="stylesheet" href="{p}/static/table.css"></head>'
            f'<body class="db-page"><div id="db" data-live="{p}/live"></div>'
            f'<script type="module" src="{p}/static/players.js"></script></body></html>').encode("utf-8")


class _Pages:
    """What every handler of the players' pages shares: the pages served, the prefix and the headers."""

    @property
    def pages(self) -> Pages:
        return self.settings["delvebook_pages"]  # type: ignore[attr-defined]

    @property
    def prefix(self) -> str:
        return self.settings["delvebook_prefix"]  # type: ignore[attr-defined]

    @property
    def content_security_policy(self) -> str:  # JupyterHandler sets its header from this
        return CSP

    def secure(self) -> None:
        self.set_header("Content-Security-Policy", CSP)  # type: ignore[attr-defined]
        for k, v in SECURITY.items():
            self.set_header(k, v)  # type: ignore[attr-defined]

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        self.plain(status_code, "Nothing here." if status_code == 404 else "This page cannot be shown.")

    def plain(self, status: int, text: str) -> None:
        self.set_status(status)  # type: ignore[attr-defined]
        self.secure()
        self.set_header("Content-Type", "text/html; charset=utf-8")  # type: ignore[attr-defined]
        self.finish(f'<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" '  # type: ignore[attr-defined]
                    f'content="width=device-width, initial-scale=1"><title>delvebook</title></head>'
                    f'<body style="font: 20px/1.4 system-ui, sans-serif; margin: 2em"><p>{html.escape(text)}</p>'
                    f'</body></html>')


class PageMixin(_Pages):
    """The page: the same shell for every link (the secret stays in the link's fragment)."""

    def get(self, *_: Any) -> None:
        self.secure()
        self.set_header("Content-Type", "text/html; charset=utf-8")  # type: ignore[attr-defined]
        self.finish(_shell(self.prefix))  # type: ignore[attr-defined]


class StaticMixin(_Pages):
    def get(self, name: str) -> None:
        if name not in STATIC:
            self.plain(404, "Nothing here.")
            return
        from ..view import front
        body = front.esm() if name == "table.js" else front.static(name)
        self.secure()
        self.set_header("Content-Type", f"{STATIC[name]}; charset=utf-8")  # type: ignore[attr-defined]
        # a sandboxed page is an opaque origin: its modules and its style sheet come to it as from another origin
        self.set_header("Access-Control-Allow-Origin", "*")  # type: ignore[attr-defined]
        self.set_header("Cross-Origin-Resource-Policy", "cross-origin")  # type: ignore[attr-defined]
        self.finish(body.encode("utf-8"))  # type: ignore[attr-defined]


class LiveMixin(_Pages):
    """One page's connection: its secret first, then its views as they change and its clicks answered."""

    served: Served | None = None
    who: tuple[str, str | None] | None = None
    shown = -1

    def check_origin(self, origin: str) -> bool:
        return True  # no cookie is trusted here: the secret sent on the connection is the only key

    def get_compression_options(self) -> None:
        return None

    @property
    def ping_interval(self) -> float:
        return HEARTBEAT

    @property
    def max_message_size(self) -> int:
        return MAX_MESSAGE

    def open(self, *_: Any) -> None:
        self.set_nodelay(True)  # type: ignore[attr-defined]

    def on_message(self, message: str | bytes) -> None:
        try:
            data = json.loads(message)
        except (ValueError, UnicodeDecodeError, RecursionError):
            data = None
        if not isinstance(data, dict):
            self.refuse("the page sent something that is not a message")
            return
        if self.served is None:
            found = self.pages.find(data.get("key")) if data.get("type") == "hello" else None
            if found is None:
                self.refuse(REFUSED_LINK)
                return
            self.served, self.who = found
            self.pages.join(self.served, self)
            self.tell()
            return
        if data.get("type") != "intent":
            return
        ack = data.get("id") if isinstance(data.get("id"), str) else None
        intent = data.get("intent")
        if self.who[0] != "player":
            refused: str | None = "the second screen asks for nothing"
        else:
            refused = self.served.request(self.who[1], intent)
            if refused is None:
                self.pages.tell(self.served)
        self.shown, view = self.served.view(self.who)
        out = json.loads(view)
        out["ack"] = ack[:64] if ack else None
        if refused is not None:
            where = intent.get("where") if isinstance(intent, dict) and isinstance(intent.get("where"), str) else None
            out["refusal"] = {"text": refused, "where": where}
        self._send({"type": "answer", "view": out})

    def tell(self) -> None:
        """Send this page its view if the campaign moved on since it last got one."""
        if self.served is None or self.served.version == self.shown:
            return
        self.shown, view = self.served.view(self.who)
        self._send_text('{"type": "view", "view": ' + view + "}")

    def refuse(self, text: str) -> None:
        self._send({"type": "refused", "text": text})
        self.close(4403, "refused")  # type: ignore[attr-defined]

    def _send(self, message: dict) -> None:
        self._send_text(json.dumps(message, ensure_ascii=False))

    def _send_text(self, text: str) -> None:
        try:
            self.write_message(text)  # type: ignore[attr-defined]
        except websocket.WebSocketClosedError:
            self.pages.leave(self)

    def on_close(self) -> None:
        self.pages.leave(self)


def routes(prefix: str, page: type, static: type, live: type) -> list:
    """The URL patterns of the players' pages under ``prefix`` (no trailing slash; "" alone)."""
    p = prefix.rstrip("/")
    return [(f"{p}/static/([A-Za-z.]+)", static), (f"{p}/live", live), (f"{p}(?:/.*)?", page)]
