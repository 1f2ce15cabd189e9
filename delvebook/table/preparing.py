"""The intents of preparing the evening in the Keeper panel: the party, the bestiary, the encounter builder (its
forecast and tuner, which ``forecasting`` runs between messages), roll tables. Each one that changes the campaign is
one campaign call (``Campaign``'s ``Preparing`` API); a refusal of something typed names its field, so the page
shows it beside that field (``ui.refusal["field"]``)."""

from __future__ import annotations

import re
from typing import Any, Mapping

from ..engine import Invalid, Refused, queries
from ..forecast.tune import TARGETS
from ..narrate import fight_name
from .intents import FormError, _args, _ask, _int, _text, intent
from ..view import KEEPER_TABS, UI
from ..view.encounters import draft_foes

__all__ = ["entries_from_lines"]


def prepares(name: str, tab: str, *, ui_only: bool = False):
    """Register an intent of the Keeper panel's section ``tab``: the panel stays on that section whatever it does
    (adding the first delver does not send the keeper away from the party)."""
    def register(fn):
        def handler(camp, ui: UI, i):
            ui.keeper_tab = tab
            return fn(camp, ui, i)
        handler.__doc__ = fn.__doc__
        return intent(name, ui_only=ui_only)(handler)
    return register


def _form_field(err: Invalid, fields: Mapping[str, str]) -> Invalid:
    """The refusal of a campaign call, naming the form's field for the schema's (``armor.dv`` -> ``armor_dv``)."""
    field = err.field or ""
    for prefix, name in fields.items():
        if field == prefix or field.startswith(prefix + ".") or field.startswith(prefix + "["):
            return Invalid(str(err), name)
    return err


# ---------------------------------------------------------------- the sections

@intent("keeper_tab", ui_only=True)
def _keeper_tab(camp, ui: UI, i):
    if i.get("tab") not in KEEPER_TABS:
        raise FormError(f"there is no section {i.get('tab')!r} in the Keeper panel")
    ui.keeper_tab = i["tab"]
    ui.edit = None
    ui.form = None


@intent("edit_cancel", ui_only=True)
def _edit_cancel(camp, ui: UI, i):
    ui.edit = None


# ---------------------------------------------------------------- the party

@prepares("new_class", "party", ui_only=True)
def _new_class(camp, ui: UI, i):
    value = i.get("value")
    if value not in camp.rules.classes:
        raise FormError(f"there is no class {value!r}")
    ui.new_class = value


def _faces(text: Any, what: str) -> list[int] | None:
    t = _text(text)
    if t is None:
        return None
    try:
        return [int(x) for x in t.replace(",", " ").split()]
    except ValueError:
        raise Invalid(f"{what}: the faces of real dice, whole numbers like '4' or '3 5', not {t!r}", "hearts") \
            from None


@prepares("add_delver", "party")
def _add_delver(camp, ui: UI, i):
    a = _args(i)
    name = _text(a.get("name"))
    if name is None:
        raise Invalid("a delver needs a name", "name")
    cid = _text(a.get("class")) or ui.new_class
    choices = {k.split(":", 1)[1]: v for k, v in a.items() if k.startswith("choice:") and _text(v)}
    seat = _int(a.get("seat"), "seat", required=False)
    if cid in camp.rules.classes:
        ui.new_class = cid  # (a refusal shows the form of the class asked for, beside the field it names)
    faces = _faces(a.get("hearts"), "hearts")
    try:
        d = camp.add_delver(name, cid, _text(a.get("player")), choices=choices or None, seat=seat,
                            faces={"hearts": faces} if faces is not None else None)
    except Invalid as err:
        raise _form_field(err, {"name": "name"})
    except Refused as err:
        field = "hearts" if "hearts" in str(err) else "name" if name in str(err) else None
        raise Invalid(str(err), field) from None
    ui.new_class = None
    return camp.events[-1] if d is not None else None


@prepares("retire_delver", "party")
def _retire(camp, ui: UI, i):
    who = i.get("who")
    if not i.get("confirmed"):
        return _ask(ui, i, f"Retire {who} from the table? They leave the seats and every share of XP and coins, and "
                           "stay in the history (undo brings them back).", f"Retire {who}", "Keep them")
    return camp.retire_delver(who)


@prepares("seat_earlier", "party")
def _seat_earlier(camp, ui: UI, i):
    seats = list(camp.state["seats"])
    who = i.get("who")
    if who not in seats or seats.index(who) == 0:
        raise FormError(f"{who!r} has no seat to move up from")
    k = seats.index(who)
    seats[k - 1], seats[k] = seats[k], seats[k - 1]
    return camp.set_seats(seats)


# ---------------------------------------------------------------- the bestiary

