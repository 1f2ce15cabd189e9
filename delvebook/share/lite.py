"""`delvebook lite CAMPAIGN -o DIR`: a static JupyterLite site that opens the keeper's table in any browser, with
no server and nothing fetched from the network once built.

What the site holds:

- JupyterLab (``jupyterlite-core``) with the Pyodide kernel (``jupyterlite-pyodide-kernel``) and the widget
  front ends it needs (``jupyterlab_widgets``, ``anywidget``), taken from their wheels, not from whatever this
  environment has installed;
- Pyodide's core files (the ``pyodide`` npm package, the version the kernel expects), with its package lock cut to
  the two packages shipped beside it (``micropip``, ``packaging``, the same versions as PyPI's pure wheels, their
  hashes written anew), so the kernel never asks a CDN for anything;
- a piplite index of pure-Python wheels from PyPI: delvebook (built from this checkout), the table's
  dependencies (ipywidgets, anywidget, ...), the kernel's own (ipython, comm, ..., at the versions Pyodide's lock
  names), and PyYAML built from its sdist with PyYAML's own switch for a build without libyaml
  (``PYYAML_FORCE_LIBYAML=0``): no extension is compiled, so the wheel is genuinely ``py3-none-any`` (delvebook
  uses the C loader where there is one and PyYAML's pure loader here);
- the table notebook (a lite variant: it installs ``delvebook[table]`` from the site's index and opens the
  campaign on the site's drive) and the campaign's own files, exactly what its Download zip holds
  (``Campaign.export_zip``: campaign.yaml, the log and the side files delvebook made; no symlink, no hidden file,
  nothing else the folder holds).

The output folder is delvebook's own: a site it built (``delvebook-site.json`` lists what it put there) is
replaced whole (built beside it and swapped in), an empty or new folder is filled, and anything else is refused
before the build starts (``delvebook lite CAMPAIGN -o .`` in a repository removes nothing). The delvebook wheel
is built from the checkout when delvebook runs from one, else repacked from the installed package.

Play is stored in the browser (JupyterLite keeps the drive in the browser's storage): the table shows its
*Download* button in its header there. pandas, numpy and pyarrow (the analysis notebook, the charts) have no
pure wheels and Pyodide's builds of them are on its CDN only, so an offline site cannot run the analysis.

The build downloads from PyPI (``pip download``) and npm (``npm pack``) into a cache folder and reuses it.
"""
from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

from ..store.publish import Refused, markdown_code, markdown_text, read_file, replace_folder

__all__ = ["build", "LiteError", "PYODIDE_VERSION", "NOTEBOOK", "MARK"]

PYODIDE_VERSION = "314.0.6"
"""The Pyodide that jupyterlite-pyodide-kernel 0.8.6 is built for (its ``PYODIDE_VERSION``)."""
PYTHON_VERSION = "3.14"
KERNEL_VERSION = "0.8.6"
PYYAML_VERSION = "6.0.3"
TABLE_REQUIREMENTS = ["ipywidgets>=8.1", "anywidget>=0.9"]
KERNEL_REQUIREMENTS = ["comm", "ipython"]
LOCK_SHIPPED = ("micropip", "packaging")
"""The packages Pyodide's lock keeps: micropip is loaded by the kernel before piplite exists."""
FEDERATED = ("jupyterlab_widgets", "anywidget")
"""Front-end extensions taken from their wheels (besides the Pyodide kernel's own)."""
NOTEBOOK = "run-a-session.ipynb"
MARK = "delvebook-site.json"
"""The file that marks a folder as a site delvebook lite built, listing what it put there."""
_NOT_SHIPPED = {"pyyaml", "delvebook", "widgetsnbextension", "pexpect", "ptyprocess"}
"""Resolved but not shipped: PyYAML and delvebook are built here; the kernel brings its own stub of
widgetsnbextension (the real one is the classic notebook's front end); pexpect is not installed under
Emscripten (ipython's marker)."""


class LiteError(RuntimeError):
    """The site could not be built; the message says what is missing and how to get it."""


def _say(log, text: str) -> None:
    if log is not None:
        log(text)


def _run(cmd: list[str], what: str, env: dict | None = None, cwd: Path | None = None) -> str:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
    except FileNotFoundError:
        raise LiteError(f"cannot {what}: {cmd[0]} is not installed") from None
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise LiteError(f"cannot {what} ({' '.join(cmd[:4])} ... exited {done.returncode}):\n{tail}")
    return done.stdout


