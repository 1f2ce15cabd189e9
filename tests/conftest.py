"""Shared test helpers: where the repository is, and a real Chromium and JupyterLab for browser tests.

A browser test that cannot run skips on a laptop but FAILS in CI (CI=true), so CI never goes green by
quietly testing less.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
CAMPAIGNS = REPO / "campaigns"
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
DEBIAN_CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


_STARTED = time.monotonic()


def pytest_configure(config) -> None:
    """Compile the package once, before any test imports it: where bytecode is not written (PYTHONDONTWRITEBYTECODE,
    as on this kind of machine), every process a test starts (a kernel, a server, the command line) would compile
    delvebook again from source, about 0.3 s of CPU each. Only the first process does it (with pytest-xdist, the
    controller: its workers find the files made)."""
    if not hasattr(config, "workerinput"):
        import compileall
        compileall.compile_dir(str(REPO / "delvebook"), quiet=2)


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """The suite says how long it took, wall clock, as its last line (the README's times are these)."""
    if not hasattr(config, "workerinput"):
        took = time.monotonic() - _STARTED
        workers = getattr(config.option, "numprocesses", None)
        terminalreporter.write_line(f"delvebook suite: {took // 60:.0f} min {took % 60:.0f} s wall clock"
                                    + (f", {workers} workers" if workers else ""))


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def cannot_run(reason: str) -> None:
    """Skip locally; fail in CI, where a test that cannot run is a broken machine."""
    if in_ci():
        pytest.fail(f"cannot run in CI: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture
def keep(tmp_path) -> Path:
    """A writable copy of the prepared campaign, the-sunken-keep, at tmp_path/keep."""
    dest = tmp_path / "keep"
    shutil.copytree(CAMPAIGNS / "the-sunken-keep", dest)
    return dest


@pytest.fixture
def kept(keep):
    """That copy, open for writing (closed after the test)."""
    import delvebook as db
    camp = db.Campaign.open(keep)
    yield camp
    camp.close()


@pytest.fixture(scope="module")
def sunken_keep():
    """The bundled prepared campaign itself, opened read-only once for a test module (forecasts read it, never
    write)."""
    import delvebook as db
    camp = db.Campaign.open(CAMPAIGNS / "the-sunken-keep", read_only=True)
    yield camp
    camp.close()


def click(camp, ui, **intent) -> dict:
    """What a click on the table does: the intent performed, then the view the page gets (always JSON)."""
    import json

    from delvebook.table import perform, table_view
    perform(camp, ui, intent)
    view = table_view(camp, ui)
    json.dumps(view)
    return view


def copy_source(dest: Path) -> Path:
    """The source tree, without what a build or a session leaves behind (a build writes into the tree): what
    ``delvebook lite`` builds its wheel from."""
    from delvebook.share.lite import source_copy
    return source_copy(REPO, dest)


def build_wheel(source: Path, dist: Path) -> Path:
    """The wheel `pip wheel` builds from ``source`` (a source tree or an sdist), in ``dist``."""
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(source)],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    wheel, = dist.glob("delvebook-*.whl")
    return wheel


@pytest.fixture(scope="session")
def delvebook_wheel(tmp_path_factory) -> Path:
    """This checkout's wheel, built once for the session from a copy of the source (a build writes into the tree it
    builds), for the tests that install it or look inside it: they only read it."""
    folder = tmp_path_factory.mktemp("wheel")
    return build_wheel(copy_source(folder / "src"), folder / "dist")


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """tests/artifacts/ (git-ignored): screenshots and logs a person can look at after a run."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium: Debian's /usr/bin/chromium when present, else Playwright's own."""
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError as err:
        cannot_run(f"playwright is not installed ({err}); run `make test`")
    with sync_playwright() as p:
        options = {"args": CHROMIUM_ARGS}
        if DEBIAN_CHROMIUM.exists():
            options["executable_path"] = str(DEBIAN_CHROMIUM)
        try:
            b = p.chromium.launch(**options)
        except Error as err:
            cannot_run(
                "no Chromium to drive: install Debian's `chromium` (apt-get install chromium) "
                f"or run `playwright install chromium` ({str(err).splitlines()[0]})"
            )
        try:
            yield b
        finally:
            b.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LabServer:
    """A JupyterLab server on 127.0.0.1 with no token, serving a throwaway copy of the examples. With
    ``keeper=True`` it is started as a keeper starts it, ``delvebook lab`` (which passes the options on)."""

    def __init__(self, home: Path, keeper: bool = False, campaign: str | None = None, base_url: str = "/"):
        self.home = home
        self.keeper = keeper
        self.campaign = campaign  # (keeper: ``delvebook lab CAMPAIGN``, a folder under the served root)
        self.root = home / "root"
        self.port = _free_port()
        self.base_url = base_url  # as Binder starts it: JupyterLab under a path of the public URL
        self.url = f"http://127.0.0.1:{self.port}{base_url.rstrip('/')}"
        self.log_path = home / "jupyter.log"
        self.proc: subprocess.Popen | None = None

    def lay_out(self) -> None:
        """The served files: a copy, so a notebook saved or a campaign changed in the browser never touches the
        repository (started again: the same files)."""
        for folder in (EXAMPLES, CAMPAIGNS):
            if folder.is_dir() and not (self.root / folder.name).exists():
                shutil.copytree(folder, self.root / folder.name,  # (a play copy left in the checkout stays out)
                                ignore=shutil.ignore_patterns(".ipynb_checkpoints", "play"))

    def start(self, timeout: float = 90) -> None:
        self.lay_out()
        config = self.home / "config"
        # The news toast ("Would you like to receive official Jupyter news?") would cover the page.
        (config / "labconfig").mkdir(parents=True, exist_ok=True)
        (config / "labconfig" / "page_config.json").write_text(json.dumps(
            {"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}}))
        env = dict(
            os.environ,
            JUPYTER_CONFIG_DIR=str(config),
            JUPYTER_DATA_DIR=str(self.home / "data"),
            JUPYTER_RUNTIME_DIR=str(self.home / "runtime"),
            IPYTHONDIR=str(self.home / "ipython"),
            JUPYTER_PLATFORM_DIRS="1",
        )
        cmd = [
            *([sys.executable, "-m", "delvebook", "lab", *([self.campaign] if self.campaign else [])] if self.keeper
              else [sys.executable, "-m", "jupyterlab"]),
            "--no-browser",
            "--ip=127.0.0.1",
            f"--port={self.port}",
            f"--ServerApp.base_url={self.base_url}",
            "--ServerApp.port_retries=0",
            "--IdentityProvider.token=",
            "--ServerApp.password=",
            *([] if self.keeper else [f"--ServerApp.root_dir={self.root}"]),  # delvebook lab says where
            f"--LabApp.workspaces_dir={self.home / 'workspaces'}",
            f"--LabApp.user_settings_dir={self.home / 'settings'}",
            "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.append("--allow-root")
        self._log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(cmd, cwd=self.root, env=env, stdout=self._log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        wait_answering(self.proc, f"{self.url}/api", "jupyter lab", self.log, timeout)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]

    def stop(self) -> None:
        # The shutdown API wants a token; signalling the whole group also ends the kernels.
        if self.proc is not None and self.proc.poll() is None:
            pgid = os.getpgid(self.proc.pid)
            stop_group(self.proc)
            try:  # kernels are in the same group; make sure none outlive the server
                os.killpg(pgid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if hasattr(self, "_log"):
            self._log.close()

    def restart(self) -> None:
        """Stop the server and start a fresh one on the same files (its kernels gone): a keeper's next evening."""
        self.stop()
        self.proc = None
        self.start()


def wait_answering(proc: subprocess.Popen, url: str, what: str, log, timeout: float) -> None:
    """Wait until ``url`` answers 200 (the server ``proc`` started); its log in the error when it never does."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}:\n{log()}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.25)
    raise RuntimeError(f"{what} did not answer within {timeout} s:\n{log()}")


def stop_group(proc: subprocess.Popen, timeout: float = 15) -> None:
    """SIGTERM to the process group ``proc`` leads (started with ``start_new_session``), SIGKILL if it lingers."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def serving(server: "LabServer"):
    """Yield ``server`` running (a fixture's body), stopped after; a machine without JupyterLab cannot run it."""
    try:
        import jupyterlab  # noqa: F401
    except ImportError as err:
        cannot_run(f"jupyterlab is not installed ({err}); run `make test`")
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory):
    """A running JupyterLab; its config, runtime files and workspaces live in a temporary folder."""
    yield from serving(LabServer(tmp_path_factory.mktemp("jupyterlab")))


@pytest.fixture(scope="module")
def keeper_lab(tmp_path_factory):
    """A JupyterLab started as a keeper starts it, ``delvebook lab``, for one test module (which may restart it);
    its config, runtime files and workspaces live in a temporary folder."""
    yield from serving(LabServer(tmp_path_factory.mktemp("keeperlab"), keeper=True))


def keeper_lab_making(tmp_path_factory, name: str, campaign: str, make: list[str], first: bool = False):
    """For a module fixture: JupyterLab started as a keeper starts it on ``campaign`` (``delvebook lab CAMPAIGN``),
    which the command ``make`` creates in the served folder once the server is up (``first``: before it starts, as
    a keeper runs `delvebook new` and then `delvebook lab`); stopped at the end."""
    try:
        import jupyterlab  # noqa: F401
    except ImportError as err:
        cannot_run(f"jupyterlab is not installed ({err}); run `make test`")
    server = LabServer(tmp_path_factory.mktemp(name), keeper=True, campaign=campaign)

    def making() -> None:
        made = subprocess.run(make, cwd=server.root, capture_output=True, text=True, timeout=300)
        assert made.returncode == 0, made.stderr

    try:
        if first:
            server.lay_out()
            making()
        server.start()
        if not first:
            making()
        yield server
    finally:
        server.stop()


ERROR_OUTPUT = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'


def start_run_all(page, url: str):
    """Open the notebook at ``url`` (JupyterLab's or a static site's), wait for its kernel, and start every cell
    as a person would (Run > Run All Cells). Returns the notebook panel; the cells may still be running."""
    import re as _re
    page.goto(url)
    panel = page.locator(".jp-NotebookPanel").first
    panel.wait_for(state="visible")
    # The kernel is ready when the status bar says so; the toolbar's indicator says "idle"
    # before the kernel has even started, and Run All then asks which kernel to start.
    page.locator(".jp-StatusBar-TextItem", has_text=_re.compile(r"\| Idle$")).first.wait_for()
    page.locator(".lm-MenuBar-item", has_text=_re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-item:visible", has_text=_re.compile(r"^Run All Cells")).click()
    return panel


def run_all_cells(page, lab_server, notebook: str):
    """Open ``notebook`` in JupyterLab, run every cell as a person would (Run > Run All Cells), and wait
    until none is pending; fails on a dialog or an error output. Returns the notebook panel."""
    # ?reset: a fresh workspace, so notebooks an earlier test opened are not restored beside this one
    panel = start_run_all(page, f"{lab_server.url}/lab/tree/{notebook}?reset")
    # Every code cell ran when none waits ([*] or [ ]); a dialog (e.g. "Select Kernel") or an
    # error (after which the remaining cells never run) ends the wait early.
    page.wait_for_function(
        """() => {
            if (document.querySelector('.jp-Dialog, .jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')) return true;
            // a cell's count is in its input prompt, or under its output when its code is folded away
            const prompts = [...document.querySelectorAll('.jp-CodeCell')].map(c =>
                c.querySelector('.jp-InputArea-prompt') || c.querySelector('.jp-OutputArea-prompt'));
            return prompts.length > 0 && prompts.every(p => p && /\\[\\d+\\]/.test(p.textContent));
        }"""
    )
    dialogs = page.locator(".jp-Dialog").all_inner_texts()
    assert not dialogs, f"a dialog interrupted the run: {dialogs}"
    errors = panel.locator(ERROR_OUTPUT).all_inner_texts()
    assert not [e for e in errors if "Traceback" in e or "Error" in e], "\n".join(errors)
    return panel


@pytest.fixture(scope="session", autouse=True)
def session_cache(tmp_path_factory):
    """What delvebook caches (the forecast's calibration) goes to a folder of this test session, never the user's:
    the processes the tests start inherit it."""
    patch = pytest.MonkeyPatch()
    folder = tmp_path_factory.mktemp("delvebook-cache")
    patch.setenv("DELVEBOOK_CACHE", str(folder))
    yield folder
    patch.undo()


@pytest.fixture(scope="module")
def long_delve():
    """The bundled finished campaign, open read-only."""
    import delvebook as db
    c = db.Campaign.open(CAMPAIGNS / "the-long-delve", read_only=True)
    yield c
    c.close()
