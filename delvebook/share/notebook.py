"""A campaign's table notebook: one folded cell that opens the campaign for play (``table.playing``) and shows the
keeper's table, holding the table's slot (``view.slot``: a page reloaded before a save finds the live table, under
any Jupyter server with the players' pages), then a Markdown cell headed with the campaign's name (escaped: a name
is text, never Markdown or HTML) that says what to do. Made by ``delvebook new`` beside the campaign and by
``delvebook new --repo`` inside it; opening it and Run All is all a keeper does, on a laptop, Binder or a hub."""

from __future__ import annotations

import json

from ..store.publish import markdown_code, markdown_text
from ..view.slot import notebook

__all__ = ["table_notebook", "table_notebook_text"]

ABOUT = (
    "Run the cell above (*Run \u25b8 Run All Cells*, or the toolbar's \u25b6): it opens the campaign {where} and shows "
    "the keeper's table, with the party, the fight tracker and the log. Every click is written to the campaign's "
    "`log.yaml` at once, and can be undone. Running the cell again, or reloading the page, changes nothing on disk: "
    "it only opens the campaign and shows the table (in the same kernel, the campaign already open).\n\n"
    "**The players' phones.** In the table's *Keeper* panel, *Serve the players' pages* gives each player a link "
    "(and its QR code) to a page with their delver, served by this JupyterLab: on Binder or a hub, send each player "
    "their link; on a laptop, *Serve on this Wi-Fi too* reaches the phones at the table.")


def table_notebook(name: str, campaign: str, note: str = "") -> dict:
    """The table notebook of the campaign ``name`` in the folder ``campaign`` (as the notebook's kernel reaches it:
    relative to the notebook's own folder), ``note`` (Markdown) added under the text."""
    where = "in this folder" if campaign == "." else f"in the folder {markdown_code(campaign)}"
    code = ("import delvebook as db\n"
            "from delvebook.table import playing\n\n"
            f"camp = playing({campaign!r})\n"
            "camp.dashboard()")
    text = ABOUT.format(where=where) + (f"\n\n{note}" if note else "")
    return notebook(f"{markdown_text(name)}: the keeper's table", code, text)


def table_notebook_text(name: str, campaign: str, note: str = "") -> str:
    """``table_notebook`` as the file's text."""
    return json.dumps(table_notebook(name, campaign, note), indent=1, ensure_ascii=False) + "\n"