def _pip(*args: str, what: str, env: dict | None = None) -> str:
    return _run([sys.executable, "-m", "pip", "--disable-pip-version-check", *args], what, env=env)


def _pure(*args: str, dest: Path, what: str) -> None:
    """Pure-Python wheels (``py3-none-any``) for the browser's Python, resolved by pip."""
    _pip("download", "--quiet", "--only-binary=:all:", "--python-version", PYTHON_VERSION, "--implementation", "py",
         "--abi", "none", "--platform", "any", "--dest", str(dest), *args, what=what)


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _wheel_name(path: Path) -> str:
    return _norm(path.name.split("-")[0])


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _checkout() -> Path | None:
    """The checkout delvebook runs from (``pip install -e .``, a clone on sys.path), or None when it runs from an
    installed wheel."""
    root = Path(__file__).resolve().parents[2]
    try:
        text = (root / "pyproject.toml").read_text(encoding="utf-8")
    except OSError:
        return None
    return root if re.search(r'(?m)^name\s*=\s*"delvebook"', text) else None


def pyodide_core(cache: Path, log=None) -> Path:
    """The ``pyodide`` npm package's files (``npm pack``, cached): the folder holding pyodide.mjs."""
    folder = cache / f"pyodide-{PYODIDE_VERSION}"
    if (folder / "pyodide.mjs").is_file():
        return folder
    if shutil.which("npm") is None:
        raise LiteError("npm is needed to fetch Pyodide's core files (the `pyodide` npm package); install it "
                        "(Debian: apt-get install npm)")
    _say(log, f"fetching pyodide@{PYODIDE_VERSION} from npm")
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        out = _run(["npm", "pack", f"pyodide@{PYODIDE_VERSION}", "--pack-destination", tmp, "--silent"],
                   "fetch Pyodide from npm")
        tgz = Path(tmp) / out.strip().splitlines()[-1]
        unpacked = Path(tmp) / "unpacked"
        with tarfile.open(tgz) as tar:
            if hasattr(tarfile, "data_filter"):  # Python 3.10.12+, 3.11.4+: no links out, no odd modes
                tar.extractall(unpacked, filter="data")
            else:  # pragma: no cover
                tar.extractall(unpacked)
        if folder.exists():
            shutil.rmtree(folder)
        shutil.move(str(unpacked / "package"), folder)
    return folder


def pure_pyyaml(cache: Path, log=None) -> Path:
    """PyYAML built from its sdist without libyaml: a pure wheel (``py3-none-any``), cached."""
    dest = cache / "pyyaml"
    found = sorted(dest.glob(f"pyyaml-{PYYAML_VERSION}-py3-none-any.whl"))
    if found:
        return found[0]
    _say(log, f"building PyYAML {PYYAML_VERSION} from its sdist without libyaml (pure Python)")
    dest.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYYAML_FORCE_LIBYAML": "0"}
    _pip("wheel", "--quiet", "--no-deps", "--no-binary", "pyyaml", f"pyyaml=={PYYAML_VERSION}", "--wheel-dir",
         str(dest), what="build PyYAML from its sdist", env=env)
    found = sorted(dest.glob("*.whl"))
    if len(found) != 1 or not found[0].name.endswith("-py3-none-any.whl"):
        raise LiteError(f"PyYAML's build without libyaml did not give one pure wheel: {[p.name for p in found]}")
    return found[0]


_LEFT_BEHIND = (".git", ".venv", "__pycache__", "*.egg-info", "build", "dist", ".hypothesis", ".pytest_cache",
                ".ipynb_checkpoints", "artifacts", "play", ".delvebook.lock")
"""What builds, tests and sessions leave in a checkout: not part of its source."""


def source_copy(root: Path, dest: Path) -> Path:
    """A copy of the checkout at ``root`` at ``dest``, without what builds and sessions leave in it (``_LEFT_BEHIND``).
    A build writes into the tree it builds, and a wheel built in the checkout itself ships whatever an earlier
    build left in its build/ folder: a module since deleted or moved went out with the site."""
    shutil.copytree(root, dest, ignore=shutil.ignore_patterns(*_LEFT_BEHIND))
    return dest


def delvebook_wheel(dest: Path) -> Path:
    """The delvebook wheel for the site (no dependencies: piplite resolves them from the site's index): built
    from a copy of the checkout delvebook runs from (``source_copy``), else repacked from the installed package
    (:func:`repack_installed`)."""
    dest.mkdir(parents=True, exist_ok=True)
    root = _checkout()
    if root is None:
        return repack_installed(dest)
    with tempfile.TemporaryDirectory(prefix="delvebook-source-") as tmp:
        _pip("wheel", "--quiet", "--no-deps", "--wheel-dir", str(dest), str(source_copy(root, Path(tmp) / "src")),
             what="build the delvebook wheel")
    found = sorted(dest.glob("delvebook-*-py3-none-any.whl"))
    if not found:
        raise LiteError("building delvebook gave no pure wheel")
    return found[-1]