@prepares("foe_edit", "bestiary", ui_only=True)
def _foe_edit(camp, ui: UI, i):
    text = i.get("id") or _text(_args(i).get("find"))
    fid = queries.foe_id(camp.state, camp.rules, text)
    if fid is None:
        raise Invalid(f"there is no foe type {text!r} in the bestiary (its id, or its name)", "find")
    ui.edit = {"kind": "foe", "id": fid}


@prepares("prepare_foe", "bestiary")
def _prepare_foe(camp, ui: UI, i):
    a = _args(i)
    editing = ui.edit if ui.edit and ui.edit.get("kind") == "foe" and ui.edit.get("id") == i.get("id") else None
    av = _int(a.get("armor_av"), "armor AV", required=False)
    dv = _int(a.get("armor_dv"), "armor DV", required=False)
    if (av is None) != (dv is None):
        raise Invalid("armor has both an AV and a DV (both blank: none)", "armor_av" if av is None else "armor_dv")
    hearts = _int(a.get("hearts"), "hearts", required=False)
    if hearts is None:
        raise Invalid("a foe type has hearts (a whole number of 1 or more)", "hearts")
    tags = [t.strip() for t in str(a.get("tags") or "").split(",") if t.strip()]
    bonus, damage = _text(a.get("attack_bonus")) or "0", _text(a.get("damage")) or "d6"
    try:
        out = camp.prepare_foe(_text(a.get("name")) or "", hearts, int(bonus) if re.fullmatch(r"-?\d+", bonus)
                               else bonus, int(damage) if re.fullmatch(r"-?\d+", damage) else damage,
                               id=editing["id"] if editing else None, tags=tags,
                               armor={"av": av, "dv": dv} if av is not None else None,
                               multi_attack=_int(a.get("multi_attack"), "attacks", required=False),
                               ranged=bool(a.get("ranged")) or None, counters=bool(a.get("counters", True)),
                               note=_text(a.get("note")), change=editing is not None)
    except Invalid as err:
        raise _form_field(err, {"armor.av": "armor_av", "armor.dv": "armor_dv", "armor": "armor_av", "id": "name",
                                "name": "name", "hearts": "hearts", "attack_bonus": "attack_bonus",
                                "damage": "damage", "tags": "tags", "multi_attack": "multi_attack", "note": "note"})
    ui.edit = None
    return out


def _removed(ui: UI, i, found: Mapping | None, what: str, remove, verb: str = "Drop"):
    """Remove a prepared entry after asking once (``_ask``); a click about one that is not there is refused."""
    key = i.get("id")
    if found is None:
        raise Refused(f"there is no {what} {key!r}")
    if not i.get("confirmed"):
        return _ask(ui, i, f"{verb} the {what} {found.get('name') or key}? (Undo brings it back.)",
                    f"{verb} it", "Keep it")
    return remove(key)


@prepares("remove_foe", "bestiary")
def _remove_foe(camp, ui: UI, i):
    return _removed(ui, i, queries.foe_type(camp.state, camp.rules, i.get("id")), "foe type", camp.remove_foe,
                    "Remove")


# ---------------------------------------------------------------- the encounter builder

@prepares("builder_open", "encounters")
def _builder_open(camp, ui: UI, i):
    eid = i.get("id")
    if eid is None:
        ui.builder = {"id": None, "name": "", "note": "", "foes": [], "out": [], "dark": False}
    else:
        enc = queries.encounter(camp.state, camp.rules, eid)
        if enc is None:
            raise Refused(f"there is no prepared encounter {eid!r}")
        counts: dict[str, int] = {}
        for f in queries.encounter_foes(enc):
            fid = f if isinstance(f, str) else f.get("foe")
            counts[fid] = counts.get(fid, 0) + 1
        ui.builder = {"id": eid, "name": str(enc.get("name") or fight_name(eid)), "note": str(enc.get("note") or ""),
                      "foes": [[k, n] for k, n in counts.items()], "out": [], "dark": bool(enc.get("dark"))}
    ui.keeper_tab = "encounters"
    ui.forecast = ui.tuning = None


def _builder(ui: UI) -> dict:
    if ui.builder is None:
        raise FormError("open the encounter builder first (New encounter)")
    return ui.builder


@prepares("builder_foe", "encounters")
def _builder_foe(camp, ui: UI, i):
    """One foe more or less (a what-if in one click)."""
    b = _builder(ui)
    delta = _int(i.get("delta"), "one more or less")
    foes = [[f, n + delta if f == i.get("foe") else n] for f, n in b["foes"]]
    b["foes"] = [[f, n] for f, n in foes if n > 0]


