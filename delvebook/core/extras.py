"""Which extra brings what: the core needs only PyYAML, and a view that needs more says which extra to install.

``pip install delvebook`` gives the dice, the odds, the rules, the campaign and its log, and the command line.
The rest comes by extra: ``table`` (the keeper's widgets), ``analysis`` (frames, charts, the report, Parquet
export), ``lab`` (JupyterLab), ``players`` (the players' server for the second screen and the players' phones, with their QR codes), or ``all``. A module that needs an
extra calls :func:`require` before its first heavy import, so a missing one is a sentence naming the extra,
not a bare ``ModuleNotFoundError`` from deep inside an import. Standard library only.
"""

from __future__ import annotations

import importlib.util

__all__ = ["EXTRAS", "MissingExtra", "require", "missing", "install_hint"]

EXTRAS: dict[str, tuple[str, ...]] = {
    "table": ("ipywidgets", "anywidget"),
    "analysis": ("pandas", "plotly", "pyarrow"),
    "lab": ("jupyterlab",),
    "players": ("segno", "ipywidgets", "anywidget"),
}
"""Each extra and the modules it brings (as imported), as pyproject.toml declares them."""


class MissingExtra(ModuleNotFoundError):
    """A feature needs an extra that is not installed. Still an ImportError, so ``except ImportError`` works."""


def install_hint(extra: str) -> str:
    """The command that installs ``extra``, quoted for any shell."""
    if extra not in EXTRAS and extra != "all":
        raise ValueError(f"no extra {extra!r}: one of {', '.join([*EXTRAS, 'all'])}")
    return f"pip install 'delvebook[{extra}]'"


def missing(*modules: str) -> list[str]:
    """The modules of ``modules`` that cannot be imported here (looked up, not imported)."""
    out = []
    for name in modules:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a parent package that is missing, or a broken module
            found = False
        if not found:
            out.append(name)
    return out


def require(extra: str, feature: str, *modules: str) -> None:
    """Raise :class:`MissingExtra` when any of ``modules`` (default: every module of ``extra``) is missing,
    saying that ``feature`` needs ``extra`` and how to install it."""
    gone = missing(*(modules or EXTRAS[extra]))
    if gone:
        raise MissingExtra(f"{feature} needs {', '.join(gone)}, which the core install of delvebook leaves "
                           f"out: {install_hint(extra)}", name=gone[0])
