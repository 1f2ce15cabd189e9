"""The players' view: the table's read-only players' mode, served by `delvebook players` for a second screen.

It shows the table as it stands (foes as wounds, the delvers' hearts hidden if the keeper asks, undone and replaced
rolls left out), holds nothing to click, follows the keeper's log on disk within a second, and a page that is gone
leaves nothing running (the server holds no kernel a page).
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import delvebook as db
from conftest import _free_port, cannot_run

pytest.importorskip("anywidget")
from delvebook.table import UI, perform, table_view  # noqa: E402

HIT = {"attack": [18, 1], "resist": [2], "damage": [1, 1]}  # Brakka's sword: 19 vs 2, 2 damage (8 -> 6 hearts)
WOUNDS = ("unhurt", "wounded", "badly wounded", "dying", "down")
EVIL = "<img src=x onerror=alert(1)>"


@pytest.fixture
def camp(keep):
    c = db.Campaign.open(keep)
    yield c
    c.close()


def brakkas_turn(camp):
    camp.start_session()
    fight = camp.encounter(["drowned_dead"])
    fight.initiative(first="party")
    fight.next_turn()  # Wren, then Brakka
    return fight


def players(camp, **ui) -> dict:
    view = table_view(camp, UI(mode="players", **ui))
    json.dumps(view)  # what the page receives
    return view


def shown(view) -> str:
    """Every text of the players' view at once."""
    return json.dumps(view, ensure_ascii=False)


def chip(view, name):
    return next(c for c in view["party"] if c["name"] == name)


def intents_in(value, path="view"):
    """Every place in a view model that holds something the page could send back."""
    if isinstance(value, dict):
        found = [path] if "do" in value else []
        for k, v in value.items():
            found += intents_in(v, f"{path}.{k}")
        return found
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in intents_in(v, f"{path}[{i}]")]
    return []


# ---------------------------------------------------------------- the view model, without a browser

def test_foes_show_as_wounds_not_hearts(camp):
    fight = brakkas_turn(camp)
    fight.attack("Brakka", "Drowned dead 1", faces=HIT)
    view = players(camp)
    [foe] = view["fight"]["foes"]
    assert foe["hearts"] is None and foe["max_hearts"] is None and foe["hearts_text"] == "wounded"
    assert foe["frac"] == 0.66, "the bar is drawn by the wound word: a bar as long as the hearts left would tell them"
    assert foe["sub"] is None, "the foe's attack and damage are the keeper's to know"
    assert "6/8" not in shown(view) and "-> 6" not in shown(view)
    assert players(camp, foe_hearts=True)["fight"]["foes"][0]["hearts_text"] == "6/8"
    keeper = table_view(camp, UI())
    assert keeper["fight"]["foes"][0]["hearts_text"] == "6/8", "the keeper's table still shows the hearts"


def test_the_delvers_exact_hearts_can_be_hidden(camp):
    camp.damage("Brakka", 3)
    brakka = camp.delver("Brakka")
    exact = f"{brakka.hearts}/{brakka.max_hearts}"
    assert chip(players(camp), "Brakka")["hearts_text"] == exact
    view = players(camp, hide_hearts=True)
    c = chip(view, "Brakka")
    assert c["hearts"] is None and c["max_hearts"] is None and c["hearts_text"] in WOUNDS
    assert c["frac"] in (1.0, 0.66, 0.33, 0.0)
    assert exact not in shown(view)
    assert all(chip(view, n)["hearts_text"] == "unhurt" for n in ("Wren", "Ilse"))


def test_an_undone_roll_leaves_the_last_rolls_and_the_latest_outcome(camp):
    camp.start_session()
    first = camp.check("Wren", "stealth", 12, faces={"check": [9, 2]})
    second = camp.check("Ilse", "lore", 10, faces={"check": [15, 4]})
    assert [r["seq"] for r in players(camp)["rolls"]] == [second["seq"], first["seq"]]
    undo = camp.undo()
    view = players(camp)
    assert [r["seq"] for r in view["rolls"]] == [first["seq"]]
    assert view["outcome"]["seq"] == first["seq"], "the latest action standing, not the undo"
    assert all(r["seq"] not in (second["seq"], undo["seq"]) for r in view["log"])
    camp.redo()
    assert [r["seq"] for r in players(camp)["rolls"]][-1] == first["seq"]


