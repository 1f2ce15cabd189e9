"""A delver's whole sheet (``sheets`` in keeper.js, the Party panel; the keeper's action bar shows it too)."""

from __future__ import annotations

from ..engine import queries
from ..core.model import Armor
from ..narrate import money
from .choices import choices
from .shared import UI, frac

__all__ = ["sheet", "sheets_panel"]


def sheet(camp, ui: UI, who: str) -> dict:
    """The selected delver's whole card: what the party strip leaves out."""
    s, rules = camp.state, camp.rules
    d = s["delvers"][who]
    armor = []
    for a in (Armor(x) for x in d.get("armor", ())):  # the AV as worn (an Armorer's bonus included), as the model says
        armor.append(f"{a.name} broken (DV 0/{a.dv_max})" if a.broken else f"{a.name} AV {a.av} DV {a.dv}/{a.dv_max}")
    weapons = [label for label, _ in queries.weapons(s, rules, who)]
    th = rules.level_thresholds
    lo, hi = th.get(d["level"], 0), th.get(d["level"] + 1)
    rows = [f"{d.get('class_name', d['class_id'])} {d['level']} · player {d['player']}",
            f"XP {d['xp']}" + (f" of {hi} for level {d['level'] + 1}" if hi is not None else " (the highest level)"),
            "armor: " + ("; ".join(armor) or "none"), "weapons: " + (", ".join(weapons) or "none"),
            f"purse {money(rules, d['purse'])}"]
    if d.get("true_names"):
        rows.append("true names: " + ", ".join(d["true_names"]))
    if d.get("spells"):
        used = set(d.get("spellbook_used", ()))
        rows.append("spellbook: " + ", ".join(rules.spell(x)["name"] + (" (used)" if x in used else "")
                                             for x in d["spells"]))
    return {"rows": rows, "xp_frac": frac(d["xp"] - lo, (hi - lo) if hi is not None else 0) if hi else 1.0}


def sheets_panel(camp, ui: UI) -> list[dict]:
    """The Party panel: every delver's sheet and pending choices, in seat order."""
    return [{"name": n, **sheet(camp, ui, n), "choices": choices(camp, ui, n)} for n in camp.state["seats"]]
