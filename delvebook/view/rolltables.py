"""Roll tables in the Keeper panel (``rollTables`` in prepare.js): every table (the namer's true names, campaign.yaml's,
the table's own), rolled in one click (the outcome shows on the right, where luck dice shift it), changed, reset,
dropped; and the form that makes or changes one, its entries one a line (``1-3: a rusty dagger``,
``6: a gem -> gems`` to roll on another table)."""

from __future__ import annotations

from typing import Mapping

from ..engine import queries
from ..narrate import plural
from ..core.rules.prepared import TRUE_NAMES, parse_range, range_text
from .shared import UI, edit_form, field_

__all__ = ["tables_section", "entry_lines"]


def entry_lines(table: Mapping) -> str:
    """A table's entries as the form writes them, one a line."""
    out = []
    for e in table.get("entries", ()):
        r = parse_range(e.get("range"))
        head = range_text(*r) if r else str(e.get("range"))
        result = e.get("result") or ""
        roll = f" -> {e['roll']}" if e.get("roll") else ""
        out.append(f"{head}: {result}{roll}".replace(":  ->", ": ->"))
    return "\n".join(out)


def _form(camp, ui: UI, where: str) -> dict:
    editing = ui.edit if ui.edit and ui.edit.get("kind") == "table" else None
    t: Mapping = {}
    if editing is not None:
        t = queries.roll_table(camp.state, camp.rules, editing["id"]) or {}
    fields = [field_("name", "text", "name", str(t.get("name", "")), required=True, hint="Loot"),
              field_("dice", "text", "dice", str(t.get("dice", "")), required=True, hint="d6, 2d6, d66, d20"),
              field_("entries", "lines", "entries", entry_lines(t) if t else "", required=True,
                     hint="one a line: 1-3: a rusty dagger\n4-5: 2d6 talons\n6: a gem -> gems"),
              field_("without_replacement", "flag", "draw without replacement", bool(t.get("without_replacement"))),
              field_("note", "text", "note", str(t.get("note") or ""), hint="the keeper's")]
    return edit_form(ui, "table", fields, "prepare_table", "Make the table",
                     str(t.get("name", (editing or {}).get("id"))), where)


def tables_section(camp, ui: UI) -> dict:
    where = "keeper:tables"
    tables = queries.roll_tables(camp.state, camp.rules)
    rows = []
    for tid, t in tables.items():
        drawn = queries.drawn(camp.state, tid)
        n = len(t.get("entries", ()))
        bits = [str(t.get("dice")), plural(n, "entry", "entries")]
        if t.get("without_replacement"):
            bits.append(f"drawn without replacement: {len(drawn)} of {n} drawn")
        rows.append({"id": tid, "name": str(t.get("name") or tid), "text": " · ".join(bits),
                     "note": str(t.get("note") or ""), "own": tables.by_table(tid),
                     "roll": {"do": "roll_table", "table": tid, "where": where},
                     "edit": {"do": "table_edit", "id": tid, "where": where},
                     "reset": {"do": "reset_table", "table": tid, "where": where} if drawn else None,
                     "remove": None if tid == TRUE_NAMES else {"do": "remove_table", "id": tid, "where": where}})
    return {"where": where, "rows": rows, "form": _form(camp, ui, f"{where}:form"),
            "hint": "dice written in an entry (2d6 crowns) are rolled when it is drawn; a luck die shifts a roll on a "
                    "table, or an entry's dice, as any roll: the outcome says the entry it moved from"}