def test_a_replaced_roll_shows_once_as_it_stands(camp):
    camp.start_session()
    check = camp.check("Wren", "stealth", 12, faces={"check": [9, 2]})
    luck = camp.spend_luck("Ana", +1, face=4)
    view = players(camp)
    [roll] = view["rolls"]
    assert roll["seq"] == luck["seq"] != check["seq"]
    assert roll["rolls"][0]["total"] == 15 and roll["rolls"][0]["was"] == 11
    assert check["seq"] not in [r["seq"] for r in view["log"]], "the replaced check is not listed beside its luck die"
    typed = camp.amend(check=[20, 6])
    assert [r["seq"] for r in players(camp)["rolls"]] == [typed["seq"]]


def test_the_keepers_notes_stay_off_the_players_screen(camp):
    camp.start_session()
    camp.npc("Grak", foe="goblin", note="a spy for the drowned king")
    camp.encounter("causeway_ambush")
    note = camp.prepared_encounters["causeway_ambush"]["note"]
    assert table_view(camp, UI())["fight"]["note"] == note
    view = players(camp)
    assert view["fight"]["note"] == "" and note not in shown(view)
    assert "drowned king" not in shown(view) and [c["name"] for c in view["creatures"]] == ["Grak"]


def test_the_players_view_holds_nothing_to_click(camp):
    fight = brakkas_turn(camp)
    fight.attack("Brakka", "Drowned dead 1", faces=HIT)
    camp.damage("Wren", 30)  # dying: the keeper's table offers a death save here
    assert intents_in(table_view(camp, UI())), "the keeper's table has its controls"
    view = players(camp, hide_hearts=True)
    assert intents_in(view) == []
    assert view["panels"] == [] and "undo" not in view and "keeper" not in view and view["luck"] is None
    assert chip(view, "Wren")["dying"] and "death_save" not in chip(view, "Wren")
    n = len(camp.events)
    ui = UI(mode="players")
    perform(camp, ui, {"do": "next_turn", "where": "fight"})
    assert len(camp.events) == n and ui.refusal["text"] == "the players' screen is read-only"


def test_the_players_widget_follows_the_log_until_it_is_closed(keep):
    """The kernel's loop folds in the keeper's events (another process's, through the log on disk) and stops
    following once the widget is closed (its page gone), letting the campaign go."""
    import asyncio

    from delvebook.table import screen as served

    async def play() -> None:
        view = served.player_widget(keep, interval=0.01, hide_hearts=True)
        assert view.camp.read_only and view.view["mode"] == "players"
        [task] = [t for t in served._FOLLOWING if not t.done()]
        with db.Campaign.open(keep) as keeper:
            keeper.start_session()
            out = keeper.check("Wren", "stealth", 12)
            for _ in range(300):
                await asyncio.sleep(0.01)
                if view.view["rolls"] and view.view["rolls"][0]["seq"] == out["seq"]:
                    break
            assert view.view["rolls"][0]["seq"] == out["seq"] and view.view["session"]["number"] == 1
            assert chip(view.view, "Wren")["hearts"] is None  # hide_hearts reached the view
            keeper.undo()
            for _ in range(300):
                await asyncio.sleep(0.01)
                if not view.view["rolls"]:
                    break
            assert view.view["rolls"] == []
        assert not hasattr(view, "_follow_task")  # nothing put on the widget
        view.close()  # the page is gone: the task that followed the log for it ends, and is let go
        await asyncio.wait_for(task, 2)
        assert task not in served._FOLLOWING

    _in_a_loop_of_its_own(play)


