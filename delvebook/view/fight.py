"""The fight bar (``fightBar`` in fight.js): the order by side with who acts, the foes with their hearts, the
keeper's initiative, next turn, end and join controls; or, outside a fight, the prepared fights to start."""

from __future__ import annotations

from ..engine import queries
from ..core.model import is_dead, is_dying
from ..narrate import fight_name
from .shared import UI, bar_frac, foe_field, hearts_hidden, wound

__all__ = ["fight_bar", "fight_starts"]


def _foes(camp, ui: UI, now: str | None) -> list[dict]:
    enc = camp.state["encounter"]
    out = []
    for f in enc["foes"].values():
        hide = hearts_hidden(camp, ui, f["name"])
        armor = "; ".join((f"AV {a['av']} DV {a['dv']}/{a['dv_max']}" if a["dv"] > 0 else "armor broken")
                          for a in f.get("armor", ()))
        out.append({"name": f["name"], "status": f["status"], "dead": is_dead(f), "wound": wound(f),
                    "hearts": None if hide else f["hearts"], "max_hearts": None if hide else f["max_hearts"],
                    "hearts_text": wound(f) if hide else f"{f['hearts']}/{f['max_hearts']}",
                    "frac": bar_frac(f, hide), "acting": f["name"] == now,
                    "touched": f["name"] in ui.touched,
                    "sub": None if ui.mode == "players" else f"attack +{f['attack_bonus']} · damage {f['damage']}"
                           + (f" · multi-attack {f['multi_attack']}" if f.get("multi_attack", 1) > 1 else "")
                           + (" · ranged" if f.get("ranged") else "") + (f" · {armor}" if armor else ""),
                    "select": {"do": "select", "who": f["name"], "where": "fight"}})
    return out


def fight_starts(camp) -> dict:
    prepared = []
    for eid, enc in camp.prepared_encounters.items():
        counts: dict[str, int] = {}
        for f in enc["foes"]:
            kind = f if isinstance(f, str) else f["foe"]
            found = queries.foe_type(camp.state, camp.rules, kind) or {}
            name = found.get("name", kind)
            counts[name] = counts.get(name, 0) + 1
        foes = ", ".join(f"{n} {name}s" if n > 1 else name for name, n in counts.items())
        prepared.append({"label": f"{fight_name(eid, camp)}: {foes}", "note": enc.get("note") or "",
                         "intent": {"do": "start_fight", "prepared": eid, "where": "fight"}})
    return {"prepared": prepared,
            "form": {"id": "start_fight", "fields": [foe_field(camp, "foe", "or one")],
                     "submit": {"label": "Start", "intent": {"do": "start_fight", "where": "fight"}}}}


def fight_bar(camp, ui: UI, now: str | None) -> dict | None:
    s = camp.state
    enc = s["encounter"]
    if enc is None:
        return None if ui.mode == "players" else {"running": False, "start": fight_starts(camp)}
    keeper = ui.mode == "keeper"
    party_order = enc["order"]["party"] or list(s["seats"])
    sides = [("party", party_order), ("foes", enc["order"]["foes"])]
    if enc.get("first") == "foes":
        sides.reverse()
    order = []
    for side, names in sides:
        chips = []
        for i, n in enumerate(names):
            found = s["delvers"].get(n) or enc["foes"].get(n)
            chip = {"name": n, "acting": n == now, "dead": bool(found and is_dead(found)),
                    "dying": bool(found and is_dying(found))}
            if keeper and side == "party" and enc["round"] > 0 and i > 0:
                moved = list(names)
                moved[i - 1], moved[i] = moved[i], moved[i - 1]
                chip["earlier"] = {"do": "set_order", "order": moved, "where": "fight"}
            chips.append(chip)
        order.append({"side": side, "label": "Party" if side == "party" else "Foes", "chips": chips})
    if enc["round"] == 0:
        status = "Roll initiative, or say which side goes first"
    else:
        turn = "the party's turn" if enc["side"] == "party" else "the foes' turn"
        status = f"Round {enc['round']} · {turn} · {now or '-'} acts"
    standing_foes = [f["name"] for f in enc["foes"].values() if not is_dead(f)]
    # the prepared encounter's note is the keeper's (what the foes plan, what a check would find)
    prepared = camp.prepared_encounters  # started from one: by its id, or its name
    started = prepared.get(enc["name"]) or next((e for e in prepared.values() if e["name"] == enc["name"]), {})
    note = started.get("note") or "" if keeper else ""
    out = {"running": True, "name": fight_name(enc["name"], camp), "round": enc["round"], "status": status,
           "note": note, "order": order, "foes": _foes(camp, ui, now), "standing": len(standing_foes)}
    if keeper:
        if enc["round"] == 0:
            out["initiative"] = [
                {"label": "Roll initiative (D6 a side)", "intent": {"do": "initiative", "where": "fight"}},
                {"label": "Party goes first", "intent": {"do": "initiative", "first": "party", "where": "fight"}},
                {"label": "Foes go first", "intent": {"do": "initiative", "first": "foes", "where": "fight"}}]
        else:
            out["next"] = {"label": "Next turn ▶", "intent": {"do": "next_turn", "where": "fight"}}
        xp = sum(f["max_hearts"] for f in enc["foes"].values() if is_dead(f)) * camp.rules.core["xp"]["per_heart_vanquished"]
        out["end"] = {"label": f"End fight ({xp} XP)", "intent": {"do": "end_fight", "where": "fight"}}
        out["join"] = {"id": "add_foe", "fields": [foe_field(camp, "foe", "A foe joins")],
                       "submit": {"label": "Joins", "intent": {"do": "add_foe", "where": "fight"}}}
    return out
