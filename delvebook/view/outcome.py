"""The outcome of the last click and its luck dice and real dice (``outcomeEl``, ``luckEl`` in outcome.js): the action
told in the game's words, every die drawn, a choice the hit allows, and the luck dice each player may spend."""

from __future__ import annotations

from typing import Mapping

from ..core.declared import Action, Rolled, view
from ..core.dice import DiceError, Roll
from ..core.distribution import percent
from ..engine import queries
from ..core.model import is_dying
from ..narrate import plural, roll_title, tell, title
from ..narrate.luck import luck_reach
from ..core.roles import PARTY
from .shared import UI, field_, hidden_names

__all__ = ["outcome_panel", "luck", "dice_of", "roll_label", "rolls_of", "standing_version"]


def dice_of(rec: Rolled) -> dict:
    """A roll record (as its event declares it) drawn as dice: each die with its sides and face, kept or dropped,
    then luck dice."""
    try:
        r = Roll.from_dict(rec.data)
    except (DiceError, KeyError, TypeError, ValueError, AttributeError):
        return {"expr": str(getattr(rec, "expr", None)), "dice": [], "total": getattr(rec, "total", None),
                "was": None}
    dice = []
    for t, g in zip(r.expression.terms, r.groups):
        if g is None:
            dice.append({"mod": t.constant * t.sign})
            continue
        for k, die in enumerate(g):
            dice.append({"sides": die.sides, "face": die.face, "kept": die.kept, "sign": t.sign,
                         "d66": "tens" if t.d66 and k == 0 else "ones" if t.d66 else None})
    for l in r.luck:
        dice.append({"sides": l.sides, "face": l.face, "kept": True, "sign": l.sign, "luck": l.who or "luck"})
    return {"expr": r.expr, "dice": dice, "total": r.total, "was": r.base_total if r.luck else None,
            "count": r.expression.dice_count}


def roll_label(name: str, rec: Rolled | None) -> str:
    """A roll's row, in the game's words: "Mira's 2nd random spell roll" (the narrator's ``roll_title``)."""
    said = roll_title(name, rec)
    return said[:1].upper() + said[1:]


def rolls_of(e: Mapping) -> dict[str, Rolled]:
    """An event's rolls by name, each read as its event declares it (none for undo and redo)."""
    v = view(e)
    return dict(v.rolls) if isinstance(v, Action) else {}


def standing_version(camp, seq: int | None) -> dict | None:
    """The action first made as ``seq`` as it stands now (a luck die or real dice replace it)."""
    if seq is None:
        return None
    try:
        return camp.event(camp.standing.current(seq))
    except KeyError:
        return None


def _default_player(camp, e: Mapping, roll: str) -> str | None:
    """Who is most likely to spend luck on this roll: the player of whoever rolled it; a foe's roll against a
    delver, the defender's player (the one who wants it lower)."""
    s = camp.state
    v = view(e)
    rec = rolls_of(e).get(roll)
    who = rec.who if rec is not None else None
    if who in s["delvers"]:
        return s["delvers"][who]["player"]
    sides = v.sides or {}
    for name in (*(v.targets or ()), v.actor):  # the one it was aimed at first, then who acted
        if sides.get(name) == PARTY and name in s["delvers"]:
            return s["delvers"][name]["player"]
    return None


def luck(camp, ui: UI, action: Mapping | None, where: str) -> dict | None:
    rolled = rolls_of(action) if action is not None else {}
    if not rolled or ui.mode != "keeper":
        return None
    s = camp.state
    seq = view(action).seq
    picked = ui.luck_player if ui.luck_seq == seq and ui.luck_player in s["luck"] else None
    players = [{"player": p, "left": n, "on": p == picked,
                "intent": {"do": "luck_player", "player": p, "seq": seq, "where": where}}
               for p, n in s["luck"].items()]
    rows = []
    for name, rec in rolled.items():
        player = picked or _default_player(camp, action, name)
        left = s["luck"].get(player, 0) if player else 0
        d = dice_of(rec)
        row = {"name": name, "label": roll_label(name, rec), "total": rec.total, "player": player,
               "left": left,
               "amend": {"id": f"amend:{seq}:{name}",
                         "fields": [field_("faces", "text", "", "", required=True,
                                           hint=f"{rec.expr}: {plural(d.get('count', 0), 'face')}")],
                         "submit": {"label": "Real dice", "intent": {"do": "amend", "roll": name, "where": where}}}}
        if player and left > 0:
            row.update(_luck_buttons(camp, player, name, rec, where))
        rows.append(row)
    return {"on": title(action, camp), "seq": seq, "players": players, "rows": rows,
            "die": queries.luck_die_sides(camp.rules)}


