"""A real JupyterHub on 127.0.0.1 for the tests and bench/hub.py: ``examples/jupyterhub_config.py`` loaded as a club
would, with the DummyAuthenticator and the SimpleLocalProcessSpawner in place of PAM and real accounts, the proxy
``configurable-http-proxy`` from npm (on PATH, or installed into .ci/npm by .ci/run), every port free and on
127.0.0.1, every file in one folder. Started in its own process group and stopped with everything it started."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from conftest import REPO, _free_port, stop_group, wait_answering

EXAMPLE = REPO / "examples" / "jupyterhub_config.py"
PASSWORD = "a-game-night"


def proxy_command() -> str | None:
    """``configurable-http-proxy``: on PATH, or where .ci/run installs it (``npm install --prefix .ci/npm``)."""
    found = shutil.which("configurable-http-proxy")
    local = REPO / ".ci" / "npm" / "node_modules" / ".bin" / "configurable-http-proxy"
    return found or (str(local) if local.exists() else None)


class Hub:
    """A JupyterHub for ``keepers`` (user names), each home in ``folder / "home" / <name>``."""

    def __init__(self, folder: Path, keepers: list[str]):
        self.folder = folder
        self.keepers = keepers
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = folder / "hub.log"
        self.proc: subprocess.Popen | None = None

    def home(self, keeper: str) -> Path:
        return self.folder / "home" / keeper

    def start(self, timeout: float = 120) -> None:
        bin_ = Path(sys.executable).parent
        for keeper in self.keepers:  # JupyterLab's news toast would cover the page
            labconfig = self.home(keeper) / ".jupyter" / "labconfig"
            labconfig.mkdir(parents=True, exist_ok=True)
            (labconfig / "page_config.json").write_text(json.dumps(
                {"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}}))
        config = self.folder / "jupyterhub_config.py"
        config.write_text(f"""
load_subconfig({str(EXAMPLE)!r})  # the club's configuration, as the README gives it
c = get_config()
c.JupyterHub.bind_url = {self.url + "/"!r}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {_free_port()}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{_free_port()}"
c.ConfigurableHTTPProxy.command = [{proxy_command()!r}]
c.JupyterHub.db_url = {"sqlite:///" + str(self.folder / "jupyterhub.sqlite")!r}
c.JupyterHub.cookie_secret_file = {str(self.folder / "cookie_secret")!r}
c.JupyterHub.pid_file = {str(self.folder / "hub.pid")!r}
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {PASSWORD!r}
c.Authenticator.allowed_users = {set(self.keepers)!r}
c.Authenticator.admin_users = set()
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {str(self.folder / "home" / "{username}")!r}
c.Spawner.cmd = [{str(bin_ / "jupyterhub-singleuser")!r}]
c.Spawner.args = ["--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
                  *{["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []!r}]
c.Spawner.start_timeout = 120
# the hub stops each server with SIGINT, then SIGTERM, then SIGKILL, waiting 30 s at each by default: a server that
# hung on its way out (once in CI: "Interrupted..." on the SIGINT, "stopping" on the SIGTERM 32 s later, and still
# running) would outlast the minute ``stop`` gives the hub, so its SIGKILL comes within that minute here
c.Spawner.interrupt_timeout = 10
c.Spawner.term_timeout = 10
c.Spawner.http_timeout = 120
c.Spawner.environment = {{"PATH": {str(bin_) + os.pathsep + os.environ.get("PATH", "")!r}}}
""")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "JPY"))}
        env["DELVEBOOK_HUB_FOLDER"] = str(self.folder)  # the hub and the proxy carry it; the keepers' HOME is in it
        self._log = open(self.log_path, "ab")
        self.proc = subprocess.Popen([str(bin_ / "jupyterhub"), "-f", str(config)], cwd=self.folder, env=env,
                                     stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_answering(self.proc, f"{self.url}/hub/api", "jupyterhub", self.log, timeout)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-6000:]

    def login(self, page, keeper: str) -> None:
        """``keeper`` logs in as a person would, and their server starts (the hub's spawn page, then JupyterLab)."""
        page.goto(f"{self.url}/hub/login")
        page.locator('input[name="username"]').fill(keeper)
        page.locator('input[name="password"]').fill(PASSWORD)
        page.locator('[type="submit"]').first.click()
        page.wait_for_url(re.compile(rf".*/user/{keeper}/lab.*"), timeout=120_000)

    def processes(self) -> set[int]:
        """Every process the hub started and that still runs: its own, the proxy's, the keepers' servers and their
        kernels (found by their process groups and sessions, since each runs in a session of its own)."""
        if self.proc is None:
            return set()
        out = set()
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                environ = Path(f"/proc/{pid}/environ").read_bytes()
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if state[0] == "Z":
                continue
            if int(pid) == self.proc.pid or str(self.folder).encode() in environ:
                out.add(int(pid))
        return out

    def stop(self) -> None:
        """Stop the hub as its keeper would (SIGTERM): it stops the keepers' servers and the proxy on its way out;
        whatever is left is killed (and a test counts it first)."""
        if self.proc is not None:
            stop_group(self.proc, timeout=60)
        if hasattr(self, "_log"):
            self._log.close()

    def kill_left(self) -> None:
        for pid in self.processes():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
