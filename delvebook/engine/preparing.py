"""Preparing the evening by the table's clicks: the party (a delver retired, the seats moved), the bestiary (foe
types), prepared encounters and roll tables, and rolls on a table.

Each is one event that sets one entry by id under ``state["prepared"]`` (null: removed), so undo, replay,
``validate``, export and the zip carry it; ``queries.prepared`` lays it over what campaign.yaml prepared by hand.
What is typed is checked by the one schema (``rules.schema``, ``rules.prepared``) that checks campaign.yaml, and a
refusal names the field (``Invalid``).

Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..core.declared import Action, Record, Text, field
from ..core.rules.prepared import (ROLL_DEPTH, TRUE_NAMES, encounter_problems, entry_dice, entry_for, id_problem,
                                   normal_foes, parse_range, range_text, slug, table_chains, table_cycles,
                                   table_problems)
from ..core.names import NameIndex, look_alike, name_problem
from ..core.rules.schema import foe_problems
from .base import Ctx, Invalid, command
from .queries import drawn, encounters, foe_type, foe_types, roll_table, roll_tables

__all__ = ["retire_delver", "set_seats", "prepare_foe", "remove_foe", "prepare_encounter", "remove_encounter",
           "prepare_table", "remove_table", "roll_on_table", "reset_table", "REROLLS", "RetireDelver", "SetSeats",
           "PrepareFoe", "RemoveFoe", "PrepareEncounter", "RemoveEncounter", "PrepareTable", "RemoveTable",
           "TableRoll", "RollTable", "ResetTable"]

REROLLS = 50
"""Rolls on a table drawn without replacement before the next entry not yet drawn is taken instead."""


# ---------------------------------------------------------------- where the table's preparation is kept

def _set(ctx: Ctx, kind: str, key: str, value: Any) -> None:
    """Set one prepared entry (None: removed), making the place for it on the first preparation."""
    if "prepared" not in ctx.state:
        ctx.set(["prepared"], {"foes": {}, "encounters": {}, "tables": {}, "drawn": {}})
    ctx.set(["prepared", kind, key], value)


def _new_id(ctx: Ctx, given: Any, name: str, taken, what: str, change: bool) -> str:
    """The id of an entry being prepared: the one given, else one made from the name; a new one must be free, a
    change must name one that stands."""
    eid = given.strip() if isinstance(given, str) else given if given is not None else slug(name)
    if given is None and not eid:
        raise Invalid(f"{name!r} makes no id: give one (letters, digits, _ and -)", "id")
    problem = id_problem(eid)
    if problem is not None:
        raise Invalid(problem, "id")
    if change and eid not in taken:
        raise Invalid(f"there is no {what} {eid!r} to change", "id")
    if not change and eid in taken:
        raise Invalid(f"there is already a {what} {eid!r}: change it, or name this one differently", "name")
    return eid


def _name(ctx: Ctx, name: Any, what: str) -> str:
    """The name typed, stripped, that ``names.name_problem`` accepts (the one check of a name, alone)."""
    if not isinstance(name, str) or not name.strip():
        raise Invalid(f"a {what} needs a name", "name")
    problem = name_problem(name.strip(), f"a {what}'s name")
    if problem is not None:
        raise Invalid(problem, "name")
    return name.strip()


def _reads_free(name: str, own: str, entries: Mapping, what: str, index: NameIndex | None = None) -> None:
    """Refuse ``name`` when another entry that stands (not ``own``, the one being changed) is called a name that
    reads the same (``names.look_alike``: case, NFKC, the common confusables). ``index`` holds the rules' names (a
    bestiary of thousands: one step) by id, beside the table's own entries (``entries.over``, a handful)."""
    others = {}
    over = getattr(entries, "over", None)
    if index is not None:
        hit = index.find(name)
        fid = index.what(hit) if hit is not None else None
        if fid is not None and fid != own and fid in entries and (over is None or fid not in over):
            others[str(entries[fid].get("name", fid))] = fid
    for key in (over if over is not None else entries):
        entry = entries[key] if key in entries else None
        if key != own and entry is not None:
            others[str(entry.get("name", key))] = key
    other = look_alike(name, others)
    if other is not None:
        raise Invalid(f"{other!r} ({others[other]}) is already a {what} that reads the same as {name!r}: name this "
                      "one differently", "name")


