"""What a person gets from `pip install`: the core with PyYAML alone, extras that each name themselves when
missing, a license, project links, and a wheel whose `delvebook lab` finds its session notebook.

The slow tests install into fresh virtual environments, as a person on a new machine would.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

from conftest import CAMPAIGNS, REPO, _free_port, build_wheel, cannot_run, copy_source, start_run_all
from delvebook.core.extras import EXTRAS

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[\s\[<>=!~;@]", r, maxsplit=1)[0].lower() for r in requirements}


# ---------------------------------------------------------------- what pyproject declares

def test_the_core_needs_only_pyyaml():
    assert _names(PROJECT["dependencies"]) == {"pyyaml"}


def test_each_extra_brings_the_modules_the_code_asks_for_it():
    extras = PROJECT["optional-dependencies"]
    for extra, modules in EXTRAS.items():
        assert set(modules) <= _names(extras[extra]), extra
    assert extras["all"] == ["delvebook[table,analysis,lab,players]"]
    assert "delvebook[all]" in extras["test"]


def test_license_urls_and_classifiers_are_declared():
    text = (REPO / "LICENSE").read_text()
    assert text.startswith("MIT License") and "Copyright (c)" in text and "the delvebook authors" in text
    assert PROJECT["license"] == "MIT" and PROJECT["license-files"] == ["LICENSE"]
    assert {"Homepage", "Source", "Issues"} <= set(PROJECT["urls"])
    assert all(u.startswith("https://") for u in PROJECT["urls"].values())
    assert "Framework :: Jupyter :: JupyterLab" in PROJECT["classifiers"]
    assert not [c for c in PROJECT["classifiers"] if c.startswith("License ::")]  # the SPDX expression says it


def test_the_packaged_session_is_made_from_its_one_source_and_never_kept_in_git():
    """A wheel's delvebook/session/ (what its `delvebook lab` and a campaign repository read) is copied from the
    repository as the wheel is built (setup.py); git keeps only the originals, and a checkout reads them."""
    from delvebook.share.session import ORIGINALS, PACKAGED, session_file
    tracked = subprocess.run(["git", "ls-files", "delvebook/session"], cwd=REPO, capture_output=True, text=True)
    assert tracked.returncode == 0 and tracked.stdout == ""
    assert not PACKAGED.exists()  # (a checkout, or an editable install of it)
    for name, source in ORIGINALS.items():
        assert session_file(name) == REPO / source and (REPO / source).exists(), name
    setup_py = (REPO / "setup.py").read_text()
    assert "build_py" in setup_py and "ORIGINALS" in setup_py
    manifest = (REPO / "MANIFEST.in").read_text()
    assert all(f"include {s}" in manifest or f"graft {s}" in manifest for s in ORIGINALS.values())


# ---------------------------------------------------------------- fresh environments (slow)

def _venv(path: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, timeout=300)
    return path / "bin" / "python"


def _pip(py: Path, *args: str, timeout: float = 900) -> None:
    out = subprocess.run([str(py), "-m", "pip", "install", "-q", *args], capture_output=True, text=True,
                         timeout=timeout)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]


LEAN_CHECK = r"""
import importlib.util, json, sys, tempfile
from pathlib import Path
import delvebook
delvebook.roll("d20")
folder = Path(tempfile.mkdtemp()) / "lean"
camp = delvebook.Campaign.create(folder, name="Lean", seed=1)
camp.add_delver("Wren", "rogue", player="Ana")
camp.start_session()
event = camp.check("Wren", "stealth", 12)
result = {"check": event.get("kind") if isinstance(event, dict) else type(event).__name__, "events": len(camp.events),
          "installed": [m for m in ("ipywidgets", "pandas", "plotly", "jupyterlab", "anywidget", "voila", "numpy")
                        if importlib.util.find_spec(m) is not None], "errors": {}}

def message(fn):
    try:
        fn()
    except ImportError as err:
        return f"{type(err).__name__}: {err}"
    return "no error"

import importlib
for module in ("analysis", "charts", "table", "share.export"):
    result["errors"][module] = message(lambda: importlib.import_module("delvebook." + module))
result["errors"]["report"] = message(
    lambda: importlib.import_module("delvebook.charts.report").write_report(folder, folder / "r.html"))
result["errors"]["players"] = message(
    lambda: importlib.import_module("delvebook.table.screen").player_widget(folder))