def test_a_log_line_the_view_cannot_read_is_said_on_the_screen(keep):
    from delvebook.table import screen as served

    async def play() -> None:
        import asyncio
        view = served.player_widget(keep, interval=0.01)
        with open(keep / "log.yaml", "a") as f:  # a hand-edited line no campaign opens with
            f.write('- {"seq": 1, "kind": "note", "changes": [[["session", "number"], "<b>one</b>"]]}\n')
        for _ in range(300):
            await asyncio.sleep(0.01)
            if view.view["refusal"]:
                break
        problem = view.view["refusal"]["text"]
        assert problem.startswith("the players' view cannot read the log: ") and "log.yaml:" in problem
        assert view.view["session"]["number"] == 0 and intents_in(view.view) == []
        view.close()

    _in_a_loop_of_its_own(play)


def _in_a_loop_of_its_own(play) -> None:
    """Run ``play`` in a loop of its own in a thread of its own: a browser test run before may hold the main
    thread's running loop (Playwright's), where ``asyncio.run`` refuses to start."""
    failure: list[BaseException] = []
    worker = threading.Thread(target=lambda: _run_catching(play, failure))
    worker.start()
    worker.join(30)
    assert not worker.is_alive(), "still following 30 s on"
    if failure:
        raise failure[0]


def _run_catching(play, failure: list) -> None:
    import asyncio

    try:
        asyncio.run(play())
    except BaseException as err:  # noqa: BLE001 - handed back to the test's thread, which raises it
        failure.append(err)


# ---------------------------------------------------------------- served by `delvebook players`, in a real browser

def _serve(campaign: Path, home: Path, *extra: str):
    """``delvebook players`` on a free port (its own process group): (process, the second screen's link, log)."""
    port = _free_port()
    log = open(home / "players.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "delvebook", "players", str(campaign), "--port", str(port), *extra],
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            break
        try:
            with urllib.request.urlopen(url, timeout=2):
                return proc, url, log
        except urllib.error.HTTPError:
            return proc, url, log  # it answers (a link with a secret is needed here)
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.2)
    log.close()
    os.killpg(os.getpgid(proc.pid), signal.SIGKILL) if proc.poll() is None else None
    raise RuntimeError((home / "players.log").read_text()[-3000:])