@prepares("builder_add", "encounters")
def _builder_add(camp, ui: UI, i):
    b = _builder(ui)
    a = _args(i)
    text = _text(a.get("foe")) or i.get("foe")
    fid = queries.foe_id(camp.state, camp.rules, text)
    if fid is None:
        raise Invalid(f"there is no foe type {text!r} in the bestiary (its id, or its name)" if text else
                      "pick a foe type from the bestiary", "foe")
    count = _int(a.get("count"), "how many", required=False) or 1
    if not 1 <= count <= 100:
        raise Invalid(f"how many: 1 to 100, not {count}", "count")
    for f in b["foes"]:
        if f[0] == fid:
            f[1] += count
            break
    else:
        b["foes"].append([fid, count])


@prepares("builder_out", "encounters")
def _builder_out(camp, ui: UI, i):
    """A delver sits the fight out, or comes back in (a what-if in one click)."""
    b = _builder(ui)
    who = i.get("who")
    if who not in camp.state["seats"]:
        raise FormError(f"{who!r} is not at the table")
    b["out"] = [n for n in b["out"] if n != who] if who in b["out"] else b["out"] + [who]


@prepares("builder_dark", "encounters")
def _builder_dark(camp, ui: UI, i):
    """The fight in darkness, or lit (a what-if in one click, saved with the encounter)."""
    b = _builder(ui)
    b["dark"] = not b.get("dark")


@prepares("builder_save", "encounters")
def _builder_save(camp, ui: UI, i):
    b = _builder(ui)
    a = _args(i)
    b["name"], b["note"] = str(a.get("name") or b["name"]), str(a.get("note") if "note" in a else b["note"])
    try:
        out = camp.prepare_encounter(_text(b["name"]) or "", draft_foes(b), id=b["id"], note=_text(b["note"]),
                                     dark=bool(b.get("dark")), change=b["id"] is not None)
    except Invalid as err:
        raise _form_field(err, {"name": "name", "id": "name", "note": "note", "foes": "name"})
    b["id"] = out["id"]
    return out


@intent("builder_start")
def _builder_start(camp, ui: UI, i):
    b = _builder(ui)
    saved = queries.encounter(camp.state, camp.rules, b["id"]) if b["id"] else None
    if saved is not None and _counted(queries.encounter_foes(saved)) == dict(map(tuple, b["foes"])) \
            and bool(saved.get("dark")) == bool(b.get("dark")):
        camp.encounter(b["id"])
    else:
        foes = [{"foe": f} for f, n in b["foes"] for _ in range(n)]
        if not foes:
            raise FormError("add foes to the encounter first")
        camp.encounter(foes, name=_text(_args(i).get("name")) or _text(b["name"]), dark=bool(b.get("dark")))
    ui.builder = ui.forecast = ui.tuning = None
    ui.panel = "play"
    return camp.events[-1]


def _counted(foes: list) -> dict:
    out: dict = {}
    for f in foes:
        fid = f if isinstance(f, str) else f.get("foe")
        out[fid] = out.get(fid, 0) + 1
    return out


@prepares("builder_close", "encounters")
def _builder_close(camp, ui: UI, i):
    ui.builder = ui.forecast = ui.tuning = None


@prepares("forecast_cancel", "encounters")
def _forecast_cancel(camp, ui: UI, i):
    if ui.forecast is not None and ui.forecast.get("status") == "running":
        ui.forecast = {**ui.forecast, "status": "cancelled", "why": "cancelled"}


@prepares("forecast_again", "encounters")
def _forecast_again(camp, ui: UI, i):
    ui.forecast = None  # the runner starts it afresh


@prepares("forecast_policy", "encounters")
def _forecast_policy(camp, ui: UI, i):
    """Forecast by how this party plays (``habits``) or by the documented default (``default``)."""
    b = _builder(ui)
    if i.get("policy") not in ("habits", "default"):
        raise FormError("forecast by 'habits' (how this party plays) or 'default' (the documented policy)")
    b["policy"] = i["policy"]


@prepares("forecast_check", "encounters")
def _forecast_check(camp, ui: UI, i):
    """Check the forecast against every fight of the campaign, by both policies (``forecast.check``)."""
    _builder(ui)["check"] = {"status": "asked"}


@prepares("check_cancel", "encounters")
def _check_cancel(camp, ui: UI, i):
    b = _builder(ui)
    if (b.get("check") or {}).get("status") in ("asked", "running"):
        b["check"] = {**b["check"], "status": "cancelled"}


@prepares("tune", "encounters")
def _tune(camp, ui: UI, i):
    _builder(ui)
    a = _args(i)
    text = _text(a.get("foe"))
    fid = queries.foe_id(camp.state, camp.rules, text)
    if fid is None:
        raise Invalid(f"there is no foe type {text!r} in the bestiary" if text else "pick the foe to count", "foe")
    target = _text(a.get("target")) or "nobody dies"
    if target not in TARGETS:
        raise Invalid(f"a target is one of {', '.join(TARGETS)}", "target")
    ui.tuning = {"status": "asked", "foe": fid, "name": str(queries.foe_type(camp.state, camp.rules, fid)
                                                           .get("name", fid)), "target": target}


