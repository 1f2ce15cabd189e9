"""Sharing a prepared campaign: a campaign folder that is also a repository Binder can launch, and its link.

The link comes from the repository's own git remote, so a fork's badge launches the fork. A new campaign
repository pins the delvebook it was made with (the release on the package index it came from, or the exact
commit of the git repository it was installed from) and every other package the same way this project's
``binder/`` does (the constraints resolved with repo2docker's base image, shipped in the package). No secret in an
install URL (a user, a token, a signed query) is ever written or printed: such a URL is refused, shown redacted.
Every file is written whole (a temporary file renamed), never through a symlink.
"""

from __future__ import annotations

import json
import re
import subprocess
import urllib.parse
from pathlib import Path

from .. import __version__
from .notebook import table_notebook_text
from ..store.publish import markdown_code, markdown_text, read_file, write_file
from .session import session_file

__all__ = ["new_repo", "binder_link", "binder_spec", "pinned_requirement", "write_badge", "badge_notebook",
           "BINDER_EXTRAS", "BINDER_PYTHON", "SESSION_NOTEBOOK"]

BINDER_EXTRAS = "table,analysis,lab"
"""What a campaign repository's Binder installs with delvebook: the table, the charts, JupyterLab."""
BINDER_PYTHON = "3.11"
"""The Python a campaign repository's Binder runs: the one its constraints were resolved on."""
SESSION_NOTEBOOK = "session.ipynb"
_NOTEBOOKS = (SESSION_NOTEBOOK, "examples/run-a-session.ipynb")
_BADGE = re.compile(r"^\[!\[Binder\]\(https://mybinder\.org/badge_logo\.svg\)\]\((https://mybinder\.org/v2/[^)\s]*)\)[ \t]*$",
                    re.MULTILINE)


BINDER_NOTE = ("**On Binder this session is thrown away when you close it.** Before you leave, press the table's "
               "*Download* button (in the *Keeper* panel): it saves the whole campaign folder as a zip, which "
               "`delvebook.Campaign.open('the.zip')` opens again.")


def new_repo(path: Path, name: str, seed: int | None = None, requirement: str | None = None) -> list[str]:
    """A new campaign folder that is also a shareable repository; returns the files written.

    ``requirement`` is the line binder/requirements.txt installs delvebook with; by default the delvebook
    running now, pinned (see :func:`pinned_requirement`), worked out before anything is written. Every other
    package Binder installs is pinned by binder/constraints.txt, the constraints this delvebook's own Binder
    uses. A requirement whose URL carries credentials is refused (ValueError, the URL redacted)."""
    from ..campaign import Campaign
    requirement = requirement or pinned_requirement()[0]
    _refuse_secrets(requirement)
    constraints = session_file("binder-constraints.txt").read_text(encoding="utf-8")
    camp = Campaign.create(path, name=name, seed=seed)
    camp.close()
    files = {
        SESSION_NOTEBOOK: table_notebook_text(name, ".", BINDER_NOTE),
        "binder/requirements.txt": (
            "# What Binder installs: delvebook with the table, the charts and JupyterLab, every version pinned by\n"
            "# constraints.txt (resolved with repo2docker's base image, so `pip check` holds there).\n"
            f"-c constraints.txt\n{requirement}\n"),
        "binder/constraints.txt": constraints,
        "binder/runtime.txt": f"python-{BINDER_PYTHON}\n",
        "README.md": (
            f"# {markdown_text(name)}\n\n"
            "A campaign for delvebook: `campaign.yaml` is the campaign (edit it by hand), `log.yaml` is every "
            "event of play, one per line, append-only.\n\n"
            f"- Play at home: {markdown_code(f'python -m pip install {_shell_quoted(requirement)}')} (delvebook "
            "with the table and JupyterLab), then `jupyter lab session.ipynb`. For exactly the versions Binder "
            f"runs (Python {BINDER_PYTHON}): `python -m pip install -r binder/requirements.txt`.\n"
            "- Share: push this repository to GitHub, run `delvebook share` here, and put the badge it prints "
            "at the top of this README. Whoever opens the link gets JupyterLab with the campaign ready; "
            "a Binder session is thrown away when it ends, so download the campaign (the dashboard's button) "
            "before leaving.\n"),
    }
    for rel, text in files.items():
        target = path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        write_file(target, text)
    return ["campaign.yaml", "log.yaml", *files]