# ---------------------------------------------------------------- the party

class RetireDelver(Action, kind="retire_delver", targets=("who",)):
    """A delver leaves the table for good; whether its player still plays (with another delver)."""

    who: str
    player: str
    player_stays: bool


@command(RetireDelver)
def retire_delver(ctx: Ctx, who: str) -> None:
    """A delver leaves the table for good: off the seats and out of every split, kept in the history (their sheet
    stays in the state, and undo brings them back). A player with no other delver at the table keeps no luck dice."""
    d = ctx.delver(who)
    enc = ctx.state["encounter"]
    if enc is not None and who in enc["order"]["party"]:
        ctx.refuse(f"{who} is in the fight: retire them once it ends")
    ctx.set(["delvers", who, "retired"], True)
    seats = [n for n in ctx.state["seats"] if n != who]
    ctx.set(["seats"], seats)
    player = d["player"]
    still = any(ctx.state["delvers"][n]["player"] == player for n in seats)
    if not still and player in ctx.state["luck"]:
        ctx.set(["luck"], {p: n for p, n in ctx.state["luck"].items() if p != player})
    ctx.out(who=who, player=player, player_stays=still)


class SetSeats(Action, kind="set_seats", targets=("order",)):
    """The seats moved, clockwise: as they are now and as they were."""

    order: list[str] = field(column="seats")
    was: list[str] = field(column="seats_before")


@command(SetSeats)
def set_seats(ctx: Ctx, order: list) -> None:
    """The seats around the table, clockwise (the party's default order in a fight): the same delvers, moved."""
    seats = ctx.state["seats"]
    if not isinstance(order, list) or sorted(map(str, order)) != sorted(seats) or len(set(order)) != len(order):
        raise Invalid(f"the seats hold the delvers at the table, each once ({', '.join(seats) or 'none'}), not "
                      f"{order!r}", "order")
    if list(order) == list(seats):
        ctx.refuse("the seats are already in that order")
    ctx.set(["seats"], list(order))
    ctx.out(order=list(order), was=list(seats))


# ---------------------------------------------------------------- the bestiary

class _Prepared(Action):
    """An entry the table prepares, by id, and its name."""

    id: str
    name: str


class PrepareFoe(_Prepared, kind="prepare_foe"):
    """A foe type added to the bestiary (``new``) or changed, and its hearts."""

    new: bool
    hearts: int


@command(PrepareFoe)
def prepare_foe(ctx: Ctx, name: str, hearts: Any = None, attack_bonus: Any = 0, damage: Any = "d6", tags: Any = (),
                armor: Any = None, multi_attack: Any = None, ranged: Any = None, counters: Any = None,
                note: Any = None, id: str | None = None, change: bool = False) -> None:
    """A foe type added to the bestiary, or one changed (``change=True``: every field given again, as on the
    form): name, hearts, attack_bonus, damage, tags, and optionally multi_attack, ranged, armor {av, dv}, counters
    (false: it never hits back) and a keeper's note, kept off the players' screen."""
    name = _name(ctx, name, "foe type")
    if hearts is None:
        raise Invalid("a foe type has hearts (a whole number of 1 or more)", "hearts")
    entry: dict = {"name": name, "hearts": hearts, "attack_bonus": attack_bonus, "damage": damage,
                   "tags": list(tags) if isinstance(tags, (list, tuple)) else tags}
    for key, value in (("multi_attack", multi_attack), ("ranged", ranged), ("armor", armor), ("note", note)):
        if value not in (None, {}, ""):
            entry[key] = value
    if counters is False:
        entry["counters"] = False  # (the default, a foe that counters when the exchange allows, is left unsaid)
    ctx.invalid(foe_problems(entry))
    types = foe_types(ctx.state, ctx.rules)
    fid = _new_id(ctx, id, name, types, "foe type", change)
    _reads_free(name, fid, types, "foe type", ctx.rules.foe_name_index)
    _set(ctx, "foes", fid, entry)
    ctx.out(id=fid, name=name, new=not change, hearts=entry["hearts"])


