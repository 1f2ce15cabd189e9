""""Last time..." at the table: the Keeper panel tells the latest session (folded until opened: nothing computed),
and the keeper shows it on the players' screen and takes it down again; the second screen `delvebook players`
serves shows it above the table, in a real browser."""
from __future__ import annotations

import json
import os
import time

import pytest

pytest.importorskip("anywidget")

import delvebook as db  # noqa: E402
from delvebook.players.requests import on_screen, screen_file, show_on_screen  # noqa: E402
from delvebook.table import UI, table_view  # noqa: E402

from conftest import click  # noqa: E402
from test_players import _open_players_page, _serve, _stop  # noqa: E402


def a_session(camp) -> None:
    """Session 1: Wren's stealth check, Brakka's found sword, an undone check; then session 2 begins."""
    camp.start_session()
    camp.check("Wren", "stealth", 12, faces={"check": [15, 4]})
    camp.give("Brakka", "sword", name="Grandfather's sword")
    camp.check("Ilse", "lore", 10, faces={"check": [2, 1]})
    camp.undo()
    camp.end_session()


def test_last_time_is_folded_until_opened_then_tells_the_session_and_goes_on_the_players_screen(keep):
    camp = db.Campaign.open(keep)
    ui = UI(panel="keeper")
    assert click(camp, ui, do="panel", panel="keeper")["keeper"]["recap"] is None  # no session yet
    a_session(camp)
    card = click(camp, ui, do="panel", panel="keeper")["keeper"]["recap"]
    assert card["open"] is False and "sections" not in card and "show" not in card
    card = click(camp, ui, **card["toggle"]["intent"])["keeper"]["recap"]
    told = [line for s in card["sections"] for line in s["lines"]]
    assert card["summary"] == "Session 1" and "Brakka gains Grandfather's sword" in told
    assert "Wren (Ana) and Brakka (Ben)" in told and not any("Ilse" in x for x in told), "Ilse's check was undone"
    assert card["show"]["label"] == "Show on the players' screen" and on_screen(keep) is None
    card = click(camp, ui, **card["show"]["intent"])["keeper"]["recap"]
    assert ui.refusal is None and on_screen(keep) == 1
    assert card["show"]["label"] == "Take it off the players' screen" and "session 1" in card["hint"]
    players = table_view(camp, UI(mode="players", shown=on_screen(keep)))
    assert players["recap"]["title"].startswith("Session 1") and "do" not in json.dumps(players["recap"])
    click(camp, ui, **card["show"]["intent"])
    assert on_screen(keep) is None
    assert table_view(camp, UI(mode="players", shown=on_screen(keep)))["recap"] is None
    camp.close()


def test_a_screen_file_that_is_not_the_keepers_shows_nothing(keep, tmp_path):
    f = screen_file(keep)
    f.parent.mkdir()
    for junk in (b"", b"[1]", b'{"recap": "1"}', b'{"recap": true}', b'{"recap": -3}', b"\xff\xfe"):
        f.write_bytes(junk)
        assert on_screen(keep) is None, junk
    f.unlink()
    f.mkdir()  # a folder so named
    assert on_screen(keep) is None
    f.rmdir()
    os.mkfifo(f)  # a pipe so named: never waited on
    assert on_screen(keep) is None
    f.unlink()
    (tmp_path / "elsewhere.json").write_text('{"recap": 4}')
    f.symlink_to(tmp_path / "elsewhere.json")
    assert on_screen(keep) is None  # a link is never followed
    with pytest.raises(Exception, match="whole number"):
        show_on_screen(keep, "4")


@pytest.mark.browser
def test_the_keeper_shows_last_time_on_the_second_screen_and_takes_it_down(browser, keep, tmp_path, artifacts):
    camp = db.Campaign.open(keep)
    a_session(camp)
    table = db.table.dashboard(camp)
    proc, url, log = _serve(keep, tmp_path)
    try:
        page = _open_players_page(browser, url, viewport={"width": 1920, "height": 1080})
        assert page.locator(".db-p-recap").count() == 0
        table.handle({"do": "panel", "panel": "keeper"})
        table.handle({"do": "recap", "where": "keeper:recap"})
        start = time.perf_counter()
        table.handle(table.view["keeper"]["recap"]["show"]["intent"])
        page.wait_for_selector(".db-p-recap", timeout=5_000)
        print(f"Show on the players' screen to visible: {(time.perf_counter() - start) * 1000:.0f} ms")
        seen = page.inner_text(".db-p-recap")
        assert seen.lower().startswith("last time\u2026\nsession 1\n") and "Brakka gains Grandfather's sword" in seen
        box = page.locator(".db-p-recap").bounding_box()
        assert box["width"] >= 1800 and box["height"] <= 1080 * 0.5 + 2, box
        assert page.locator(".db-mode-players .db-party").bounding_box()["y"] > box["y"] + box["height"] - 1
        page.screenshot(path=str(artifacts / "players-last-time-1920x1080.png"))
        table.handle(table.view["keeper"]["recap"]["show"]["intent"])
        page.wait_for_selector(".db-p-recap", state="detached", timeout=5_000)
        page.close()
    finally:
        camp.close()
        _stop(proc, log)
