"""The players' view: read-only, follows the keeper's log, and shows a keeper's action within a second."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import delvebook as db
from delvebook.players import LogFollower, render, wound_state
from conftest import CAMPAIGNS, _free_port, cannot_run

KEEP = CAMPAIGNS / "the-sunken-keep"


@pytest.fixture
def keep(tmp_path):
    dest = tmp_path / "keep"
    shutil.copytree(KEEP, dest)
    return dest


def test_foes_show_a_wound_state_not_their_hearts():
    assert [wound_state(h, 8, "alive") for h in (8, 5, 4, 1)] == ["unhurt", "wounded", "badly wounded",
                                                                   "badly wounded"]
    assert wound_state(0, 8, "dead") == "down"


def test_the_view_escapes_names_and_hides_foe_hearts(keep):
    with db.Campaign.open(keep) as camp:
        camp.add_delver("<img src=x onerror=alert(1)>", "rogue", player="Mallory")
        fight = camp.encounter(["drowned_dead"])
        fight.initiative(first="party")
        fight.next_turn()  # Brakka's turn
        fight.attack("Brakka", "Drowned dead 1", faces={"attack": [18, 1], "resist": [2], "damage": [1, 1]})
        page = render(camp)
        assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
        assert "Drowned dead 1: <span class=\"dbp-wound\">wounded</span>" in page
        assert "6/8 hearts" not in page and "-> 6 hearts" not in page
        assert "6/8 hearts" in render(camp, show_foe_hearts=True)


def test_the_follower_folds_in_what_the_keeper_appends(keep):
    follower = LogFollower(keep)
    assert not follower.poll()
    with db.Campaign.open(keep) as camp:
        camp.start_session()
        camp.award_xp(10)
        assert follower.poll()
        assert follower.camp.state == camp.state
        assert not follower.poll()


def _voila(campaign: Path, home: Path, *extra: str):
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


@pytest.mark.browser
def test_the_players_widget_follows_the_log_until_it_is_closed(keep):
    pytest.importorskip("ipywidgets")
    import asyncio
    from delvebook import players

    async def play() -> None:
        view = players.player_widget(keep, interval=0.01)
        [task] = [t for t in players._FOLLOWING if not t.done()]
        with db.Campaign.open(keep) as camp:
            camp.start_session()
        for _ in range(200):
            await asyncio.sleep(0.01)
            if "Session 1" in view.value:
                break
        assert "Session 1" in view.value and not hasattr(view, "_follow_task")  # nothing put on the widget
        view.close()  # the page is gone: the task that followed the log for it ends, and is let go
        await asyncio.wait_for(task, 2)
        assert task not in players._FOLLOWING

    # a loop of its own in a thread of its own: a browser test run before this one may hold the main thread's loop
    failure: list[BaseException] = []
    worker = threading.Thread(target=lambda: _run_catching(play, failure))
    worker.start()
    worker.join(30)
    assert not worker.is_alive(), "the follow task did not end within 30 s of the widget closing"
    if failure:
        raise failure[0]


def _run_catching(play, failure: list) -> None:
    import asyncio

    try:
        asyncio.run(play())
    except BaseException as err:  # noqa: BLE001 - handed back to the test's thread, which raises it
        failure.append(err)


def test_players_view_shows_an_attack_within_a_second_and_no_controls(browser, keep, tmp_path, artifacts):
    try:
        import voila  # noqa: F401
    except ImportError as err:
        cannot_run(f"voila is not installed ({err}); run `make test`")
    camp = db.Campaign.open(keep)  # the keeper's campaign, open for writing in this process
    fight = camp.encounter(["drowned_dead"])
    fight.initiative(first="party")
    fight.next_turn()  # Brakka's turn
    proc, url, log = _voila(keep, tmp_path)
    dialogs = []
    try:
        page = browser.new_page(viewport={"width": 1100, "height": 800})
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(url)
        page.wait_for_selector(".dbp-party", timeout=60_000)
        assert page.locator(".dbp-foe").inner_text().strip() == "Drowned dead 1: unhurt"
        page.screenshot(path=str(artifacts / "players-before.png"), full_page=True)
        start = time.perf_counter()
        out = fight.attack("Brakka", "Drowned dead 1", faces={"attack": [18, 1], "resist": [2], "damage": [1, 1]})
        page.wait_for_selector(f'.dbp-roll[data-seq="{out["seq"]}"]', timeout=5_000)
        seen = time.perf_counter() - start
        assert page.locator(".dbp-foe .dbp-wound").inner_text() == "wounded"
        page.screenshot(path=str(artifacts / "players-after-attack.png"), full_page=True)
        print(f"players' view showed the attack {seen * 1000:.0f} ms after the keeper's call")
        assert seen < 1.0
        for control in ("button", "input", "select", "textarea"):
            assert page.locator(f"body {control}").count() == 0, control
        assert not dialogs
    finally:
        camp.close()
        if proc.poll() is None:
            os.killpg(os.getpgid(proc.pid), signal.SIGTERM)
            proc.wait(timeout=15)
        log.close()


def _kernels(server: int) -> int:
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
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="counts kernel processes through /proc")
def test_closed_pages_leave_at_most_one_kernel_per_open_page(browser, keep, tmp_path):
    """12 page loads (reloads, and tabs closed as a crashed browser closes them, without unload) leave one kernel:
    the open page's. Voila shuts a kernel down when its page unloads; the server culls one whose page is gone."""
    try:
        import voila  # noqa: F401
    except ImportError as err:
        cannot_run(f"voila is not installed ({err}); run `make test`")
    proc, url, log = _voila(keep, tmp_path, "--cull-after", "4")
    try:
        page = browser.new_page()
        for i in range(6):  # reloads: the page unloads each time
            page.goto(url) if i == 0 else page.reload()
            page.wait_for_selector(".dbp-party", timeout=60_000)
        for _ in range(6):  # tabs that go away without unloading (a crash, a phone put away)
            other = browser.new_page()
            other.goto(url)
            other.wait_for_selector(".dbp-party", timeout=60_000)
            other.close(run_before_unload=False)
        deadline = time.time() + 90  # a kernel whose page never connected waits 60 s
        while time.time() < deadline and _kernels(proc.pid) > 1:
            time.sleep(0.5)
        assert _kernels(proc.pid) <= 1
        assert page.locator(".dbp-party").count() == 1  # the open page still has its kernel
        page.close()
    finally:
        if proc.poll() is None:
            os.killpg(os.getpgid(proc.pid), signal.SIGTERM)
            proc.wait(timeout=15)
        log.close()
