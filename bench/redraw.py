"""What a redraw costs the page, now that it reconciles the new drawing into the one shown (morph.js) instead of
replacing it: in headless Chromium, the table's own module draws view models of the prepared campaign computed
in-process (no kernel): Wren's turn in a fight with an outcome and its luck dice, and the Keeper panel's encounter
builder, each redrawn as the forecast's refining redraws it (the same view with one text changed) and as a click
changes it (two views in turn).

Reference, in the same run: the same drawing shown afresh in a new table (drawn and put on the page whole), what
every redraw cost before. Prints the medians and their ratio; asserts nothing.
Run: .venv/bin/python bench/redraw.py [--n 200]
"""

from __future__ import annotations

import argparse
import copy
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import delvebook as db  # noqa: E402
from delvebook.table import UI, perform, table_view  # noqa: E402
from delvebook.view import front  # noqa: E402

PAGE = "<!doctype html><html><head><style>%s</style></head><body><div id='host' style='width:1300px'></div></body></html>"

TIMING = """async ({esm, views, n}) => {
    const url = URL.createObjectURL(new Blob([esm], {type: 'text/javascript'}));
    const table = (await import(url)).default;
    const model = (view) => {  // anywidget's model, standing in: the view, and its change told
        const on = {};
        const m = { view, get: () => m.view, on: (k, f) => { on[k] = f; }, off: () => {}, send: () => {},
                    set: (v) => { m.view = v; on['change:view'](); } };
        return m;
    };
    const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
    const host = document.getElementById('host');
    const out = {};
    for (const [name, pair] of Object.entries(views)) {
        // redrawn in place: the page's table, its view set n times in turn (what a click or a refinement sends)
        const m = model(pair[0]);
        host.replaceChildren();
        table.render({ model: m, el: host });
        const again = [];
        for (let i = 0; i < n; i++) {
            const t0 = performance.now();
            m.set(pair[(i + 1) % 2]);
            host.getBoundingClientRect();  // (laid out, as a frame would)
            again.push(performance.now() - t0);
        }
        // the reference: the same views drawn afresh, a new table put on the page each time
        const fresh = [];
        for (let i = 0; i < n; i++) {
            const f = model(pair[(i + 1) % 2]);
            const t0 = performance.now();
            host.replaceChildren();
            table.render({ model: f, el: host });
            host.getBoundingClientRect();
            fresh.push(performance.now() - t0);
        }
        out[name] = [median(again), median(fresh), host.querySelectorAll('*').length];
    }
    return out;
}"""


def views() -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="delvebook-bench-redraw-"))
    try:
        shutil.copytree(ROOT / "campaigns" / "the-sunken-keep", tmp / "keep")
        camp = db.Campaign.open(tmp / "keep")
        try:
            ui = UI()
            perform(camp, ui, {"do": "start_session"})
            fight = camp.encounter("causeway_ambush")
            fight.initiative("party")
            attack = table_view(camp, ui)["actor"]["attacks"]["rows"][0]["buttons"][0]["intent"]
            perform(camp, ui, attack)
            outcome = table_view(camp, ui)
            perform(camp, ui, {"do": "select", "who": "Brakka"})
            other = table_view(camp, ui)
            perform(camp, ui, {"do": "panel", "panel": "keeper"})
            perform(camp, ui, {"do": "keeper_tab", "tab": "encounters"})
            perform(camp, ui, {"do": "builder_open", "id": "bell_tower"})
            builder = table_view(camp, ui)
        finally:
            camp.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    refined = copy.deepcopy(builder)  # a refinement: the forecast's text, its progress
    forecast = refined["keeper"]["encounters"]["builder"]["forecast"]
    forecast["text"], forecast["frac"] = "1,234 fights · ±3.1 points · about 2 s left", 0.4
    return {"a fight, a click (Wren's outcome / Brakka's actions)": [outcome, other],
            "the builder, the forecast refining": [builder, refined]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200)
    n = ap.parse_args().n
    from playwright.sync_api import sync_playwright

    from conftest import CHROMIUM_ARGS, DEBIAN_CHROMIUM
    with sync_playwright() as p:
        options = {"args": CHROMIUM_ARGS}
        if DEBIAN_CHROMIUM.exists():
            options["executable_path"] = str(DEBIAN_CHROMIUM)
        browser = p.chromium.launch(**options)
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        page.set_content(PAGE % front.css())
        got = page.evaluate(TIMING, {"esm": front.esm(), "views": views(), "n": n})
        browser.close()
    print(f"a redraw in headless Chromium, 1300 px wide, median of {n}: reconciled into the page (now) against "
          "drawn afresh (the reference, as before)")
    for name, (again, fresh, elements) in got.items():
        print(f"  {name} ({elements} elements): {again:.2f} ms against {fresh:.2f} ms, {again / fresh:.2f}x")


if __name__ == "__main__":
    main()
