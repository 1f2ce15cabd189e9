"""The Keeper panel (``keeperPanel`` in keeper.js): its sections' tabs; at the table, sessions, rests and time, quests
and rooms, coins, XP, hearts by hand, levels, conditions, any roll, found items, NPCs, the download and the prepared
fights; preparing the evening, the Party, Bestiary, Encounters and Roll tables (``preparing``, ``encounters``,
``rolltables``)."""

from __future__ import annotations

from typing import Mapping

from ..engine import queries
from ..core.model import creatures, present
from ..narrate import money, plural
from .encounters import encounters_section
from .fight import fight_starts
from .phones import phones_card
from .preparing import bestiary_section, keeper_tab, party_section, tabs
from .recap import last_time
from .rolltables import tables_section
from .shared import UI, clock, combatant_names, deed, field_, foe_field, hearts_label, option

_SECTIONS = {"party": party_section, "bestiary": bestiary_section, "encounters": encounters_section,
             "tables": tables_section}

__all__ = ["keeper_panel"]


def _milestones(prepared: list, noun: str, do: str, label: str) -> dict:
    """The Keeper panel's prepared quests or rooms, each done once for its XP, and a form for one not prepared."""
    where = f"keeper:{noun}s"
    return {"rows": [{"name": m["name"], "note": m["note"] or "", "done": m["done"], "label": label,
                      "intent": None if m["done"] else {"do": do, "name": m["name"], "where": where}}
                     for m in prepared],
            "form": {"id": noun, "fields": [field_("name", "text", f"another {noun}", "", required=True)],
                     "submit": {"label": label, "intent": {"do": do, "where": where}}}}


def keeper_panel(camp, ui: UI) -> dict:
    """The section picked (``ui.keeper_tab``), with the tabs of every section."""
    tab = keeper_tab(camp, ui)
    head = {"tabs": tabs(camp, ui), "tab": tab}
    if tab in _SECTIONS:
        return {**head, tab: _SECTIONS[tab](camp, ui)}
    return {**head, **_at_the_table(camp, ui)}