_NOT_REPACKED = {"RECORD", "INSTALLER", "REQUESTED", "direct_url.json", "WHEEL"}


def repack_installed(dest: Path) -> Path:
    """A wheel of the installed delvebook: the files its installer recorded (the package, its data, its data files
    under ``etc/``, its dist-info: METADATA with the extras, entry points, the license), as they are on disk, with a WHEEL and a
    RECORD written anew. Compiled ``.pyc`` files are left out; the wheel is pure Python like the one installed."""
    from importlib.metadata import PackageNotFoundError, distribution
    try:
        dist = distribution("delvebook")
    except PackageNotFoundError:
        raise LiteError("delvebook is neither a checkout nor an installed package here") from None
    package = Path(__file__).resolve().parents[1]
    files = [f for f in dist.files or () if f.parts and (f.parts[0] == "delvebook" or
                                                         f.parts[0].endswith(".dist-info"))
             and "__pycache__" not in f.parts and f.suffix != ".pyc" and f.name not in _NOT_REPACKED]
    info = next((f.parts[0] for f in files if f.parts[0].endswith(".dist-info")), None)
    if info is None or Path(dist.locate_file("delvebook")).resolve() != package:
        raise LiteError(f"the installed delvebook's record does not list the package at {package}: reinstall it "
                        "(pip install --force-reinstall 'delvebook[lite]')")
    # the data files (pyproject's data-files: the server config that switches the players' pages on) were
    # installed under the environment's prefix, where a wheel's ``.data/data/`` puts them
    prefix = Path(sys.prefix).resolve()
    data = {}
    for f in dist.files or ():
        if f.parts and f.parts[0] == "..":
            try:
                under = Path(dist.locate_file(f)).resolve().relative_to(prefix)
            except ValueError:
                continue
            if under.parts and under.parts[0] == "etc":
                data[f"delvebook-{dist.version}.data/data/{under.as_posix()}"] = Path(dist.locate_file(f))
    wheel = dest / f"delvebook-{dist.version}-py3-none-any.whl"
    record = []
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
        def add(name: str, data: bytes) -> None:
            z.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{name},sha256={digest},{len(data)}")
        for f in sorted(files, key=str):
            add(f.as_posix(), Path(dist.locate_file(f)).read_bytes())
        for name, path in sorted(data.items()):
            add(name, path.read_bytes())
        add(f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: delvebook lite\nRoot-Is-Purelib: true\n"
                             b"Tag: py3-none-any\n")
        record.append(f"{info}/RECORD,,")
        z.writestr(zipfile.ZipInfo(f"{info}/RECORD", date_time=(1980, 1, 1, 0, 0, 0)),
                   "\n".join(record) + "\n", zipfile.ZIP_DEFLATED)
    return wheel


def _lock_pins(core: Path) -> list[str]:
    """``name==version`` of every pure package in Pyodide's lock: the kernel's Python was built and tested with
    these (ipython, traitlets, ...), so the site's index takes the same versions from PyPI."""
    lock = json.loads((core / "pyodide-lock.json").read_text())
    pins = []
    for name, pkg in lock["packages"].items():
        if pkg.get("package_type") == "package" and re.search(r"-py[23.]*(py3)?-none-any\.whl$", pkg["file_name"]):
            pins.append(f"{name}=={pkg['version']}")
    return pins


