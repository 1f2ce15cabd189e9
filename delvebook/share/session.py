"""What a wheel's ``delvebook lab`` and a campaign repository need from the repository around the package: the table
notebook, the prepared campaign and Binder's pinned versions. Each has one source, in the repository
(``ORIGINALS``); a wheel carries a copy in ``delvebook/session/``, made from that source as the wheel is built
(``setup.py``'s build step), and never kept in git. ``session_file(name)`` finds it: the wheel's copy, else (a
checkout, an editable install) the original itself.

Standard library only, and no import of the package: the build step reads ``ORIGINALS`` from this file alone.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["ORIGINALS", "PACKAGED", "session_file"]

ORIGINALS = {
    "run-a-session.ipynb": "examples/run-a-session.ipynb",
    "the-sunken-keep": "campaigns/the-sunken-keep",
    "binder-constraints.txt": "binder/constraints.txt",
}
"""Each file (or folder) a wheel carries in ``delvebook/session/``, and its one source, from the repository's top."""

PACKAGED = Path(__file__).resolve().parents[1] / "session"
"""Where a wheel carries them (absent in a checkout)."""

_CHECKOUT = Path(__file__).resolve().parents[2]


def session_file(name: str) -> Path:
    """The packaged ``name`` (a key of ``ORIGINALS``): the wheel's copy, else the original in the checkout."""
    packaged = PACKAGED / name
    if packaged.exists():
        return packaged
    original = _CHECKOUT / ORIGINALS[name]
    if original.exists():
        return original
    raise FileNotFoundError(f"{name} is neither in {PACKAGED} (a wheel's) nor at {original} (a checkout's): "
                            "reinstall delvebook")