def _shell_quoted(text: str) -> str:
    import shlex
    return shlex.quote(text)


def _git(path: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(path), *args], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def _remote(top: Path) -> str | None:
    """The URL of the remote this checkout pushes to: its branch's upstream, else origin, else the only one."""
    names = (_git(top, "remote") or "").split()
    upstream = _git(top, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}") or ""
    name = next((n for n in names if upstream.startswith(n + "/")), None)
    if name is None:
        name = "origin" if "origin" in names else (names[0] if len(names) == 1 else None)
    return _git(top, "remote", "get-url", name) if name else None


def binder_link(path: Path, notebook: str | None = None) -> tuple[str, str]:
    """(the Binder link, the README badge markdown) for the repository holding ``path``, from its git remote."""
    top = _git(path, "rev-parse", "--show-toplevel")
    if top is None:
        raise ValueError(f"{path} is not in a git repository. Binder launches a repository: run `git init`, "
                         "commit the campaign, push it to GitHub, then run `delvebook share` again.")
    root = Path(top)
    remote = _remote(root)
    if not remote:
        names = (_git(root, "remote") or "").split()
        if names:
            raise ValueError(f"this repository has remotes {', '.join(names)} but none named origin and no upstream "
                             "for this branch, so it is not clear which one Binder should launch: "
                             "`git push -u REMOTE HEAD` once, then run `delvebook share` again.")
        raise ValueError("this repository has no remote named origin, so Binder cannot reach it. Create a "
                         "repository on GitHub, then `git remote add origin https://github.com/YOU/NAME.git`, "
                         "`git push -u origin HEAD`, and run `delvebook share` again.")
    if notebook is None:
        notebook = next((n for n in _NOTEBOOKS if (root / n).is_file()), None)
        if notebook is None:
            raise ValueError(f"no session notebook ({' or '.join(_NOTEBOOKS)}) in {root}; name one with --notebook")
    spec = binder_spec(remote)
    link = f"https://mybinder.org/v2/{spec}/HEAD?urlpath=" + urllib.parse.quote(f"lab/tree/{notebook}", safe="/")
    badge = f"[![Binder](https://mybinder.org/badge_logo.svg)]({link})"
    return link, badge


def _redacted(url: str) -> str:
    """A URL as a message may show it: no user or password, no query, no fragment (where tokens travel)."""
    try:
        parts = urllib.parse.urlsplit(url.strip())
        host = parts.hostname
        port = parts.port
    except ValueError:
        return "(an address that does not parse)"
    if not parts.scheme or not host:
        return re.sub(r"^[^@/]*@", "", url.strip())  # git@host:owner/repo: keep what follows the user
    hidden = parts.username or parts.password or parts.query or parts.fragment
    shown = urllib.parse.urlunsplit((parts.scheme, host + (f":{port}" if port else ""), parts.path, "", ""))
    return shown + (" (its credentials and query left out here)" if hidden else "")


def _has_secret(url: str) -> bool:
    """A user or password in an http(s) URL, a password in any, or a query string (a token, a signature)."""
    try:
        parts = urllib.parse.urlsplit(url.strip())
        parts.port  # noqa: B018  (a malformed port raises here)
    except ValueError:
        return True
    web = parts.scheme.split("+")[-1] in ("http", "https")
    return bool(parts.password or (web and parts.username) or parts.query)


