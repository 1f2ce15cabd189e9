"""What preparing the evening is told as: a delver retired, the seats moved, foe types, prepared encounters and
roll tables made, changed and dropped, and a roll on a table (its entry, the tables it rolls on, and the entry a
luck die moved it from)."""

from __future__ import annotations

from typing import Any

from ..engine.preparing import (PrepareEncounter, PrepareFoe, PrepareTable, RemoveEncounter, RemoveFoe, RemoveTable,
                                ResetTable, RetireDelver, RollTable, SetSeats, TableRoll, WasRolled)
from .words import names, plural, rules_of, said, spaced, story, tells, untold

__all__ = ["foes_text", "table_line"]


def _foe_name(ctx: Any, fid: Any) -> str:
    """A foe type by its name as it stands (the table's or the bestiary's), its id in words otherwise."""
    state, rules = getattr(ctx, "state", None), rules_of(ctx)
    if state is not None and rules is not None:
        from ..engine.queries import foe_type
        entry = foe_type(state, rules, fid)
        if entry is not None:
            return str(entry.get("name", fid))
    return spaced(fid).capitalize()


def foes_text(foes: Any, ctx: Any = None) -> str:
    """A prepared encounter's foes in words: 'Bog hag and 3 Bog goblins' (as campaign.yaml or the state holds
    them: ids, or ``{foe, count}``)."""
    return _counted([(f, 1) if isinstance(f, str) else (f.get("foe"), int(f.get("count", 1))) for f in foes or ()],
                    ctx)


def _counted(pairs: list, ctx: Any) -> str:
    out = []
    for fid, n in pairs:
        name = _foe_name(ctx, fid)
        out.append(name if n == 1 else f"{n} {name}s")
    return names(out)


def table_line(r: TableRoll) -> str:
    """One roll on a table: 'Loot (d6): 4 -> a rusty dagger'; an entry's dice as rolled: 'Loot (d6): 5 -> 7 crowns
    (2d6 crowns)'."""
    result = r.result or (f"roll on {r.then.name}" if r.then else "")
    if r.rolled:
        result = f"{r.rolled} ({result})"
    again = f", {plural(r.rerolled, 'entry', 'entries')} drawn already rolled again" if r.rerolled else ""
    return f"{r.name} ({r.dice}): {r.total} -> {result}{again}"


untold(TableRoll, table="its name says it", entry="its range says where it landed",
       range="the entry's result says it (the keeper's panel shows the ranges)")


# ---------------------------------------------------------------- the party

@tells(RetireDelver, title=lambda e, ctx: f"{e.who}'s retirement")
def _retire(e: RetireDelver, ctx: Any, pre: str, hidden: tuple) -> dict:
    stays = (f"{e.player} still plays at the table" if e.player_stays
             else f"{e.player} leaves the table with them (no luck dice kept)")
    return story(f"{e.who} retires from the table (kept in the history)", [stays])


said(SetSeats, lambda e, ctx: f"The seats, clockwise: {', '.join(e.order)}", title=lambda e, ctx: "the seats moved",
     untold={"was": "undo puts the seats back as they were"})

_BY_ID = {"id": "its name says it"}


# ---------------------------------------------------------------- the bestiary and prepared encounters

said(PrepareFoe, lambda e, ctx: (f"{e.name} joins the bestiary ({plural(e.hearts, 'heart')})" if e.new
                                 else f"{e.name} changed in the bestiary ({plural(e.hearts, 'heart')})"),
     title=lambda e, ctx: f"the foe type {e.name}", untold=_BY_ID)
said(RemoveFoe, lambda e, ctx: f"{e.name} leaves the bestiary", title=lambda e, ctx: f"{e.name} leaving the bestiary",
     untold=_BY_ID)
said(PrepareEncounter, lambda e, ctx: f"{'Encounter prepared' if e.new else 'Encounter changed'}: "
                                      f"{e.name} ({_counted([(f.foe, f.count) for f in e.foes], ctx)})",
     title=lambda e, ctx: f"the encounter {e.name}", untold=_BY_ID)
said(RemoveEncounter, lambda e, ctx: f"Prepared encounter dropped: {e.name}",
     title=lambda e, ctx: f"dropping the encounter {e.name}", untold=_BY_ID)


# ---------------------------------------------------------------- roll tables

said(PrepareTable, lambda e, ctx: f"{'Roll table made' if e.new else 'Roll table changed'}: {e.name} "
                                  f"({e.dice}, {plural(e.entries, 'entry', 'entries')})",
     title=lambda e, ctx: f"the roll table {e.name}", untold=_BY_ID)
said(RemoveTable, lambda e, ctx: f"Roll table dropped: {e.name}",
     title=lambda e, ctx: f"dropping the roll table {e.name}",
     untold=_BY_ID)
said(ResetTable, lambda e, ctx: f"{e.name} is whole again: every entry may be drawn",
     title=lambda e, ctx: f"the reset of {e.name}", untold={"table": "its name says it"})


@tells(RollTable, title=lambda e, ctx: f"the roll on {e.name}")
def _roll_table(e: RollTable, ctx: Any, pre: str, hidden: tuple) -> dict:
    lines = []
    was = e.was
    if was:
        lines.append(f"before the luck die: {was.total} -> {was.result}")
    inner = e.then
    while inner:
        lines.append(f"then {table_line(inner)}")
        inner = inner.then
    who = "" if e.who in (None, "keeper") else f"{e.who}: "
    return story(f"{pre}{who}{table_line(e)}", lines)


untold(WasRolled, entry="its result says it")
