"""The table survives what a real evening does to a page, in a real JupyterLab started as a keeper starts it
(``delvebook lab``) and as anyone else does (plain ``jupyter lab``: Binder, a hub), at 1366x768 in headless Chromium, with no save by the keeper:

- F5 soon after Run All (long before JupyterLab's autosave), and again mid-fight: the table is back as it stood
  (the panel open, who acts, the last outcome), and play goes on (how long it takes is printed here and measured by
  bench/table.py: no timing is asserted in the suite);
- the server restarted (a keeper's next evening): the notebook never shows "Error displaying widget: model not
  found"; one plain line says how to open the table, and that one click (the toolbar's Run) brings it back as play
  left it;
- a second kernel opening the same campaign for play gets one plain sentence (who holds it, how to watch it
  read-only, how to take it over), not a traceback;
- a notebook saved with a picture of a table (JupyterLab's widget-state saving) says, opened where no kernel runs
  it, that it is a picture and how to open the table, in one line.
"""
from __future__ import annotations

import re
import time

import nbformat
import pytest

from conftest import LabServer, serving, start_run_all
from test_table_browser import NOTEBOOK, PLAY, Keeper, save_notebook

pytestmark = pytest.mark.browser

W, H = 1366, 768
STANDIN = "The keeper's table opens when this cell runs"


def f5(page, k: Keeper) -> float:
    """The keeper presses F5 (and leaves the page when the browser asks): seconds until the table is back and
    answering."""
    start = time.monotonic()
    page.reload()
    k.table.wait_for(state="visible", timeout=30_000)
    k.wait_answered()
    return time.monotonic() - start


@pytest.fixture(scope="module", params=["jupyter lab", "delvebook lab"])
def any_lab(request, tmp_path_factory):
    """The table's JupyterLab started as a keeper starts it (``delvebook lab``) and as Binder, a hub or anyone else
    starts one (plain ``jupyter lab``): the reload finds the table under both, nothing trusted by hand."""
    if request.param == "delvebook lab":
        yield request.getfixturevalue("keeper_lab")
        return
    yield from serving(LabServer(tmp_path_factory.mktemp("plainlab")))


def test_the_table_comes_back_after_f5_with_no_save_and_on_a_restarted_server(browser, any_lab, artifacts):
    keeper_lab = any_lab  # (the name the steps below read best with)
    shipped = (keeper_lab.root / NOTEBOOK).read_bytes()
    context = browser.new_context(viewport={"width": W, "height": H})
    page = context.new_page()
    page.set_default_timeout(60_000)
    asked = []
    page.on("dialog", lambda d: (asked.append(d.type), d.accept() if d.type == "beforeunload" else d.dismiss()))
    try:
        # the notebook opened on a fresh kernel: the one plain line where the table will be
        start_run_all(page, f"{keeper_lab.url}/lab/tree/{NOTEBOOK}?reset")
        ran = time.monotonic()
        k = Keeper(page, keeper_lab, artifacts, name="reload")
        k.table.wait_for(state="visible")
        k.wait_answered()
        k.panel("keeper")

        # ---- F5 soon after Run All, no save (the notebook's bytes prove it): the table is back, its Keeper panel
        # still open
        took = f5(page, k)
        assert (keeper_lab.root / NOTEBOOK).read_bytes() == shipped, "the notebook was saved: this test is void"
        print(f"F5 {time.monotonic() - ran - took:.1f} s after Run All: the table back in {took:.2f} s")
        assert k.table.locator('.db-tab.db-on[data-panel="keeper"]').count() == 1, "the table lost its state"
        assert "Error displaying widget" not in page.inner_text(".jp-NotebookPanel")
        k.shot("f5-after-run-all")

        # ---- mid-fight: a session, a fight, an attack; another delver picked; F5 again
        k.act(k.button("Start session"), "start_session")
        k.panel("play")
        k.act(k.button("Causeway ambush"), "encounter")
        k.act(k.button("Party goes first"), "initiative")
        standing = k.table.locator(".db-target").first.get_attribute("data-name")
        k.attack(standing, "Dagger", says="Wren attacks")
        seq = k.outcome_seq()
        status = k.table.locator(".db-fight-status").inner_text()
        k.select("Brakka")
        took = f5(page, k)
        assert (keeper_lab.root / NOTEBOOK).read_bytes() == shipped
        print(f"F5 mid-fight: the table back in {took:.2f} s")
        assert k.outcome_seq() == seq and k.table.locator(".db-fight-status").inner_text() == status
        assert k.table.locator(".db-actor-name").inner_text() == "Brakka"
        k.in_view(k.table.locator(".db-outcome"), "the last outcome after F5")
        k.act(k.button("Next turn"), "next_turn", says="Brakka's turn")  # play goes on
        k.shot("f5-mid-fight")
        assert "beforeunload" in asked and set(asked) == {"beforeunload"}, asked

        # ---- the keeper saves and the server stops; the next evening, a fresh server and kernel
        save_notebook(page)
        events = [e["kind"] for e in k.events()]
        context.close()
        keeper_lab.restart()
        context = browser.new_context(viewport={"width": W, "height": H})
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.goto(f"{keeper_lab.url}/lab/tree/{NOTEBOOK}?reset")
        page.locator(".jp-StatusBar-TextItem", has_text=re.compile(r"\| Idle$")).first.wait_for()
        line = page.locator(".jp-OutputArea-output", has_text=STANDIN)
        line.wait_for(state="visible")
        page.wait_for_timeout(2500)  # the widget manager has restored what it can: nothing turns into an error
        text = page.inner_text(".jp-NotebookPanel")
        assert "model not found" not in text and "Error displaying widget" not in text
        assert "Run \u25b8 Run All Cells" in line.inner_text() and line.inner_text().count("\n") == 0
        page.screenshot(path=str(artifacts / "table-reload-fresh-server.png"))

        # the one click: the toolbar's Run (the table cell is the notebook's first, the one selected)
        page.locator('.jp-NotebookPanel-toolbar [data-jp-item-name="run"]').click()
        k = Keeper(page, keeper_lab, artifacts, name="reload-next-evening")
        k.table.wait_for(state="visible")
        k.wait_answered()
        assert [e["kind"] for e in k.events()] == events, "opening the table changed the log"
        assert k.table.locator(".db-fight-status").inner_text().startswith("Round 1")
        assert k.table.locator(".db-actor-name").inner_text() == "Brakka"
        k.shot("next-evening")

        # ---- a second kernel asks for the same campaign: one plain sentence, not a traceback
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(f"from delvebook.table import playing\nplaying({PLAY!r})")]
        nb.metadata = {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python",
                                      "name": "python3"}}
        nbformat.write(nb, keeper_lab.root / "second.ipynb")
        second = context.new_page()
        second.set_default_timeout(60_000)
        panel = start_run_all(second, f"{keeper_lab.url}/lab/tree/second.ipynb")
        error = panel.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')
        error.wait_for()
        said = error.inner_text().strip()
        assert "Traceback" not in said and said.count("\n") == 0, said
        assert "is open for play in the kernel of examples/run-a-session.ipynb (pid " in said, said
        assert "read_only=True" in said and "Kernel \u25b8 Shut Down Kernel" in said, said
        second.screenshot(path=str(artifacts / "table-held-elsewhere.png"))
    except Exception:
        page.screenshot(path=str(artifacts / "table-reload-failed.png"))
        raise
    finally:
        context.close()


