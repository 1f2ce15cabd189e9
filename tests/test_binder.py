"""Binder, simulated: a fresh virtual environment built only from binder/ (as repo2docker would) runs every
example notebook cleanly and serves JupyterLab at the badge's URL path. The same for a campaign repository
made by `delvebook new --repo`."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from conftest import REPO, _free_port

pytestmark = pytest.mark.slow

_EXECUTE = r"""
import sys, nbformat
from nbclient import NotebookClient
for path in sys.argv[1:]:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(__import__("pathlib").Path(path).parent)}}).execute()
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, (path, errors)
    print("ran", path, flush=True)
"""


def _copy_repo(dest: Path) -> Path:
    shutil.copytree(REPO, dest, ignore=shutil.ignore_patterns(
        ".git", ".venv", "__pycache__", "*.egg-info", "artifacts", ".hypothesis", "play", ".delvebook.lock",
        ".ipynb_checkpoints"))
    return dest


def _build_like_repo2docker(repo: Path, venv: Path) -> Path:
    """python -m venv, then what repo2docker does with binder/: pip install -r requirements.txt, postBuild."""
    binder = repo / "binder"
    assert (binder / "requirements.txt").is_file()
    runtime = (binder / "runtime.txt").read_text().strip()
    assert re.fullmatch(r"python-3\.\d+", runtime), runtime
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "-r", str(binder / "requirements.txt")],
                   cwd=repo, check=True, timeout=1800)
    if (binder / "postBuild").exists():
        env = dict(os.environ, PATH=f"{venv / 'bin'}:{os.environ['PATH']}")
        subprocess.run(["bash", str(binder / "postBuild")], cwd=repo, env=env, check=True, timeout=600)
    return py


def _run_notebooks(py: Path, notebooks: list[Path], home: Path) -> None:
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(home / "config"), JUPYTER_DATA_DIR=str(home / "data"),
               JUPYTER_RUNTIME_DIR=str(home / "runtime"), PYTHONPATH="")
    env.pop("DELVEBOOK_CAMPAIGN", None)
    out = subprocess.run([str(py), "-c", _EXECUTE, *map(str, notebooks)], env=env, capture_output=True,
                         text=True, timeout=1200)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]


def _serves(py: Path, root: Path, urlpath: str, home: Path) -> None:
    port = _free_port()
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(home / "config"), JUPYTER_DATA_DIR=str(home / "data"),
               JUPYTER_RUNTIME_DIR=str(home / "runtime"))
    args = [str(py), "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1",
            "--ServerApp.token=", "--ServerApp.password=", f"--ServerApp.root_dir={root}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--allow-root")
    log = open(home / "lab.log", "w")
    proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}/{urlpath}"
        deadline = time.time() + 120
        while True:
            try:
                with urllib.request.urlopen(url, timeout=5) as r:
                    body = r.read().decode("utf-8", "replace")
                    assert r.status == 200 and "JupyterLab" in body
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                if time.time() > deadline or proc.poll() is not None:
                    raise AssertionError((home / "lab.log").read_text()[-3000:])
                time.sleep(0.5)
        notebook = urlpath.removeprefix("lab/tree/")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/contents/{notebook}", timeout=10) as r:
            assert r.status == 200
    finally:
        os.killpg(os.getpgid(proc.pid), signal.SIGTERM)
        proc.wait(timeout=30)
        log.close()


def _badge_urlpath(readme: str) -> str:
    link = re.search(r"\(https://mybinder\.org/v2/[^)]*\)", readme).group(0)[1:-1]
    return urllib.parse.unquote(urllib.parse.parse_qs(urllib.parse.urlparse(link).query)["urlpath"][0])


def test_binder_folder_builds_runs_every_example_and_serves_the_badge_path(tmp_path):
    repo = _copy_repo(tmp_path / "repo")
    py = _build_like_repo2docker(repo, tmp_path / "venv")
    notebooks = sorted((repo / "examples").glob("*.ipynb"))
    assert notebooks
    _run_notebooks(py, notebooks, tmp_path)
    urlpath = _badge_urlpath((REPO / "README.md").read_text())
    assert urlpath == "lab/tree/examples/run-a-session.ipynb"
    _serves(py, repo, urlpath, tmp_path)


def test_a_campaign_repository_from_delvebook_new_repo_launches_the_same_way(tmp_path):
    source = _copy_repo(tmp_path / "delvebook-src")
    camp_repo = tmp_path / "salt-roads"
    out = subprocess.run([sys.executable, "-m", "delvebook", "new", str(camp_repo), "--repo", "--name", "Salt Roads",
                          "--requirement", f"delvebook @ {source.as_uri()}"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    for f in ("campaign.yaml", "log.yaml", "session.ipynb", "binder/requirements.txt", "README.md"):
        assert (camp_repo / f).is_file(), f
    py = _build_like_repo2docker(camp_repo, tmp_path / "venv")
    _run_notebooks(py, [camp_repo / "session.ipynb"], tmp_path)
    subprocess.run(["git", "init", "-q", str(camp_repo)], check=True)
    subprocess.run(["git", "-C", str(camp_repo), "remote", "add", "origin", "https://github.com/ana/salt-roads.git"],
                   check=True)
    share = subprocess.run([sys.executable, "-m", "delvebook", "share", str(camp_repo)], capture_output=True, text=True)
    assert share.returncode == 0, share.stderr
    assert "https://mybinder.org/v2/gh/ana/salt-roads/HEAD?urlpath=lab/tree/session.ipynb" in share.stdout
    _serves(py, camp_repo, _badge_urlpath(share.stdout), tmp_path)
