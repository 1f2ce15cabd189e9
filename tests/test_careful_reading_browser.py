"""A file set aside under ``requests/``, as the keeper sees it in a real JupyterLab at 1366x768 (started as a keeper
starts it, ``delvebook lab``): a folder put in a player's requests file's place while the table runs is said once,
beside the players' requests, naming the file and why, without a click; the table keeps answering clicks; the
line reads in the light and the dark theme. Screenshots (looked at by a person):
tests/artifacts/table-set-aside-*-light.png and *-dark.png.
"""
from __future__ import annotations

import time

import pytest

from delvebook.players.requests import requests_file

from conftest import start_run_all
from test_table_browser import NOTEBOOK, Keeper
from test_table_layout_browser import readable, switch_theme

pytestmark = pytest.mark.browser

W, H = 1366, 768


def test_a_folder_in_a_requests_files_place_is_said_once_beside_the_requests_and_the_table_keeps_answering(
        browser, keeper_lab, artifacts):
    context = browser.new_context(viewport={"width": W, "height": H})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        start_run_all(page, f"{keeper_lab.url}/lab/tree/{NOTEBOOK}?reset")
        k = Keeper(page, keeper_lab, artifacts, name="set-aside")
        k.table.wait_for(state="visible")
        k.wait_answered()
        file = requests_file(k.log_dir, "Ana")
        file.parent.mkdir(mode=0o700, exist_ok=True)
        file.mkdir()  # what no players' server writes: a folder where Ana's requests go
        notice = k.table.locator(".db-requests .db-set-aside")
        notice.wait_for(state="visible", timeout=10_000)  # the desk's poll, without a click
        said = notice.all_inner_texts()
        assert said == [f"requests/{file.name} was set aside: it is a folder, not a file"], said
        k.in_view(notice, "the file set aside")
        k.shot("light")

        k.panel("keeper")
        started = time.perf_counter()
        k.act(k.button("Start session"), "start_session")  # press, pause, release; waits for the table's answer
        print(f"\na click answered in {(time.perf_counter() - started) * 1000:.0f} ms with the folder in place")
        k.panel("play")
        assert notice.all_inner_texts() == said, "said once, and still said while it stands"

        switch_theme(page, "JupyterLab Dark", light=False)
        k.in_view(notice, "the file set aside, dark")
        readable(k.table.locator(".db-requests"), "dark")
        k.shot("dark")
        switch_theme(page, "JupyterLab Light", light=True)
        readable(k.table.locator(".db-requests"), "light")

        file.rmdir()  # taken away: the line goes, as the next poll reads the place again
        notice.wait_for(state="detached", timeout=10_000)
    finally:
        context.close()
