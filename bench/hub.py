"""The players' round trips through a real JupyterHub's proxy, where a remote group feels them.

A hub as tests/test_hub_browser.py starts it (examples/jupyterhub_config.py, DummyAuthenticator,
SimpleLocalProcessSpawner, configurable-http-proxy, all on 127.0.0.1), one keeper's table in headless Chromium
(1366x768) serving its players' pages, and two phones (390x844) on Ana's link: one through the hub's URL, and, as
the reference measured in the same run, one on the keeper's single-user server's own address (the same server and
pages, no proxy between). --n times each (a player has 3 luck dice a session):

- phone request -> keeper sees: from the tap on "+ luck die" to the request shown on the keeper's table;
- accept -> phone sees: from the keeper's click on Accept to the new total on the phone.

Prints the median and worst of each, and the proxy's over the reference's as a ratio. Target: each within 1 s
through the hub. Asserts nothing.
Run: .venv/bin/python bench/hub.py [--n 3]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=3, help="round trips each way, through the hub and direct "
                        "(at most 3: a player's luck dice in a session)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    from conftest import CAMPAIGNS, CHROMIUM_ARGS, DEBIAN_CHROMIUM, start_run_all
    from delvebook.cli import commands as cli
    from hubkit import Hub, proxy_command
    if proxy_command() is None:
        print("bench/hub.py: configurable-http-proxy is not installed (npm install --prefix .ci/npm "
              "configurable-http-proxy)", file=sys.stderr)
        return 2
    folder = Path(tempfile.mkdtemp(prefix="delvebook-hub-bench-"))
    hub = Hub(folder, ["ann"])
    home = hub.home("ann")
    home.mkdir(parents=True)
    shutil.copytree(CAMPAIGNS / "the-sunken-keep", home / "keep")
    cli._write_table_notebook(home / "keep", "The Sunken Keep")  # noqa: SLF001  (what `delvebook lab` writes)
    times: dict[str, dict[str, list[float]]] = {"hub": {"seen": [], "back": []}, "direct": {"seen": [], "back": []}}
    try:
        hub.start()
        with sync_playwright() as p:
            options = {"args": CHROMIUM_ARGS}
            if DEBIAN_CHROMIUM.exists():
                options["executable_path"] = str(DEBIAN_CHROMIUM)
            browser = p.chromium.launch(**options)
            keeper = browser.new_page(viewport={"width": 1366, "height": 768})
            keeper.set_default_timeout(120_000)
            hub.login(keeper, "ann")
            start_run_all(keeper, f"{hub.url}/user/ann/lab/tree/keep.ipynb?reset")
            table = keeper.locator(".jp-OutputArea-output .db-table").last
            table.wait_for(state="visible")

            def click(locator) -> None:  # a click, then the table's answer (it is busy until the view comes back)
                locator.click()
                keeper.wait_for_function("() => { const r = [...document.querySelectorAll('.db-root')]; "
                                         "return r.length > 0 && r.every(x => !x.classList.contains('db-busy')); }")

            click(table.locator('.db-tab[data-panel="keeper"]'))
            click(table.locator("button", has_text="Start session"))
            click(table.locator("button", has_text="Serve the players' pages"))
            table.locator(".db-link .db-qr").first.wait_for(timeout=60_000)
            link = table.locator('.db-link[data-player="Ana"] .db-url').inner_text()
            server, = (home / ".local" / "share" / "jupyter" / "runtime").glob("jpserver-*.json")
            direct = json.loads(server.read_text())["url"].rstrip("/") + "/" + link.split("/user/ann/", 1)[1]
            for way, url in (("hub", link), ("direct", direct)):
                click(table.locator('.db-tab[data-panel="keeper"]'))  # a new session: Ana's 3 luck dice again
                click(table.locator("button", has_text="End session"))
                click(table.locator("button", has_text="Start session"))
                click(table.locator('.db-tab[data-panel="play"]'))
                click(table.locator('.db-party .db-chip[data-name="Wren"]'))
                phone = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
                phone.goto(url)
                phone.wait_for_selector(".db-mode-player .db-mine")
                for _ in range(args.n):
                    before = table.locator(".db-outcome .db-result").get_attribute("data-seq")
                    table.locator(".db-checks button", has_text="Stealth").click()
                    keeper.wait_for_function(
                        "s => { const o = [...document.querySelectorAll('.jp-OutputArea-output .db-table')].pop()"
                        ".querySelector('.db-outcome .db-result'); return o && o.dataset.seq !== s; }", arg=before)
                    seq = table.locator(".db-outcome .db-result").get_attribute("data-seq")
                    phone.wait_for_selector(f'.db-latest .db-result[data-seq="{seq}"]')
                    start = time.perf_counter()
                    phone.locator(".db-spend .db-luck-plus").first.click()
                    request = table.locator(".db-requests .db-request", has_text="Ana (Wren) asks")
                    request.wait_for()
                    times[way]["seen"].append(time.perf_counter() - start)
                    start = time.perf_counter()
                    request.locator("button", has_text="Accept").click()
                    phone.wait_for_function(
                        "s => { const o = document.querySelector('.db-latest .db-result');"
                        " return o && +o.dataset.seq > s; }", arg=int(seq))
                    times[way]["back"].append(time.perf_counter() - start)
                phone.close()
            browser.close()
    finally:
        hub.stop()
        hub.kill_left()
        shutil.rmtree(folder, ignore_errors=True)
    print(f"players' round trips, {args.n} each, ms (median / worst):")
    for what, label in (("seen", "phone request -> keeper sees"), ("back", "accept -> phone sees the new total")):
        hub_t, ref = times["hub"][what], times["direct"][what]
        print(f"  {label:36} through the hub {statistics.median(hub_t) * 1000:6.0f} / {max(hub_t) * 1000:5.0f}"
              f"   direct {statistics.median(ref) * 1000:6.0f} / {max(ref) * 1000:5.0f}"
              f"   ratio {statistics.median(hub_t) / statistics.median(ref):.2f}x"
              f"   {'within' if max(hub_t) <= 1.0 else 'NOT within'} 1 s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
