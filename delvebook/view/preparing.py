"""Preparing the evening in the Keeper panel (``preparePanel`` in prepare.js): its sections' tabs, the Party (a new
delver with class, player, seat, starting choices and rolled or typed hearts; retiring; moving seats) and the
Bestiary (foe types added, changed, removed). Encounters and roll tables: ``encounters``, ``rolltables``."""

from __future__ import annotations

from itertools import islice
from typing import Any, Mapping

from ..engine import queries
from ..engine.base import data_items
from ..narrate import plural
from .shared import KEEPER_TABS, UI, edit_form, field_, field_error, option

__all__ = ["keeper_tab", "tabs", "party_section", "bestiary_section", "LISTED"]

LISTED = 30
"""Foe types the Bestiary section lists (the table's own first); the rest are found by id or name."""

_TAB_LABELS = {"table": "At the table", "party": "Party", "bestiary": "Bestiary", "encounters": "Encounters",
               "tables": "Roll tables"}


def keeper_tab(camp, ui: UI) -> str:
    """The section shown: the one picked, else the party for a table with no one at it yet."""
    if ui.keeper_tab in KEEPER_TABS:
        return ui.keeper_tab
    return "party" if not camp.state["seats"] else "table"


def tabs(camp, ui: UI) -> list[dict]:
    on = keeper_tab(camp, ui)
    return [{"id": t, "label": _TAB_LABELS[t], "on": t == on,
             "intent": {"do": "keeper_tab", "tab": t, "where": "keeper:tabs"}} for t in KEEPER_TABS]


# ---------------------------------------------------------------- the party

def _gives(rules, opt: Mapping) -> str:
    """What a starting option gives, in words: its items (by their names), what it grants."""
    items = []
    for it in opt.get("items", ()) or ():
        iid = it if isinstance(it, str) else it.get("item") or it.get("name")
        count = it.get("count", 1) if isinstance(it, Mapping) else 1
        name = rules.gear.get(iid, {}).get("name", str(iid).replace("_", " ")) if isinstance(iid, str) else str(iid)
        items.append(f"{count} {name}" if count and count > 1 else name)
    grants = [str(g).replace("_", " ") for g in opt.get("grants", ()) or ()]
    return ", ".join(items + grants) or str(opt.get("name", ""))


def _class_fields(camp, cid: str) -> list[dict]:
    """The new delver's starting choices for class ``cid`` (each option saying what it gives), and its hearts."""
    rules = camp.rules
    cls = rules.class_(cid)
    out = []
    for key, choice in data_items(cls["starting_gear"].get("choices", {})):
        opts = [option(oid, f"{o.get('name', oid)}: {_gives(rules, o)}") for oid, o in data_items(choice["options"])]
        out.append(field_(f"choice:{key}", "choice", str(choice.get("prompt", key)).rstrip("."),
                          opts[0]["value"] if opts else None, opts))
    for key, choice in data_items(rules.level(cid, 1).get("choices", {})):
        opts = [option(oid, f"{o.get('name', oid)}: {_gives(rules, o)}") for oid, o in data_items(choice["options"])]
        out.append(field_(f"choice:{key}", "choice", str(choice.get("prompt", key)).rstrip("."), "",
                          [option("", "choose later")] + opts))
    rule = rules.hearts(cid, 1)
    if "roll" in rule:
        out.append(field_("hearts", "text", f"hearts: {rule['roll']}", "",
                          hint=f"blank: rolled here; or the faces of your real dice ({rule['roll']})"))
    return out


def party_section(camp, ui: UI) -> dict:
    s, rules = camp.state, camp.rules
    where = "keeper:party"
    seats = s["seats"]
    rows = []
    for i, n in enumerate(seats):
        d = s["delvers"][n]
        row = {"name": n, "text": f"{n}: {d.get('class_name', d['class_id'])} {d['level']}, "
                                  f"{d['hearts']}/{d['max_hearts']} hearts, player {d['player']}",
               "retire": {"do": "retire_delver", "who": n, "where": where}, "retire_label": "Retire"}
        if i > 0:
            row["earlier"] = {"do": "seat_earlier", "who": n, "where": where}
        rows.append(row)
    retired = [f"{n} ({d.get('class_name', d['class_id'])} {d['level']}, player {d['player']})"
               for n, d in s["delvers"].items() if d.get("retired")]
    classes = [option(cid, str(c.get("name", cid))) for cid, c in rules.classes.items()]
    cid = ui.new_class if ui.new_class in rules.classes else (classes[0]["value"] if classes else None)
    players = sorted({d["player"] for d in s["delvers"].values()} | set(s["luck"]))
    seat_opts = [option("", "at the end (last, clockwise)")] + [option(str(i), f"before {n}")
                                                                for i, n in enumerate(seats)]
    fields = [field_("name", "text", "name", "", required=True, hint="Wren"),
              dict(field_("class", "choice", "class", cid, classes),
                   send={"do": "new_class", "where": f"{where}:form"}),
              field_("player", "text", "player", "", hint="who plays them" +
                     (f" ({', '.join(players)})" if players else "")),
              field_("seat", "choice", "seat", "", seat_opts)]
    if cid is not None:
        fields += _class_fields(camp, cid)
    form = {"id": "add_delver", "fields": fields,
            "submit": {"label": "Add to the party", "intent": {"do": "add_delver", "where": f"{where}:form"}}}
    return {"where": where, "rows": rows, "retired": retired,
            "form": field_error(form, ui, f"{where}:form"),
            "hint": "seats run clockwise: the party acts in this order in a fight"}


