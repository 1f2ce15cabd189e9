"""What delvebook writes outside a campaign's log (an export, a static site, a README's badge, a new campaign
repository): each file to a temporary name beside it and renamed over it, a folder of its own output built beside
and swapped in whole, never through a symlink, and never over what it did not make. Text that lands in Markdown is
escaped here too.

A reader of the target sees the old version or the new one, never a mix: a killed export leaves the previous
export whole (and a hidden temporary folder beside it, removed by the next write there).
"""
from __future__ import annotations

import errno
import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path
from typing import Callable

from .files import fsync_dir

__all__ = ["Refused", "write_file", "read_file", "replace_folder", "markdown_text", "markdown_code"]


class Refused(ValueError):
    """A target delvebook will not write: a symlink, something other than a file or folder, or a folder holding
    what delvebook did not put there. Nothing was written; the message names the path and what to do."""


def _shown(path: Path | str) -> str:
    return str(path).encode("utf-8", "backslashreplace").decode("utf-8")


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


# ---------------------------------------------------------------- one file

def _refuse_link(path: Path, st: os.stat_result | None, what: str) -> None:
    if st is not None and stat.S_ISLNK(st.st_mode):
        raise Refused(f"{_shown(path)} is a symlink (to {_shown(os.readlink(path))}); delvebook writes no {what} "
                      "through a symlink: replace the link with the file itself, or name another path")


def write_file(path: str | os.PathLike, data: bytes | str) -> Path:
    """Replace ``path`` whole with ``data`` (text is written as UTF-8): a new file with a random name beside it
    (created exclusively, so a planted link there is never followed), flushed, then renamed over ``path``. Refused
    when ``path`` is a symlink or not a regular file. The file keeps its permissions (a new one gets 0644)."""
    path = Path(path)
    st = _lstat(path)
    _refuse_link(path, st, "file")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise Refused(f"{_shown(path)} is not a regular file; delvebook replaces only files")
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        try:
            os.fchmod(fd, stat.S_IMODE(st.st_mode) if st is not None else 0o644)
        except (AttributeError, OSError):  # Windows has no fchmod
            pass
        with os.fdopen(fd, "wb") as out:
            out.write(raw)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    fsync_dir(path.parent)
    return path


def read_file(path: str | os.PathLike) -> str | None:
    """The UTF-8 text of the regular file at ``path``, read without following a symlink (Refused); None if there
    is nothing there. What delvebook rewrites (a README) it reads this way, so a link's target never leaks into
    the file written back."""
    path = Path(path)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as err:
        _refuse_link(path, _lstat(path), "file")
        raise Refused(f"{_shown(path)} cannot be read ({err.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise Refused(f"{_shown(path)} is not a regular file; delvebook rewrites only files")
        return f.read().decode("utf-8")


# ---------------------------------------------------------------- a folder of delvebook's own output

_TEMP = ".delvebook-"


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` is there (one another user runs counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def _clean_leftovers(target: Path) -> None:
    """Remove what a killed write of ``target`` left beside it (``.NAME.delvebook-new-PID-...``), once that
    process is gone. Only folders, never through a link."""
    prefix = f".{target.name}{_TEMP}"
    try:
        names = [n for n in os.listdir(target.parent) if n.startswith(prefix)]
    except OSError:
        return
    for name in names:
        try:
            pid = int(name[len(prefix):].split("-")[1])
        except (IndexError, ValueError):
            continue
        path = target.parent / name
        st = _lstat(path)
        if st is not None and stat.S_ISDIR(st.st_mode) and pid != os.getpid() and not pid_alive(pid):
            shutil.rmtree(path, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux ``renameat2(RENAME_EXCHANGE)``); False where that does not exist."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError, ImportError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False  # an old kernel or a file system without it
    raise OSError(err, os.strerror(err), str(b))


def replace_folder(target: str | os.PathLike, fill: Callable[[Path], object],
                   not_ours: Callable[[Path, list[str]], str | None], what: str = "output") -> Path:
    """Make ``target`` a folder holding what ``fill(folder)`` writes, replacing the previous one whole.

    The new folder is filled beside ``target`` (a hidden name in the same parent) and swapped in with one rename
    (an exchange where the system has one), so a reader sees the old folder or the new, never a mix; a failure
    or a kill while filling leaves the old one untouched. ``target`` must be absent, empty, or a folder that
    ``not_ours(target, names)`` accepts (it returns None, else the reason in words): delvebook never removes what
    it did not make. A symlink is refused, never followed."""
    target = Path(target)
    st = _lstat(target)
    _refuse_link(target, st, what)
    if st is not None:
        if not stat.S_ISDIR(st.st_mode):
            raise Refused(f"{_shown(target)} exists and is not a folder; name a new or empty folder for the {what}")
        names = sorted(os.listdir(target))
        if names:
            reason = not_ours(target, names)
            if reason:
                raise Refused(f"{_shown(target)} holds {reason}, which delvebook did not put there, so it will not "
                              f"replace that folder: name a new or empty folder for the {what} (nothing was "
                              "written)")
    target.parent.mkdir(parents=True, exist_ok=True)
    _clean_leftovers(target)
    new = Path(tempfile.mkdtemp(prefix=f".{target.name}{_TEMP}new-{os.getpid()}-", dir=target.parent))
    try:
        fill(new)
        os.chmod(new, 0o777 & ~_umask())
        if st is None:
            os.rename(new, target)
            fsync_dir(target.parent)
            return target
        if _exchange(new, target):
            old = new  # the old folder now sits at the temporary name
        else:
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}{_TEMP}old-{os.getpid()}-", dir=target.parent))
            os.rmdir(old)
            os.rename(target, old)
            try:
                os.rename(new, target)
            except BaseException:
                os.rename(old, target)
                raise
        fsync_dir(target.parent)
        shutil.rmtree(old, ignore_errors=True)
        return target
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)
        raise


# ---------------------------------------------------------------- Markdown

def _printable(text: object) -> str:
    """``text`` with each character that is not printable (a newline, a control character) as its Python escape."""
    s = str(text)
    if s.isprintable():
        return s
    return "".join(c if c.isprintable() else c.encode("unicode_escape", "backslashreplace").decode("ascii")
                   for c in s)


_PUNCTUATION = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def markdown_text(text: object) -> str:
    """``text`` as literal Markdown text: every ASCII punctuation character backslash-escaped (CommonMark's own
    escape, so no heading, link, emphasis, code or HTML starts from a name), characters that are not printable
    (a newline, a control character) written as their Python escapes."""
    return "".join("\\" + c if c in _PUNCTUATION else c for c in _printable(text))


def markdown_code(text: object) -> str:
    """``text`` as a Markdown code span: fenced by more backticks than any run inside it (CommonMark's rule),
    characters that are not printable escaped, so it shows exactly as written."""
    s = _printable(text)
    longest = run = 0
    for c in s:
        run = run + 1 if c == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or not s.strip() else ""
    return f"{fence}{pad}{s}{pad}{fence}"