def _luck_buttons(camp, player: str, name: str, rec: Rolled, where: str) -> dict:
    """The + and \u2212 of one roll for ``player``, each offered where a luck die that way can change the outcome
    and saying what it would change; a way that cannot is left out, and the row's note says why."""
    out: dict = {}
    notes = []
    said = roll_title(name, rec)
    for sign, key, label, verb in ((1, "plus", "+", "added"), (-1, "minus", "\u2212", "taken off")):
        reach = luck_reach(camp, player, name, sign)
        if reach.face is None:
            notes.append((verb, reach.said))
            continue
        out[key] = {"label": f"{label} {player}",
                    "title": f"{player} spends a luck die: {verb} {'to ' if sign > 0 else ''}{said}"
                             + (f"; {reach.said}" if reach.said else ""),
                    "intent": {"do": "luck", "player": player, "sign": sign, "roll": name, "where": where}}
    why = [said for _, said in notes if said]  # ('cannot change the outcome: miss'; '' where the rules refuse it)
    if len(notes) == 2 and why:
        out["note"] = "no luck die " + why[0].replace("cannot", "can", 1)
    elif len(notes) == 1 and why:
        out["note"] = f"a luck die {notes[0][0]} {why[0]}"
    return out


def outcome_panel(camp, ui: UI) -> dict | None:
    if ui.scope == "roll":
        e = standing_version(camp, ui.focus) if ui.focus is not None else camp.latest_action
    elif ui.mode == "players":
        e = camp.latest_action  # the players see the table as it stands: not an undo, nor what it took back
    else:
        e = camp.events[-1] if camp.events else None
    if e is None:
        return None
    hidden = hidden_names(camp, ui)
    told = tell(e, camp, hidden)
    v = view(e)
    rolls = [{"name": n, "label": roll_label(n, rec), **dice_of(rec)} for n, rec in rolls_of(e).items()]
    out = {"seq": v.seq, "kind": v.kind, "text": told["text"], "lines": told["lines"],
           "verdict": told["verdict"], "rolls": rolls, "standing": True}
    if ui.mode == "keeper":
        follow = []
        s = camp.state
        ds = queries.death_save(s, camp.rules)
        for n in s["seats"]:
            if is_dying(s["delvers"][n]):
                follow.append({"label": f"Death save for {n}: {ds.die.upper()}, needs {ds.target}: "
                                        f"{percent(ds.chance, 0)}",
                               "intent": {"do": "death_save", "who": n, "where": "outcome"}, "danger": True})
        latest = camp.latest_action
        offers = (getattr(v, "on_hit_options", None) or ()) if latest is not None and view(latest).seq == v.seq else ()
        for o in offers:  # a choice once the hit is seen (a smite), as the engine offers it with the attack
            name = str(o.name or o.option).replace("_", " ")
            said = ", ".join(str(x) for x in (o.cost_text, f"+{o.adds}" if o.adds else None) if x)
            follow.append({"label": f"{name} ({said})" if said else name,
                           "intent": {"do": "on_hit", "option": o.option, "where": "outcome"},
                           "enabled": o.affordable, "on_hit": o.option,
                           "title": o.why or f"{name} on the hit just seen: the attack stands as rolled, "
                                             f"its damage {('+' + str(o.adds)) if o.adds else 'added'}"})
        out["follow"] = follow
    return out