def wheels(cache: Path, core: Path, log=None) -> tuple[list[Path], dict[str, Path], list[Path]]:
    """The piplite wheels, the lock's wheels by name, and the federated extensions' wheels (all cached)."""
    dest = cache / "wheels"
    if dest.exists():  # fetched anew each build (pip's own cache makes that quick): no stale versions linger
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    constraints = cache / "constraints.txt"
    constraints.write_text("\n".join(p for p in _lock_pins(core) if not p.startswith("pyyaml==")) + "\n")
    _say(log, "fetching pure-Python wheels from PyPI")
    _pure("-c", str(constraints), *TABLE_REQUIREMENTS, *KERNEL_REQUIREMENTS, dest=dest / "index",
          what="fetch the table's and the kernel's wheels")
    _pure("-c", str(constraints), "--no-deps", *LOCK_SHIPPED, dest=dest / "lock", what="fetch micropip")
    _pure("--no-deps", f"jupyterlite-pyodide-kernel=={KERNEL_VERSION}", dest=dest / "extension",
          what="fetch the Pyodide kernel's wheel")
    index = sorted(dest.joinpath("index").glob("*.whl"))
    lock = {_wheel_name(p): p for p in dest.joinpath("lock").glob("*.whl")}
    federated = sorted(dest.joinpath("extension").glob("*.whl")) + [p for p in index if _wheel_name(p) in
                                                                     {_norm(n) for n in FEDERATED}]
    missing = [n for n in LOCK_SHIPPED if _norm(n) not in lock]
    if missing or len(federated) != 1 + len(FEDERATED):
        raise LiteError(f"PyPI did not give the wheels the site needs (missing: {missing or FEDERATED})")
    return index, lock, federated


def lay_pyodide(core: Path, lock_wheels: dict[str, Path], target: Path) -> None:
    """Pyodide's core files in ``target``, with a lock that lists only the wheels shipped beside them."""
    shutil.copytree(core, target, ignore=shutil.ignore_patterns("*.map", "*.d.ts", "console*.html", "README.md",
                                                                "package.json"))
    lock = json.loads((core / "pyodide-lock.json").read_text())
    kept = {}
    for name, wheel in lock_wheels.items():
        entry = dict(lock["packages"][name])
        shutil.copy2(wheel, target / wheel.name)
        entry.update(file_name=wheel.name, sha256=_sha256(wheel), version=wheel.name.split("-")[1])
        kept[name] = entry
    lock["packages"] = kept
    (target / "pyodide-lock.json").write_text(json.dumps(lock, indent=1, sort_keys=True))


def notebook(campaign_name: str, title: str | None = None) -> dict:
    """The table notebook of the site: installs delvebook from the site's own index, opens the campaign on the
    site's drive (``db.table.playing``: a re-run cell gets the campaign it has open) and shows the table. The
    names are the campaign's: escaped for Markdown, so a name never becomes a link, a heading or markup."""
    zip_name = campaign_name + ".zip"
    intro = (f"# {markdown_text(title or campaign_name)}: the keeper's table\n\n"
             "This page runs Python in your browser (JupyterLite): nothing is sent anywhere. Run the cell below "
             "(*Run ▸ Run All Cells*): it installs delvebook from this site, opens the campaign "
             f"{markdown_code(campaign_name)} beside this notebook and shows the table. Every click is written to "
             "the campaign's log at once.\n\n"
             "**Play is stored in this browser only** (its site storage): the table's **Download** button at the "
             f"top saves the campaign folder as {markdown_code(zip_name)}; do that before you clear "
             "the browser's data or move to another machine. "
             f"{markdown_code(f'delvebook.Campaign.open({zip_name!r})')} reads it back.\n\n"
             "The analysis notebook (pandas, plotly) does not run here: those wheels are not part of this site.")
    code = ("%pip install -q delvebook[table]\n"
            "import delvebook as db\n\n"
            f"camp = db.table.playing({campaign_name!r})\n"
            "camp.dashboard()")
    return {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": intro.splitlines(keepends=True)},
            {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
             "source": code.splitlines(keepends=True)},
        ],
        "metadata": {"kernelspec": {"display_name": "Python (Pyodide)", "language": "python", "name": "python"},
                     "language_info": {"name": "python"}},
        "nbformat": 4, "nbformat_minor": 5,
    }


def _config() -> dict:
    """jupyter-lite.json: the kernel never falls back to PyPI, the lab opens the table notebook."""
    return {"jupyter-lite-schema-version": 0, "jupyter-config-data": {
        "appName": "delvebook",
        "litePluginSettings": {"@jupyterlite/pyodide-kernel-extension:kernel": {"disablePyPIFallback": True}},
    }}


def _overrides() -> dict:
    """Settings that keep the site from asking the network: no news, no update checks."""
    return {"@jupyterlab/apputils-extension:notification": {"checkForUpdates": False, "fetchNews": "false"}}


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _campaign_files(source: Path, files: Path) -> str | None:
    """The campaign's own files into ``files/NAME/``, exactly what its Download zip holds; returns its name."""
    from ..campaign import Campaign
    from ..store import StoreError
    try:
        with Campaign.open(source, read_only=True) as camp:
            title, data = camp.name, camp.export_zip()
    except StoreError as err:
        raise LiteError(f"{source}: {err}") from None
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        for info in z.infolist():  # our own zip: NAME/FILE, regular files only
            target = files / info.filename
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(z.read(info))
    return title if isinstance(title, str) else None