def _refuse_secrets(requirement: str) -> None:
    """ValueError, with the address redacted, when a requirement's URL carries credentials: a campaign
    repository is public, and Binder's image would hold the token too."""
    for url in re.findall(r"[A-Za-z][A-Za-z0-9+.-]*://\S+", requirement):
        if _has_secret(url):
            raise ValueError(f"the requirement's address {_redacted(url)} carries credentials or a query; a campaign "
                             "repository is public and its Binder image would hold them: give a public address "
                             f"(a release, 'delvebook[{BINDER_EXTRAS}]==VERSION', or "
                             "'git+https://HOST/OWNER/REPO@COMMIT'); nothing was written")


def _public_url(remote: str) -> str:
    """The remote as an https URL anyone can clone (no credentials); ValueError for one on this machine."""
    url = remote.strip()
    scp = re.fullmatch(r"(?:[\w.-]+@)?([\w.-]+\.[A-Za-z]{2,}):(?!//)(.+)", url)
    if scp and "://" not in url:  # git@github.com:ana/keep.git
        url = f"https://{scp.group(1)}/{scp.group(2).lstrip('/')}"
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme in ("", "file") or not parsed.hostname:
        raise ValueError(f"the remote {_redacted(remote)!r} is a folder on this machine, which Binder cannot reach: "
                         "push the repository to GitHub, GitLab or another public git host, make that the remote "
                         "(`git remote set-url origin https://...`), and run `delvebook share` again.")
    if parsed.scheme not in ("http", "https", "ssh", "git", "git+ssh", "ssh+git"):
        raise ValueError(f"the remote {_redacted(remote)!r} is not a git URL Binder can clone "
                         "(https://HOST/OWNER/REPO)")
    host = parsed.hostname.lower()
    if parsed.scheme == "http":
        return urllib.parse.urlunsplit(("http", host + (f":{parsed.port}" if parsed.port else ""), parsed.path,
                                        "", ""))
    return f"https://{host}{parsed.path}"  # ssh's port and user are not https's


def binder_spec(remote: str) -> str:
    """mybinder's repository spec for a git remote: ``gh/OWNER/REPO``, ``gl/GROUP%2FREPO``, or ``git/URL`` (any
    other public git host). Credentials in the remote never reach the link."""
    url = _public_url(remote)
    parsed = urllib.parse.urlsplit(url)
    parts = [p for p in parsed.path.split("/") if p]
    if parts:
        parts[-1] = parts[-1].removesuffix(".git")
    if parsed.hostname in ("github.com", "www.github.com"):
        if len(parts) != 2:
            raise ValueError(f"{_redacted(remote)!r} is not a GitHub repository URL (https://github.com/OWNER/REPO)")
        return f"gh/{parts[0]}/{parts[1]}"
    if parsed.hostname == "gitlab.com" and len(parts) >= 2:
        return "gl/" + urllib.parse.quote("/".join(parts), safe="")
    return "git/" + urllib.parse.quote(url, safe="")


_binder_spec = binder_spec  # the name the first tests used


def badge_notebook(readme_text: str) -> str | None:
    """The notebook the README's Binder badge opens (its ``urlpath`` after ``lab/tree/``), if it has one."""
    m = _BADGE.search(readme_text)
    if not m:
        return None
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(m.group(1)).query)
    path = urllib.parse.unquote((query.get("urlpath") or [""])[0])
    return path.removeprefix("lab/tree/") if path.startswith("lab/tree/") else None


def write_badge(readme: Path, badge: str) -> bool:
    """Put ``badge`` on the README's Binder badge line (or under its first heading if it has none); True if the
    file changed. Every other line stays as it was. A README that is a symlink is refused (``publish.Refused``),
    neither read nor written: its target may be anything (a shell's rc file) and would land in the repository."""
    text = read_file(readme) or ""
    if _BADGE.search(text):
        new = _BADGE.sub(lambda m: badge, text, count=1)
    else:
        lines = text.splitlines(keepends=True)
        at = next((i + 1 for i, line in enumerate(lines) if line.startswith("# ")), 0)
        new = "".join(lines[:at]) + ("\n" if at else "") + badge + "\n" + ("" if at else "\n") + "".join(lines[at:])
    if new == text:
        return False
    write_file(readme, new)
    return True


