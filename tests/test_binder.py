"""Binder, simulated: repo2docker renders the image's Dockerfile from binder/ (no Docker needed), and a fresh
virtual environment is built by following that Dockerfile's steps in order, starting from what repo2docker's base
image holds (its frozen conda environment, read from the lock file the Dockerfile copies in, installed from PyPI at
the same versions): what it copies before the repository (binder/requirements.txt alone), the steps that run there,
then the whole repository and the steps after it. The environment `pip check`s clean, holds nothing unpinned, runs
every example notebook and serves JupyterLab at the badge's URL path. The same for a campaign repository made by
`delvebook new --repo`.
"""

from __future__ import annotations

import importlib.util
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
from importlib.metadata import version
from pathlib import Path

import pytest
from packaging.version import Version

from conftest import REPO, _free_port, cannot_run

REPO2DOCKER = "2026.4.0"
"""The repo2docker whose rules the tests check (mybinder.org runs a recent one): the test extra pins it; bump both
on purpose, then run `make binder-constraints`."""
BINDER = REPO / "binder"
_spec = importlib.util.spec_from_file_location("binder_constraints", REPO / "scripts" / "binder_constraints.py")
pinning = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pinning)

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
        ".git", ".venv", "__pycache__", "*.egg-info", "build", "dist", "artifacts", ".hypothesis", "play",
        ".delvebook.lock", ".ipynb_checkpoints"))
    return dest


# ---------------------------------------------------------------- repo2docker itself

def _dockerfile(repo: Path) -> str:
    """The Dockerfile repo2docker would build ``repo`` with (the test extra's repo2docker, ``--no-build``)."""
    if importlib.util.find_spec("repo2docker") is None:
        cannot_run("jupyter-repo2docker is not installed: pip install '.[test]' (make test does)")
    assert version("jupyter-repo2docker") == REPO2DOCKER
    text = pinning.dockerfile(repo)
    assert "COPY --chown" in text, text[-2000:]
    return text


@pytest.fixture(scope="module")
def rendered() -> str:
    return _dockerfile(REPO)


def _instructions(dockerfile: str) -> list[str]:
    """The Dockerfile's instructions, continuation lines joined, comments and blank lines left out."""
    lines, current = [], ""
    for line in dockerfile.splitlines():
        if not current and (not line.strip() or line.lstrip().startswith("#")):
            continue
        current += line.rstrip()
        if current.endswith("\\"):
            current = current[:-1] + " "
            continue
        lines.append(current.strip())
        current = ""
    return lines


_COPY_REPO = re.compile(r"^COPY (?:--\S+ )*src/ \$\{REPO_DIR\}/$")
_COPY_FILE = re.compile(r"^COPY (?:--\S+ )*src/(\S+) \$\{REPO_DIR\}/(\S+)$")


def _repository_steps(dockerfile: str) -> list[tuple[str, str]]:
    """What touches the repository, in order: ("copy", path) for a file copied in before the repository,
    ("copy", "") for the whole repository, ("run", command) for a step that uses binder/."""
    steps = []
    for ins in _instructions(dockerfile):
        if _COPY_REPO.match(ins):
            steps.append(("copy", ""))
        elif m := _COPY_FILE.match(ins):
            assert m.group(1) == m.group(2), ins
            steps.append(("copy", m.group(1)))
        elif ins.startswith("RUN ") and "binder/" in ins:
            steps.append(("run", ins[4:]))
    return steps


def test_repo2docker_installs_binder_requirements_after_copying_the_repository(rendered, tmp_path):
    steps = _repository_steps(rendered)
    copy_all = steps.index(("copy", ""))
    installs = [i for i, (kind, cmd) in enumerate(steps) if kind == "run" and "requirements.txt" in cmd]
    assert installs and all(i > copy_all for i in installs), steps
    # the check can fail: the two bytes ".\n" binder/ held before are installed before the copy, where "." is
    # not there yet (repo2docker guesses their encoding and misses the local reference)
    old = _copy_repo(tmp_path / "old")
    (old / "binder" / "requirements.txt").write_bytes(b".\n")
    steps = _repository_steps(_dockerfile(old))
    first_install = next(i for i, (kind, cmd) in enumerate(steps) if kind == "run" and "requirements.txt" in cmd)
    assert first_install < steps.index(("copy", "")), steps