def _at_the_table(camp, ui: UI) -> dict:
    s, rules = camp.state, camp.rules
    sess = s["session"]
    party = [option(n, n) for n in s["seats"]]
    everyone = [option(n, hearts_label(camp, n, ui)) for n in combatant_names(s)]
    per_quest, per_room = rules.core["xp"]["per_quest"], rules.core["xp"]["per_room"]
    sharing = present(s)
    pool = s["xp_pool"]
    split = (f"split equally across {plural(len(sharing), 'delver')} present ({', '.join(sharing)})"
             + (f", with {pool} XP waiting in the pool" if pool else "")) if sharing else "no one is present to share it"
    th = rules.level_thresholds
    levels = []
    for n in s["seats"]:
        d = s["delvers"][n]
        nxt = th.get(d["level"] + 1)
        if nxt is None:
            levels.append({"who": n, "text": f"{n}: level {d['level']}, the highest", "intent": None})
            continue
        levels.append({"who": n, "text": f"{n}: level {d['level']}, {d['xp']}/{nxt} XP for level {d['level'] + 1}",
                       "ready": d["xp"] >= nxt,
                       "intent": {"do": "level_up", "who": n, "where": "keeper:levels"},
                       "label": f"Level up {n}"})
    gear = [option(k, v.get("name", k) if isinstance(v, Mapping) else k) for k, v in rules.gear.items()]
    units = [u for _, u in rules.core["currency"]["units"].items() if isinstance(u, Mapping)]
    coin_unit = rules.core["currency"]["units"].get(rules.core["xp"]["coin"])
    smallest = min(units, key=lambda u: u["talons"])
    example = (f"30{coin_unit['symbol']} 5{smallest['symbol']}" if isinstance(coin_unit, Mapping)
               and coin_unit is not smallest else f"30{smallest['symbol']}")
    coin = queries.coin_talons(rules)
    out = {
        "session": {"text": (f"Session {sess['number']} is running" if sess["active"] else
                             f"No session running (session {sess['number']} was the last)") +
                            f" · {clock(s['clock'])}",
                    "buttons": [b for b in (
                        {"label": "Start session", "intent": {"do": "start_session", "where": "keeper:session"},
                         "primary": True} if not sess["active"] else None,
                        {"label": "End session", "intent": {"do": "end_session", "where": "keeper:session"}}
                        if sess["active"] else None,
                        {"label": "Rest (a night)", "intent": {"do": "rest", "where": "keeper:session"}},
                        {"label": "+10 minutes", "intent": {"do": "advance_time", "minutes": 10,
                                                            "where": "keeper:session"}},
                        {"label": "+1 hour", "intent": {"do": "advance_time", "hours": 1, "where": "keeper:session"}},
                    ) if b]},
        "recap": last_time(camp, ui),
        "quests": _milestones(camp.quests, "quest", "complete_quest", f"Complete ({per_quest} XP)"),
        "rooms": _milestones(camp.rooms, "room", "explore_room", f"Explored ({per_room} XP)"),
        "coins": {"hint": f"money like {example!r}; each {money(rules, coin)} earned is "
                          f"{rules.core['xp']['per_crown']} XP, {split}",
                  "earn": {"id": "earn", "fields": [
                      field_("amount", "text", "coins", "", required=True, hint=f"e.g. {example}"),
                      field_("who", "choice", "to", "", [option("", "shared by seat")] + party),
                      field_("reason", "text", "for", "")],
                      "submit": {"label": "Earn", "intent": {"do": "earn", "where": "keeper:coins"}}},
                  "spend": {"id": "spend", "fields": [
                      field_("who", "choice", "who", party[0]["value"] if party else None, party),
                      field_("amount", "text", "coins", "", required=True), field_("reason", "text", "for", "")],
                      "submit": {"label": "Spend", "intent": {"do": "spend", "where": "keeper:coins"}}},
                            "purses": ", ".join(f"{n} {money(rules, s['delvers'][n]['purse'])}" for n in s["seats"])},
        "xp": {"hint": split, "form": {"id": "award_xp", "fields": [
            field_("amount", "number", "XP", None, required=True, min=0),
            field_("reason", "text", "for", "keeper's award")],
            "submit": {"label": "Award XP", "intent": {"do": "award_xp", "where": "keeper:xp"}}}},
        "by_hand": {"form": {"id": "by_hand", "fields": [
            field_("who", "choice", "who", everyone[0]["value"] if everyone else None, everyone),
            field_("amount", "number", "hearts", 1, required=True, min=0),
            field_("source", "text", "from", "", hint="a trap, a fall, a potion"),
            field_("armor", "flag", "armor absorbs damage", False)],
            "submit": [{"label": "Damage", "intent": {"do": "damage", "where": "keeper:by_hand"}},
                       {"label": "Heal", "intent": {"do": "heal", "where": "keeper:by_hand"}}]}},
        "levels": levels,
        "conditions": {"rows": [{"text": f"{c['kind'].replace('_', ' ')} on {c['who']}"
                                         + (f" (from {c['source']})" if c["source"] else ""),
                                 "intent": {"do": "end_condition", "id": c["id"], "where": "keeper:conditions"}}
                                for c in s["conditions"]],
                       "form": {"id": "condition", "fields": [
                           field_("who", "choice", "on", everyone[0]["value"] if everyone else None, everyone),
                           field_("name", "text", "condition", "", required=True, hint="cursed, poisoned..."),
                           field_("duration", "choice", "for", "", [option("", "until lifted")] +
                                  [option(k, k) for k in rules.core["durations"] if k not in
                                   ("source", "quote", "reason", "assumed", "note")])],
                           "submit": {"label": "Put on", "intent": {"do": "condition", "where": "keeper:conditions"}}}},
        "roll": {"id": "roll", "fields": [field_("expr", "text", "dice", "", required=True, hint="d66, 2d6+1"),
                                          field_("why", "text", "for", "", hint="a loot table")],
                 "submit": {"label": "Roll", "intent": {"do": "roll", "where": "keeper:roll"}}},
        "download": {"label": f"Download {camp.path.name}.zip", "intent": {"do": "download", "where": "keeper:download"},
                     "hint": f"the whole campaign folder; Campaign.open(\"{camp.path.name}.zip\") reads it"},
        "fight": None if s["encounter"] is not None else fight_starts(camp),
    }
    out["give"] = {"id": "give", "fields": [
        field_("who", "choice", "to", party[0]["value"] if party else None, party),
        field_("item", "choice", "item", gear[0]["value"] if gear else None, gear),
        field_("name", "text", "called", "", hint="a +1 sword, grandfather's lute"),
        field_("bonus", "number", "bonus", None, hint="a magic weapon's +1"),
        field_("count", "number", "how many", 1, min=1)],
        "submit": {"label": "Give", "intent": {"do": "give", "where": "keeper:give"}}}
    out["deeds"] = [d for d in (_trap(ui, party), _lighting(camp, ui)) if d is not None]
    out["npcs"] = _npcs(camp, ui)
    out["phones"] = phones_card(camp, ui)
    return out


