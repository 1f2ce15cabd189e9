"""`delvebook lite`'s pieces without a build or a network: the notebook, Pyodide's lock cut to what ships, the
site's configuration, the command's errors, and the table's Download button under Pyodide."""
from __future__ import annotations

import hashlib
import json
import sys
import zipfile

import pytest

import delvebook as db
from delvebook.cli import commands as cli
from delvebook.share import lite
from delvebook.view import UI, table_view

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


# ---------------------------------------------------------------- the output folder and what the site carries

def _a_repository(tmp_path):
    """A keeper's repository: git, notes, and the campaign folder with a secret linked in, a linked folder and a
    hidden file."""
    import shutil
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (repo / "notes.md").write_text("the keeper's notes")
    keep = repo / "my-keep"
    shutil.copytree(CAMPAIGNS / "the-sunken-keep", keep, ignore=shutil.ignore_patterns(".delvebook.lock"))
    (tmp_path / "id_rsa").write_text("PRIVATE KEY")
    (keep / "notes.txt").symlink_to(tmp_path / "id_rsa")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "plans.txt").write_text("secret plans")
    (keep / "linked").symlink_to(tmp_path / "elsewhere")
    (keep / ".keeper-private.txt").write_text("keeper only")
    return repo, keep


def _tree(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_lite_refuses_to_build_into_a_repository_and_removes_nothing(tmp_path, capsys, monkeypatch):
    pytest.importorskip("jupyterlite_core")
    repo, keep = _a_repository(tmp_path)
    before = _tree(repo)
    monkeypatch.chdir(repo)
    assert cli.main(["lite", "my-keep", "-o", "."]) == 2
    err = capsys.readouterr().err
    assert ".git, my-keep, notes.md" in err and "nothing was written" in err
    assert _tree(repo) == before


def test_the_site_carries_the_campaigns_own_files_only(tmp_path):
    _, keep = _a_repository(tmp_path)
    files = tmp_path / "files"
    assert lite._campaign_files(keep, files) == "The Sunken Keep"
    assert _tree(files) == ["my-keep", "my-keep/campaign.yaml", "my-keep/log.yaml"]


@pytest.fixture
def fake_build(monkeypatch):
    """lite.build with the downloads and JupyterLite's own build replaced by a copy of the contents: what is
    left is what delvebook decides (the output folder, the campaign's files, the notebook, the mark)."""
    import shutil

    def run(cmd, what, env=None, cwd=None):
        config = json.loads((cwd / "jupyter_lite_config.json").read_text())["LiteBuildConfig"]
        out = lite.Path(config["output_dir"])
        shutil.copytree(config["contents"][0], out / "files")
        (out / "index.html").write_text("<!doctype html>")
        return ""
    monkeypatch.setattr(lite, "pyodide_core", lambda cache, log=None: cache)
    monkeypatch.setattr(lite, "wheels", lambda cache, core, log=None: ([], {}, []))
    monkeypatch.setattr(lite, "pure_pyyaml", lambda cache, log=None: cache / "pyyaml.whl")
    monkeypatch.setattr(lite, "delvebook_wheel", lambda dest: dest / "delvebook.whl")
    monkeypatch.setattr(lite, "lay_pyodide", lambda core, wheels, target: None)
    monkeypatch.setattr(lite, "_run", run)


def test_lite_replaces_its_own_site_whole_and_refuses_it_once_it_holds_a_git_folder(tmp_path, fake_build):
    pytest.importorskip("jupyterlite_core")
    _, keep = _a_repository(tmp_path)
    site = tmp_path / "site"
    lite.build(keep, site, cache=tmp_path / "cache", log=None)
    mark = json.loads((site / lite.MARK).read_text())
    assert mark["built_by"] == "delvebook lite" and mark["entries"] == ["delvebook-site.json", "files", "index.html"]
    assert _tree(site / "files") == ["my-keep", "my-keep/campaign.yaml", "my-keep/log.yaml", lite.NOTEBOOK]
    (site / "files" / "stale.txt").write_text("from an older build")
    first = site.stat().st_ino
    lite.build(keep, site, cache=tmp_path / "cache", log=None)
    assert site.stat().st_ino != first and not (site / "files" / "stale.txt").exists(), "replaced whole"
    (site / ".git").mkdir()  # the keeper made the site a repository to publish it
    with pytest.raises(lite.LiteError, match=r"holds \.git, which delvebook did not put there"):
        lite.build(keep, site, cache=tmp_path / "cache", log=None)
    assert (site / ".git").is_dir() and (site / "index.html").is_file()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".site.")) == []


def test_the_sites_notebook_shows_a_campaigns_name_as_text(tmp_path):
    mistune = pytest.importorskip("mistune")
    nb = lite.notebook("keep`s <b>", "<img src=x onerror=alert(1)> [a](http://evil)\n# Two")
    out = mistune.html("".join(nb["cells"][0]["source"]))
    assert out.count("<h1>") == 1 and "<img" not in out and "<b>" not in out and 'href="http://evil"' not in out
    assert "&lt;img src=x onerror=alert(1)&gt; [a](http://evil)\\n# Two: the keeper" in out
    assert "<code>keep`s &lt;b&gt;</code>" in out
    assert "db.table.playing('keep`s <b>')" in "".join(nb["cells"][1]["source"])


@pytest.mark.slow
def test_the_sites_wheel_is_built_from_a_copy_of_the_checkout_so_nothing_an_earlier_build_left_ships(tmp_path,
                                                                                                    monkeypatch):
    # a checkout whose build/ holds a module an earlier build copied there and the source has since lost
    root = tmp_path / "checkout"
    (root / "delvebook").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "delvebook"\nversion = "0.0.1"\n\n'
                                         '[tool.setuptools.packages.find]\ninclude = ["delvebook*"]\n')
    (root / "delvebook" / "__init__.py").write_text("")
    (root / "build" / "lib" / "delvebook").mkdir(parents=True)
    (root / "build" / "lib" / "delvebook" / "gone.py").write_text("print('a module the source no longer has')\n")
    before = sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
    monkeypatch.setattr(lite, "_checkout", lambda: root)
    wheel = lite.delvebook_wheel(tmp_path / "wheels")
    names = zipfile.ZipFile(wheel).namelist()
    assert "delvebook/__init__.py" in names and "delvebook/gone.py" not in names, names
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) == before, "the checkout was written into"
