"""The party strip and the named creatures beside it (``partyStrip``, ``creatureStrip`` in party.js): each delver's
hearts, luck dice, resources, conditions and XP, and the NPCs and familiars; click one to act as it. The dead keep
their seats but leave the strip for one folded row, the fallen: a long campaign's dozens of dead delvers would
bury the living five."""

from __future__ import annotations

from ..core.distribution import percent
from ..engine import queries
from ..core.model import creatures, held_resources, is_dead, is_dying
from .shared import UI, bar_frac, clock, hearts_hidden, wound

__all__ = ["party_strip", "fallen_row", "creature_strip"]


_CONDITION_WORDS = {"next_attack": "next attack readied", "blood_magic_healing_ban": "no healing until a rest",
                    "blood_magic_trace": "spell traced on the sword", "blood_magic_charge": "sword charged",
                    "compelled_truth": "must tell the truth", "truth_immune": "immune to Truth"}


def _conditions_of(camp) -> dict[str, list[dict]]:
    """Each creature's conditions as the strips show them, by who bears them."""
    out: dict[str, list[dict]] = {}
    for c in camp.state["conditions"]:
        name = c["who"]
        text = _CONDITION_WORDS.get(c["kind"], c["kind"].replace("_", " "))
        ends = "until a rest" if c["ends_on"] == "rest" else \
            f"until {c['ends_on'][5:]}'s next turn" if (c["ends_on"] or "").startswith("turn:") else \
            f"until {clock(c['ends_at'])}" if c["ends_at"] is not None else ""
        src = f" (from {c['source']})" if c["source"] not in (None, name) else ""
        out.setdefault(name, []).append({"text": text, "title": f"{text}{src} {ends}".strip(), "id": c["id"]})
    return out


def _resource_name(rules, d, rid: str) -> str:
    """A resource as the delver's class names it (a campaign may rename grit), in the strip's lower case."""
    spec = ((rules.classes.get(d["class_id"]) or {}).get("resources") or {}).get(rid) or {}
    return str(spec.get("name") or rid.replace("_", " ")).lower()


def party_strip(camp, ui: UI, actor: str | None, now: str | None, names: list[str] | None = None) -> list[dict]:
    """A chip for each of ``names`` (by default the seats but the fallen: ``fallen_row``)."""
    s, rules = camp.state, camp.rules
    per = rules.core["luck_dice"]["per_session"]
    thresholds = rules.level_thresholds
    ds = queries.death_save(s, rules)
    conditions = _conditions_of(camp)
    if names is None:
        names = [n for n in s["seats"] if not is_dead(s["delvers"][n])]
    out = []
    for name in names:
        d = s["delvers"][name]
        hide = hearts_hidden(camp, ui, name)
        status = d["status"]
        badge = "DEAD" if is_dead(d) else "DYING: death save!" if is_dying(d) else \
            ("at 0 hearts" if d["hearts"] <= 0 else "")
        nxt = thresholds.get(d["level"] + 1)
        chip = {
            "name": name, "class": d.get("class_name", d["class_id"]), "level": d["level"], "player": d["player"],
            "status": status, "badge": badge, "dead": is_dead(d), "dying": is_dying(d),
            "hearts": None if hide else d["hearts"], "max_hearts": None if hide else d["max_hearts"],
            "hearts_text": wound(d) if hide else f"{d['hearts']}/{d['max_hearts']}",
            "frac": bar_frac(d, hide),
            "luck": s["luck"].get(d["player"], 0), "luck_max": per,
            "resources": [{"id": r, "text": f"{_resource_name(rules, d, r)} {v}/{top}"}
                          for r, v, top in held_resources(d)],
            "conditions": conditions.get(name, []),
            "xp": d["xp"], "xp_text": f"XP {d['xp']}" + (f"/{nxt}" if nxt is not None else " (top level)"),
            "selected": name == actor, "acting": name == now, "touched": name in ui.touched,
            "pending": len(d.get("pending_choices", ())),
            "select": {"do": "select", "who": name, "where": "party"},
        }
        if is_dying(d) and ui.mode == "keeper":
            chip["death_save"] = {"label": f"Death save: {ds.die.upper()}, needs {ds.target}: {percent(ds.chance, 0)}",
                                  "intent": {"do": "death_save", "who": name, "where": "party"}}
        out.append(chip)
    return out


def fallen_row(camp, ui: UI, actor: str | None) -> dict | None:
    """The dead among the seats, at the end of the strip: folded, their count; opened (``ui.fallen_open``), each
    name, class and level (click one to see their sheet in the action bar). None while no one has fallen."""
    s = camp.state
    dead = [n for n in s["seats"] if is_dead(s["delvers"][n])]
    if not dead:
        return None
    out = {"count": len(dead), "open": ui.fallen_open, "text": f"Fallen: {len(dead)}",
           "toggle": {"label": "Fold" if ui.fallen_open else "Show them",
                      "intent": {"do": "fallen", "where": "party"}}}
    if ui.fallen_open:
        delvers = s["delvers"]
        out["names"] = [{"name": n, "text": f"{n} ({delvers[n].get('class_name', delvers[n]['class_id'])} "
                                            f"{delvers[n]['level']})", "selected": n == actor,
                         "select": {"do": "select", "who": n, "where": "party"}} for n in dead]
    return out


def creature_strip(camp, ui: UI, actor: str | None, now: str | None) -> list[dict]:
    """The named creatures beside the party strip: NPCs the keeper named and the mages' familiars (a familiar
    acts in its mage's turn, so it shows as acting then), living ones; click one to act as it or aim at it."""
    s = camp.state
    conditions = _conditions_of(camp)
    out = []
    for c in creatures(s, living=True):
        d = c.data
        hide = hearts_hidden(camp, ui, c.name)
        owner = c.owner
        role = f"{owner}'s familiar" if c.role == "familiar" and owner else "NPC" if c.role == "npc" else c.role
        found = queries.foe_type(camp.state, camp.rules, c.kind)
        kind = found.get("name", c.kind) if found is not None else d.get("form") or ""
        out.append({"name": c.name, "role": role, "owner": owner, "kind": kind, "status": c.status,
                    "dying": is_dying(d), "dead": is_dead(d),
                    "hearts": None if hide else c.hearts, "max_hearts": None if hide else c.max_hearts,
                    "hearts_text": wound(d) if hide else f"{c.hearts}/{c.max_hearts}",
                    "frac": bar_frac(d, hide), "conditions": conditions.get(c.name, []),
                    "note": d.get("note") or "" if ui.mode == "keeper" else "", "selected": c.name == actor,
                    "acting": owner is not None and owner == now, "touched": c.name in ui.touched,
                    "select": {"do": "select", "who": c.name, "where": "party"}})
    return out