def _trap(ui: UI, party: list) -> dict | None:
    """A trap springs on a delver: a save, or the trap's damage (credited to the trap)."""
    if not party:
        return None
    return deed(ui, "trap", "A trap springs", [
        field_("who", "choice", "on", party[0]["value"], party),
        field_("name", "text", "the trap", "", hint="a falling block, a poisoned needle"),
        field_("target", "number", "save against", 12, required=True, min=1),
        field_("skill", "text", "skill", "", hint="one that helps, like agility"),
        field_("damage", "text", "or take", "2d6", required=True),
        field_("armor", "flag", "armor absorbs it", True, hint="armor reduces incoming damage; untick for a trap "
                                                               "that slips past it")], "Spring it",
        hint="the delver saves; failed, the trap's damage is rolled (type the real dice after, as for any roll)")


def _lighting(camp, ui: UI) -> dict | None:
    """While a fight runs: darkness falls on it, or it is lit again (who cannot see attacks with disadvantage)."""
    enc = camp.state["encounter"]
    if enc is None:
        return None
    dark = bool(enc.get("dark"))
    return deed(ui, "lighting", "Light", [], "Light the fight" if dark else "Darkness falls", given={"dark": not dark},
                hint=("the fight is in darkness: whoever cannot see attacks with disadvantage" if dark else
                      "the fight is lit; a torch going out makes it dark") + " (a Light spell lights it whatever is said)")


def _npcs(camp, ui: UI) -> dict:
    """The named creatures outside the fight (NPCs the keeper named, the mages' familiars), and a form to name a
    new one: from the bestiary, or typed with its hearts (``camp.npc``)."""
    s = camp.state
    rows = []
    for c in creatures(s, living=False):
        whose = f"{c.owner}'s familiar" if c.role == "familiar" and c.owner else "NPC"
        hearts = "dead" if c.dead else f"{c.hearts}/{c.max_hearts} hearts"
        text = f"{c.name}: {whose}, {hearts}"
        rows.append({"name": c.name, "text": text, "note": c.data.get("note") or "", "dead": c.dead,
                     "intent": {"do": "remove_npc", "name": c.name, "where": "keeper:npcs"}
                     if c.role == "npc" else None, "label": "Leaves the story"})
    return {"rows": rows, "form": {"id": "npc", "fields": [
        field_("name", "text", "name", "", required=True, hint="Grak the prisoner"),
        foe_field(camp, "foe", "as", "", blank="typed: hearts below", hint="blank: typed with its hearts"),
        field_("hearts", "number", "hearts", None, min=1, hint="a typed creature's hearts"),
        field_("note", "text", "note", "", hint="who they are, what they want")],
        "submit": {"label": "Name the NPC", "intent": {"do": "npc", "where": "keeper:npcs"}}}}
