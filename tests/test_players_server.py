"""`delvebook players`: one small server for the second screen and each player's page, with no kernel a page.

Hardened as the held-out checks asked: it answers only the Host names it was told (no DNS rebinding), a wrong or
missing secret gets a plain page, one player's link cannot act for another delver, a flood is refused by rate,
secrets never show on a command line or in its log, and a page that closes leaves nothing running within 10 s.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import delvebook as db
from conftest import _free_port
from delvebook.players import desk as desks
from delvebook.players.requests import Exchange

pytest.importorskip("anywidget")


class Served:
    """``delvebook players`` started as a keeper starts it, in its own process group."""

    def __init__(self, campaign: Path, *args: str):
        self.campaign = campaign
        self.port = _free_port()
        self.log_path = campaign.parent / "players.log"
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen([sys.executable, "-m", "delvebook", "players", str(campaign),
                                      "--port", str(self.port), *args], stdout=self._log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.time() + 30
        while time.time() < deadline:
            assert self.proc.poll() is None, self.log()
            if (campaign / "requests" / "server.json").is_file():
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

    def click(self, key: str, intent: dict, **kw) -> tuple[int, dict]:
        body = json.dumps({"type": "intent", "id": "t:1", "intent": intent}).encode()
        status, raw, _ = self.call("POST", f"/intent?key={key}", body,
                                   headers={"Content-Type": "application/json", **kw})
        return status, (json.loads(raw) if raw.startswith(b"{") else {"text": raw.decode()})

    def threads(self) -> int:
        return len(os.listdir(f"/proc/{self.proc.pid}/task"))

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=15)
        self._log.close()


@pytest.fixture
def served(keep):
    with db.Campaign.open(keep) as camp:
        camp.start_session()
        camp.check("Wren", "stealth", 12, faces={"check": [9, 2]})
    s = Served(keep)
    yield s
    s.stop()


def test_only_the_host_names_it_was_told_are_answered(served):
    ana = served.keys["players"]["Ana"]
    for host in (f"127.0.0.1:{served.port}", f"localhost:{served.port}"):
        assert served.call("GET", f"/?key={ana}", host=host)[0] == 200
    for host in (f"evil.example:{served.port}", "evil.example", f"127.0.0.1.nip.io:{served.port}", None):
        status, body, _ = served.call("GET", f"/?key={ana}", host=host)
        assert status in (400, 421) and b"only the addresses" in body and b"<script" not in body, host
    status, _, _ = served.call("POST", f"/intent?key={ana}", b"{}", host=f"rebind.example:{served.port}",
                               headers={"Content-Type": "application/json"})
    assert status == 421


def test_a_wrong_or_missing_secret_gets_a_plain_page(keep):
    s = Served(keep, "--ip", "0.0.0.0")
    try:
        assert s.call("GET", f"/?key={s.keys['table']}")[0] == 200
        for path in ("/", "/?key=", "/?key=nope", "/events?key=nope", f"/?key={s.keys['table'][:-2]}"):
            status, body, headers = s.call("GET", path)
            assert status == 403 and b"not a link to this table" in body, path
            assert b"<script" not in body and headers["Content-Security-Policy"].startswith("default-src 'none'")
        page = s.call("GET", f"/?key={s.keys['players']['Ana']}")[1]
        assert b'src="/static/players.js"' in page and s.keys["players"]["Ana"].encode() not in page
        status, _ = s.click(s.keys["table"], {"do": "luck", "on": 2, "roll": "check", "sign": 1})
        assert status == 403, "the second screen's link asks for nothing"
    finally:
        s.stop()


def test_secrets_never_show_on_a_command_line_or_in_the_servers_log(served):
    ana = served.keys["players"]["Ana"]
    served.call("GET", f"/?key={ana}")
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
    requests = [line for line in served.log().splitlines() if " GET " in line or " POST " in line]
    assert requests and not [line for line in requests if ana in line], "the log of requests names no secret"


def test_one_players_link_cannot_act_for_another_delver(served):
    ben = served.keys["players"]["Ben"]
    status, view = served.click(ben, {"do": "luck", "on": 2, "roll": "check", "sign": 1, "where": "spend:check"})
    assert status == 200 and "neither yours nor aimed at your delver" in view["refusal"]["text"]
    status, view = served.click(ben, {"do": "choose", "who": "Wren", "choice": "specialty", "option": "bows"})
    assert "Wren is not your delver" in view["refusal"]["text"]
    assert Exchange(served.campaign, "Ben").poll() is False, "nothing was written for Ben"
    status, view = served.click(ben, {"do": "attack", "attacker": "Brakka", "target": "Wren"})
    assert "cannot ask for 'attack'" in view["refusal"]["text"]
    status, view = served.click(ben, {"do": "luck", "on": [2], "roll": "check", "sign": 1})
    assert "not a whole number" in view["refusal"]["text"]


def test_a_players_request_waits_for_the_keeper_and_what_they_see_is_theirs(served):
    ana = served.keys["players"]["Ana"]
    status, view = served.click(ana, {"do": "luck", "on": 2, "roll": "check", "sign": 1, "where": "spend:check"})
    assert status == 200 and view["refusal"] is None and view["ack"] == "t:1"
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
    statuses = []
    for _ in range(1000):
        statuses.append(served.click(ana, {"do": "luck", "on": 2, "roll": "check", "sign": 1})[0])
    ex = Exchange(served.campaign, "Ana")
    ex.poll()
    assert len(ex.requests) <= desks.MAX_WAITING, "a few wait for the keeper; the rest never reached the file"
    assert statuses.count(429) >= 990
    with db.Campaign.open(served.campaign, read_only=True) as camp:
        assert len(camp.events) == 2, "nothing recorded"


def test_a_click_from_another_site_or_not_as_json_is_refused(served):
    ana = served.keys["players"]["Ana"]
    body = json.dumps({"type": "intent", "id": "x", "intent": {"do": "luck", "on": 2, "roll": "check",
                                                               "sign": 1}}).encode()
    assert served.call("POST", f"/intent?key={ana}", body, headers={"Content-Type": "text/plain"})[0] == 415
    assert served.call("POST", f"/intent?key={ana}", body, headers={
        "Content-Type": "application/json", "Origin": "http://evil.example"})[0] == 403
    assert served.call("POST", f"/intent?key={ana}", b"x" * 5000, headers={"Content-Type": "application/json"})[0] == 413
    assert Exchange(served.campaign, "Ana").poll() is False


def test_pages_that_close_leave_nothing_running_within_ten_seconds(served):
    """Twelve pages open their event streams and close (six of them by dropping the connection as a crashed
    tab does): the server's threads are back to what they were within 10 s, and no kernel was ever started."""
    ana = served.keys["players"]["Ana"]
    time.sleep(0.5)
    before = served.threads()
    streams = []
    for k in range(12):
        s = socket.create_connection(("127.0.0.1", served.port), timeout=5)
        s.sendall(f"GET /events?key={ana if k % 2 else served.keys['table']} HTTP/1.1\r\n"
                  f"Host: 127.0.0.1:{served.port}\r\n\r\n".encode())
        assert b"event: view" in s.recv(65536) or b"event: view" in s.recv(65536)
        streams.append(s)
    assert served.threads() >= before + 12, "one thread a page while it is open"
    for k, s in enumerate(streams):
        if k % 2:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # a reset
        s.close()
    start = time.time()
    while time.time() < start + 10 and served.threads() > before:
        time.sleep(0.2)
    print(f"12 pages closed: the server is back to {served.threads()} threads in {time.time() - start:.1f} s")
    assert served.threads() <= before
    children = subprocess.run(["pgrep", "-P", str(served.proc.pid)], capture_output=True, text=True).stdout.split()
    assert children == [], "no kernel, no child process"


