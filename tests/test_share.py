"""Sharing: a campaign repository from `delvebook new --repo`, and `delvebook share`'s Binder link."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from delvebook.share import _binder_spec, binder_link, new_repo


def test_new_repo_writes_campaign_notebook_binder_and_readme(tmp_path):
    made = new_repo(tmp_path / "salt-roads", name="Salt Roads", seed=3, requirement="delvebook==0.1.0")
    repo = tmp_path / "salt-roads"
    assert set(made) == {"campaign.yaml", "log.yaml", "session.ipynb", "binder/requirements.txt",
                         "binder/runtime.txt", "README.md"}
    nb = json.loads((repo / "session.ipynb").read_text())
    assert "thrown away" in "".join(nb["cells"][0]["source"])
    assert all(c.get("outputs", []) == [] for c in nb["cells"])
    assert (repo / "binder/requirements.txt").read_text() == "delvebook==0.1.0\n"
    assert ".delvebook.lock" in (repo / ".gitignore").read_text()


def test_new_repo_refuses_a_folder_that_holds_a_campaign(tmp_path):
    new_repo(tmp_path / "x", name="X")
    with pytest.raises(ValueError):
        new_repo(tmp_path / "x", name="X")


@pytest.mark.parametrize("remote, spec", [
    ("https://github.com/ana/salt-roads.git", "gh/ana/salt-roads"),
    ("git@github.com:ana/salt-roads.git", "gh/ana/salt-roads"),
    ("https://github.com/ana/salt-roads", "gh/ana/salt-roads"),
    ("https://gitlab.com/ana/games/salt-roads.git", "gl/ana%2Fgames%2Fsalt-roads"),
    ("https://example.org/ana/salt-roads.git", "git/https%3A%2F%2Fexample.org%2Fana%2Fsalt-roads.git"),
])
def test_binder_spec_for_each_kind_of_remote(remote, spec):
    assert _binder_spec(remote) == spec


def test_share_explains_what_to_do_without_git_or_a_remote(tmp_path):
    new_repo(tmp_path / "r", name="R")
    with pytest.raises(ValueError, match="git init"):
        binder_link(tmp_path / "r")
    subprocess.run(["git", "init", "-q", str(tmp_path / "r")], check=True)
    out = subprocess.run([sys.executable, "-m", "delvebook", "share", str(tmp_path / "r")],
                         capture_output=True, text=True)
    assert out.returncode == 1 and "git remote add origin" in out.stderr
    subprocess.run(["git", "-C", str(tmp_path / "r"), "remote", "add", "origin", "git@github.com:ana/r.git"], check=True)
    link, badge = binder_link(tmp_path / "r")
    assert link == "https://mybinder.org/v2/gh/ana/r/HEAD?urlpath=lab/tree/session.ipynb"
    assert badge == f"[![Binder](https://mybinder.org/badge_logo.svg)]({link})"