result["errors"]["dashboard"] = message(camp.dashboard)
camp.close()
result["campaign"] = str(folder)
print(json.dumps(result))
"""


@pytest.mark.slow
def test_the_core_installs_alone_and_each_view_names_its_extra(tmp_path):
    source = copy_source(tmp_path / "src")
    py = _venv(tmp_path / "venv")
    _pip(py, str(source))  # pip install . : the core only
    out = subprocess.run([str(py), "-c", LEAN_CHECK], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["installed"] == []
    assert result["events"] >= 2  # the session began, the check was rolled
    extra_of = {"analysis": "analysis", "charts": "analysis", "share.export": "analysis", "report": "analysis",
                "table": "table", "dashboard": "table", "players": "table"}  # the second screen's widget is a table
    for what, extra in extra_of.items():
        error = result["errors"][what]
        assert error.startswith("MissingExtra: ") and f"pip install 'delvebook[{extra}]'" in error, (what, error)
    bin_ = py.parent
    campaign = result["campaign"]
    for args, extra in [(["report", campaign, "-o", str(tmp_path / "r.html")], "analysis"),
                        (["export", campaign, "--parquet", str(tmp_path / "pq")], "analysis"),
                        (["lab"], "lab"), (["players", campaign], "players")]:
        run = subprocess.run([str(bin_ / "delvebook"), *args], capture_output=True, text=True, timeout=120,
                             cwd=tmp_path)
        assert run.returncode == 2, (args, run.stdout, run.stderr)
        assert f"pip install 'delvebook[{extra}]'" in run.stderr and "Traceback" not in run.stderr, (args, run.stderr)
    for args in (["roll", "d20"], ["validate", campaign], ["--version"]):
        run = subprocess.run([str(bin_ / "delvebook"), *args], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, (args, run.stderr)


@pytest.mark.slow
def test_delvebook_lab_from_a_wheel_opens_the_packaged_session_notebook(tmp_path, delvebook_wheel):
    wheel = delvebook_wheel
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        metadata = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert {"delvebook/session/run-a-session.ipynb", "delvebook/session/the-sunken-keep/campaign.yaml"} <= names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "Project-URL: Source, https://" in metadata and "License-Expression: MIT" in metadata
    py = _venv(tmp_path / "venv")
    _pip(py, f"{wheel}[lab]")
    work = tmp_path / "home"
    work.mkdir()
    port = _free_port()
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp_path / "jcfg"), JUPYTER_DATA_DIR=str(tmp_path / "jdata"),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "jrun"), IPYTHONDIR=str(tmp_path / "ipython"))
    env.pop("DELVEBOOK_CAMPAIGN", None)
    log = open(tmp_path / "lab.log", "w")
    proc = subprocess.Popen([str(py.parent / "delvebook"), "lab", "--no-browser", f"--port={port}",
                             "--ServerApp.ip=127.0.0.1", "--IdentityProvider.token=", "--ServerApp.password="],
                            cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}/api/contents/examples/run-a-session.ipynb"
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(url, timeout=5) as r:
                    served = json.loads(r.read())
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise AssertionError((tmp_path / "lab.log").read_text()[-3000:])
                time.sleep(0.5)
    finally:
        os.killpg(os.getpgid(proc.pid), signal.SIGTERM)
        proc.wait(timeout=30)
        log.close()
    text = (tmp_path / "lab.log").read_text()
    assert "cannot find" not in text
    assert served["type"] == "notebook" and served["name"] == "run-a-session.ipynb"
    assert (work / "delvebook-lab" / "campaigns" / "the-sunken-keep" / "campaign.yaml").is_file()


@pytest.mark.slow
@pytest.mark.browser
def test_from_a_wheel_new_then_lab_lands_on_the_campaigns_own_table(tmp_path, delvebook_wheel, browser, artifacts):
    """A fresh venv with the wheel: the players' pages are switched on in its Jupyter servers; `delvebook new
    club-night` then `delvebook lab club-night` opens the campaign's own table notebook (what JupyterLab's launch
    page sends a browser to), headed "Club Night", the campaign's files in the file browser, and Run All shows the
    table of club-night."""
    with zipfile.ZipFile(delvebook_wheel) as z:
        assert any(n.endswith(".data/data/etc/jupyter/jupyter_server_config.d/delvebook.json") for n in z.namelist())
    py = _venv(tmp_path / "venv")
    _pip(py, f"{delvebook_wheel}[lab,players]")
    assert (tmp_path / "venv" / "etc" / "jupyter" / "jupyter_server_config.d" / "delvebook.json").is_file()
    work = tmp_path / "home"
    work.mkdir()
    bin_ = py.parent
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp_path / "jcfg"), JUPYTER_DATA_DIR=str(tmp_path / "jdata"),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "jrun"), IPYTHONDIR=str(tmp_path / "ipython"))
    env.pop("DELVEBOOK_CAMPAIGN", None)
    (tmp_path / "jcfg" / "labconfig").mkdir(parents=True)  # the news toast would cover the page
    (tmp_path / "jcfg" / "labconfig" / "page_config.json").write_text(json.dumps(
        {"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}}))
    made = subprocess.run([str(bin_ / "delvebook"), "new", "club-night"], cwd=work, env=env, capture_output=True,
                          text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    assert "next: delvebook lab club-night" in made.stdout
    port = _free_port()
    log = open(tmp_path / "lab.log", "w")
    proc = subprocess.Popen([str(bin_ / "delvebook"), "lab", "club-night", "--no-browser", f"--port={port}",
                             "--ServerApp.ip=127.0.0.1", "--IdentityProvider.token=", "--ServerApp.password=",
                             "--LabApp.news_url=None"]
                            + (["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []),
                            cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.set_default_timeout(90_000)
    try:
        deadline = time.monotonic() + 120
        while not list((tmp_path / "jrun").glob("jpserver-*-open.html")):
            assert time.monotonic() < deadline and proc.poll() is None, (tmp_path / "lab.log").read_text()[-3000:]
            time.sleep(0.5)
        time.sleep(1)
        sent = [re.search(r'href="([^"]+)"', f.read_text()).group(1)
                for f in (tmp_path / "jrun").glob("jpserver-*-open.html")]
        landing = next((u for u in sent if u.endswith("/lab/tree/club-night.ipynb")), None)
        assert landing is not None, sent
        start_run_all(page, landing)
        heading = page.locator(".jp-MarkdownOutput h1").first
        assert heading.inner_text().startswith("Club Night: the keeper's table")
        listed = page.locator(".jp-DirListing-itemName").all_inner_texts()
        assert {"club-night", "club-night.ipynb"} <= {x.strip() for x in listed}, listed
        title = page.locator(".jp-OutputArea-output .db-table .db-title").first
        title.wait_for(state="visible")
        assert title.inner_text() == "Club Night"
        page.screenshot(path=str(artifacts / "wheel-club-night-table.png"))
    finally:
        page.close()
        os.killpg(os.getpgid(proc.pid), signal.SIGTERM)
        proc.wait(timeout=30)
        log.close()


def _members(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as z:
        return {n: z.read(n) for n in z.namelist() if not n.endswith(("/RECORD", "/WHEEL"))}


@pytest.mark.slow
def test_delvebook_lite_from_a_wheel_install_with_only_the_lite_extra_builds_the_site(tmp_path, delvebook_wheel):
    if shutil.which("npm") is None:
        cannot_run("npm is not installed (Debian: apt-get install npm): the site takes Pyodide from npm")
    wheel = delvebook_wheel
    py = _venv(tmp_path / "venv")
    _pip(py, f"{wheel}[lite]")
    work = tmp_path / "elsewhere"  # no checkout anywhere near
    work.mkdir()
    run = subprocess.run([str(py.parent / "delvebook"), "lite", str(CAMPAIGNS / "the-sunken-keep"), "-o", "site"],
                         cwd=work, capture_output=True, text=True, timeout=1800)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    shipped, = (work / "site" / "pypi").glob("delvebook-*.whl")
    assert _members(shipped) == _members(wheel), "the site's wheel is the installed one, file for file"
    with zipfile.ZipFile(shipped) as z:
        record = z.read(next(n for n in z.namelist() if n.endswith("/RECORD"))).decode()
        assert "Root-Is-Purelib: true" in z.read(next(n for n in z.namelist() if n.endswith("/WHEEL"))).decode()
    assert all(line.endswith(",,") or ",sha256=" in line for line in record.splitlines())
    assert (work / "site" / "delvebook-site.json").is_file()
    installed = subprocess.run([str(py), "-m", "pip", "list", "--format=freeze"], capture_output=True, text=True,
                               check=True).stdout.lower()
    assert "jupyterlite-core==" in installed and not re.search(r"^(pandas|jupyterlab|ipywidgets)==", installed,
                                                               re.MULTILINE), "the lite extra brings the build only"


@pytest.mark.slow
def test_the_sdist_ships_no_tests_and_builds_the_wheel_the_checkout_builds(tmp_path, delvebook_wheel):
    source = copy_source(tmp_path / "src")
    built = subprocess.run([sys.executable, "-m", "build", "--sdist", "-o", str(tmp_path / "sdist"), str(source)],
                           capture_output=True, text=True, timeout=900)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-3000:]
    sdist, = (tmp_path / "sdist").glob("delvebook-*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = [n.split("/", 1)[1] for n in tar.getnames() if "/" in n]
    assert not [n for n in names if n.startswith(("tests/", "bench/", "scripts/")) or n.endswith("conftest.py")], \
        "the sdist runs no tests of its own, so it ships none (they run from a clone: make test)"
    assert {"README.md", "LICENSE", "pyproject.toml", "setup.py", "delvebook/__init__.py",
            "binder/constraints.txt", "examples/run-a-session.ipynb", "campaigns/the-sunken-keep/campaign.yaml"
            } <= set(names)  # the sources the build step copies into the wheel
    from_sdist = build_wheel(sdist, tmp_path / "from-sdist")
    assert _members(from_sdist) == _members(delvebook_wheel)  # the wheel the checkout builds
