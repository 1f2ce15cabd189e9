"""The table's front end as the page loads it: the ES module (``static/phones.js``, the players' phones' parts,
``static/prepare.js``, the Keeper panel's preparing sections, ``static/charts.js``, the Charts panel's SVG, then
``static/table.js``, which draws every view model and exports the anywidget entry) and its CSS. One module text,
so that anywidget (which loads a module from a string, where a relative import has nothing to resolve
against) and the players' server serve the same code. Nothing in it is fetched from a network."""

from __future__ import annotations

from importlib import resources

__all__ = ["esm", "css", "static"]

_PARTS = ("phones.js", "prepare.js", "charts.js", "table.js")


def static(name: str) -> str:
    # read as text, not given as a path: anywidget would watch a path with a thread (none under Pyodide)
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


def esm() -> str:
    """The table's ES module: the players' phones' parts and the preparing sections, then the table that uses them."""
    return "\n".join(static(name) for name in _PARTS)


def css() -> str:
    return static("table.css")