def test_binder_pins_keep_every_version_repo2dockers_base_image_brings(rendered):
    """pip installs binder/ into the base image's own environment: a pin that moves one of its packages can
    break another of them (Notebook 7.4.7 requires jupyterlab<4.5; a pin of 4.6.6 failed `pip check`)."""
    lock = pinning.base_lock(rendered)
    base = pinning.base_packages(lock)
    runtime = (BINDER / "runtime.txt").read_text().strip().removeprefix("python-")
    assert lock.name == f"environment.py-{runtime}-linux-64.lock"
    assert {"notebook", "jupyterlab", "jupyterhub", "ipykernel"} <= set(base)
    pins = pinning.pins((BINDER / "constraints.txt").read_text())
    moved = {n: (v, pins[n]) for n, v in base.items() if n in pins and pins[n] != v}
    assert not moved, f"pinned away from the base image's version (run `make binder-constraints`): {moved}"
    assert not set(base) - set(pins), "every package in the image is pinned, the base's own too"
    assert Version(pins["jupyterlab"]) < Version("4.5"), "what the base's Notebook 7.4.7 requires"


def test_binder_installs_only_pinned_versions_and_new_repositories_get_the_same_pins():
    lines = [l.split("#", 1)[0].strip() for l in (BINDER / "requirements.txt").read_text().splitlines()]
    assert "-c constraints.txt" in lines
    pins = [l for l in (BINDER / "constraints.txt").read_text().splitlines() if l and not l.startswith("#")]
    assert pins and all(re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*==[^\s=]+", p) for p in pins), pins
    names = {pinning.norm(p.split("==")[0]) for p in pins}
    assert {"ipywidgets", "anywidget", "pandas", "plotly", "pyarrow", "jupyterlab", "pyyaml", "duckdb"} <= names
    assert "delvebook" not in names  # delvebook is this checkout
    assert not names & pinning.NOT_PINNED  # the venv's own installer
    runtime = (BINDER / "runtime.txt").read_text().strip()
    assert f"on Python {runtime.removeprefix('python-')}." in (BINDER / "constraints.txt").read_text()
    from delvebook.share.session import session_file
    assert session_file("binder-constraints.txt") == BINDER / "constraints.txt"  # a checkout reads the one source


# ---------------------------------------------------------------- the environment, built as the Dockerfile says

def _python_for(repo: Path) -> str:
    """The Python binder/runtime.txt names (repo2docker's kernel), found on PATH."""
    version = (repo / "binder" / "runtime.txt").read_text().strip().removeprefix("python-")
    assert re.fullmatch(r"3\.\d+", version), version
    if f"{sys.version_info.major}.{sys.version_info.minor}" == version:
        return sys.executable
    found = shutil.which(f"python{version}")
    if found is None:
        cannot_run(f"binder/runtime.txt asks for Python {version}, and there is no python{version} here")
    return found


class _Bases:
    """repo2docker's base image environments installed for this module's tests, by their Python and packages."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.venvs: dict[tuple, Path] = {}


@pytest.fixture(scope="module")
def base_images(tmp_path_factory) -> _Bases:
    return _Bases(tmp_path_factory.mktemp("binder-base"))


def _base_image(bases: _Bases, venv: Path, python: str, base: dict[str, str]) -> Path:
    """A venv at ``venv`` holding what repo2docker's base image holds (``pinning.image_venv``). Each base (a Python and
    its packages at their versions) is installed once for the module and copied for each build, as Docker builds
    every image on the one base layer: the two builds here start from the same base, and installing its 128
    packages took about 22 s each time. The copy's scripts and pyvenv.cfg are pointed at the copy, so what a build
    installs goes into its own venv; nothing else in a venv names its folder."""
    key = (python, tuple(sorted(base.items())))
    if key not in bases.venvs:
        try:
            py = pinning.image_venv(bases.folder / f"base{len(bases.venvs)}", python, base)
        except RuntimeError as err:
            raise AssertionError(f"the base image's packages did not install: {err}") from None
        bases.venvs[key] = py.parent.parent
    source = bases.venvs[key]
    shutil.copytree(source, venv, symlinks=True)
    old, new = str(source).encode(), str(venv).encode()
    for file in [venv / "pyvenv.cfg", *(venv / "bin").iterdir()]:
        if file.is_file() and not file.is_symlink() and old in (data := file.read_bytes()):
            file.write_bytes(data.replace(old, new))
    left = [f.name for f in [venv / "pyvenv.cfg", *(venv / "bin").iterdir()]
            if f.is_file() and not f.is_symlink() and old in f.read_bytes()]
    assert not left, f"still naming the base's folder: {left}"
    return venv / "bin" / "python"


def _build_like_repo2docker(repo: Path, venv: Path, stage: Path, bases: _Bases) -> Path:
    """A venv built by following repo2docker's Dockerfile for ``repo``: first what its base image holds (the
    Python packages of the conda lock it copies in, at their versions, from PyPI: ``_base_image``), then into an
    empty ``stage`` (the image's REPO_DIR) the files it copies first, its steps that run there, then the whole
    repository and the steps after that (pip install -r binder/requirements.txt, postBuild)."""
    dockerfile = _dockerfile(repo)
    steps = _repository_steps(dockerfile)
    assert ("copy", "") in steps, steps
    py = _base_image(bases, venv, _python_for(repo), pinning.base_packages(pinning.base_lock(dockerfile)))
    stage.mkdir()
    env = dict(os.environ, KERNEL_PYTHON_PREFIX=str(venv), NB_PYTHON_PREFIX=str(venv), REPO_DIR=str(stage),
               PATH=f"{venv / 'bin'}:{os.environ['PATH']}")
    for kind, arg in steps:
        if kind == "copy" and arg:
            (stage / arg).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(repo / arg, stage / arg)
        elif kind == "copy":
            shutil.copytree(repo, stage, dirs_exist_ok=True, ignore=shutil.ignore_patterns(
                ".git", ".venv", "__pycache__", "*.egg-info", "build", "dist"))
        else:
            out = subprocess.run(["bash", "-c", arg], cwd=stage, env=env, capture_output=True, text=True,
                                 timeout=1800)
            assert out.returncode == 0, f"{arg}\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}"
    return py


def _assert_pip_checks_and_pins_everything(py: Path, constraints: Path) -> None:
    check = subprocess.run([str(py), "-m", "pip", "check"], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    frozen = pinning.pins(subprocess.run([str(py), "-m", "pip", "freeze", "--exclude", "delvebook"],
                                         capture_output=True, text=True, check=True).stdout)
    pins = pinning.pins(constraints.read_text())
    unpinned = sorted(f"{n}=={v}" for n, v in frozen.items() if n not in pinning.NOT_PINNED and pins.get(n) != v)
    assert not unpinned, f"installed but not pinned (run `make binder-constraints`): {unpinned}"


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


@pytest.mark.slow
def test_binder_folder_builds_pip_checks_runs_every_example_and_serves_the_badge_path(tmp_path, base_images):
    repo = _copy_repo(tmp_path / "repo")
    py = _build_like_repo2docker(repo, tmp_path / "venv", tmp_path / "image", base_images)
    _assert_pip_checks_and_pins_everything(py, BINDER / "constraints.txt")
    notebooks = sorted((tmp_path / "image" / "examples").glob("*.ipynb"))
    assert {"run-a-session.ipynb", "query-many-campaigns.ipynb"} <= {n.name for n in notebooks}
    _run_notebooks(py, notebooks, tmp_path)
    urlpath = _badge_urlpath((REPO / "README.md").read_text())
    assert urlpath == "lab/tree/examples/run-a-session.ipynb"
    _serves(py, tmp_path / "image", urlpath, tmp_path)


@pytest.mark.slow
def test_a_campaign_repository_from_delvebook_new_repo_launches_the_same_way(tmp_path, base_images):
    source = _copy_repo(tmp_path / "delvebook-src")
    camp_repo = tmp_path / "salt-roads"
    out = subprocess.run([sys.executable, "-m", "delvebook", "new", str(camp_repo), "--repo", "--name", "Salt Roads",
                          "--requirement", f"delvebook[table,analysis,lab] @ {source.as_uri()}"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    for f in ("campaign.yaml", "log.yaml", "session.ipynb", "binder/requirements.txt", "README.md"):
        assert (camp_repo / f).is_file(), f
    py = _build_like_repo2docker(camp_repo, tmp_path / "venv", tmp_path / "image", base_images)
    _assert_pip_checks_and_pins_everything(py, camp_repo / "binder" / "constraints.txt")
    _run_notebooks(py, [tmp_path / "image" / "session.ipynb"], tmp_path)
    subprocess.run(["git", "init", "-q", str(camp_repo)], check=True)
    subprocess.run(["git", "-C", str(camp_repo), "remote", "add", "origin", "https://github.com/ana/salt-roads.git"],
                   check=True)
    share = subprocess.run([sys.executable, "-m", "delvebook", "share", str(camp_repo)], capture_output=True, text=True)
    assert share.returncode == 0, share.stderr
    assert "https://mybinder.org/v2/gh/ana/salt-roads/HEAD?urlpath=lab/tree/session.ipynb" in share.stdout
    _serves(py, tmp_path / "image", _badge_urlpath(share.stdout), tmp_path)