def test_a_saved_picture_of_a_table_on_a_fresh_kernel_says_in_one_line_that_no_kernel_runs_it(
        browser, keeper_lab, artifacts, keep):
    """A notebook saved with its widgets' state (JupyterLab's own setting, off by default) holds a picture of the
    table; opened where no kernel runs that table, the picture says so in one line, faded, instead of buttons that
    do nothing."""
    from ipywidgets.embed import dependency_state
    from nbformat.sign import NotebookNotary

    import delvebook as db
    from delvebook.table import Table
    camp = db.Campaign.open(keep)
    try:
        table = Table(camp)
        state = dependency_state([table], drop_defaults=False)  # as the page has it: its ES module and CSS too
        model_id = table.model_id
        table.close()
    finally:
        camp.close()
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("camp.dashboard()")
    cell.outputs = [nbformat.v4.new_output("display_data", data={
        "text/plain": "The keeper's table", "application/vnd.jupyter.widget-view+json":
        {"version_major": 2, "version_minor": 0, "model_id": model_id}})]
    nb.cells = [cell]
    nb.metadata = {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
                   "widgets": {"application/vnd.jupyter.widget-state+json": {
                       "version_major": 2, "version_minor": 0, "state": state}}}
    NotebookNotary(data_dir=str(keeper_lab.home / "data")).sign(nb)  # saved by this JupyterLab: trusted
    nbformat.write(nb, keeper_lab.root / "saved.ipynb")
    page = browser.new_page(viewport={"width": W, "height": H})
    try:
        page.goto(f"{keeper_lab.url}/lab/tree/saved.ipynb?reset")
        line = page.locator(".db-alone")
        line.wait_for(state="visible", timeout=30_000)
        assert "no kernel runs it now" in line.inner_text() and "Run \u25b8 Run All Cells" in line.inner_text()
        assert page.locator(".db-is-alone .db-table").evaluate("e => getComputedStyle(e).pointerEvents") == "none"
        assert "model not found" not in page.inner_text(".jp-NotebookPanel")
        page.screenshot(path=str(artifacts / "table-saved-picture.png"))
    except Exception:
        page.screenshot(path=str(artifacts / "table-saved-picture-failed.png"))
        raise
    finally:
        page.close()