class RemoveFoe(_Prepared, kind="remove_foe"):
    """A foe type leaves the bestiary."""


@command(RemoveFoe)
def remove_foe(ctx: Ctx, id: str) -> None:
    """A foe type leaves the bestiary (a fight running keeps its foes); refused while a prepared encounter uses it."""
    entry = foe_type(ctx.state, ctx.rules, id)
    if entry is None:
        ctx.refuse(f"there is no foe type {id!r} in the bestiary")
    using = [eid for eid, enc in encounters(ctx.state, ctx.rules).items()
             if any((f if isinstance(f, str) else f.get("foe")) == id for f in normal_foes(enc.get("foes")) or ())]
    if using:
        ctx.refuse(f"{entry.get('name', id)} is in the prepared encounter{'s' if len(using) > 1 else ''} "
                   f"{', '.join(using)}: take it out of them first")
    _set(ctx, "foes", id, None)
    ctx.out(id=id, name=entry.get("name", id))


# ---------------------------------------------------------------- prepared encounters

class FoeCount(Record):
    """A foe type in a prepared encounter, and how many."""

    foe: str
    count: int


class PrepareEncounter(_Prepared, kind="prepare_encounter"):
    """An encounter prepared (``new``) or changed, and its foes."""

    new: bool
    foes: list[FoeCount] = field(column="foe_counts")


@command(PrepareEncounter)
def prepare_encounter(ctx: Ctx, name: str, foes: list, id: str | None = None, note: str | None = None,
                      dark: bool = False, change: bool = False) -> None:
    """A named encounter prepared (foes from the bestiary, with counts: ``[{"foe": "goblin", "count": 3}]`` or
    ids; a note for the keeper; ``dark``: fought in darkness), or one changed (``change=True``); started later as
    any prepared encounter."""
    name = _name(ctx, name, "prepared encounter")
    listed = normal_foes(foes)
    entry: dict = {"name": name, "foes": listed if listed is not None else foes}
    if note is not None and str(note).strip():
        entry["note"] = note
    if dark not in (None, False):
        entry["dark"] = dark  # (true, or refused by the schema below)
    types = foe_types(ctx.state, ctx.rules)
    ctx.invalid(encounter_problems(entry, types))
    entry["foes"] = _merged(listed)
    found = encounters(ctx.state, ctx.rules)
    eid = _new_id(ctx, id, name, found, "prepared encounter", change)
    _reads_free(name, eid, {k: found[k] for k in found}, "prepared encounter")
    _set(ctx, "encounters", eid, entry)
    ctx.out(id=eid, name=name, new=not change, foes=entry["foes"])


def _merged(foes: list) -> list:
    """``[{foe, count}]`` with one entry a foe type, in the order first named."""
    out: dict[str, int] = {}
    for f in foes:
        out[f["foe"]] = out.get(f["foe"], 0) + int(f.get("count", 1))
    return [{"foe": k, "count": n} for k, n in out.items()]


class RemoveEncounter(_Prepared, kind="remove_encounter"):
    """A prepared encounter dropped."""


@command(RemoveEncounter)
def remove_encounter(ctx: Ctx, id: str) -> None:
    """A prepared encounter is dropped (a fight it started goes on)."""
    found = encounters(ctx.state, ctx.rules)
    if id not in found:
        ctx.refuse(f"there is no prepared encounter {id!r}")
    name = found[id].get("name") or id
    _set(ctx, "encounters", id, None)
    ctx.out(id=id, name=name)


# ---------------------------------------------------------------- roll tables

class PrepareTable(_Prepared, kind="prepare_table"):
    """A roll table made (``new``) or changed: its formula and how many entries it has."""

    new: bool
    dice: str
    entries: int


