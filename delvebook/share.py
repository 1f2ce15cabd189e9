"""Sharing a prepared campaign: a campaign folder that is also a repository Binder can launch, and its link."""

from __future__ import annotations

import json
import subprocess
import urllib.parse
from pathlib import Path

from . import __version__

__all__ = ["new_repo", "binder_link", "DEFAULT_REQUIREMENT", "SESSION_NOTEBOOK"]

DEFAULT_REQUIREMENT = f"delvebook @ git+https://github.com/delvebook/delvebook@v{__version__}"
SESSION_NOTEBOOK = "session.ipynb"
_NOTEBOOKS = (SESSION_NOTEBOOK, "examples/run-a-session.ipynb")


def _session_notebook(name: str) -> dict:
    cells = [
        ("markdown",
         f"# {name}\n\n"
         "Run all cells (*Run ▸ Run All Cells*): the keeper's dashboard appears below, with the party, the fight "
         "tracker and the log. Every action is written to this folder's `log.yaml` at once, and can be undone.\n\n"
         "**On Binder this session is thrown away when you close it.** Before you leave, press the dashboard's "
         "*Download campaign* button: it saves the whole campaign folder as a zip, which "
         "`delvebook.Campaign.open('the.zip')` opens again."),
        ("code",
         "import delvebook as db\n\n"
         "camp = db.Campaign.open('.')  # this folder is the campaign\n"
         "camp"),
        ("code", "camp.dashboard()"),
    ]
    nb_cells = []
    for i, (kind, text) in enumerate(cells):
        cell = {"cell_type": kind, "id": f"session-{i}", "metadata": {}, "source": text}
        if kind == "code":
            cell.update(execution_count=None, outputs=[])
        nb_cells.append(cell)
    return {"cells": nb_cells, "nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                         "language_info": {"name": "python"}}}


def new_repo(path: Path, name: str, seed: int | None = None, requirement: str | None = None) -> list[str]:
    """A new campaign folder that is also a shareable repository; returns the files written."""
    from .campaign import Campaign
    camp = Campaign.create(path, name=name, seed=seed)
    camp.close()
    requirement = requirement or DEFAULT_REQUIREMENT
    files = {
        SESSION_NOTEBOOK: json.dumps(_session_notebook(name), indent=1, ensure_ascii=False) + "\n",
        "binder/requirements.txt": f"{requirement}\n",
        "binder/runtime.txt": "python-3.11\n",
        "README.md": (
            f"# {name}\n\n"
            "A campaign for delvebook: `campaign.yaml` is the campaign (edit it by hand), `log.yaml` is every "
            "event of play, one per line, append-only.\n\n"
            "- Play at home: `pip install delvebook`, then `jupyter lab session.ipynb`.\n"
            "- Share: push this repository to GitHub, run `delvebook share` here, and put the badge it prints "
            "at the top of this README. Whoever opens the link gets JupyterLab with the campaign ready; "
            "a Binder session is thrown away when it ends, so download the campaign (the dashboard's button) "
            "before leaving.\n"),
    }
    for rel, text in files.items():
        target = path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return ["campaign.yaml", "log.yaml", *files]


def _git(path: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(path), *args], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def binder_link(path: Path, notebook: str | None = None) -> tuple[str, str]:
    """(the Binder link, the README badge markdown) for the repository holding ``path``."""
    top = _git(path, "rev-parse", "--show-toplevel")
    if top is None:
        raise ValueError(f"{path} is not in a git repository. Binder launches a repository: run `git init`, "
                         "commit the campaign, push it to GitHub, then run `delvebook share` again.")
    remote = _git(path, "remote", "get-url", "origin")
    if not remote:
        raise ValueError("this repository has no remote named origin, so Binder cannot reach it. Create a "
                         "repository on GitHub, then `git remote add origin https://github.com/YOU/NAME.git`, "
                         "`git push -u origin HEAD`, and run `delvebook share` again.")
    root = Path(top)
    if notebook is None:
        notebook = next((n for n in _NOTEBOOKS if (root / n).is_file()), None)
        if notebook is None:
            raise ValueError(f"no session notebook ({' or '.join(_NOTEBOOKS)}) in {root}; name one with --notebook")
    spec = _binder_spec(remote)
    link = f"https://mybinder.org/v2/{spec}/HEAD?urlpath=" + urllib.parse.quote(f"lab/tree/{notebook}", safe="/")
    badge = f"[![Binder](https://mybinder.org/badge_logo.svg)]({link})"
    return link, badge


def _binder_spec(remote: str) -> str:
    """mybinder's repository spec for a git remote: gh/OWNER/REPO, gl/..., or git/URL."""
    url = remote.strip()
    if url.startswith("git@") and ":" in url:
        host, _, rest = url[4:].partition(":")
        url = f"https://{host}/{rest}"
    parsed = urllib.parse.urlparse(url)
    parts = parsed.path.strip("/").removesuffix(".git").split("/")
    if parsed.hostname == "github.com" and len(parts) == 2:
        return f"gh/{parts[0]}/{parts[1]}"
    if parsed.hostname == "gitlab.com" and len(parts) >= 2:
        return "gl/" + urllib.parse.quote("/".join(parts), safe="")
    return "git/" + urllib.parse.quote(remote, safe="")
