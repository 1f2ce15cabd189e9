"""A game club on a real JupyterHub (``examples/jupyterhub_config.py``, with the DummyAuthenticator and the
SimpleLocalProcessSpawner, ``configurable-http-proxy`` from npm, everything on 127.0.0.1): two keepers each open
their campaign's table through the hub in Chromium at 1366x768 and serve their players' pages with one click; a
phone (390x844) per keeper opens its player's link through the hub's URL, spends a luck die, the keeper accepts,
the phone shows the new total (the round trips through the hub's proxy printed; bench/hub.py measures them);
keeper A's link on keeper B's server, a wrong secret and a Jupyter API asked from a player's page are refused; a
reload of each keeper's page brings the table back; stopping the hub leaves no process."""
from __future__ import annotations

import shutil
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import delvebook as db
from conftest import CAMPAIGNS, cannot_run, start_run_all
from hubkit import Hub, proxy_command
from test_phones_browser import Phone, luck_accepted, serve_pages
from test_table_browser import Keeper

pytestmark = [pytest.mark.browser, pytest.mark.slow]

W, H = 1366, 768


def _campaigns(hub: Hub) -> dict[str, tuple[str, str, str]]:
    """Each keeper's campaign in their home, with its table notebook beside it (as ``delvebook new`` writes it):
    keeper -> (notebook, campaign folder, the player whose phone joins, their delver)."""
    from delvebook.cli import commands as cli
    ann = hub.home("ann")
    ann.mkdir(parents=True, exist_ok=True)
    shutil.copytree(CAMPAIGNS / "the-sunken-keep", ann / "sunken-keep")
    cli._write_table_notebook(ann / "sunken-keep", "The Sunken Keep")  # noqa: SLF001  (what `delvebook lab` writes)
    bob = hub.home("bob")
    bob.mkdir(parents=True, exist_ok=True)
    assert cli.main(["new", str(bob / "salt-roads")]) == 0
    with db.Campaign.open(bob / "salt-roads") as camp:
        camp.add_delver("Brakka", "fighter", player="Ben")
    return {"ann": ("sunken-keep.ipynb", "sunken-keep", "Ana", "Wren"),
            "bob": ("salt-roads.ipynb", "salt-roads", "Ben", "Brakka")}


class Evening:
    """One keeper's evening through the hub: logged in, the table open, the players' pages served."""

    def __init__(self, browser, hub: Hub, keeper: str, campaign: tuple, artifacts):
        self.notebook, folder, self.player, self.delver = campaign
        self.context = browser.new_context(viewport={"width": W, "height": H})
        self.page = self.context.new_page()
        self.page.set_default_timeout(90_000)
        self.page.on("dialog", lambda d: d.accept() if d.type == "beforeunload" else d.dismiss())
        hub.login(self.page, keeper)
        self.url = f"{hub.url}/user/{keeper}/lab/tree/{self.notebook}"
        start_run_all(self.page, self.url + "?reset")
        self.k = Keeper(self.page, type("Root", (), {"root": hub.home(keeper)}), artifacts, name=f"hub-{keeper}",
                        play=folder)
        self.k.table.wait_for(state="visible")
        self.k.wait_answered()
        self.k.expected = [e["kind"] for e in self.k.events()]

    def serve(self) -> dict:
        self.k.panel("keeper")
        self.k.act(self.k.button("Start session"), "start_session")
        return serve_pages(self.k)


def test_two_keepers_run_their_tables_through_a_real_jupyterhub_and_their_players_join_by_its_url(
        browser, tmp_path, artifacts):
    pytest.importorskip("jupyterhub")
    if proxy_command() is None:
        cannot_run("configurable-http-proxy is not installed (npm install --prefix .ci/npm configurable-http-proxy, "
                   "as .ci/run does)")
    hub = Hub(tmp_path, ["ann", "bob"])
    campaigns = _campaigns(hub)
    evenings: dict[str, Evening] = {}
    phones: list[Phone] = []
    try:
        hub.start()
        links = {}
        for keeper in ("ann", "bob"):
            evenings[keeper] = Evening(browser, hub, keeper, campaigns[keeper], artifacts)
            links[keeper] = evenings[keeper].serve()
            served_at = f"{hub.url}/user/{keeper}/delvebook/#"
            assert all(u.startswith(served_at) for u in links[keeper].values()), links[keeper]
        evenings["ann"].k.shot("the-hubs-table-with-links")

        for keeper, evening in evenings.items():
            k = evening.k
            phone = Phone(browser, links[keeper][evening.player], f"hub-{keeper}", artifacts)
            phones.append(phone)
            assert phone.page.locator(".db-mine .db-name").all_inner_texts() == [evening.delver]
            seen, back, _ = luck_accepted(k, phone, evening.player, evening.delver)
            assert phone.page.locator(".db-luckleft").inner_text() == "2 of 3 luck dice"
            print(f"through the hub's proxy ({keeper}): phone request -> keeper sees {seen:.2f} s; accept -> phone "
                  f"shows the new total {back:.2f} s")
            phone.shot("luck-accepted")

        # ---- refused: keeper A's link on keeper B's server, a wrong secret, a Jupyter API from a player's page
        ana = links["ann"]["Ana"]
        page = phones[0].context.new_page()
        for url in (ana.replace("/user/ann/", "/user/bob/"), ana[:-3] + "xyz"):
            page.goto(url)
            page.locator("#db-connection").wait_for(timeout=15_000)
            assert "not a link to this table" in page.locator("#db-connection").inner_text(), url
            assert page.locator(".db-mine").count() == 0
        page.close()
        for path in ("api/contents", "api/kernels", "api/sessions"):
            assert phones[0].asks_jupyter(f"/user/ann/{path}") == "refused", path
            try:  # and with no page around it, no cookie: the hub's login stands in the way
                with urllib.request.urlopen(f"{hub.url}/user/ann/{path}", timeout=10) as r:
                    assert "/hub/login" in r.url or r.status >= 400, (path, r.status, r.url)
            except urllib.error.HTTPError as err:
                assert err.code in (401, 403), (path, err.code)
        phones[0].shot("through-the-hub")

        # ---- a reload of each keeper's page brings the table back
        for keeper, evening in evenings.items():
            seq = evening.k.outcome_seq()
            start = time.monotonic()
            evening.page.reload()
            evening.k.table.wait_for(state="visible", timeout=60_000)
            evening.k.wait_answered()
            assert evening.k.outcome_seq() == seq
            print(f"F5 through the hub ({keeper}): the table back in {time.monotonic() - start:.2f} s")
        evenings["bob"].k.shot("after-f5")
        for phone in phones:
            assert not phone.errors, phone.errors
    except Exception:
        for keeper, evening in evenings.items():
            evening.page.screenshot(path=str(artifacts / f"hub-{keeper}-failed.png"))
        print(hub.log())
        raise
    finally:
        for phone in phones:
            phone.context.close()
        for evening in evenings.values():
            evening.context.close()
        ran = hub.processes()
        hub.stop()
        deadline = time.monotonic() + 90  # (the servers stop their kernels in turn: slow on a busy machine)
        while hub.processes() and time.monotonic() < deadline:
            time.sleep(0.5)
        left = {pid: _command_line(pid) for pid in hub.processes()}
        hub.kill_left()
    print(f"the hub stopped: {len(ran)} processes ran (hub, proxy, two servers, two kernels), {len(left)} left")
    assert left == {}, f"stopping the hub left {left}"
    assert len(ran) >= 6


def _command_line(pid: int) -> str:
    """What a process runs, for the message that names one left behind."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:200]
    except OSError:
        return "(gone)"