# ---------------------------------------------------------------- what a new campaign repository installs

def pinned_requirement(dist=None) -> tuple[str, str | None]:
    """(the requirement line that installs this delvebook on Binder, a note for the keeper or None).

    Pinned to what exists: installed from a package index, the release there (``delvebook[...]==VERSION``);
    installed from a git URL, that URL at the commit pip recorded; installed from a git checkout (``pip
    install -e .``), its remote at the checkout's commit (with a note if that commit is not pushed yet).
    ValueError when Binder could not reach where it came from (a local wheel, a checkout with no remote).
    ``dist`` is an ``importlib.metadata`` distribution (default: the installed delvebook)."""
    if dist is None:
        from importlib.metadata import distributions
        # An installer's record has a RECORD file; a source tree's delvebook.egg-info (left there by a build,
        # and first on sys.path when run from the tree) does not, and says nothing about where it came from.
        found = sorted(distributions(name="delvebook"), key=lambda d: d.read_text("RECORD") is None)
        if not found:
            raise ValueError("delvebook is not installed as a package here (run from a source tree?), so there is "
                             "nothing to pin: pass --requirement")
        dist = found[0]
    version = dist.version or __version__
    name = f"delvebook[{BINDER_EXTRAS}]"
    raw = dist.read_text("direct_url.json")
    if not raw:  # no PEP 610 record: pip took it from an index, where this release is
        return f"{name}=={version}", None
    direct = json.loads(raw)
    url = direct.get("url", "")
    if "vcs_info" in direct:
        vcs = direct["vcs_info"]
        commit = vcs.get("commit_id")
        return f"{name} @ {vcs.get('vcs', 'git')}+{_public_url(url)}@{commit}", None
    if "dir_info" in direct:
        folder = _file_path(url)
        return _pin_checkout(folder, name)
    if "archive_info" in direct and urllib.parse.urlsplit(url).scheme in ("http", "https"):
        if _has_secret(url):
            raise ValueError(f"this delvebook was installed from {_redacted(url)}, an address with credentials or a "
                             "query, which a public campaign repository must not hold: pass --requirement with a "
                             "public address")
        return f"{name} @ {url}", None
    raise ValueError(f"this delvebook was installed from {_redacted(url)}, which Binder cannot reach: pass "
                     "--requirement "
                     f"(e.g. a git URL with a commit: 'delvebook[{BINDER_EXTRAS}] @ git+https://github.com/OWNER/REPO@COMMIT')")


def _file_path(url: str) -> Path:
    parsed = urllib.parse.urlsplit(url)
    return Path(urllib.parse.unquote(parsed.path))


def _pin_checkout(folder: Path, name: str) -> tuple[str, str | None]:
    """The remote and commit of the git checkout delvebook was installed from."""
    hint = (f"pass --requirement, e.g. 'delvebook[{BINDER_EXTRAS}] @ git+https://github.com/OWNER/REPO@COMMIT' "
            "for a commit pushed there")
    top = _git(folder, "rev-parse", "--show-toplevel")
    commit = _git(folder, "rev-parse", "HEAD") if top else None
    if not commit:
        raise ValueError(f"this delvebook was installed from {folder}, which is not a git checkout, so Binder "
                         f"could not fetch it: {hint}")
    remote = _remote(Path(top))
    if not remote:
        raise ValueError(f"this delvebook was installed from the checkout {top}, which has no remote Binder could "
                         f"fetch it from: push it (`git remote add origin ...`, `git push`), or {hint}")
    url = _public_url(remote)
    note = None
    if not _git(Path(top), "branch", "-r", "--contains", commit):
        note = (f"commit {commit[:12]} of {top} is on no remote branch yet: push it before launching the "
                "campaign on Binder")
    if _git(Path(top), "status", "--porcelain", "--untracked-files=no"):
        note = (note + "; " if note else "") + f"{top} has uncommitted changes, which the pin does not include"
    return f"{name} @ git+{url}@{commit}", note
