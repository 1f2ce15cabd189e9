"""The table comes back: the table notebook keeps its table's place (an output naming the table's model, and a
stand-in line in its saved widget state), the campaign played there fills it, and a campaign held elsewhere is one
plain sentence. The real browser (reload with no save, a restarted server) is tests/test_table_reload_browser.py."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("anywidget")

import delvebook as db  # noqa: E402
from delvebook.cli import commands as cli  # noqa: E402
from delvebook.store import holder  # noqa: E402
from delvebook.table import dashboard, playing  # noqa: E402
from delvebook.view import slot  # noqa: E402
from delvebook.view.slot import PLAIN, SLOT, only_stamped, stamp  # noqa: E402

from conftest import CAMPAIGNS, EXAMPLES  # noqa: E402

TABLE_NOTEBOOK = EXAMPLES / "run-a-session.ipynb"


@pytest.fixture
def fresh_kernel(monkeypatch):
    """This process as a fresh kernel: no campaign played, no dashboard shown."""
    from delvebook import table
    monkeypatch.setattr(table, "_PLAYING", {})
    monkeypatch.setattr(table, "_DASHBOARDS", {})
    yield
    for t in list(table._DASHBOARDS.values()):
        t.close()
    for c in table._PLAYING.values():
        c.close()


def keep(tmp_path, name="keep"):
    shutil.copytree(CAMPAIGNS / "the-sunken-keep", tmp_path / name)
    return tmp_path / name


# ---------------------------------------------------------------- the notebook's slot

def test_the_table_notebook_ships_its_tables_output_and_the_stand_in_line():
    nb = json.loads(TABLE_NOTEBOOK.read_text(encoding="utf-8"))
    code = slot.table_cell(nb)
    assert code["outputs"] == [slot.output()]
    assert code["outputs"][0]["data"]["application/vnd.jupyter.widget-view+json"]["model_id"] == SLOT
    assert code["outputs"][0]["data"]["text/plain"] == PLAIN and len(PLAIN) <= 110  # ipywidgets cuts text/plain there
    standin = nb["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"][SLOT]
    assert standin["model_name"] == "HTMLModel" and "Run All Cells" in standin["state"]["value"]
    assert code["metadata"]["jupyter"]["source_hidden"] is True, "the table notebook's code cell is folded"
    assert nb["cells"].index(code) == 0, "the table is the first thing the notebook shows"
    from delvebook.share.session import session_file  # (a wheel's copy is made from it: test_packaging)
    assert session_file("run-a-session.ipynb").read_bytes() == TABLE_NOTEBOOK.read_bytes()


def test_a_notebook_holding_anything_but_the_slot_is_not_only_stamped():
    nb = stamp(json.loads(TABLE_NOTEBOOK.read_text(encoding="utf-8")))
    assert only_stamped(nb) and stamp(nb) == nb
    played = json.loads(json.dumps(nb))
    slot.table_cell(played)["execution_count"] = 3  # saved after a run: the same output, still only the slot
    assert only_stamped(played)
    html = json.loads(json.dumps(nb))
    slot.table_cell(html)["outputs"].append({"output_type": "display_data", "metadata": {},
                                              "data": {"text/html": "<script>alert(1)</script>"}})
    assert not only_stamped(html)
    other = json.loads(json.dumps(nb))
    slot.table_cell(other)["outputs"][0]["data"]["application/vnd.jupyter.widget-view+json"]["model_id"] = "x"
    assert not only_stamped(other)
    state = json.loads(json.dumps(nb))
    state["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"][SLOT]["state"]["value"] = "<b>"
    assert not only_stamped(state)


def test_the_dashboard_of_the_campaign_played_takes_the_notebooks_slot_and_is_the_same_when_asked_again(
        tmp_path, fresh_kernel):
    camp = playing(keep(tmp_path))
    t = camp.dashboard()
    assert t.model_id == SLOT and repr(t) == PLAIN
    t.handle({"do": "panel", "panel": "keeper"})
    again = playing(camp.path).dashboard()
    assert again is t and again.view["panel"] == "keeper", "a cell run again shows the table as it stood"
    other = db.Campaign.open(keep(tmp_path, "scratch"))
    try:
        assert dashboard(other).model_id != SLOT, "only the campaign played in the table notebook takes the slot"
    finally:
        other.close()


def test_a_campaign_opened_again_takes_the_slot_from_the_closed_ones_table(tmp_path, fresh_kernel):
    folder = keep(tmp_path)
    first = playing(folder)
    old = first.dashboard()
    first.close()
    second = playing(folder)
    assert second is not first
    new = second.dashboard()
    assert new.model_id == SLOT and old.comm is None


def test_a_second_campaign_played_in_the_kernel_does_not_take_the_slot_from_the_first(tmp_path, fresh_kernel):
    a = playing(keep(tmp_path, "a")).dashboard()
    b = playing(keep(tmp_path, "b")).dashboard()
    assert a.model_id == SLOT and b.model_id != SLOT and a.comm is not None


# ---------------------------------------------------------------- a campaign open elsewhere

@pytest.fixture
def held_elsewhere(tmp_path):
    folder = keep(tmp_path)
    code = ("import os, sys, time, delvebook as db\n"
            f"c = db.Campaign.open({str(folder)!r})\n"
            "print('open', flush=True)\n"
            "sys.stdin.read()\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            env={**__import__("os").environ, "JPY_SESSION_NAME": str(tmp_path / "evening.ipynb")})
    assert proc.stdout.readline().strip() == b"open"
    yield folder, proc.pid
    proc.stdin.close()
    proc.wait(timeout=30)


def test_a_campaign_played_in_another_kernel_is_one_sentence_naming_its_notebook_and_the_ways_out(
        held_elsewhere, fresh_kernel):
    folder, pid = held_elsewhere
    assert holder.is_held(folder)
    with pytest.raises(holder.CampaignHeld) as caught:
        playing(folder)
    shown = caught.value._render_traceback_()  # what IPython shows in the notebook: this, not a traceback
    assert len(shown) == 1 and shown[0] == str(caught.value)
    said = shown[0]
    assert said.startswith(f"The Sunken Keep ({folder}) is open for play in the kernel of ")
    assert f"evening.ipynb (pid {pid})" in said
    assert f"db.Campaign.open({str(folder)!r}, read_only=True)" in said
    assert "shut that kernel down (in its notebook: Kernel \u25b8 Shut Down Kernel) and run this cell again" in said
    assert isinstance(caught.value, db.store.LockedError)  # what code catching the old error still catches


def test_delvebook_lab_says_in_one_sentence_who_plays_the_campaign_before_opening_jupyterlab(held_elsewhere,
                                                                                                 capsys):
    folder, pid = held_elsewhere
    cli._say_if_held(folder)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"(pid {pid})" in err[0] and "read_only=True" in err[0]
    assert err[0].endswith("and run the table notebook again.")


def test_a_campaign_no_one_holds_is_free_and_no_sentence_is_said(tmp_path, capsys):
    folder = keep(tmp_path)
    db.Campaign.open(folder).close()
    assert not holder.is_held(folder)
    cli._say_if_held(folder)
    assert capsys.readouterr().err == ""


# ---------------------------------------------------------------- the pages' extension trusts the slot, and only it

def test_the_table_notebook_shows_trusted_under_any_jupyter_server_only_while_it_holds_nothing_but_the_slot(
        tmp_path):
    """The players' pages' Jupyter server extension marks the table notebook's cells trusted as the contents
    manager reads it (what a reloaded page gets), while it is exactly as the table writes it; a notebook with any
    other output, or none, is left untrusted, and nothing is signed."""
    pytest.importorskip("jupyter_server")
    from jupyter_server.services.contents.filemanager import FileContentsManager
    from delvebook.pages.extension import trust_table_notebooks

    manager = FileContentsManager(root_dir=str(tmp_path))
    trust_table_notebooks(manager)
    shutil.copyfile(TABLE_NOTEBOOK, tmp_path / "table.ipynb")

    def trusted(name: str) -> list:
        nb = manager.get(name)["content"]
        return [c["metadata"].get("trusted") for c in nb["cells"] if c["cell_type"] == "code"]

    assert trusted("table.ipynb") == [True]
    nb = json.loads((tmp_path / "table.ipynb").read_text())
    slot.table_cell(nb)["outputs"].append({"output_type": "display_data", "metadata": {},
                                            "data": {"text/html": "<img src=x onerror=alert(1)>"}})
    (tmp_path / "look-alike.ipynb").write_text(json.dumps(nb))
    assert trusted("look-alike.ipynb") == [False], "a notebook carrying any other output stays untrusted"
    slot.table_cell(nb)["outputs"] = []
    (tmp_path / "empty.ipynb").write_text(json.dumps(nb))
    assert trusted("empty.ipynb") == [False], "a notebook without the table's output is not one the table wrote"
    nb = json.loads((tmp_path / "table.ipynb").read_text())
    nb["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]["delvebook-table"]["state"][
        "value"] = "<script>alert(1)</script>"
    (tmp_path / "other-state.ipynb").write_text(json.dumps(nb))
    assert trusted("other-state.ipynb") == [False], "a widget state other than the stand-in stays untrusted"