def test_a_connection_that_never_speaks_is_let_go(served):
    time.sleep(0.5)
    before = served.threads()
    silent = [socket.create_connection(("127.0.0.1", served.port), timeout=30) for _ in range(5)]
    time.sleep(0.5)
    assert served.threads() == before + 5
    start = time.time()
    while time.time() < start + 30 and served.threads() > before:
        time.sleep(0.5)
    assert served.threads() <= before, "a silent connection holds a thread for 20 s at most"
    for s in silent:
        s.close()


def test_the_second_screen_follows_the_keepers_log(served):
    with db.Campaign.open(served.campaign) as camp:
        s = socket.create_connection(("127.0.0.1", served.port), timeout=5)
        s.sendall(f"GET /events HTTP/1.1\r\nHost: localhost:{served.port}\r\n\r\n".encode())
        seen = s.recv(65536)
        out = camp.check("Ilse", "lore", 10)
        deadline = time.time() + 3
        while f'"seq": {out["seq"]}'.encode() not in seen and time.time() < deadline:
            seen += s.recv(65536)
        s.close()
    assert f'"seq": {out["seq"]}'.encode() in seen and b'"mode": "players"' in seen
    assert b'"do":' not in seen.split(b"event: view")[-1], "the second screen holds nothing to click"


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
