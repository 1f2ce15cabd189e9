"""The players' view: the table's read-only players' mode, served by `delvebook players` for a second screen.

It shows the table as it stands (foes as wounds, the delvers' hearts hidden if the keeper asks, undone and replaced
rolls left out), holds nothing to click, follows the keeper's log on disk within a second, and gives back the
kernel of every page that is gone.
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

    from delvebook import players as served

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
    from delvebook import players as served

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


def test_delvebook_players_hands_the_flags_to_the_kernel(keep, monkeypatch, capsys):
    from delvebook import cli, extras
    seen = {}
    monkeypatch.setattr(extras, "missing", lambda *names: [])
    monkeypatch.setattr(cli.subprocess, "call", lambda cmd, env=None: seen.update(cmd=cmd, env=env) or 0)
    assert cli.main(["players", str(keep), "--hide-hearts"]) == 0
    assert seen["env"]["DELVEBOOK_CAMPAIGN"] == str(keep.resolve())
    assert seen["env"]["DELVEBOOK_HIDE_HEARTS"] == "1" and seen["env"]["DELVEBOOK_SHOW_FOE_HEARTS"] == "0"
    assert "--Voila.ip=127.0.0.1" in seen["cmd"]
    notebook = json.loads(Path(seen["cmd"][3]).read_text())
    assert [c["cell_type"] for c in notebook["cells"]] == ["code"], "no text cell: the page shows the view alone"


# ---------------------------------------------------------------- served by Voila, in a real browser

def _voila(campaign: Path, home: Path, *extra: str):
    try:
        import voila  # noqa: F401
    except ImportError as err:
        cannot_run(f"voila is not installed ({err}); run `make test`")
    port = _free_port()
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(home / "config"), JUPYTER_DATA_DIR=str(home / "data"),
               JUPYTER_RUNTIME_DIR=str(home / "runtime"))
    log = open(home / "voila.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "delvebook", "players", str(campaign), "--port", str(port), *extra],
                            stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.time() + 90
    while time.time() < deadline:
        if proc.poll() is not None:
            break
        try:
            with urllib.request.urlopen(url, timeout=2):
                return proc, url, log
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.3)
    log.close()
    os.killpg(os.getpgid(proc.pid), signal.SIGKILL) if proc.poll() is None else None
    raise RuntimeError((home / "voila.log").read_text()[-3000:])


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
    page.wait_for_selector(".db-mode-players .db-party", timeout=90_000)
    return page


def _kernel_id(page) -> str:
    return page.evaluate("() => JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId")


def _kernel_alive(url: str, kernel_id: str) -> bool:
    """What the Voila server's /api/kernels says of one kernel: there (200) or gone (404)."""
    try:
        with urllib.request.urlopen(f"{url}api/kernels/{kernel_id}", timeout=5) as r:
            return json.loads(r.read())["id"] == kernel_id
    except urllib.error.HTTPError as err:
        if err.code == 404:
            return False
        raise


def _seen_within(page, selector: str, state: str = "attached", timeout: float = 5.0) -> float:
    start = time.perf_counter()
    page.wait_for_selector(selector, state=state, timeout=timeout * 1000)
    return time.perf_counter() - start


@pytest.mark.browser
def test_a_keepers_click_shows_on_the_players_screen_within_a_second(browser, keep, tmp_path, artifacts):
    """The keeper's table (in this process) records an attack, a check and a luck die; each shows on the players'
    page Voila serves within 1 s, an undone roll leaves it within 1 s, and the page fills a 1920x1080 screen with
    nothing to click, no developer text, and a name like markup shown as text."""
    camp = db.Campaign.open(keep)  # the keeper's campaign, open for writing in this process
    camp.add_delver(EVIL, "rogue", player="Mallory")  # a name like markup, from a shared campaign
    table = db.table.dashboard(camp)
    fight = brakkas_turn(camp)
    proc, url, log = _voila(keep, tmp_path)
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
        slow = {k: round(v, 3) for k, v in seen.items() if v > 1.0}
        assert not slow, f"the players' page took more than 1 s to show the keeper's click: {slow} (s)"
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


def _kernel_processes(server: int) -> int:
    """Kernel processes the server ``server`` started (its children and theirs: read through /proc)."""
    parent, cmd = {}, {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                parent[int(pid)] = int(f.read().rsplit(b")", 1)[1].split()[1])
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd[int(pid)] = f.read()
        except (OSError, ValueError, IndexError):
            continue

    def under(pid: int) -> bool:
        for _ in range(50):
            pid = parent.get(pid, 0)
            if pid == server:
                return True
            if pid <= 1:
                return False
        return False

    return sum(1 for pid, c in cmd.items() if b"ipykernel" in c and under(pid))


@pytest.mark.browser
def test_twelve_page_loads_leave_one_kernel_per_open_page(browser, keep, tmp_path):
    """6 reloads and 6 tabs closed as a crashed browser closes them (without unload): of the 12 kernels those page
    loads started, the server keeps one, the open page's. Voila shuts a kernel down when its page unloads; the
    server culls one whose page is gone."""
    proc, url, log = _voila(keep, tmp_path, "--cull-after", "4")
    try:
        page = _open_players_page(browser, url)
        kernels = [_kernel_id(page)]
        for _ in range(5):  # reloads: the page unloads each time
            page.reload()
            page.wait_for_selector(".db-mode-players .db-party", timeout=90_000)
            kernels.append(_kernel_id(page))
        for _ in range(6):  # tabs that go away without unloading (a crash, a phone put away)
            other = _open_players_page(browser, url)
            kernels.append(_kernel_id(other))
            other.close(run_before_unload=False)
        assert len(set(kernels)) == 12, "each page load has a kernel of its own"
        processes = (lambda: _kernel_processes(proc.pid)) if Path("/proc").is_dir() else (lambda: 1)
        start = time.time()
        while time.time() < start + 60 and (sum(_kernel_alive(url, k) for k in kernels) > 1 or processes() > 1):
            time.sleep(0.5)  # a closed tab's kernel is culled 4 s after its page went; its process exits after
        alive = [k for k in kernels if _kernel_alive(url, k)]
        print(f"after 12 page loads: {len(alive)} kernel(s) at /api/kernels, {processes()} kernel process(es), "
              f"{time.time() - start:.1f} s after the last tab closed")
        assert alive == [kernels[5]], f"kernels left after 12 page loads with one page open: {alive}"
        assert processes() == 1, "a kernel the server let go of is still running"
        camp = db.Campaign.open(keep)  # the open page still has its kernel, and still follows the log
        try:
            camp.start_session()
            page.wait_for_selector(".db-session:has-text('Session 1')", timeout=5_000)
        finally:
            camp.close()
        page.close()
    finally:
        _stop(proc, log)
