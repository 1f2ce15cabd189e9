"""Who holds a campaign for play, said in one plain sentence: which kernel (the notebook it runs) or process, how to
watch from here read-only, and how to take it over. The table's ``playing`` raises it as ``CampaignHeld`` (shown in
a notebook as that one sentence, not a traceback), and ``delvebook lab`` says it before opening JupyterLab.

It reads the writer's lock the store keeps in the campaign folder (the holder's pid) and, where the system says, what
that process is (a Jupyter kernel names its notebook in ``JPY_SESSION_NAME``); it never takes the lock.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from . import LockedError
from .lock import LOCK_FILE, SOFT_LOCK_FILE

__all__ = ["CampaignHeld", "held", "holder_pid", "who"]


class CampaignHeld(LockedError):
    """A campaign open for play elsewhere; a notebook shows only its sentence (IPython's ``_render_traceback_``)."""

    def _render_traceback_(self) -> list[str]:
        return [str(self)]


def holder_pid(folder: str | os.PathLike) -> int | None:
    """The pid written in the campaign's lock by whoever took it last (the holder while it is held)."""
    folder = Path(folder)
    for name in (SOFT_LOCK_FILE, LOCK_FILE):
        try:
            first = (folder / name).read_bytes()[:64].decode("ascii", "replace").split()
        except OSError:
            continue
        if first and first[0].isdigit():
            return int(first[0])
    return None


def _proc(pid: int, what: str) -> bytes:
    try:
        return Path(f"/proc/{pid}/{what}").read_bytes()
    except OSError:  # not Linux, gone, or not ours to read
        return b""


def who(pid: int | None) -> str:
    """The holder in words: the kernel of a notebook, a program, this kernel, or another process."""
    if pid is None:
        return "another process"
    if pid == os.getpid():
        return "this kernel (another cell opened it)"
    env = dict(part.split(b"=", 1) for part in _proc(pid, "environ").split(b"\0") if b"=" in part)
    notebook = env.get(b"JPY_SESSION_NAME", b"").decode("utf-8", "replace")
    if notebook:
        try:
            near = os.path.relpath(notebook)
            notebook = notebook if near.startswith("..") else near
        except ValueError:  # another drive
            pass
        return f"the kernel of {notebook} (pid {pid})"
    args = [a.decode("utf-8", "replace") for a in _proc(pid, "cmdline").split(b"\0") if a]
    if args:
        shown = " ".join(Path(a).name if i == 0 else a if len(a) <= 40 else a[:39] + "\u2026"
                         for i, a in enumerate(args[:2]))
        return f"another process, {shown} (pid {pid})"
    return f"another process (pid {pid})"


def held(folder: str | os.PathLike, name: str | None = None, *, again: str = "run this cell again") -> CampaignHeld:
    """The one sentence for a campaign held elsewhere: who holds it, how to watch it from here read-only, and how to
    take it over; ``again`` says what to do once it is free."""
    folder = Path(folder)
    pid = holder_pid(folder)
    holder = who(pid)
    shown = f"{name} ({folder})" if name else str(folder)
    if pid == os.getpid():
        take = f"close that one (camp.close()) and {again}"
    elif "kernel of" in holder:
        take = f"shut that kernel down (in its notebook: Kernel \u25b8 Shut Down Kernel) and {again}"
    else:
        take = f"end that process{f' (kill {pid})' if pid and sys.platform != 'win32' else ''} and {again}"
    return CampaignHeld(f"{shown} is open for play in {holder}: play it there, or watch it from here read-only "
                        f"(db.Campaign.open({str(folder)!r}, read_only=True)); to take it over, {take}.", folder)


def is_held(folder: str | os.PathLike) -> bool:
    """Whether another process holds the campaign for play now (a glance at its lock: the lock is not taken)."""
    folder = Path(folder)
    soft = folder / SOFT_LOCK_FILE
    if soft.exists():
        pid = holder_pid(folder)
        if pid is None or pid == os.getpid():
            return pid is None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False  # left by a process that is gone: the next writer takes it over
        except OSError:
            return True
        return True
    try:
        import fcntl
        fd = os.open(folder / LOCK_FILE, os.O_RDONLY)
    except (ImportError, OSError):
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)  # shares with no writer: free; released as fd closes
        return False
    except OSError:
        return True
    finally:
        os.close(fd)