def _stop(proc, log) -> None:
    if proc.poll() is None:
        os.killpg(os.getpgid(proc.pid), signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(os.getpgid(proc.pid), signal.SIGKILL)
            proc.wait(timeout=15)
    log.close()


def _open_players_page(browser, url, **kw):
    page = browser.new_page(**kw)
    page.goto(url)
    page.wait_for_selector(".db-mode-players .db-party", timeout=30_000)
    return page


def _seen_within(page, selector: str, state: str = "attached", timeout: float = 5.0) -> float:
    start = time.perf_counter()
    page.wait_for_selector(selector, state=state, timeout=timeout * 1000)
    return time.perf_counter() - start


@pytest.mark.browser
def test_a_keepers_click_shows_on_the_players_screen(browser, keep, tmp_path, artifacts):
    """The keeper's table (in this process) records an attack, a check and a luck die; each shows on the players'
    page `delvebook players` serves (the time each took printed), an undone roll leaves it, and the page fills a
    1920x1080 screen with nothing to click, no developer text, and a name like markup shown as text."""
    camp = db.Campaign.open(keep)  # the keeper's campaign, open for writing in this process
    camp.add_delver(EVIL, "rogue", player="Mallory")  # a name like markup, from a shared campaign
    table = db.table.dashboard(camp)
    fight = brakkas_turn(camp)
    proc, url, log = _serve(keep, tmp_path)
    dialogs: list = []
    try:
        page = _open_players_page(browser, url, viewport={"width": 1920, "height": 1080})
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.wait_for_selector('.db-turn.db-acting[data-name="Brakka"]', timeout=10_000)
        assert page.locator(".db-turn.db-foe .db-bar-label").inner_text().strip() == "\u2665 unhurt"

        def keeper_clicks(intent: dict) -> float:
            """The keeper's click on the table, then the wait until its roll is on the players' page."""
            start = time.perf_counter()
            out = table.handle({**intent, "where": "test"})
            assert out is not None, table.view["refusal"]
            page.wait_for_selector(f'.db-lastroll[data-seq="{out["seq"]}"]', timeout=5_000)
            return time.perf_counter() - start

        seen = {"attack": keeper_clicks({"do": "attack", "attacker": "Brakka", "target": "Drowned dead 1",
                                         "weapon": 0})}
        fight.next_turn()  # Ilse's turn
        seen["check"] = keeper_clicks({"do": "check", "who": "Ilse", "skill": "lore"})
        seen["luck"] = keeper_clicks({"do": "luck", "player": camp.delver("Ilse").player, "sign": 1,
                                      "roll": "check"})
        latest = camp.latest_action["seq"]
        start = time.perf_counter()
        assert table.handle({"do": "undo", "where": "test"}) is not None
        page.wait_for_selector(f'.db-lastroll[data-seq="{latest}"]', state="detached", timeout=5_000)
        seen["undo"] = time.perf_counter() - start
        print("players' page: keeper's click to visible, ms: "
              + ", ".join(f"{k} {v * 1000:.0f}" for k, v in seen.items())
              + f"; median {statistics.median(seen.values()) * 1000:.0f}")
        rolls = page.locator(".db-lastroll")
        assert rolls.first.get_attribute("data-seq") != str(latest), "the undone roll is gone"

        box = page.locator(".db-mode-players").bounding_box()
        assert box["width"] >= 1880, f"the players' view is {box['width']:.0f} px wide on a 1920 px screen"
        name_px = page.eval_on_selector(".db-chip .db-name", "e => parseFloat(getComputedStyle(e).fontSize)")
        assert name_px >= 24, f"names in {name_px} px type are too small across a room"
        for control in ("button", "input", "select", "textarea"):
            assert page.locator(f"body {control}").count() == 0, f"a {control} on the players' page"
        words = page.inner_text("body")
        for dev in ("DELVEBOOK_", "import ", "served()", "Traceback", "Error", "Warning"):
            assert dev not in words, f"developer text on the players' page: {dev!r}"
        assert EVIL in page.inner_text(".db-party") and page.locator(".db-table img").count() == 0
        assert not dialogs
        page.screenshot(path=str(artifacts / "players-1920x1080.png"))
        page.close()
    finally:
        camp.close()
        _stop(proc, log)


def _open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


@pytest.mark.browser
def test_twelve_page_loads_leave_nothing_open_once_the_pages_are_gone(browser, keep, tmp_path):
    """6 reloads and 6 tabs closed as a crashed browser closes them (without unload): the server holds no kernel a
    page, only each open page's connection, and once the browser's idle connections are let go (20 s: HTTP/1.1
    keeps a connection a while for the next request) it holds just the open page's; that page still follows."""
    if not Path("/proc").is_dir():
        cannot_run("counting a server's open files reads /proc")
    proc, url, log = _serve(keep, tmp_path)
    try:
        time.sleep(0.5)
        idle = _open_files(proc.pid)
        page = _open_players_page(browser, url)
        for _ in range(5):  # reloads: the page unloads each time
            page.reload()
            page.wait_for_selector(".db-mode-players .db-party", timeout=30_000)
        for _ in range(6):  # tabs that go away without unloading (a crash, a phone put away)
            other = _open_players_page(browser, url)
            other.close(run_before_unload=False)
        start = time.time()
        while time.time() < start + 30 and _open_files(proc.pid) > idle + 1:
            time.sleep(0.2)
        print(f"after 12 page loads with one page open: {_open_files(proc.pid)} open files ({idle} idle), "
              f"{time.time() - start:.1f} s after the last tab closed")
        assert _open_files(proc.pid) <= idle + 1, "only the open page's connection is left"
        assert subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True).stdout == b"", "no kernel"
        camp = db.Campaign.open(keep)  # the open page still follows the log
        try:
            camp.start_session()
            page.wait_for_selector(".db-session:has-text('Session 1')", timeout=5_000)
        finally:
            camp.close()
        page.close()
    finally:
        _stop(proc, log)