@command(PrepareTable)
def prepare_table(ctx: Ctx, name: str, dice: str, entries: list, id: str | None = None,
                  without_replacement: bool = False, note: str | None = None, change: bool = False) -> None:
    """A roll table made (a formula, and ranges of totals -> results, a result perhaps rolling on another table;
    drawn without replacement if asked), or one changed (``change=True``; its draws so far are forgotten)."""
    name = _name(ctx, name, "roll table")
    entry: dict = {"name": name, "dice": dice, "entries": entries}
    if without_replacement:
        entry["without_replacement"] = True
    if note is not None and str(note).strip():
        entry["note"] = note
    tables = roll_tables(ctx.state, ctx.rules)
    tid = _new_id(ctx, id, name, tables, "roll table", change)
    _reads_free(name, tid, {k: tables[k] for k in tables}, "roll table")
    ctx.invalid(table_problems(entry, (), set(tables) | {tid}))
    entry["entries"] = [{k: v for k, v in e.items() if v is not None} for e in entries]
    laid = {k: tables[k] for k in tables}
    laid[tid] = entry
    ctx.invalid([p._replace(path=p.path[1:]) for p in table_cycles(laid) if p.path[0] == tid])
    ctx.invalid([p._replace(path=p.path[1:]) for p in table_chains(laid, through=tid)])
    _set(ctx, "tables", tid, entry)
    if change and drawn(ctx.state, tid):
        ctx.set(["prepared", "drawn", tid], [])
    ctx.out(id=tid, name=name, new=not change, dice=dice, entries=len(entries))


class RemoveTable(_Prepared, kind="remove_table"):
    """A roll table dropped."""


@command(RemoveTable)
def remove_table(ctx: Ctx, id: str) -> None:
    """A roll table is dropped; refused while another table rolls on it, and for the namer's true names."""
    tables = roll_tables(ctx.state, ctx.rules)
    if id not in tables:
        ctx.refuse(f"there is no roll table {id!r}")
    if id == TRUE_NAMES:
        ctx.refuse("the namer's true names are rolled on this table: change it instead")
    users = [t for t, table in tables.items() if t != id and any(e.get("roll") == id for e in table["entries"])]
    if users:
        ctx.refuse(f"{', '.join(users)} roll{'s' if len(users) == 1 else ''} on {id}: change "
                   f"{'it' if len(users) == 1 else 'them'} first")
    name = tables[id].get("name") or id
    _set(ctx, "tables", id, None)
    if drawn(ctx.state, id):
        ctx.set(["prepared", "drawn", id], [])
    ctx.out(id=id, name=name)


class TableRoll(Record):
    """One roll on a table: the table (by id and name) and its formula, the total, the entry it landed in (its index
    and range) and its result (``rolled``: with the dice written in it rolled, '2d6 crowns' -> '7 crowns'), how many
    entries drawn already were rolled again, and the roll on the table that entry rolls on (``then``)."""

    table: str = field(column="table_id")
    name: str
    dice: str
    total: int
    entry: int
    range: str = field(column="entry_range")
    result: str | None
    rolled: Text | None = field(None, column="result_rolled")
    rerolled: int = 0
    then: TableRoll | None = field(None, column="then_rolled")


class WasRolled(Record):
    """Where a roll on a table landed before a luck die moved it."""

    total: int
    entry: int
    result: str


class RollTable(TableRoll, Action, kind="roll_table", actor="who"):
    """A roll on a table (``TableRoll``) by ``who``, and where it landed before a luck die moved it (``was``)."""

    who: str
    was: WasRolled | None = None


@command(RollTable)
def roll_on_table(ctx: Ctx, table: str, who: str | None = None) -> None:
    """A roll on a table: its formula rolled, the entry the total lands in, and any table that entry rolls on in
    turn. A luck die shifts the total, and so the entry (the outcome says what it was); a table drawn without
    replacement rolls again on an entry drawn already."""
    t = roll_table(ctx.state, ctx.rules, table)
    if t is None:
        known = roll_tables(ctx.state, ctx.rules)
        ctx.refuse(f"there is no roll table {table!r} (tables: {', '.join(known) or 'none'})")
    roller = who or "keeper"
    if who is not None:
        ctx.combatant(who)
    first = _roll_on(ctx, table, t, roller, [table])
    before = ctx.recorded.get("table") if ctx.recorded else None
    if isinstance(before, Mapping) and before.get("total") != first["total"]:
        i, was = entry_for(t, before["total"], before["total"] - before.get("base_total", before["total"]))
        first["was"] = {"total": before["total"], "entry": i, "result": was.get("result") or f"roll on {was['roll']}"}
    ctx.out(who=roller, **first)


