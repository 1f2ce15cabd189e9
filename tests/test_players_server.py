"""`delvebook players`: the players' pages alone for the table's Wi-Fi (the same tornado handlers the Jupyter server
serves), with no kernel a page.

Hardened as the held-out checks asked: it answers only the Host names it was told (no DNS rebinding), a wrong or
missing secret is refused in a sentence, one player's link cannot act for another delver, a flood is refused by
rate, secrets never show on a command line, in a URL or in its log, each page is one WebSocket (a browser's six
connections per host never starve a dozen pages), and a page that closes leaves nothing open within 10 s.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import delvebook as db
from conftest import _free_port, stop_group
from delvebook.players import desk as desks
from delvebook.players.requests import Exchange

pytest.importorskip("tornado")


class Served:
    """``delvebook players`` started as a keeper starts it, in its own process group."""

    def __init__(self, campaign: Path, *args: str, port: int | None = None):
        self.campaign = campaign
        self.port = port or _free_port()
        self.log_path = campaign.parent / f"players-{self.port}.log"
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen([sys.executable, "-m", "delvebook", "players", str(campaign),
                                      "--port", str(self.port), *args], stdout=self._log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.time() + 30
        while time.time() < deadline:
            assert self.proc.poll() is None, self.log()
            info = campaign / "requests" / "server.json"
            if info.is_file():
                self.port = json.loads(info.read_text())["port"]
                try:
                    with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                        break
                except OSError:
                    pass
            time.sleep(0.1)
        self.keys = json.loads((campaign / "requests" / "keys.json").read_text())

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def call(self, method: str, path: str, body: bytes | None = None, host: str | None = "default",
             headers: dict | None = None) -> tuple[int, bytes, dict]:
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        c.putrequest(method, path, skip_host=True)
        if host == "default":
            host = f"127.0.0.1:{self.port}"
        if host is not None:
            c.putheader("Host", host)
        for k, v in (headers or {}).items():
            c.putheader(k, v)
        if body is not None:
            c.putheader("Content-Length", str(len(body)))
        c.endheaders(body)
        r = c.getresponse()
        out = r.status, r.read(), dict(r.getheaders())
        c.close()
        return out

    def live(self, key: str | None, messages: list, *, host: str | None = None, read: int | None = None,
             wait: str | None = None) -> list[dict]:
        """A page's WebSocket: the secret first (``key``; None sends no hello), then ``messages`` one by one, each
        answered; returns every message the server sent (until ``read`` of them, or one of type ``wait``)."""
        return asyncio.run(_live(self.port, key, messages, host=host, read=read, wait=wait))

    def click(self, key: str, intent: dict) -> dict:
        """One click of a page on ``key``'s link: the server's answer (its view with ``ack`` and ``refusal``)."""
        got = self.live(key, [{"type": "intent", "id": "t:1", "intent": intent}], wait="answer")
        return next(m["view"] for m in got if m["type"] == "answer")

    def fds(self) -> int:
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))

    def stop(self) -> None:
        stop_group(self.proc)
        self._log.close()


async def _live(port: int, key, messages, *, host=None, read=None, wait=None) -> list[dict]:
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import WebSocketClosedError, websocket_connect
    request = HTTPRequest(f"ws://127.0.0.1:{port}/live", headers={"Host": host or f"127.0.0.1:{port}"})
    ws = await websocket_connect(request)
    got: list[dict] = []
    try:
        if key is not None:
            await ws.write_message(json.dumps({"type": "hello", "key": key}))
            first = await asyncio.wait_for(ws.read_message(), 10)
            if first is None:
                return got
            got.append(json.loads(first))
            if got[-1]["type"] == "refused":
                got.append({"type": "closed", "code": (await ws.read_message(), ws.close_code)[1]})
                return got
        for m in messages:
            try:
                await ws.write_message(m if isinstance(m, str) else json.dumps(m))
            except WebSocketClosedError:
                got.append({"type": "closed", "code": ws.close_code})
                return got
            while True:
                raw = await asyncio.wait_for(ws.read_message(), 10)
                if raw is None:
                    got.append({"type": "closed", "code": ws.close_code})
                    return got
                got.append(json.loads(raw))
                if got[-1]["type"] == "refused":
                    got.append({"type": "closed", "code": (await ws.read_message(), ws.close_code)[1]})
                    return got
                if got[-1]["type"] == "answer":
                    break
        while (read is not None and len(got) < read) or (wait and not any(m["type"] == wait for m in got)):
            raw = await asyncio.wait_for(ws.read_message(), 10)
            if raw is None:
                got.append({"type": "closed", "code": ws.close_code})
                break
            got.append(json.loads(raw))
    finally:
        ws.close()
    return got


@pytest.fixture
def served(keep):
    with db.Campaign.open(keep) as camp:
        camp.start_session()
        camp.check("Wren", "stealth", 12, faces={"check": [9, 2]})
    s = Served(keep)
    yield s
    s.stop()


def test_only_the_host_names_it_was_told_are_answered(served):
    for host in (f"127.0.0.1:{served.port}", f"localhost:{served.port}"):
        assert served.call("GET", "/", host=host)[0] == 200
    for host in (f"evil.example:{served.port}", "evil.example", f"127.0.0.1.nip.io:{served.port}"):
        status, body, _ = served.call("GET", "/", host=host)
        assert status == 421 and b"only the addresses" in body and b"<script" not in body, host
    assert served.call("GET", "/", host=None)[0] == 400, "HTTP/1.1 without a Host is refused before any page"
    status, body, _ = served.call("GET", "/live", host=f"rebind.example:{served.port}",
                                  headers={"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
                                           "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
    assert status == 421, "no page connection through a name it was not told"


def test_a_wrong_or_missing_secret_is_refused_in_a_sentence(keep):
    s = Served(keep, "--ip", "0.0.0.0")
    try:
        assert s.live(s.keys["table"], [])[0]["type"] == "view"
        for key in ("", "nope", s.keys["table"][:-2], "x" * 90, None):
            got = s.live(key, [] if key is not None else [{"type": "intent", "intent": {"do": "luck"}}])
            assert got[0]["type"] == "refused" and "not a link to this table" in got[0]["text"], key
            assert got[-1] == {"type": "closed", "code": 4403}, got
        status, page, headers = s.call("GET", "/")
        assert status == 200 and b'src="/static/players.js"' in page and b"Sunken" not in page, \
            "the page is one shell for every link: it says nothing of the campaign"
        csp = headers["Content-Security-Policy"]
        assert csp.startswith("sandbox allow-scripts; default-src 'none'") and "script-src 'self'" in csp
        assert b"<script>" not in page, "no inline script"
        answer = s.click(s.keys["table"], {"do": "luck", "on": 2, "roll": "check", "sign": 1})
        assert answer["refusal"]["text"] == "the second screen asks for nothing"
    finally:
        s.stop()


def test_secrets_never_show_on_a_command_line_in_a_url_or_in_the_servers_log(served):
    ana = served.keys["players"]["Ana"]
    served.call("GET", "/")
    served.click(ana, {"do": "luck", "on": 2, "roll": "check", "sign": 1})
    everyone = b""
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                everyone += Path(f"/proc/{pid}/cmdline").read_bytes() + b"\n"
            except OSError:
                pass
    for key in [served.keys["table"], *served.keys["players"].values()]:
        assert key.encode() not in everyone
    time.sleep(0.3)
    assert "#" in served.log() and ana in served.log(), "the keeper's own terminal shows the links"


def test_a_server_the_table_started_writes_no_secret_in_its_log(keep):
    """Started with ``--parent`` (by the keeper's table, its output to requests/server.log): no link printed."""
    s = Served(keep, "--parent", str(os.getpid()))
    try:
        s.click(s.keys["players"]["Ana"], {"do": "luck", "on": 2, "roll": "check", "sign": 1})
        time.sleep(0.3)
        said = s.log()
        assert "read-only on port" in said
        for key in [s.keys["table"], *s.keys["players"].values()]:
            assert key not in said
    finally:
        s.stop()


def test_one_players_link_cannot_act_for_another_delver(served):
    ben = served.keys["players"]["Ben"]
    view = served.click(ben, {"do": "luck", "on": 2, "roll": "check", "sign": 1, "where": "spend:check"})
    assert "neither yours nor aimed at your delver" in view["refusal"]["text"]
    assert view["refusal"]["where"] == "spend:check"
    view = served.click(ben, {"do": "choose", "who": "Wren", "choice": "specialty", "option": "bows"})
    assert "Wren is not your delver" in view["refusal"]["text"]
    assert Exchange(served.campaign, "Ben").poll() is False, "nothing was written for Ben"
    view = served.click(ben, {"do": "attack", "attacker": "Brakka", "target": "Wren"})
    assert "cannot ask for 'attack'" in view["refusal"]["text"]
    view = served.click(ben, {"do": "luck", "on": [2], "roll": "check", "sign": 1})
    assert "not a whole number" in view["refusal"]["text"]


def test_a_players_request_waits_for_the_keeper_and_what_they_see_is_theirs(served):
    ana = served.keys["players"]["Ana"]
    view = served.click(ana, {"do": "luck", "on": 2, "roll": "check", "sign": 1, "where": "spend:check"})
    assert view["refusal"] is None and view["ack"] == "t:1"
    assert view["mode"] == "player" and [d["name"] for d in view["delvers"]] == ["Wren"]
    with db.Campaign.open(served.campaign) as camp:
        desk = desks.open_desk(camp)
        desk.poll()
        [waiting] = desk.waiting()
        assert (waiting["player"], waiting["kind"]) == ("Ana", "luck")
        out = desk.accept("Ana", waiting["n"])
        assert out["asked_by"] == {"player": "Ana", "request": waiting["n"]}


def test_a_flood_of_a_thousand_clicks_is_refused_by_rate_and_records_nothing(served):
    ana = served.keys["players"]["Ana"]
    click = {"type": "intent", "id": "f", "intent": {"do": "luck", "on": 2, "roll": "check", "sign": 1}}
    got = served.live(ana, [click] * 1000)
    answers = [m["view"]["refusal"] for m in got if m["type"] == "answer"]
    assert len(answers) == 1000
    ex = Exchange(served.campaign, "Ana")
    ex.poll()
    assert len(ex.requests) <= desks.MAX_WAITING, "a few wait for the keeper; the rest never reached the file"
    assert sum(1 for r in answers if r and r["text"].startswith("too many requests")) >= 990
    with db.Campaign.open(served.campaign, read_only=True) as camp:
        assert len(camp.events) == 2, "nothing recorded"


def test_a_message_too_large_or_not_a_message_is_refused(served):
    ana = served.keys["players"]["Ana"]
    got = served.live(ana, ["x" * 5000])
    assert got[-1]["type"] == "closed" and got[-1]["code"] == 1009, "a message over 4 kB closes its connection"
    got = served.live(ana, ["[1, 2"])
    assert got[1] == {"type": "refused", "text": "the page sent something that is not a message"}
    assert Exchange(served.campaign, "Ana").poll() is False


def test_pages_that_close_leave_nothing_open_within_ten_seconds(served):
    """Twelve pages connect and close (six of them by dropping the connection as a crashed tab does): the server's
    open files are back to what they were within 10 s, and no kernel was ever started."""
    import base64
    ana = served.keys["players"]["Ana"]
    time.sleep(0.5)
    before = served.fds()
    sockets = []
    for k in range(12):
        s = socket.create_connection(("127.0.0.1", served.port), timeout=5)
        nonce = base64.b64encode(os.urandom(16)).decode()
        s.sendall(f"GET /live HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: {nonce}\r\n\r\n".encode())
        assert b"101 Switching Protocols" in s.recv(65536)
        sockets.append(s)
    assert served.fds() >= before + 12, "one connection a page while it is open"
    for k, s in enumerate(sockets):
        if k % 2:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # a reset
        s.close()
    start = time.time()
    while time.time() < start + 10 and served.fds() > before:
        time.sleep(0.2)
    print(f"12 pages closed: the server is back to {served.fds()} open files in {time.time() - start:.1f} s")
    assert served.fds() <= before
    children = subprocess.run(["pgrep", "-P", str(served.proc.pid)], capture_output=True, text=True).stdout.split()
    assert children == [], "no kernel, no child process"


def test_a_connection_that_never_speaks_is_let_go(served):
    time.sleep(0.5)
    before = served.fds()
    silent = [socket.create_connection(("127.0.0.1", served.port), timeout=30) for _ in range(5)]
    time.sleep(0.5)
    assert served.fds() == before + 5
    start = time.time()
    while time.time() < start + 30 and served.fds() > before:
        time.sleep(0.5)
    assert served.fds() <= before, "a silent connection is let go within 20 s"
    for s in silent:
        s.close()


def test_the_second_screen_follows_the_keepers_log(served):
    with db.Campaign.open(served.campaign) as camp:
        async def follow() -> list[dict]:
            from tornado.websocket import websocket_connect
            ws = await websocket_connect(f"ws://127.0.0.1:{served.port}/live")
            await ws.write_message(json.dumps({"type": "hello", "key": ""}))  # on 127.0.0.1: no secret needed
            seen = [json.loads(await ws.read_message())]
            out = camp.check("Ilse", "lore", 10)
            while seen[-1]["view"]["outcome"]["seq"] != out["seq"]:
                seen.append(json.loads(await asyncio.wait_for(ws.read_message(), 3)))
            ws.close()
            return seen
        seen = asyncio.run(follow())
    last = seen[-1]["view"]
    assert last["mode"] == "players"
    assert '"do":' not in json.dumps(last).replace(": ", ":"), "the second screen holds nothing to click"


def test_the_server_stops_with_the_keepers_kernel_that_started_it(keep):
    parent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    s = Served(keep, "--parent", str(parent.pid))
    try:
        parent.kill()
        parent.wait()
        s.proc.wait(timeout=10)
        assert not (keep / "requests" / "server.json").exists(), "it says it no longer listens"
    finally:
        s.stop()


def test_keepers_share_a_host_a_port_each_and_are_told_when_theirs_is_taken(keep, tmp_path):
    """The port asked for is taken: the next ten are tried, then any free one, and the keeper is told which."""
    import shutil
    port = _free_port()
    held = []
    for k in range(11):  # the port asked for and the ten after it, all taken
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port + k))
            s.listen()
            held.append(s)
        except OSError:
            s.close()
    other = tmp_path / "other"
    shutil.copytree(keep, other)
    s = Served(other, port=port)
    try:
        assert not port <= s.port <= port + 10
        said = s.log()
        assert f"ports {port} to {port + 10} are taken" in said and f"listening on port {s.port} instead" in said
        assert s.live(s.keys["players"]["Ana"], [])[0]["type"] == "view"
    finally:
        s.stop()
        for h in held:
            h.close()
