"""The static JupyterLite site (`delvebook lite`) in a real browser, offline.

The site is built once per test session (it downloads from PyPI and npm into the lite cache the first time).
It is served on 127.0.0.1 by a plain static file server; Chromium resolves no other host
(``--host-resolver-rules``) and Playwright's routing aborts and records every request for another address, and
the test asserts there was none. The table notebook runs in the Pyodide kernel, a click starts a session, and
the event is read back from the browser's own storage (JupyterLite's IndexedDB drive) and from the zip the
table's Download button gives.
"""
from __future__ import annotations

import functools
import http.server
import io
import json
import re
import shutil
import threading
import time
import zipfile

import pytest

from conftest import CAMPAIGNS, CHROMIUM_ARGS, DEBIAN_CHROMIUM, cannot_run, start_run_all

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CAMPAIGN = CAMPAIGNS / "the-sunken-keep"
W, H = 1366, 768


@pytest.fixture(scope="session")
def lite_site(tmp_path_factory):
    """The site for the prepared campaign, built once per test session."""
    from delvebook.share.lite import LiteError, build
    if shutil.which("npm") is None:
        cannot_run("npm is not installed (Debian: apt-get install npm): the site takes Pyodide from npm")
    try:
        import jupyterlite_core  # noqa: F401
    except ImportError:
        cannot_run("jupyterlite-core is not installed: pip install '.[lite]' (make test does)")
    try:
        return build(CAMPAIGN, tmp_path_factory.mktemp("lite") / "site", log=None)
    except LiteError as err:
        pytest.fail(f"the site did not build: {err}", pytrace=False)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def served(lite_site):
    """The built site on 127.0.0.1 (a plain static server: nothing else runs behind the page)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(_Quiet, directory=str(lite_site["site"])))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


STORED = """async ([key]) => {
  for (const info of await indexedDB.databases()) {
    if (!info.name.startsWith("JupyterLite Storage")) continue;
    const db = await new Promise((ok, no) => { const r = indexedDB.open(info.name); r.onsuccess = () => ok(r.result);
                                               r.onerror = () => no(r.error); });
    try {
      if (![...db.objectStoreNames].includes("files")) continue;
      const file = await new Promise((ok, no) => { const r = db.transaction("files").objectStore("files").get(key);
                                                   r.onsuccess = () => ok(r.result); r.onerror = () => no(r.error); });
      if (file) return typeof file.content === "string" ? file.content : JSON.stringify(file.content);
    } finally { db.close(); }
  }
  return null;
}"""


def test_the_site_holds_pure_wheels_and_a_lock_of_what_it_ships(lite_site):
    site = lite_site["site"]
    wheels = sorted(p.name for p in (site / "pypi").glob("*.whl"))
    assert any(w.startswith("delvebook-") for w in wheels) and "pyyaml-6.0.3-py3-none-any.whl" in wheels
    assert all(re.search(r"-none-any\.whl$", w) for w in wheels), wheels
    with zipfile.ZipFile(site / "pypi" / "pyyaml-6.0.3-py3-none-any.whl") as z:
        assert not [n for n in z.namelist() if n.endswith((".so", ".pyd"))], "PyYAML without libyaml is pure"
    with zipfile.ZipFile(next((site / "pypi").glob("delvebook-*.whl"))) as z:
        requires = [line for line in z.read(next(n for n in z.namelist() if n.endswith("METADATA"))).decode()
                    .splitlines() if line.startswith("Requires-Dist:") and "extra ==" not in line]
    assert requires == ["Requires-Dist: pyyaml>=6.0"], "piplite installs the core without JupyterLab"
    lock = json.loads((site / "static" / "pyodide" / "pyodide-lock.json").read_text())
    assert sorted(lock["packages"]) == ["micropip", "packaging"]
    for pkg in lock["packages"].values():
        assert (site / "static" / "pyodide" / pkg["file_name"]).is_file()
    assert lite_site["bytes"] < 60e6, f"the site is {lite_site['bytes'] / 1e6:.1f} MB"


def test_the_site_carries_the_notebook_and_the_campaigns_own_files_only(lite_site):
    site, name = lite_site["site"], CAMPAIGN.name
    assert sorted(str(p.relative_to(site / "files")) for p in (site / "files").rglob("*")) == \
        ["run-a-session.ipynb", name, f"{name}/campaign.yaml", f"{name}/log.yaml"], "no .gitignore, nothing else"
    listed = json.loads((site / "api" / "contents" / name / "all.json").read_text())
    assert sorted(item["name"] for item in listed["content"]) == ["campaign.yaml", "log.yaml"]
    assert json.loads((site / "delvebook-site.json").read_text())["built_by"] == "delvebook lite"


def test_the_table_runs_offline_in_jupyterlite_and_a_click_reaches_the_browsers_storage(browser, lite_site, served,
                                                                                          artifacts):
    asked: list[str] = []

    def only_this_site(route):
        url = route.request.url
        if url.startswith(served + "/") or url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            asked.append(url)
            route.abort()

    # A Chromium of its own, from the session's Playwright (one sync Playwright a thread), that resolves no host
    # but 127.0.0.1: not even a request Playwright's routing cannot see (a service worker's) leaves the machine.
    options = {"args": [*CHROMIUM_ARGS, "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]}
    if DEBIAN_CHROMIUM.exists():
        options["executable_path"] = str(DEBIAN_CHROMIUM)
    name = CAMPAIGN.name
    offline = browser.browser_type.launch(**options)
    try:
        context = offline.new_context(viewport={"width": W, "height": H}, accept_downloads=True)
        context.route("**/*", only_this_site)
        page = context.new_page()
        page.set_default_timeout(180_000)
        start = time.monotonic()
        panel = start_run_all(page, f"{served}/{lite_site['url']}")
        table = panel.locator(".jp-OutputArea-output .db-table").last
        table.wait_for(state="visible")
        shown = time.monotonic() - start
        text = panel.inner_text()
        assert "Traceback" not in text and "Error displaying widget" not in text, text[-2000:]
        before = page.evaluate(STORED, [f"{name}/log.yaml"]) or ""
        assert "- {" not in before, "opening the table recorded nothing"

        save = table.locator(".db-header button.db-save")
        assert save.is_visible() and "Download" in save.inner_text(), "in a browser the download is in the header"
        table.locator('.db-tab[data-panel="keeper"]').click()
        table.locator("button", has_text="Start session").first.click()
        page.wait_for_function("() => /Session 1 begins/.test(document.querySelector("
                               "'.jp-OutputArea-output .db-table .db-outcome .db-result')?.textContent || '')")
        log = None
        for _ in range(100):  # the kernel's worker stores the file as it closes it
            log = page.evaluate(STORED, [f"{name}/log.yaml"])
            if log and '"kind": "start_session"' in log:
                break
            time.sleep(0.1)
        recorded = time.monotonic() - start
        assert log and '"kind": "start_session"' in log, f"the event is not in the browser's storage: {log!r}"
        table.scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / "lite-table.png"))

        with page.expect_download() as download:
            save.click()
        got = download.value
        assert got.suggested_filename == f"{name}.zip"
        with zipfile.ZipFile(io.BytesIO(open(got.path(), "rb").read())) as z:
            zipped = z.read(next(n for n in z.namelist() if n.endswith("log.yaml"))).decode()
        assert '"kind": "start_session"' in zipped
    finally:
        offline.close()
    assert not asked, f"the site asked the network for {asked}"
    (artifacts / "lite-timing.json").write_text(json.dumps({
        "site_bytes": lite_site["bytes"], "build_seconds": round(lite_site["seconds"], 1),
        "open_to_table_seconds": round(shown, 1), "open_to_first_recorded_click_seconds": round(recorded, 1)},
        indent=1))
    print(f"\nlite site {lite_site['bytes'] / 1e6:.1f} MB; page open -> table {shown:.1f} s, "
          f"-> first click in the browser's storage {recorded:.1f} s")
