"""The players' pages served by the Jupyter server the table runs in: a plain ``jupyter lab`` started as Binder
starts it (under a ``base_url``, not by ``delvebook lab``), the keeper's table at 1366x768 and phones at 390x844 in
headless Chromium.

- The keeper serves the pages with one click: each link is made as the keeper's browser reaches the server (its
  origin and the base URL), the card says who can reach it; a phone on Ana's link spends a luck die, the keeper
  accepts, the phone shows the new total (the round trips printed); a link with a wrong secret and a Jupyter API
  asked from a player's page are refused; F5 on the table with no save brings it back.
- 12 pages of one link, 6 players' links and the second screen, open in one browser (one origin, so one pool of
  six HTTP/1.1 connections): every page shows its delver and follows the log.
"""
from __future__ import annotations

import time

import pytest

import delvebook as db
from conftest import CAMPAIGNS, LabServer, serving, start_run_all
from test_phones_browser import PHONE, Phone, luck_accepted, serve_pages
from test_table_browser import NOTEBOOK, Keeper

pytestmark = pytest.mark.browser

W, H = 1366, 768
BASE = "/binder/jupyter/user/delvebook-keeper-7f3a/"


@pytest.fixture(scope="module")
def binder_lab(tmp_path_factory):
    yield from serving(LabServer(tmp_path_factory.mktemp("binderlab"), base_url=BASE))


@pytest.fixture(scope="module")
def served(browser, binder_lab, artifacts):
    """The keeper's table open (Run All) with a sixth player at the table, the players' pages served by one click:
    (the keeper, each player's link by name and the second screen's under None)."""
    with db.Campaign.open(binder_lab.root / CAMPAIGNS.name / "the-sunken-keep") as prepared:
        prepared.add_delver("Fenn", "fighter", player="Fay")  # six players: Ana, Ben, Cleo, Dev, Eli, Fay
    context = browser.new_context(viewport={"width": W, "height": H})
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.on("dialog", lambda d: d.accept() if d.type == "beforeunload" else d.dismiss())
    try:
        start_run_all(page, f"{binder_lab.url}/lab/tree/{NOTEBOOK}?reset")
        k = Keeper(page, binder_lab, artifacts, name="binder")
        k.table.wait_for(state="visible")
        k.wait_answered()
        k.expected = [e["kind"] for e in k.events()]  # the play copy, made by the run, holds the sixth delver
        k.panel("keeper")
        k.act(k.button("Start session"), "start_session")
        yield k, serve_pages(k)
    except Exception:
        page.screenshot(path=str(artifacts / "pages-binder-failed.png"))
        raise
    finally:
        context.close()


def test_a_phone_plays_through_the_jupyter_server_under_its_base_url_and_the_table_survives_f5(
        browser, binder_lab, served, artifacts):
    k, urls = served
    shipped = (binder_lab.root / NOTEBOOK).read_bytes()
    served_at = f"http://127.0.0.1:{binder_lab.port}{BASE}delvebook/#"
    assert set(urls) == {"Ana", "Ben", "Cleo", "Dev", "Eli", "Fay", None}, urls
    assert all(u.startswith(served_at) and len(u) > len(served_at) + 20 for u in urls.values()), urls
    card = k.table.locator(".db-phones")
    assert "Only this computer reaches these links" in card.locator(".db-reach").inner_text()
    card.scroll_into_view_if_needed()
    card.screenshot(path=str(artifacts / "pages-keeper-links.png"))

    phone = Phone(browser, urls["Ana"], "binder-ana", artifacts)
    try:
        assert phone.page.locator(".db-mine .db-name").all_inner_texts() == ["Wren"]
        seen, back, lucky = luck_accepted(k, phone, "Ana", "Wren")
        total = lucky["rolls"]["check"]["total"]
        assert phone.page.locator(".db-luckleft").inner_text() == "2 of 3 luck dice"
        print(f"under jupyter lab at {BASE}: phone request -> keeper sees {seen:.2f} s; accept -> phone shows "
              f"the new total {total} {back:.2f} s")
        phone.shot("luck-accepted")

        # ---- a wrong secret: the page says so in a sentence, nothing else shows
        wrong = phone.context.new_page()
        wrong.goto(served_at + "x" * 24)
        said = wrong.locator("#db-connection")
        said.wait_for(timeout=10_000)
        assert "not a link to this table" in said.inner_text()
        assert wrong.locator(".db-mine").count() == 0
        wrong.close()

        # ---- a Jupyter API asked from a player's page: the page is sandboxed, the answer never reaches it
        for path in ("api/contents", "api/sessions", "api/kernels"):
            assert phone.asks_jupyter(f"{BASE}{path}") == "refused", path
        assert not phone.errors, phone.errors
    finally:
        phone.context.close()

    # ---- F5 on the table, nothing saved: the table comes back under plain jupyter lab
    start = time.monotonic()
    k.page.reload()
    k.table.wait_for(state="visible", timeout=30_000)
    k.wait_answered()
    assert (binder_lab.root / NOTEBOOK).read_bytes() == shipped, "the notebook was saved: this test is void"
    print(f"F5 under plain jupyter lab: the table back in {time.monotonic() - start:.2f} s")
    assert "Error displaying widget" not in k.page.inner_text(".jp-NotebookPanel")
    assert k.table.locator(".db-outcome .db-result").get_attribute("data-seq") == str(lucky["seq"])
    k.shot("f5-under-jupyter-lab")


def test_twelve_pages_of_one_link_six_players_and_the_second_screen_in_one_browser_all_follow(
        browser, served, artifacts):
    k, urls = served
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)  # one browser: one pool
    pages = []
    try:
        opened = [("Ana", urls["Ana"])] * 12 + [(p, u) for p, u in urls.items() if p is not None] + [(None, urls[None])]
        for player, url in opened:
            page = context.new_page()
            page.set_default_timeout(15_000)
            page.goto(url)
            pages.append((player, page))
        delver = {"Ana": "Wren", "Ben": "Brakka", "Fay": "Fenn"}
        for player, page in pages:
            if player is None:
                page.wait_for_selector(".db-mode-players .db-party")
            else:
                page.wait_for_selector(".db-mode-player .db-mine .db-name")
                if player in delver:
                    assert page.locator(".db-mine .db-name").all_inner_texts() == [delver[player]], player
        k.panel("play")
        k.select("Brakka")
        start = time.monotonic()
        k.act(k.table.locator(".db-checks button", has_text="Athletics"), "check")
        seq = k.events()[-1]["seq"]
        for player, page in pages:
            selector = f'.db-lastroll[data-seq="{seq}"]' if player is None else \
                f'.db-latest .db-result[data-seq="{seq}"]'
            page.wait_for_selector(selector, timeout=10_000)
        print(f"{len(pages)} pages of one origin in one browser: every one shows the keeper's check "
              f"{time.monotonic() - start:.2f} s after the click")
        pages[0][1].screenshot(path=str(artifacts / "pages-twelfth-of-one-link.png"))
        assert len(pages) == 19
    finally:
        context.close()