# ---------------------------------------------------------------- the bestiary

def _foe_text(fid: str, f: Mapping) -> str:
    bits = [plural(int(f.get("hearts", 0)), "heart"), f"attack +{f.get('attack_bonus', 0)}",
            f"damage {f.get('damage', '?')}"]
    if f.get("multi_attack", 1) and f.get("multi_attack", 1) > 1:
        bits.append(f"multi-attack {f['multi_attack']}")
    if f.get("ranged"):
        bits.append("ranged")
    armor = f.get("armor")
    if armor:
        bits.append(f"AV {armor.get('av')} DV {armor.get('dv')}")
    if f.get("counters") is False:
        bits.append("never counters")
    tags = list(f.get("tags") or ())
    if tags:
        bits.append(", ".join(map(str, tags)))
    return f"{f.get('name', fid)} ({fid}): " + " · ".join(bits)


def _foe_form(camp, ui: UI, where: str) -> dict:
    """The form that adds a foe type, or changes the one ``ui.edit`` names (``where``: the form's own place)."""
    editing = ui.edit if ui.edit and ui.edit.get("kind") == "foe" else None
    f: Mapping[str, Any] = {}
    if editing is not None:
        f = queries.foe_type(camp.state, camp.rules, editing["id"]) or {}
    armor = f.get("armor") or {}
    fields = [
        field_("name", "text", "name", f.get("name", ""), required=True, hint="Bog hag"),
        field_("hearts", "number", "hearts", f.get("hearts"), required=True, min=1),
        field_("attack_bonus", "text", "attack +", str(f.get("attack_bonus", "")), hint="0, 1, d6"),
        field_("damage", "text", "damage", str(f.get("damage", "")), hint="d6, 2d6, 3"),
        field_("armor_av", "number", "armor AV", armor.get("av"), min=0, hint="blank: none"),
        field_("armor_dv", "number", "DV", armor.get("dv"), min=0),
        field_("tags", "text", "tags", ", ".join(map(str, f.get("tags") or ())), hint="undead, demon, beast"),
        field_("multi_attack", "number", "attacks", f.get("multi_attack"), min=1, hint="1"),
        field_("ranged", "flag", "ranged", bool(f.get("ranged"))),
        field_("counters", "flag", "counters", f.get("counters", True) is not False),
        field_("note", "text", "keeper's note", str(f.get("note") or ""), hint="kept off the players' screen"),
    ]
    return edit_form(ui, "foe", fields, "prepare_foe", "Add to the bestiary",
                     str(f.get("name", (editing or {}).get("id"))), where)


def bestiary_section(camp, ui: UI) -> dict:
    where = "keeper:bestiary"
    types = queries.foe_types(camp.state, camp.rules)
    own = [k for k, v in types.over.items() if v is not None]
    shown = own[:LISTED] + [k for k in islice(types, LISTED) if k not in own][:max(0, LISTED - len(own))]
    rows = [{"id": k, "text": _foe_text(k, types[k]), "note": str(types[k].get("note") or ""),
             "own": k in own, "edit": {"do": "foe_edit", "id": k, "where": where},
             "remove": {"do": "remove_foe", "id": k, "where": where}} for k in shown]
    total = len(types)
    find = {"id": "foe_find", "fields": [field_("find", "text", "", "", hint="a foe's id or name")],
            "submit": {"label": "Change it", "intent": {"do": "foe_edit", "where": where}}}
    return {"where": where, "rows": rows, "form": _foe_form(camp, ui, f"{where}:form"),
            "editing": (ui.edit or {}).get("id") if (ui.edit or {}).get("kind") == "foe" else None,
            "count": f"{plural(total, 'foe type')}" + (f"; the first {len(rows)} listed" if total > len(rows) else ""),
            "find": field_error(find, ui, where) if total > len(rows) else None}
