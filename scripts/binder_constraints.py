"""Pin Binder's versions together with what repo2docker's base image already holds.

repo2docker (what mybinder.org runs) builds the image from a frozen conda environment of its own (JupyterLab,
Notebook 7, JupyterHub's single-user server, ...: a lock file shipped inside the repo2docker package), then runs
``pip install -r binder/requirements.txt`` into that same environment. Pins resolved in an empty venv clash with
it (Notebook 7.4.7 requires jupyterlab<4.5; pins made alone chose 4.6.6, and ``pip check`` failed in the image).

So this script: renders the Dockerfile repo2docker would build for the repository (``--no-build``, no Docker
needed), reads the base environment's lock that the Dockerfile copies in, installs those packages at their locked
versions into a fresh venv on binder/runtime.txt's Python (the image as repo2docker leaves it), installs
binder/requirements.txt there with the base's versions as constraints (so nothing the base brings moves), runs
``pip check``, and writes what is installed to binder/constraints.txt and its packaged copy (what ``delvebook new
--repo`` gives a campaign repository).

Run: ``make binder-constraints`` (needs the test extra, which brings jupyter-repo2docker, and network access).
"""
from __future__ import annotations

import argparse
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BINDER = ROOT / "binder"

# conda-forge names whose PyPI distribution is named otherwise
CONDA_TO_PYPI = {"brotli-python": "brotli", "python-fastjsonschema": "fastjsonschema", "nbconvert-core": "nbconvert",
                 "jupyterhub-base": "jupyterhub"}
NOT_PINNED = {"pip", "setuptools", "wheel"}
"""The installer's own tools: every venv has its own, and pip never pins them."""


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def dockerfile(repo: Path, python: str = sys.executable) -> str:
    """The Dockerfile repo2docker would build ``repo`` with (``--no-build --debug`` prints it)."""
    out = subprocess.run([python, "-m", "repo2docker", "--no-build", "--debug", str(repo)], capture_output=True,
                         text=True, timeout=300)
    if out.returncode != 0 or "COPY" not in out.stdout:
        raise RuntimeError(f"repo2docker did not render a Dockerfile for {repo}:\n{out.stderr[-3000:]}")
    return out.stdout


def base_lock(dockerfile_text: str) -> Path:
    """The conda lock file the Dockerfile installs as the notebook environment (``/tmp/env/environment.lock``),
    on this machine: repo2docker names the build context file after its source path (escaped)."""
    import escapism
    m = re.search(r"^COPY \S+ build_script_files/(\S+)-[0-9a-f]{6} /tmp/env/environment\.lock$", dockerfile_text,
                  re.MULTILINE)
    if not m:
        raise RuntimeError("the Dockerfile copies in no /tmp/env/environment.lock (a repo2docker that works "
                           "otherwise: read its buildpacks/conda/ and update this script)")
    named = Path(escapism.unescape(m.group(1), escape_char="-"))
    if named.exists():
        return named
    # repo2docker lowercases the name it gives the copy: a path with capitals (a `mktemp -d` clone) is found again
    # among repo2docker's own files, compared without case
    import repo2docker
    for found in Path(repo2docker.__file__).resolve().parent.rglob(named.name):
        if str(found).lower() == str(named).lower():
            return found
    raise RuntimeError(f"repo2docker's base lock {named} is not on this machine")


def base_packages(lock: Path) -> dict[str, str]:
    """{PyPI name: version} of the Python packages in a conda lock (``@EXPLICIT`` URLs: name-version-build);
    a Python package's build string starts with ``py``. The installer's own tools are left out."""
    found = {}
    for line in lock.read_text().splitlines():
        if not line.startswith("http"):
            continue
        file = line.split("#", 1)[0].rsplit("/", 1)[-1].removesuffix(".conda").removesuffix(".tar.bz2")
        name, version, build = file.rsplit("-", 2)
        if build.startswith("py") and norm(name) not in NOT_PINNED:
            found[norm(CONDA_TO_PYPI.get(name, name))] = version
    return found


def pins(text: str) -> dict[str, str]:
    """{normalized name: version} of ``name==version`` lines (comments and blank lines skipped)."""
    out = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            name, version = line.split("==", 1)
            out[norm(name)] = version.strip()
    return out


def _pip(py: Path, *args: str, cwd: Path | None = None) -> str:
    out = subprocess.run([str(py), "-m", "pip", "--disable-pip-version-check", *args], capture_output=True,
                         text=True, timeout=3600, cwd=cwd)
    if out.returncode != 0:
        raise RuntimeError(f"pip {' '.join(args[:3])} ... failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
    return out.stdout


def image_venv(venv: Path, python: str, base: dict[str, str]) -> Path:
    """A venv holding what repo2docker's base image holds (its Python packages at their locked versions, taken
    from PyPI without their dependencies: the lock is already complete)."""
    subprocess.run([python, "-m", "venv", str(venv)], check=True, timeout=300)
    py = venv / "bin" / "python"
    _pip(py, "install", "-q", "--no-deps", *(f"{n}=={v}" for n, v in sorted(base.items())))
    return py


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=None, help="the Python binder/runtime.txt names (default: pythonX.Y)")
    args = parser.parse_args(argv)
    runtime = (BINDER / "runtime.txt").read_text().strip().removeprefix("python-")
    python = args.python or shutil.which(f"python{runtime}")
    if not python:
        print(f"binder/runtime.txt names Python {runtime}: no python{runtime} on PATH (pass --python)", file=sys.stderr)
        return 2
    lock = base_lock(dockerfile(ROOT))
    base = base_packages(lock)
    print(f"repo2docker's base ({lock.name}): {len(base)} Python packages", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        py = image_venv(tmp / "venv", python, base)
        (tmp / "base.txt").write_text("".join(f"{n}=={v}\n" for n, v in sorted(base.items())))
        requirements = [line for line in (BINDER / "requirements.txt").read_text().splitlines()
                        if not line.startswith(("-c", "--constraint"))]
        (tmp / "requirements.txt").write_text("\n".join(requirements) + "\n")
        _pip(py, "check")  # the base as installed from PyPI holds together, as the image does
        _pip(py, "install", "-q", "-r", str(tmp / "requirements.txt"), "-c", str(tmp / "base.txt"), cwd=ROOT)
        _pip(py, "check")
        frozen = _pip(py, "freeze", "--exclude", "delvebook", *(f"--exclude={n}" for n in NOT_PINNED))
        version = subprocess.run([str(py), "-c", "import platform; print('Python', platform.python_version(), "
                                  "platform.system(), platform.machine())"], capture_output=True, text=True).stdout
    text = ("# Every version Binder installs, pinned. Written by `make binder-constraints` (do not edit by hand):\n"
            f"# binder/requirements.txt resolved on {version.strip()}, together with repo2docker's base\n"
            f"# environment ({lock.name}: its packages keep their versions), and `pip check`ed.\n" + frozen)
    (BINDER / "constraints.txt").write_text(text)  # (a wheel carries a copy, made as it is built: setup.py)
    print(f"binder/constraints.txt: {len(pins(text))} pinned packages ({platform.python_version()} here)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
