"""Writing a campaign's files so that a crash leaves the old bytes or the new, never a mix; and the paths a campaign
may live at.

``atomic_write`` replaces a file whole (a temporary file beside it, fsync, rename, the folder fsync'ed);
``write_all`` writes every byte it is handed (``os.write`` may write less); ``pread`` reads at an offset where the
platform has no ``os.pread``; ``persists_on_close`` says where a file reaches storage only when it is closed
(Pyodide); ``check_new_path`` refuses a path a campaign cannot live at, before anything is written.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from .errors import StoreError

__all__ = ["fsync_dir", "write_all", "atomic_write", "persists_on_close", "pread", "check_new_path"]

_NAME_MAX = 255
_PATH_MAX = 4096
_LONGEST_FILE = len("log.displaced-20260101T000000.000000Z-999.yaml") + 1


def fsync_dir(folder: Path) -> None:
    """Make a rename or a new file in ``folder`` durable (where the platform allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` (``os.write`` may write less than asked)."""
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def atomic_write(file: Path, data: bytes) -> None:
    """Replace ``file`` whole: a temporary file beside it, flushed and fsync'ed, renamed over it, the folder
    fsync'ed. A crash leaves the old file or the new one, never a mix (and at worst the temporary file, which the
    next writable open removes); a failure removes the temporary file."""
    tmp = file.with_name(f".{file.name}.{os.getpid()}.tmp")
    try:
        mode = os.stat(file).st_mode & 0o777
    except FileNotFoundError:
        mode = 0o644
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        try:
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, file)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    fsync_dir(file.parent)


def persists_on_close() -> bool:
    """True where a file's writes reach storage only when it is closed: under Pyodide (Emscripten), JupyterLite's
    drive keeps an open file in memory and stores it whole on close. There the store opens, appends and closes the
    log for each event instead of holding it open."""
    return sys.platform == "emscripten"



def pread(fd: int, size: int, offset: int) -> bytes:
    """``os.pread`` where there is one (not on Windows): else a seek and a read (callers hold the store's mutex)."""
    if hasattr(os, "pread"):
        return os.pread(fd, size, offset)
    os.lseek(fd, offset, os.SEEK_SET)
    return os.read(fd, size)



def _shown(path: Path | str) -> str:
    """A path for a message, with bytes that are not UTF-8 written as escapes (``\\udcff``)."""
    return str(path).encode("utf-8", "backslashreplace").decode("utf-8")


def check_new_path(folder: Path) -> None:
    """Refuse, before anything is written, a path a campaign cannot live at: bytes that are not UTF-8 (delvebook
    and every tool that reads the campaign back would stumble on it), a name too long for the file system."""
    text = str(folder)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise StoreError(f"the path holds bytes that are not UTF-8 text ({_shown(folder)}); a campaign's folder "
                         f"name is read back by delvebook, git and the browser: choose a name in UTF-8") from None
    name_max = _NAME_MAX
    for probe in (folder, *folder.parents):  # the file system's own limit, where the folder will be
        try:
            if len(os.fsencode(probe.name)) <= _NAME_MAX and probe.exists():
                name_max = os.pathconf(probe, "PC_NAME_MAX")
                break
        except (OSError, ValueError, AttributeError):  # Windows has no pathconf
            continue
    for part in folder.parts:
        size = len(os.fsencode(part))
        if size > name_max:
            raise StoreError(f"a name in the path is {size} bytes ({part[:24]}...); the file system takes at "
                             f"most {name_max} bytes a name: choose a shorter one", folder)
    whole = len(os.fsencode(os.path.abspath(folder))) + _LONGEST_FILE
    if whole > _PATH_MAX:
        raise StoreError(f"the path is too long for the files of a campaign ({whole} bytes with its file names; "
                         f"at most {_PATH_MAX}): choose a shorter one", folder)

