"""Sharing: a campaign repository from `delvebook new --repo`, and `delvebook share`'s Binder link."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from importlib.metadata import PathDistribution

import pytest

from conftest import REPO
from delvebook.share import repo as share
from delvebook.share.repo import _binder_spec, binder_link, binder_spec, new_repo, pinned_requirement, write_badge


def _installs(repo):
    """The lines of binder/requirements.txt that say what to install (comments left out)."""
    return [line for line in (repo / "binder" / "requirements.txt").read_text().splitlines()
            if line and not line.startswith("#")]


def test_new_repo_writes_campaign_notebook_binder_and_readme(tmp_path):
    made = new_repo(tmp_path / "salt-roads", name="Salt Roads", seed=3, requirement="delvebook==0.1.0")
    repo = tmp_path / "salt-roads"
    assert set(made) == {"campaign.yaml", "log.yaml", "session.ipynb", "binder/requirements.txt",
                         "binder/constraints.txt", "binder/runtime.txt", "README.md"}
    nb = json.loads((repo / "session.ipynb").read_text())
    assert "thrown away" in "".join(nb["cells"][1]["source"]) and "# Salt Roads" in "".join(nb["cells"][1]["source"])
    from delvebook.view.slot import as_written
    assert as_written(nb), "the table's slot and nothing else: shown trusted, so a reload finds the live table"
    assert _installs(repo) == ["-c constraints.txt", "delvebook==0.1.0"]
    assert ".delvebook.lock" in (repo / ".gitignore").read_text()


def test_a_new_repositorys_binder_pins_the_whole_environment_as_this_projects_does(tmp_path):
    repo = tmp_path / "salt-roads"
    new_repo(repo, name="Salt Roads", requirement="delvebook[table,analysis,lab]==0.1.0")
    assert (repo / "binder" / "constraints.txt").read_bytes() == (REPO / "binder" / "constraints.txt").read_bytes()
    assert (repo / "binder" / "runtime.txt").read_text() == (REPO / "binder" / "runtime.txt").read_text()
    pins = {line.split("==")[0].lower() for line in (repo / "binder" / "constraints.txt").read_text().splitlines()
            if "==" in line}
    assert {"pandas", "plotly", "jupyterlab", "ipywidgets", "anywidget", "notebook"} <= pins


def test_a_new_repositorys_readme_installs_the_table_and_jupyterlab_it_then_runs(tmp_path):
    from packaging.requirements import Requirement
    repo = tmp_path / "salt-roads"
    new_repo(repo, name="Salt Roads", requirement="delvebook[table,analysis,lab] @ git+https://github.com/a/b@abc")
    readme = (repo / "README.md").read_text()
    commands = re.findall(r"`([^`]+)`", readme)
    [install] = [c for c in commands if c.startswith("python -m pip install ") and " -r " not in c]
    requirement = Requirement(shlex.split(install)[-1])
    assert requirement.name == "delvebook" and {"table", "lab"} <= requirement.extras
    assert "jupyter lab session.ipynb" in commands and (repo / "session.ipynb").is_file()
    assert "python -m pip install -r binder/requirements.txt" in commands


def test_a_campaign_name_full_of_markdown_stays_text_in_the_readme_and_notebook(tmp_path):
    mistune = pytest.importorskip("mistune")
    name = "<img src=x onerror=alert(1)> [pwn](http://evil) # *Keep*"
    repo = tmp_path / "r"
    new_repo(repo, name=name, requirement="delvebook==0.1.0")
    readme = mistune.html((repo / "README.md").read_text())
    heading = mistune.html(next(c["source"] for c in json.loads((repo / "session.ipynb").read_text())["cells"]
                                if c["cell_type"] == "markdown"))
    for out in (readme, heading):
        assert "<img" not in out and 'href="http://evil"' not in out and "<em>Keep</em>" not in out
        assert "&lt;img src=x onerror=alert(1)&gt; [pwn](http://evil) # *Keep*" in out


@pytest.mark.parametrize("url", ["https://ana:ghp_SECRET@files.example.org/delvebook-0.1.0-py3-none-any.whl",
                                 "https://ghp_SECRET@files.example.org/delvebook-0.1.0-py3-none-any.whl",
                                 "https://files.example.org/delvebook-0.1.0-py3-none-any.whl?token=ghp_SECRET"])
def test_a_token_in_the_install_url_is_never_printed_or_written(tmp_path, url):
    dist = _dist(tmp_path, {"url": url, "archive_info": {}})
    with pytest.raises(ValueError) as refused:
        pinned_requirement(dist)
    assert "ghp_SECRET" not in str(refused.value) and "files.example.org" in str(refused.value)
    out = subprocess.run([sys.executable, "-m", "delvebook", "new", str(tmp_path / "r"), "--repo", "--requirement",
                          f"delvebook[table,analysis,lab] @ {url}"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and "credentials" in out.stderr
    assert "ghp_SECRET" not in out.stdout + out.stderr and not (tmp_path / "r").exists()


def test_a_token_in_a_git_install_url_is_left_out_of_the_pin(tmp_path):
    dist = _dist(tmp_path, {"url": "https://ana:ghp_SECRET@github.com/ana/delvebook.git",
                            "vcs_info": {"vcs": "git", "commit_id": "0123abcd" * 5}})
    requirement, _ = pinned_requirement(dist)
    assert "ghp_SECRET" not in requirement and "ana:" not in requirement


def test_share_refuses_a_symlinked_readme_and_leaves_its_target_alone(tmp_path):
    repo = tmp_path / "keep"
    new_repo(repo, name="Keep", requirement="delvebook==0.1.0")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    _git(repo, "remote", "add", "origin", "https://github.com/ana/keep.git")
    bashrc = tmp_path / "bashrc"
    bashrc.write_text("alias ll='ls -l'\n")
    (repo / "README.md").unlink()
    (repo / "README.md").symlink_to(bashrc)
    out = subprocess.run([sys.executable, "-m", "delvebook", "share", "--readme", "README.md"], cwd=repo,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and "symlink" in out.stderr and "Traceback" not in out.stderr
    assert bashrc.read_text() == "alias ll='ls -l'\n" and (repo / "README.md").is_symlink()


def test_the_session_notebook_opens_the_campaign_once_per_kernel_and_a_rerun_changes_nothing(tmp_path, monkeypatch):
    pytest.importorskip("anywidget")
    repo = tmp_path / "salt-roads"
    new_repo(repo, name="Salt Roads", seed=3, requirement="delvebook==0.1.0")
    nb = json.loads((repo / "session.ipynb").read_text())
    [cell] = [c for c in nb["cells"] if c["cell_type"] == "code"]  # one cell: it opens and shows, as the table's
    source = "".join(cell["source"])
    monkeypatch.chdir(repo)
    def files():  # the repository's own files (not the lock and log handle of the writer that holds it open)
        return {p.name: p.read_bytes() for p in repo.iterdir() if p.is_file() and not p.name.startswith(".delvebook")}
    before = files()
    kernel: dict = {}
    exec(source, kernel)  # Run All ...
    first = kernel["camp"]
    try:
        exec(source, kernel)  # ... and again, in the same kernel: no LockedError from its own lock
        assert kernel["camp"] is first and not first.read_only
        assert files() == before
    finally:
        first.close()


def test_new_repo_refuses_a_folder_that_holds_a_campaign(tmp_path):
    new_repo(tmp_path / "x", name="X", requirement="delvebook==0.1.0")
    with pytest.raises(ValueError):
        new_repo(tmp_path / "x", name="X", requirement="delvebook==0.1.0")


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
    new_repo(tmp_path / "r", name="R", requirement="delvebook==0.1.0")
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


# ---------------------------------------------------------------- the link comes from the remote

def _git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
                          check=True, capture_output=True, text=True).stdout.strip()


def _copy_of_this_repository(dest):
    """The repository's tracked files, as a fresh clone of a fork would hold them."""
    files = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, text=True, check=True)
    for rel in filter(None, files.stdout.split("\0")):
        if (REPO / rel).is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / rel, dest / rel)
    subprocess.run(["git", "init", "-q", str(dest)], check=True)
    return dest