def _not_our_site(folder: Path, names: list[str]) -> str | None:
    """None if ``folder`` is a site delvebook lite built and holds nothing it did not put there; else what it
    holds that is not the site's (for the refusal)."""
    try:
        mark = json.loads(read_file(folder / MARK) or "{}")
    except (Refused, ValueError):
        mark = {}
    ours = set(mark.get("entries") or ()) if isinstance(mark, dict) and mark.get("built_by") == "delvebook lite" \
        else set()
    extra = [n for n in names if n not in ours]
    if not extra:
        return None
    return ", ".join(extra[:5]) + (f" and {len(extra) - 5} more" if len(extra) > 5 else "")


def build(campaign: str | os.PathLike, out: str | os.PathLike, cache: str | os.PathLike | None = None,
          log=print) -> dict:
    """Build the site for ``campaign`` into ``out``: a new or empty folder, or a site this built before (replaced
    whole: built beside it, then swapped in). Any other folder is refused before anything is fetched or built.
    Returns what was built: the folder, its size in bytes, the notebook's path in the site, the seconds it took."""
    start = time.monotonic()
    try:
        import jupyterlite_core  # noqa: F401
        import jupyterlite_pyodide_kernel  # noqa: F401
    except ImportError:
        raise LiteError("the site is built with JupyterLite: pip install 'delvebook[lite]'") from None
    from ..store import validate

    source = Path(campaign)
    if not (source / "campaign.yaml").is_file():
        raise LiteError(f"{source}: no campaign here (a folder with campaign.yaml)")
    problems = validate(source)
    if problems:
        raise LiteError(f"{source} does not open: {problems[0]}")
    out = Path(os.path.abspath(out))
    cache = Path(cache) if cache is not None else Path(os.environ.get("DELVEBOOK_LITE_CACHE")
                                                       or Path.home() / ".cache" / "delvebook-lite")

    def fill(site: Path) -> None:
        cache.mkdir(parents=True, exist_ok=True)
        core = pyodide_core(cache, log)
        index, lock_wheels, federated = wheels(cache, core, log)
        pyyaml = pure_pyyaml(cache, log)
        with tempfile.TemporaryDirectory(prefix="delvebook-lite-") as tmp:
            lite = Path(tmp) / "lite"
            lite.mkdir()
            _say(log, "building the delvebook wheel")
            mine = delvebook_wheel(Path(tmp) / "dist")
            lay_pyodide(core, lock_wheels, lite / "static" / "pyodide")
            files = lite / "files"
            files.mkdir()
            title = _campaign_files(source, files)
            (files / NOTEBOOK).write_text(json.dumps(notebook(source.name, title), indent=1, ensure_ascii=False)
                                          + "\n", encoding="utf-8")
            (lite / "jupyter-lite.json").write_text(json.dumps(_config(), indent=1))
            (lite / "overrides.json").write_text(json.dumps(_overrides(), indent=1))
            shipped = [p for p in index if _wheel_name(p) not in _NOT_SHIPPED] + [pyyaml, mine]
            (lite / "jupyter_lite_config.json").write_text(json.dumps({
                "LiteBuildConfig": {"apps": ["lab"], "contents": [str(files)], "ignore_sys_prefix": True,
                                    "federated_extensions": [str(w) for w in federated], "no_sourcemaps": True,
                                    "no_unused_shared_packages": True, "output_dir": str(site),
                                    "settings_overrides": [str(lite / "overrides.json")]},
                "PipliteAddon": {"piplite_urls": [str(w) for w in shipped]},
            }, indent=1))
            cmd = [sys.executable, "-m", "jupyterlite_core", "build", "--lite-dir", str(lite)]
            _say(log, "building the site with JupyterLite")
            _run(cmd, "build the site with JupyterLite", cwd=lite)
        from .. import __version__
        entries = sorted({*os.listdir(site), MARK})
        (site / MARK).write_text(json.dumps({"built_by": "delvebook lite", "version": __version__,
                                             "campaign": source.name, "entries": entries}, indent=1) + "\n")

    try:
        replace_folder(out, fill, _not_our_site, what="site")
    except Refused as err:
        raise LiteError(str(err)) from None
    return {"site": out, "bytes": _size(out), "notebook": NOTEBOOK, "campaign": source.name,
            "url": f"lab/index.html?path={NOTEBOOK}", "seconds": time.monotonic() - start}
