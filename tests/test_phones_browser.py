"""Players at the table from their own phones, in real browsers: the keeper's JupyterLab at 1366x768 (started as a
keeper starts it, ``delvebook lab``) and phones at 390x844 on the players' pages that JupyterLab's own server
serves once the keeper clicks in the Keeper panel, then on the table's Wi-Fi (``delvebook players``, one click more).

Player A (Ana, Wren) spends a luck die on her roll -> the keeper's table shows the request without a click ->
Accept -> every screen shows the new total within 1 s; player B's (Ben, Brakka) is declined; the keeper sends a
Stealth check to A, who rolls it with a tap, then types her own dice for the next one; a level-up choice is made
from A's phone; a forged request for another delver, a stale one and a flood of 1,000 are refused with nothing
recorded; the log holds exactly the events accepted; a phone on the Wi-Fi server plays the same way; stopping
serves no page any more. Screenshots of each phone and of the keeper's table go to
tests/artifacts/.
"""
from __future__ import annotations

import json
import os
import signal
import time

import pytest

from conftest import start_run_all
from test_table_browser import NOTEBOOK, PLAY, Keeper

pytestmark = pytest.mark.browser

W, H = 1366, 768
PHONE = {"width": 390, "height": 844}


class Phone:
    """A player's phone on their own link: taps, and what the page shows."""

    def __init__(self, browser, url: str, name: str, artifacts):
        self.context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
        self.page = self.context.new_page()
        self.page.set_default_timeout(15_000)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.name = name
        self.artifacts = artifacts
        self.url = url
        self.page.goto(url)
        self.page.wait_for_selector(".db-mode-player .db-mine")

    def latest_seq(self) -> str | None:
        return self.page.locator(".db-latest .db-result").get_attribute("data-seq")

    def shows_seq(self, seq) -> None:
        self.page.wait_for_selector(f'.db-latest .db-result[data-seq="{seq}"]', timeout=5_000)

    def status_of_latest_request(self) -> str:
        return self.page.locator(".db-myrequest").first.get_attribute("data-status")

    def shot(self, name: str) -> None:
        self.page.screenshot(path=str(self.artifacts / f"phone-{self.name}-{name}.png"), full_page=True)

    def post(self, intents: list[dict]) -> list[tuple[int, str | None]]:
        """What a forged page would send: these clicks straight down a page connection of its own, with this
        phone's secret; each answer as (429 when refused by rate, else 200; the refusal's text or None)."""
        return self.page.evaluate("""async (intents) => {
            const key = decodeURIComponent(location.hash.slice(1));
            const url = new URL(document.getElementById("db").dataset.live, location.href);
            url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
            url.hash = "";
            const ws = new WebSocket(url.href);
            const out = [];
            return await new Promise((resolve, reject) => {
              ws.addEventListener("open", () => {
                ws.send(JSON.stringify({type: "hello", key}));
                intents.forEach((intent, i) => ws.send(JSON.stringify({type: "intent", id: `forged:${i}`, intent})));
              });
              ws.addEventListener("message", (e) => {
                const m = JSON.parse(e.data);
                if (m.type !== "answer") return;
                const said = m.view.refusal ? m.view.refusal.text : null;
                out.push([said && said.startsWith("too many requests") ? 429 : 200, said]);
                if (out.length === intents.length) { ws.close(); resolve(out); }
              });
              ws.addEventListener("close", () => { if (out.length < intents.length) reject(new Error("closed")); });
            }); }""", intents)


    def asks_jupyter(self, path: str) -> str:
        """A Jupyter API asked from this player's page, with whatever cookies the browser holds: "refused", or what
        was read."""
        return self.page.evaluate(
            "p => fetch(p, {credentials: 'include'}).then(r => 'read ' + r.status).catch(e => 'refused')", path)


SKILL = {"Wren": "Stealth", "Brakka": "Athletics"}


def serve_pages(k: Keeper) -> dict[str | None, str]:
    """The keeper's one click on *Serve the players' pages*: each player's link (the second screen's under None)."""
    card = k.table.locator(".db-phones")
    card.scroll_into_view_if_needed()
    k.ui(card.locator("button", has_text="Serve the players' pages"))
    card.locator(".db-link .db-qr").first.wait_for(timeout=30_000)  # the table redraws by itself
    rows = card.locator(".db-link")
    return {rows.nth(i).get_attribute("data-player"): rows.nth(i).locator(".db-url").inner_text()
            for i in range(rows.count())}


