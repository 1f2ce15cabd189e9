"""The table's place in the table notebook, kept across a reload with no save and a server restarted.

JupyterLab draws a cell's output from the notebook file, and a widget output from the model it names. The table
notebook ships with its table cell's output already in the file, naming one model id (``SLOT``), and the kernel's
table for the campaign played there takes that id (``dashboard``). So:

- a page reloaded at any moment, saved or not, reads the output from the file and finds the live table in the kernel
  (ipywidgets restores the kernel's models on reconnection): the table comes back as it stood;
- a notebook opened on a fresh kernel (a restarted server) finds no such model there; the notebook's saved widget
  state (Jupyter's own ``widgets`` metadata) holds a stand-in under the same id, one plain line saying how to open
  the table, instead of "Error displaying widget: model not found";
- JupyterLab draws a widget output only from a trusted notebook, and a page reloaded before a save reads the file
  as it was written, untrusted: the players' pages' server extension (``delvebook.pages.extension``) shows the
  table notebook's cells as trusted when the notebook holds exactly what this module writes and nothing else
  (``as_written``), under any Jupyter server it is enabled in (``jupyter lab``, Binder, a hub, Notebook 7), with
  nothing signed and nothing asked of the keeper; any other notebook is left to Jupyter's own trust;
- where the notebook is not trusted all the same (no extension), the output's text says how to open the table.

``stamp(nb)`` writes that output and stand-in into a notebook; ``only_stamped(nb)`` says whether a notebook holds
nothing else a browser would run; ``notebook(title, code, text)`` is a table notebook made whole.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["SLOT", "STANDIN", "PLAIN", "output", "widget_state", "stamp", "only_stamped", "as_written", "table_cell",
           "notebook"]

SLOT = "delvebook-table"
"""The model id of the table in the table notebook (its output names it; the kernel's table takes it)."""

PLAIN = "The keeper's table opens when this cell runs: Run \u25b8 Run All Cells. Play is on disk, as it stood."
"""The one line a notebook shows where the table is not running (as text where widgets are not drawn)."""

STANDIN = ('<div class="db-standin" style="padding:6px 10px;border:1px dashed var(--jp-border-color1,#b9b2a1);'
           'border-radius:6px;color:var(--jp-ui-font-color1,#1d2330);background:var(--jp-layout-color1,#fbfaf7);'
           'font:13px/1.4 var(--jp-ui-font-family,system-ui,sans-serif)">'
           "<b>The keeper's table opens when this cell runs:</b> <i>Run \u25b8 Run All Cells</i> "
           "(or <b>\u25b6</b> Run in the notebook's toolbar). Play is on disk: it comes back as it stood.</div>")
"""The stand-in's markup: a fixed text of this module's, never anything from a campaign."""

_WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
_WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
_CONTROLS = "@jupyter-widgets/controls"
_BASE = "@jupyter-widgets/base"


def output() -> dict:
    """The table cell's output as the notebook file keeps it: a widget view naming ``SLOT``, and the plain line."""
    return {"output_type": "display_data", "metadata": {},
            "data": {"text/plain": PLAIN, _WIDGET_VIEW: {"version_major": 2, "version_minor": 0, "model_id": SLOT}}}


def widget_state() -> dict:
    """The notebook's ``widgets`` metadata: the stand-in under ``SLOT`` (an ipywidgets HTML, with its layout and
    style), as ipywidgets' own saved state has it (``ipywidgets.embed.dependency_state``)."""
    return {_WIDGET_STATE: {"version_major": 2, "version_minor": 0, "state": {
        SLOT: {"model_name": "HTMLModel", "model_module": _CONTROLS, "model_module_version": "2.0.0",
               "state": {"_dom_classes": [], "layout": f"IPY_MODEL_{SLOT}-layout", "style": f"IPY_MODEL_{SLOT}-style",
                         "value": STANDIN}},
        f"{SLOT}-layout": {"model_name": "LayoutModel", "model_module": _BASE, "model_module_version": "2.0.0",
                           "state": {}},
        f"{SLOT}-style": {"model_name": "HTMLStyleModel", "model_module": _CONTROLS, "model_module_version": "2.0.0",
                          "state": {}},
    }}}


def table_cell(nb: dict) -> dict | None:
    """The table notebook's table cell: its code cell that ends by showing the dashboard."""
    for cell in nb.get("cells", []):
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        if cell.get("cell_type") == "code" and source.rstrip().endswith(".dashboard()"):
            return cell
    return None


def stamp(nb: dict) -> dict:
    """``nb`` with its table cell holding the slot's output and its metadata the stand-in (a copy)."""
    nb = copy.deepcopy(nb)
    cell = table_cell(nb)
    if cell is None:
        raise ValueError("the notebook has no table cell (a code cell ending with .dashboard())")
    cell["outputs"] = [output()]
    cell["execution_count"] = None
    nb.setdefault("metadata", {})["widgets"] = widget_state()
    return nb


def _slot_only(out: Any) -> bool:
    if not isinstance(out, dict) or out.get("output_type") not in ("display_data", "execute_result"):
        return False
    data = out.get("data") or {}
    view = data.get(_WIDGET_VIEW)
    return set(data) <= {"text/plain", _WIDGET_VIEW} and isinstance(view, dict) and view.get("model_id") == SLOT


def only_stamped(nb: dict) -> bool:
    """Whether the notebook's outputs are only the slot's, or none, and its widget state only the stand-in, or
    none: nothing in it a browser would run but what this module writes. Safe to trust."""
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code" and not all(_slot_only(o) for o in cell.get("outputs") or []):
            return False
    widgets = (nb.get("metadata") or {}).get("widgets")
    return widgets is None or widgets == widget_state()


def as_written(nb: Any) -> bool:
    """Whether ``nb`` is a table notebook exactly as this module writes it: its table cell holds the slot's output
    and nothing else, no other code cell holds any output, and its widget state is the stand-in or none. Only such
    a notebook may be shown as trusted: it runs nothing but the table its own kernel makes."""
    if not isinstance(nb, dict):
        return False
    cell = table_cell(nb)
    return cell is not None and cell.get("outputs") == [output()] and only_stamped(nb)


def notebook(title: str, code: str, text: str) -> dict:
    """A table notebook: its table cell (``code``, ending with ``.dashboard()``, folded) holding the slot, then a
    Markdown cell headed ``title`` with ``text`` under it (both Markdown the caller made safe)."""
    cells = [{"cell_type": "code", "id": "table", "metadata": {"jupyter": {"source_hidden": True}},
              "execution_count": None, "outputs": [], "source": code},
             {"cell_type": "markdown", "id": "about", "metadata": {}, "source": f"# {title}\n\n{text}"}]
    nb = {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
          "metadata": {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
                       "language_info": {"name": "python"}}}
    return stamp(nb)