def _badge_line(readme_text):
    return next(line for line in readme_text.splitlines() if line.startswith("[![Binder]"))


def test_share_readme_points_a_forks_badge_at_the_fork(tmp_path):
    fork = _copy_of_this_repository(tmp_path / "delvebook")
    _git(fork, "remote", "add", "origin", "https://github.com/ana/delvebook.git")
    before = (fork / "README.md").read_text()
    assert "/gh/ana/" not in _badge_line(before)
    out = subprocess.run([sys.executable, "-m", "delvebook", "share", "--readme", "README.md"], cwd=fork,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    after = (fork / "README.md").read_text()
    assert _badge_line(after) == ("[![Binder](https://mybinder.org/badge_logo.svg)](https://mybinder.org/v2/gh/ana/"
                                  "delvebook/HEAD?urlpath=lab/tree/examples/run-a-session.ipynb)")
    assert [l for l in after.splitlines() if not l.startswith("[![Binder]")] == \
        [l for l in before.splitlines() if not l.startswith("[![Binder]")]
    again = subprocess.run([sys.executable, "-m", "delvebook", "share", "--readme", "README.md"], cwd=fork,
                           capture_output=True, text=True, timeout=60)
    assert again.returncode == 0 and "already" in again.stdout
    assert (fork / "README.md").read_text() == after


def test_share_readme_keeps_the_notebook_the_badge_opens(tmp_path):
    repo = tmp_path / "keep"
    new_repo(repo, name="Keep", requirement="delvebook==0.1.0")
    (repo / "prep.ipynb").write_text((repo / "session.ipynb").read_text())
    readme = repo / "README.md"
    readme.write_text("# Keep\n\n[![Binder](https://mybinder.org/badge_logo.svg)](https://mybinder.org/v2/gh/old/"
                      "keep/HEAD?urlpath=lab/tree/prep.ipynb)\n\nText.\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    _git(repo, "remote", "add", "origin", "git@github.com:ana/keep.git")
    out = subprocess.run([sys.executable, "-m", "delvebook", "share", str(repo), "--readme", str(readme)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert readme.read_text() == ("# Keep\n\n[![Binder](https://mybinder.org/badge_logo.svg)](https://mybinder.org/"
                                  "v2/gh/ana/keep/HEAD?urlpath=lab/tree/prep.ipynb)\n\nText.\n")


def test_a_readme_without_a_badge_gets_one_under_its_title(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# Keep\n\nText.\n")
    assert write_badge(readme, "[![Binder](https://mybinder.org/badge_logo.svg)](https://mybinder.org/v2/gh/a/b/HEAD)")
    assert readme.read_text() == ("# Keep\n\n[![Binder](https://mybinder.org/badge_logo.svg)](https://mybinder.org/"
                                  "v2/gh/a/b/HEAD)\n\nText.\n")


def test_the_branch_upstream_wins_over_origin(tmp_path):
    repo = tmp_path / "r"
    new_repo(repo, name="R", requirement="delvebook==0.1.0")
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "campaign")
    _git(repo, "remote", "add", "origin", "https://github.com/delvebook/r.git")
    _git(repo, "remote", "add", "ana", "https://github.com/ana/r.git")
    _git(repo, "update-ref", "refs/remotes/ana/main", "HEAD")
    _git(repo, "branch", "--set-upstream-to=ana/main")
    assert binder_link(repo)[0].startswith("https://mybinder.org/v2/gh/ana/r/HEAD?")
    _git(repo, "branch", "--unset-upstream")
    assert binder_link(repo)[0].startswith("https://mybinder.org/v2/gh/delvebook/r/HEAD?")


@pytest.mark.parametrize("remote, spec", [
    ("git@codeberg.org:ana/keep.git", "git/https%3A%2F%2Fcodeberg.org%2Fana%2Fkeep.git"),
    ("ssh://git@gitlab.com:2222/ana/keep.git", "gl/ana%2Fkeep"),
    ("https://ana:ghp_secret@github.com/ana/keep.git", "gh/ana/keep"),
    ("https://ana:secret@example.org/ana/keep.git", "git/https%3A%2F%2Fexample.org%2Fana%2Fkeep.git"),
])
def test_any_public_remote_gives_a_link_binder_can_clone_with_no_credentials(remote, spec):
    assert binder_spec(remote) == spec


@pytest.mark.parametrize("remote", ["/srv/git/keep.git", "file:///srv/git/keep.git", "../keep"])
def test_a_remote_on_this_machine_gets_a_clear_message(tmp_path, remote):
    with pytest.raises(ValueError, match="folder on this machine"):
        binder_spec(remote)
    repo = tmp_path / "r"
    new_repo(repo, name="R", requirement="delvebook==0.1.0")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    _git(repo, "remote", "add", "origin", remote)
    out = subprocess.run([sys.executable, "-m", "delvebook", "share", str(repo)], capture_output=True, text=True)
    assert out.returncode == 1 and "Binder cannot reach" in out.stderr and "Traceback" not in out.stderr


# ---------------------------------------------------------------- what a new campaign repository pins

def _dist(tmp_path, direct_url=None):
    info = tmp_path / "delvebook-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.4\nName: delvebook\nVersion: 0.1.0\n")
    if direct_url is not None:
        (info / "direct_url.json").write_text(json.dumps(direct_url))
    return PathDistribution(info)


def test_a_release_from_the_package_index_is_pinned_to_its_version(tmp_path):
    assert pinned_requirement(_dist(tmp_path)) == ("delvebook[table,analysis,lab]==0.1.0", None)


def test_an_install_from_a_git_url_is_pinned_to_the_commit_pip_recorded(tmp_path):
    dist = _dist(tmp_path, {"url": "git@github.com:ana/delvebook.git",
                            "vcs_info": {"vcs": "git", "commit_id": "0123abcd" * 5}})
    assert pinned_requirement(dist) == (
        f"delvebook[table,analysis,lab] @ git+https://github.com/ana/delvebook.git@{'0123abcd' * 5}", None)


def test_a_checkout_is_pinned_to_its_commit_on_its_remote_with_a_note_until_pushed(tmp_path):
    checkout = tmp_path / "src"
    checkout.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(checkout)], check=True)
    (checkout / "pyproject.toml").write_text("[project]\nname = 'delvebook'\n")
    _git(checkout, "add", "-A")
    _git(checkout, "commit", "-qm", "x")
    commit = _git(checkout, "rev-parse", "HEAD")
    dist = _dist(tmp_path, {"url": checkout.as_uri(), "dir_info": {"editable": True}})
    with pytest.raises(ValueError, match="no remote.*--requirement"):
        pinned_requirement(dist)
    _git(checkout, "remote", "add", "origin", "git@github.com:ana/delvebook.git")
    requirement, note = pinned_requirement(dist)
    assert requirement == f"delvebook[table,analysis,lab] @ git+https://github.com/ana/delvebook.git@{commit}"
    assert "push it" in note
    _git(checkout, "update-ref", "refs/remotes/origin/main", "HEAD")  # as after `git push`
    assert pinned_requirement(dist) == (requirement, None)


def test_a_local_wheel_cannot_be_pinned_and_says_what_to_pass(tmp_path):
    dist = _dist(tmp_path, {"url": (tmp_path / "delvebook-0.1.0-py3-none-any.whl").as_uri(), "archive_info": {}})
    with pytest.raises(ValueError, match="--requirement"):
        pinned_requirement(dist)


def test_new_repo_with_no_requirement_writes_the_pin(tmp_path, monkeypatch):
    monkeypatch.setattr(share, "pinned_requirement", lambda: ("delvebook[table,analysis,lab]==9.9.9", None))
    new_repo(tmp_path / "r", name="R")
    assert _installs(tmp_path / "r") == ["-c constraints.txt", "delvebook[table,analysis,lab]==9.9.9"]


@pytest.mark.slow
def test_a_new_repository_works_as_its_readme_says_in_a_fresh_environment(tmp_path, delvebook_wheel):
    """The README's own commands, run as written in a fresh venv: the install brings the table and JupyterLab,
    and the session notebook runs there."""
    wheel = delvebook_wheel
    repo = tmp_path / "salt-roads"
    new_repo(repo, name="Salt Roads", requirement=f"delvebook[table,analysis,lab] @ {wheel.as_uri()}")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    env = {**os.environ, "PATH": f"{venv / 'bin'}:{os.environ['PATH']}", "VIRTUAL_ENV": str(venv),
           "JUPYTER_CONFIG_DIR": str(tmp_path / "jcfg"), "JUPYTER_DATA_DIR": str(tmp_path / "jdata"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "jrun"), "IPYTHONDIR": str(tmp_path / "ipython")}
    env.pop("PYTHONPATH", None)
    commands = re.findall(r"`([^`]+)`", (repo / "README.md").read_text())
    [install] = [c for c in commands if c.startswith("python -m pip install ") and " -r " not in c]
    run = subprocess.run(install, shell=True, cwd=repo, env=env, capture_output=True, text=True, timeout=1800)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    lab = subprocess.run("jupyter lab --version", shell=True, cwd=repo, env=env, capture_output=True, text=True)
    assert lab.returncode == 0 and re.match(r"4\.", lab.stdout), lab.stderr[-2000:]
    executed = subprocess.run("jupyter nbconvert --to notebook --execute --output ran.ipynb session.ipynb",
                              shell=True, cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    assert executed.returncode == 0, executed.stderr[-3000:]
    ran = json.loads((repo / "ran.ipynb").read_text())
    outputs = [o for c in ran["cells"] if c["cell_type"] == "code" for o in c["outputs"]]
    assert outputs and not [o for o in outputs if o.get("output_type") == "error"]
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs), "the table shows"