def _roll_on(ctx: Ctx, tid: str, t: Mapping, roller: str, trail: list) -> dict:
    """One roll on table ``tid`` (and on every table its entry rolls on): what the event records of it."""
    taken = set(drawn(ctx.state, tid)) if t.get("without_replacement") else set()
    if taken and len(taken) >= len(t["entries"]):
        ctx.refuse(f"every entry of {t.get('name') or tid} has been drawn: reset it to draw again")
    name = t.get("name") or tid
    r = ctx.roll("table", t["dice"], who=roller, why=f"{name} table")
    i, entry = entry_for(t, r.total, r.total - r.base_total)
    rerolled = 0
    while i in taken and rerolled < REROLLS:  # drawn already: rolled again
        rerolled += 1
        r = ctx.roll("table", t["dice"], who=roller, why=f"{name} table, {i + 1} drawn already")
        i, entry = entry_for(t, r.total, r.total - r.base_total)
    if i in taken:  # still nothing new: the next entry not yet drawn
        i = next(k % len(t["entries"]) for k in range(i, i + len(t["entries"])) if k % len(t["entries"]) not in taken)
        entry = t["entries"][i]
    if t.get("without_replacement"):
        _set(ctx, "drawn", tid, drawn(ctx.state, tid) + [i])
    out = {"table": tid, "name": name, "dice": t["dice"], "total": r.total, "entry": i,
           "range": range_text(*parse_range(entry["range"])), "result": entry.get("result")}
    rolled = _roll_entry(ctx, entry.get("result"), roller, name)
    if rolled is not None:
        out["rolled"] = rolled
    if rerolled:
        out["rerolled"] = rerolled
    nested = entry.get("roll")
    if nested is not None:
        inner = roll_table(ctx.state, ctx.rules, nested)
        if inner is None:
            ctx.refuse(f"{name}'s entry {out['range']} rolls on {nested!r}, which is no longer a table")
        if nested in trail:
            ctx.refuse(f"{name} rolls on {' -> '.join(trail + [nested])}: tables rolling on each other in a circle "
                       "never end")
        if len(trail) >= ROLL_DEPTH:  # (refused when the tables were made; a hand-edited log may still hold it)
            ctx.refuse(f"{name} rolls on {' -> '.join(trail + [nested])}: at most {ROLL_DEPTH} tables roll one "
                       "inside another")
        out["then"] = _roll_on(ctx, nested, inner, roller, trail + [nested])
    return out


def _roll_entry(ctx: Ctx, result: Any, roller: str, name: str) -> str | None:
    """The dice written in an entry's result rolled as it is drawn ('2d6 crowns' -> '7 crowns'), each a roll of
    its own (``entry``) that a luck die shifts as any roll; None when the result holds no dice."""
    found = entry_dice(result)
    if not found:
        return None
    out, at = [], 0
    for start, end, notation in found:
        r = ctx.roll("entry", notation, who=roller, why=f"{notation} in {name}'s {result!r}")
        out += [result[at:start], str(r.total)]
        at = end
    return "".join(out + [result[at:]])


class ResetTable(Action, kind="reset_table"):
    """A table drawn without replacement made whole again."""

    table: str = field(column="table_id")
    name: str


@command(ResetTable)
def reset_table(ctx: Ctx, table: str) -> None:
    """A table drawn without replacement is whole again: every entry may be drawn."""
    t = roll_table(ctx.state, ctx.rules, table)
    if t is None:
        ctx.refuse(f"there is no roll table {table!r}")
    if not drawn(ctx.state, table):
        ctx.refuse(f"nothing has been drawn from {t.get('name') or table}")
    ctx.set(["prepared", "drawn", table], [])
    ctx.out(table=table, name=t.get("name") or table)