def luck_accepted(k: Keeper, phone: Phone, player: str, delver: str) -> tuple[float, float, dict]:
    """The keeper rolls ``delver``'s check; the phone spends a luck die (+) on it; the keeper sees the request without
    a click and accepts it; the phone shows the new total. (seconds from the tap to the keeper seeing it, from the
    Accept to the phone showing it, the event recorded.)"""
    k.panel("play")
    k.select(delver)
    k.act(k.table.locator(".db-checks button", has_text=SKILL[delver]), "check")
    k.real_dice("check", "8 1")  # 9 vs 10: a luck die added may lift it (a phone offers luck only where it can)
    phone.shows_seq(k.events()[-1]["seq"])
    start = time.monotonic()
    phone.page.locator(".db-spend .db-luck-plus").first.click()
    request = k.table.locator(".db-requests .db-request", has_text=f"{player} ({delver}) asks: a luck die (+)")
    request.wait_for(timeout=5_000)
    seen = time.monotonic() - start
    start = time.monotonic()
    k.act(request.locator("button", has_text="Accept"), "check")
    lucky = k.events()[-1]
    phone.shows_seq(lucky["seq"])
    back = time.monotonic() - start
    assert f"= {lucky['rolls']['check']['total']}" in phone.page.locator(".db-latest").inner_text()
    assert lucky["asked_by"]["player"] == player
    return seen, back, lucky


def asked_by(k: Keeper) -> list[tuple[str, int | None]]:
    return [(e["kind"], (e.get("asked_by") or {}).get("request")) for e in k.events() if e.get("asked_by")]


