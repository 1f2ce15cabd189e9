"""`delvebook lite`'s pieces without a build or a network: the notebook, Pyodide's lock cut to what ships, the
site's configuration, the command's errors, and the table's Download button under Pyodide."""
from __future__ import annotations

import hashlib
import json
import sys
import zipfile

import pytest

import delvebook as db
from delvebook import cli, lite
from delvebook.table.view import UI, table_view

from conftest import CAMPAIGNS


def _wheel(path, name):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(f"{name}/__init__.py", "")
    return path


def test_the_notebook_installs_the_table_from_the_site_and_opens_the_campaign_on_its_drive():
    nb = lite.notebook("the-sunken-keep", "The Sunken Keep")
    code = "".join(nb["cells"][1]["source"])
    assert code.splitlines()[0] == "%pip install -q delvebook[table]"
    assert "db.table.playing('the-sunken-keep')" in code and code.rstrip().endswith("camp.dashboard()")
    intro = "".join(nb["cells"][0]["source"])
    assert intro.startswith("# The Sunken Keep") and "stored in this browser only" in intro
    assert "Download" in intro and "analysis notebook" in intro
    assert nb["metadata"]["kernelspec"]["name"] == "python" and nb["nbformat"] == 4


def test_pyodides_lock_keeps_only_the_wheels_that_ship_beside_it_with_their_own_hashes(tmp_path):
    core = tmp_path / "core"
    core.mkdir()
    (core / "pyodide.mjs").write_text("// core")
    (core / "pyodide.js.map").write_text("{}")
    (core / "pyodide-lock.json").write_text(json.dumps({"info": {"python": "3.14.2"}, "packages": {
        "micropip": {"name": "micropip", "version": "0.11.1", "file_name": "micropip-0.11.1-py3-none-any.whl",
                     "sha256": "0" * 64, "package_type": "package", "depends": []},
        "numpy": {"name": "numpy", "version": "2.2", "file_name": "numpy-2.2-cp314-cp314-pyemscripten.whl",
                  "sha256": "1" * 64, "package_type": "package", "depends": []},
        "ipython": {"name": "ipython", "version": "9.12.0", "file_name": "ipython-9.12.0-py3-none-any.whl",
                    "sha256": "2" * 64, "package_type": "package", "depends": []}}}))
    wheel = _wheel(tmp_path / "micropip-0.11.1-py3-none-any.whl", "micropip")
    target = tmp_path / "site" / "static" / "pyodide"
    lite.lay_pyodide(core, {"micropip": wheel}, target)
    lock = json.loads((target / "pyodide-lock.json").read_text())
    assert list(lock["packages"]) == ["micropip"], "nothing is left for the kernel to ask a CDN for"
    assert lock["packages"]["micropip"]["sha256"] == hashlib.sha256(wheel.read_bytes()).hexdigest()
    assert (target / wheel.name).is_file() and (target / "pyodide.mjs").is_file()
    assert not (target / "pyodide.js.map").exists()
    assert lite._lock_pins(core) == ["micropip==0.11.1", "ipython==9.12.0"], "pure packages only"


def test_the_site_never_falls_back_to_pypi_and_asks_for_no_news():
    config = lite._config()["jupyter-config-data"]["litePluginSettings"]
    assert config["@jupyterlite/pyodide-kernel-extension:kernel"]["disablePyPIFallback"] is True
    assert lite._overrides()["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"


def test_lite_refuses_a_folder_that_is_no_campaign(tmp_path, capsys):
    pytest.importorskip("jupyterlite_core")
    assert cli.main(["lite", str(tmp_path), "-o", str(tmp_path / "site")]) == 2
    assert "no campaign here" in capsys.readouterr().err
    assert not (tmp_path / "site").exists()


def test_lite_is_in_the_command_line_help(capsys):
    with pytest.raises(SystemExit):
        cli.main(["lite", "--help"])
    out = capsys.readouterr().out
    assert "JupyterLite" in out and "-o DIR" in out


@pytest.fixture
def keep(tmp_path):
    import shutil
    shutil.copytree(CAMPAIGNS / "the-sunken-keep", tmp_path / "keep",
                    ignore=shutil.ignore_patterns(".delvebook.lock"))
    camp = db.Campaign.open(tmp_path / "keep")
    yield camp
    camp.close()


def test_under_pyodide_the_download_sits_in_the_tables_header(keep, monkeypatch):
    assert "save" not in table_view(keep, UI()), "elsewhere the table is as it was"
    monkeypatch.setattr(sys, "platform", "emscripten")
    save = table_view(keep, UI())["save"]
    assert save["intent"]["do"] == "download" and "Download" in save["label"]
    assert "stored in this browser only" in save["hint"]
    assert "save" not in table_view(keep, UI(mode="players")), "the players' view downloads nothing"