@prepares("tune_use", "encounters")
def _tune_use(camp, ui: UI, i):
    b = _builder(ui)
    fid, count = i.get("foe"), _int(i.get("count"), "how many")
    others = [[f, n] for f, n in b["foes"] if f != fid]
    b["foes"] = [[f, n] for f, n in b["foes"] if f == fid][:1] or [[fid, 0]]
    b["foes"][0][1] = count
    b["foes"] = b["foes"] + others if b["foes"][0][1] > 0 else others


@prepares("tune_cancel", "encounters")
def _tune_cancel(camp, ui: UI, i):
    if ui.tuning is not None and ui.tuning.get("status") in ("asked", "running"):
        ui.tuning = {**ui.tuning, "status": "cancelled", "why": "cancelled"}


@prepares("remove_encounter", "encounters")
def _remove_encounter(camp, ui: UI, i):
    eid = i.get("id")
    out = _removed(ui, i, queries.encounter(camp.state, camp.rules, eid), "prepared encounter", camp.remove_encounter)
    if out is not None and ui.builder is not None and ui.builder.get("id") == eid:
        ui.builder["id"] = None  # the builder's draft is a new encounter now
    return out


# ---------------------------------------------------------------- roll tables

_LINE = re.compile(r"^\s*(?P<range>-?\d+(?:\s*(?:-|–|\.\.|to)\s*-?\d+)?)\s*[:=]\s*(?P<rest>.*)$")


def entries_from_lines(text: Any) -> list[dict]:
    """A table's entries from the form's lines: ``1-3: a rusty dagger``, ``6: a gem -> gems`` (rolls on gems),
    ``4: -> gems``. A line that says none of that is refused naming its line."""
    out = []
    for n, line in enumerate(str(text or "").splitlines(), 1):
        if not line.strip():
            continue
        m = _LINE.match(line)
        if m is None:
            raise Invalid(f"line {n}: write a range, a colon and the result, like '1-3: a rusty dagger' (or "
                          f"'6: a gem -> gems' to roll on the table gems), not {line.strip()!r}", "entries")
        rest = m.group("rest")
        result, _, roll = rest.partition("->")
        entry = {"range": m.group("range").replace(" ", ""), "result": result.strip() or None,
                 "roll": roll.strip() or None}
        out.append({k: v for k, v in entry.items() if v is not None})
    if not out:
        raise Invalid("a table needs entries, one a line: '1-3: a rusty dagger'", "entries")
    return out


def _entry_lines_field(err: Invalid, entries: list[dict]) -> Invalid:
    """'entries[2].range: ...' said as 'line 3: ...' on the entries field."""
    m = re.match(r"^entries\[(\d+)\]", err.field or "")
    if m:
        text = str(err)
        text = re.sub(r"^entries\[\d+\](\.\w+)?: ", "", text)
        text = re.sub(r"entries\[(\d+)\]", lambda g: f"line {int(g.group(1)) + 1}", text)
        return Invalid(f"line {int(m.group(1)) + 1}: {text}", "entries")
    if (err.field or "").startswith("entries"):
        return Invalid(str(err).replace("entries: ", "", 1), "entries")
    return _form_field(err, {"name": "name", "id": "name", "dice": "dice", "note": "note"})


@prepares("table_edit", "tables", ui_only=True)
def _table_edit(camp, ui: UI, i):
    tid = i.get("id")
    if queries.roll_table(camp.state, camp.rules, tid) is None:
        raise Refused(f"there is no roll table {tid!r}")
    ui.edit = {"kind": "table", "id": tid}


@prepares("prepare_table", "tables")
def _prepare_table(camp, ui: UI, i):
    a = _args(i)
    editing = ui.edit if ui.edit and ui.edit.get("kind") == "table" and ui.edit.get("id") == i.get("id") else None
    entries = entries_from_lines(a.get("entries"))
    try:
        out = camp.prepare_table(_text(a.get("name")) or "", _text(a.get("dice")) or "", entries,
                                 id=editing["id"] if editing else None,
                                 without_replacement=bool(a.get("without_replacement")), note=_text(a.get("note")),
                                 change=editing is not None)
    except Invalid as err:
        raise _entry_lines_field(err, entries)
    ui.edit = None
    return out


@prepares("remove_table", "tables")
def _remove_table(camp, ui: UI, i):
    return _removed(ui, i, queries.roll_table(camp.state, camp.rules, i.get("id")), "roll table", camp.remove_table)


@prepares("roll_table", "tables")
def _roll_table(camp, ui: UI, i):
    return camp.roll_table(i.get("table"))


@prepares("reset_table", "tables")
def _reset_table(camp, ui: UI, i):
    return camp.reset_table(i.get("table"))