def test_players_act_from_their_phones_and_the_keeper_accepts(browser, keeper_lab, artifacts):
    context = browser.new_context(viewport={"width": W, "height": H})
    page = context.new_page()
    page.set_default_timeout(60_000)
    phones: list[Phone] = []
    play = keeper_lab.root / PLAY
    try:
        start_run_all(page, f"{keeper_lab.url}/lab/tree/{NOTEBOOK}?reset")
        k = Keeper(page, keeper_lab, artifacts, name="phones")
        k.table.wait_for(state="visible")
        k.wait_answered()
        k.panel("keeper")
        k.act(k.button("Start session"), "start_session")

        # ---- the keeper serves the players' pages with a click; each player's link and QR code show
        card = k.table.locator(".db-phones")
        urls = serve_pages(k)
        assert set(urls) >= {"Ana", "Ben", None} and all("/delvebook/#" in u for u in urls.values()), urls
        card.scroll_into_view_if_needed()
        k.shot("links-and-qr-codes")
        a = Phone(browser, urls["Ana"], "ana", artifacts)
        b = Phone(browser, urls["Ben"], "ben", artifacts)
        phones += [a, b]
        assert a.page.locator(".db-mine .db-name").all_inner_texts() == ["Wren"]
        assert b.page.locator(".db-mine .db-name").all_inner_texts() == ["Brakka"]

        # ---- A spends a luck die on her roll; the keeper sees it without a click, accepts; every screen follows
        k.panel("play")
        k.select("Wren")
        k.act(k.table.locator(".db-checks button", has_text="Stealth"), "check")
        k.real_dice("check", "8 1")  # 9 vs 10: a luck die added lifts it (her phone offers it only where it can)
        check = k.events()[-1]
        a.shows_seq(check["seq"])
        a.page.locator(".db-spend .db-luck-plus").first.click()
        a.page.wait_for_selector('.db-myrequest[data-status="waiting"]')
        start = time.monotonic()
        request = k.table.locator(".db-requests .db-request", has_text="Ana (Wren) asks: a luck die (+)")
        request.wait_for(timeout=5_000)
        print(f"the keeper's table shows Ana's request {time.monotonic() - start:.2f} s after her tap, no click")
        k.in_view(request, "the player's request")
        a.shot("luck-waiting")
        k.shot("request-waiting")
        start = time.monotonic()
        k.act(request.locator("button", has_text="Accept"), "check")
        lucky = k.events()[-1]
        a.shows_seq(lucky["seq"])
        b.shows_seq(lucky["seq"])
        took = time.monotonic() - start
        total = str(lucky["rolls"]["check"]["total"])
        for screen in (k.table.locator(".db-outcome"), a.page.locator(".db-latest"), b.page.locator(".db-latest")):
            assert f"= {total}" in screen.inner_text()
        print(f"accepted: every screen shows the new total {total} within {took:.2f} s of the keeper's click")
        assert lucky["asked_by"]["player"] == "Ana" and lucky["replaces"] == check["seq"]
        a.page.wait_for_selector('.db-myrequest[data-status="accepted"]')
        assert a.page.locator(".db-luckleft").inner_text() == "2 of 3 luck dice"

        # ---- B's luck die on Brakka's check is declined: said on B's phone, nothing recorded
        k.select("Brakka")
        k.act(k.table.locator(".db-checks button", has_text="Athletics"), "check")
        k.real_dice("check", "10 1")  # 11 vs 10: a luck die taken off may fail it
        b.shows_seq(k.events()[-1]["seq"])
        b.page.locator(".db-spend .db-luck-minus").first.click()
        request = k.table.locator(".db-requests .db-request", has_text="Ben (Brakka) asks")
        request.wait_for(timeout=5_000)
        k.ui(request.locator("button", has_text="Decline"))
        b.page.wait_for_selector('.db-myrequest[data-status="declined"]', timeout=5_000)
        b.shot("declined")

        # ---- the keeper sends a Stealth check to A: a tap rolls it; then her own dice for the next one
        k.select("Wren")
        form = k.table.locator(".db-ask")
        form.locator("select").select_option("check:stealth")
        form.locator('input[name="target"]').fill("12")
        k.ui(form.locator("button", has_text="Send to Ana"))
        a.page.wait_for_selector(".db-asked-me .db-rollit", timeout=5_000)
        assert "Stealth check against 12" in a.page.locator(".db-asked-me").inner_text()
        a.shot("asked-to-roll")
        before = k.events()[-1]["seq"]
        a.page.locator(".db-rollit").click()
        k.page.wait_for_function("s => { const o = [...document.querySelectorAll('.jp-OutputArea-output .db-table')]"
                                 ".pop().querySelector('.db-outcome .db-result'); return o && +o.dataset.seq > s; }",
                                 arg=before, timeout=5_000)
        rolled = k.events()[-1]
        assert rolled["kind"] == "check" and rolled["args"]["target"] == 12 and rolled["asked_by"]["player"] == "Ana"
        k.expected.append("check")
        a.shows_seq(rolled["seq"])
        a.page.wait_for_selector(".db-asked-me", state="detached", timeout=5_000)
        form.locator("select").select_option("check:stealth")
        form.locator('input[name="target"]').fill("15")
        k.ui(form.locator("button", has_text="Send to Ana"))
        faces = a.page.locator(".db-asked-me .db-faces input")
        faces.wait_for(timeout=5_000)
        faces.fill("10 4")  # 14 vs 15: a luck die added lifts it
        a.page.locator(".db-asked-me button", has_text="My own dice").click()
        a.page.wait_for_selector(".db-asked-me", state="detached", timeout=5_000)
        typed = k.events()[-1]
        assert typed["rolls"]["check"]["faces"] == [10, 4] and typed["args"]["target"] == 15
        k.expected.append("check")
        a.shows_seq(typed["seq"])

        # ---- a luck die on that roll, then the keeper undoes the roll: the request is stale, and A's phone says why
        a.page.locator(".db-spend .db-luck-plus").first.click()
        k.table.locator(".db-requests .db-request", has_text="Ana (Wren) asks").wait_for(timeout=5_000)
        k.table.locator(".db-undo-btn").click()  # the table redraws twice: the undo, then the request refused
        k.wait_answered()
        a.page.wait_for_selector('.db-myrequest[data-status="refused"]', timeout=5_000)
        k.table.locator(".db-requests", has_text="No request waiting").wait_for(timeout=5_000)
        k.expected.append("undo")
        assert [e["kind"] for e in k.events()] == k.expected
        k.in_view(k.table.locator(".db-outcome"), "the undo's outcome")
        assert "stale: the keeper undid that roll" in a.page.locator(".db-myrequest").first.inner_text()
        a.shot("stale")

        # ---- a level-up choice made from A's phone
        k.panel("keeper")
        xp = k.table.locator('[data-form="award_xp"]')
        xp.locator('input[name="amount"]').fill("500")
        k.act(xp.locator("button", has_text="Award XP"), "award_xp")  # 100 XP each: level 2, a choice waits
        choice = a.page.locator(".db-choice").first
        choice.wait_for(timeout=5_000)
        a.shot("level-up-choice")
        assert choice.locator(".db-effect").first.inner_text().strip(), "each option says what it does"
        choice.locator("button").first.click()
        request = k.table.locator(".db-requests .db-request", has_text="Ana (Wren) asks: Wren:")
        request.wait_for(timeout=5_000)
        k.act(request.locator("button", has_text="Accept"), "choose")
        a.page.wait_for_selector('.db-myrequest[data-status="accepted"]')

        # ---- forged, stale, a flood: refused, nothing recorded
        recorded = [e["seq"] for e in k.events()]
        forged = b.post([{"do": "choose", "who": "Wren", "choice": "skill", "option": "stealth"}])
        assert forged[0][1] and "not your delver" in forged[0][1], forged
        stale = a.post([{"do": "luck", "on": check["seq"], "roll": "check", "sign": 1}])
        assert "stale" in stale[0][1], stale
        flood = a.post([{"do": "luck", "on": k.events()[-1]["seq"], "roll": "check", "sign": 1}] * 1000)
        refused = sum(1 for status, said in flood if said)
        print(f"a flood of 1,000 requests from one phone: {refused} refused "
              f"({sum(1 for s, _ in flood if s == 429)} by rate)")
        assert refused == 1000, "the latest action (a choice) rolled nothing: every one is refused"
        time.sleep(1)
        assert [e["seq"] for e in k.events()] == recorded, "nothing recorded"

        # ---- the log holds exactly the events accepted, each saying who asked it
        assert [e["kind"] for e in k.events()] == k.expected
        assert [kind for kind, _ in asked_by(k)] == ["check", "check", "check", "choose"]
        k.panel("play")
        k.shot("after-the-phones")
        a.shot("end")
        b.shot("end")
        for phone in phones:
            assert not phone.errors, phone.errors
            box = phone.page.locator(".db-mode-player").bounding_box()
            assert box["width"] <= PHONE["width"], "nothing runs off a phone's screen sideways"
            name_px = phone.page.eval_on_selector(".db-mine .db-name", "e => parseFloat(getComputedStyle(e).fontSize)")
            assert name_px >= 20, f"the delver's name in {name_px} px type on a phone"

        # ---- JupyterLab answers on 127.0.0.1 alone: the card says so and serves the table's Wi-Fi with one more
        # click (``delvebook players --ip 0.0.0.0``, the same pages); a phone there plays the same way
        k.panel("keeper")
        assert "Only this computer reaches these links" in card.locator(".db-reach").inner_text()
        k.ui(card.locator("button", has_text="Serve on this Wi-Fi too"))
        lan = card.locator(".db-lan")
        lan.wait_for(timeout=30_000)
        assert "each player scans their own code on the same Wi-Fi" in lan.inner_text()
        ben_lan = card.locator('.db-links').last.locator('.db-link[data-player="Ben"] .db-url').inner_text()
        assert "/delvebook/" not in ben_lan and ":88" in ben_lan and "#" in ben_lan, ben_lan
        k.shot("links-on-the-wifi-too")
        c = Phone(browser, ben_lan, "ben-wifi", artifacts)
        phones.append(c)
        luck_accepted(k, c, "Ben", "Brakka")
        c.shot("luck-accepted-on-the-wifi")

        # ---- the keeper stops serving: the pages say so, on the Jupyter server and on the Wi-Fi
        k.panel("keeper")
        k.ui(k.table.locator(".db-phones button", has_text="Stop serving the players' pages"))
        a.page.wait_for_selector("#db-connection", timeout=10_000)
        c.page.wait_for_selector("#db-connection", timeout=10_000)
        card.locator("button", has_text="Serve the players' pages").wait_for(timeout=10_000)
    finally:
        for phone in phones:
            phone.context.close()
        context.close()
        info = play / "requests" / "server.json"
        if info.exists():  # a server this test's click started, still running after a failure
            try:
                os.kill(json.loads(info.read_text())["pid"], signal.SIGTERM)
            except (OSError, ValueError, KeyError):
                pass
