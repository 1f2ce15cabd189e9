"""The players' pages under the Jupyter server the table runs in, without a browser: the keeper's table registers its
campaign with the server's pages (the folder the extension names in DELVEBOOK_PAGES), the Keeper panel makes each
link as the keeper's browser reaches the server and says who can reach it, a forged address is refused, and a
campaign is served only while the kernel that registered it runs."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from delvebook.players import desk as desks, links
from delvebook.view.phones import reach

pytest.importorskip("anywidget")
from delvebook.table import UI, perform, table_view  # noqa: E402


@pytest.fixture
def pages(tmp_path, monkeypatch):
    """The folder a Jupyter server's pages extension makes (this process standing in for the server)."""
    folder = tmp_path / "delvebook-pages"
    folder.mkdir()
    links.announce_pages(folder, "/user/ana/")
    monkeypatch.setenv(links.PAGES_ENV, str(folder))
    return folder


def test_a_link_says_who_reaches_it_from_the_address_the_keepers_browser_uses():
    assert reach("http://127.0.0.1:8888")[1] is False and "Only this computer" in reach("http://localhost:8888")[0]
    assert reach("http://192.168.1.20:8888") == ("Devices on the same network as this computer reach these links.",
                                                 True)
    assert reach("http://keeper-laptop.local:8888")[1] is True
    said, phones = reach("https://hub.example.org")
    assert phones and "Anyone on the internet who has a link" in said and "pass it to no one else" in said
    assert links.served_link("https://hub.example.org", "/user/ana/", "K") == \
        "https://hub.example.org/user/ana/delvebook/#K"


def test_serving_under_jupyter_registers_the_campaign_and_links_follow_the_keepers_browser(kept, pages):
    kept.start_session()
    ui = UI(panel="keeper")
    desks.open_desk(kept)  # as the keeper's table does
    view = table_view(kept, ui)
    assert view["keeper"]["phones"]["start"]["label"] == "Serve the players' pages"
    perform(kept, ui, {"do": "serve_players", "where": "phones"})
    assert ui.refusal is None
    assert links.registered(pages) == [kept.path.resolve()], "served by the Jupyter server: no process started"
    keys = links.read_keys(kept.path)
    assert set(keys.players) == {"Ana", "Ben", "Cleo", "Dev", "Eli"}
    card = table_view(kept, ui)["keeper"]["phones"]
    assert card["running"] and card["rows"] == [] and card["ask_reach"]["do"] == "reached_at"
    for forged in ("javascript:alert(1)", 'http://x"><script>', "http://a b", 7, "http://" + "a" * 300):
        perform(kept, ui, {"do": "reached_at", "origin": forged, "base": "/user/ana/", "where": "phones"})
        assert "not the address of a web page" in ui.refusal["text"], forged
    perform(kept, ui, {"do": "reached_at", "origin": "https://hub.example.org", "base": "<b>", "where": "phones"})
    assert ui.refusal is None
    card = table_view(kept, ui)["keeper"]["phones"]
    ana = next(r for r in card["rows"] if r["player"] == "Ana")
    assert ana["link"] == f"https://hub.example.org/user/ana/delvebook/#{keys.players['Ana']}", \
        "a base URL that is not a path gives way to the server's own"
    assert ana["qr"] is None or ana["qr"]["size"] >= 21
    assert "Anyone on the internet" in card["text"] and card["lan"] is None
    perform(kept, ui, {"do": "reached_at", "origin": "http://127.0.0.1:8888", "base": "/user/ana/",
                       "where": "phones"})
    card = table_view(kept, ui)["keeper"]["phones"]
    assert "Only this computer" in card["text"] and card["lan"]["intent"]["do"] == "serve_lan"
    perform(kept, ui, {"do": "stop_players", "where": "phones"})
    assert ui.refusal is None and links.registered(pages) == []
    assert table_view(kept, ui)["keeper"]["phones"]["running"] is False


def test_a_campaign_is_served_only_while_the_kernel_that_registered_it_runs(keep, pages, tmp_path):
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(gone.stdout)
    entry = pages / "0123456789abcdef01234567.json"
    entry.write_text(json.dumps({"campaign": str(keep), "pid": pid}))
    assert links.registered(pages) == [] and not entry.exists(), "a kernel gone: its campaign is no longer served"
    entry.write_text(json.dumps({"campaign": str(keep), "pid": os.getpid()}))
    assert links.registered(pages) == [keep]
    (pages / links._INFO).write_text(json.dumps({"pid": pid, "base_url": "/"}))  # noqa: SLF001
    assert links.jupyter_pages() is None, "a Jupyter server gone: its pages serve nothing"


def test_without_the_jupyter_server_the_table_serves_the_wifi_and_its_log_holds_no_secret(kept, monkeypatch):
    """Outside a Jupyter server with the pages (a script, a JupyterLab without the extension), Serve starts
    ``delvebook players --ip 0.0.0.0`` as the table's child; what it says goes to requests/server.log, no link."""
    monkeypatch.delenv(links.PAGES_ENV, raising=False)
    desk = desks.open_desk(kept)
    desk.start_server()
    try:
        log = kept.path / "requests" / "server.log"
        for _ in range(120):
            desk.poll()
            if desk.server is not None and desk.keys is not None and "read-only on port" in log.read_text():
                break
            time.sleep(0.25)
        assert desk.server is not None and desk.server["port"] > 0
        said = log.read_text()
        assert "read-only on port" in said
        for key in [desk.keys.table, *desk.keys.players.values()]:
            assert key not in said, "no secret in any file but the keys file"
    finally:
        desk.stop_server()
    assert desk.server is None
