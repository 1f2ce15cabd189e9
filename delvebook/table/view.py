"""The table's view model: one JSON-shaped dict computed from the campaign's state and rules and a small UI
state, which the page draws as it is (``static/table.js``).

``table_view(camp, ui)`` is a pure function: every number, odd and option comes from ``engine.queries``, the
rules data or the campaign's public API, every text is plain text (the page sets it with ``textContent``), and
every control carries the intent it sends back (``{"do": "attack", ...}``), so no rule lives in the page.
Nothing is kept between two calls: the view is computed from state each time.

Standard library only, and nothing Pyodide lacks (no threads, no subprocess): the table runs in JupyterLite.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import asdict, dataclass, field
from typing import Any, Mapping

from ..dice import DiceError, Roll
from ..distribution import percent
from ..engine import Refused, effects, queries
from ..events import standing
from ..model import (Armor, combatant, creatures, current_actor, held_resources, is_dead, is_dying, owner_of,
                     present)
from ..narrate import fight_name, money, plural, tell, title

__all__ = ["UI", "table_view", "SCOPES", "PANELS", "actor_of", "turn_key", "asked_of", "charts_available",
           "LAST_ROLLS"]

SCOPES = ("table", "card", "fight", "log", "roll")
PANELS = ("play", "keeper", "party", "charts")
LOG_ROWS = 40
TARGET_PRESETS = (8, 10, 12, 15, 18)
LAST_ROLLS = 6  # the players' screen: the rolls still standing it lists


@dataclass
class UI:
    """What the table shows besides the campaign: who is selected, the open panel and form, the target number,
    the attack options, a pending confirmation, the last refusal and where it came from. Plain data (it rides
    in the view model), so a reloaded page or a second browser shows the same table."""

    mode: str = "keeper"              # "keeper" | "players"
    scope: str = "table"              # what this widget shows: the whole table, or one part of it
    who: str | None = None            # the delver of a card
    focus: int | None = None          # the action a roll view follows (by the seq it was first made with)
    panel: str = "play"
    selected: str | None = None       # who the action bar is for (the current actor when None)
    selected_at: Any = None           # the turn it was picked on: a new turn gives the bar to its actor
    target: int = 10                  # the target number checks are made against
    vs: str | None = None             # or the opponent they are made against
    attack: dict = field(default_factory=dict)  # attack options: advantage, multi, bonus, smite...
    form: str | None = None           # the open form
    luck_player: str | None = None    # the player picked to spend luck dice
    luck_seq: int | None = None       # on this action (a new action picks again)
    confirm: dict | None = None       # a guard rail asking once: {text, where, yes, yes_label, no_label}
    refusal: dict | None = None       # the last refusal: {text, where}
    touched: list = field(default_factory=list)  # who the last event changed (from Outcome.touched)
    hide_hearts: bool = False         # players' mode: the delvers' exact hearts are not shown
    foe_hearts: bool = False          # players' mode: the foes' exact hearts are shown (the keeper says so)
    ack: Any = None                   # the last intent handled (the page waits for it)

    def to_dict(self) -> dict:
        return asdict(self)


def charts_available() -> bool:
    """Whether the analysis extra (pandas, plotly) is here: the Charts panel shows only then."""
    try:
        return all(importlib.util.find_spec(m) is not None for m in ("pandas", "plotly"))
    except (ImportError, ValueError):
        return False


# ---------------------------------------------------------------- small helpers

def turn_key(state: Mapping) -> Any:
    """The turn now (fight number, round, side, turn), or None outside a fight's turns."""
    enc = state["encounter"]
    if enc is None or enc["side"] is None:
        return None
    return [enc["number"], enc["round"], enc["side"], enc["turn"]]


def _combatant_names(state: Mapping, *, living: bool = True) -> list[str]:
    """The party in seat order, the fight's foes, then the named creatures (NPCs, familiars)."""
    enc = state["encounter"]
    party = [n for n in state["seats"] if not (living and is_dead(state["delvers"][n]))]
    foes = [n for n, f in enc["foes"].items() if not (living and is_dead(f))] if enc else []
    return party + foes + _creature_names(state, living=living)


def _creature_names(state: Mapping, *, living: bool = True) -> list[str]:
    return [c.name for c in creatures(state, living=living)]


def _familiars(state: Mapping) -> list[str]:
    """The living familiars: they are in every fight beside their mages (they can attack and be attacked)."""
    return [c.name for c in creatures(state, living=True) if c.owner is not None]


def actor_of(camp, ui: UI) -> str | None:
    """Whose actions the bar shows: a card's delver; in a fight, the one picked this turn or else the current
    actor; outside a fight, the delver picked or the first at the table."""
    s = camp.state
    if ui.scope == "card":
        return ui.who if ui.who in s["delvers"] else None
    names = _combatant_names(s, living=False)
    now = current_actor(s)
    if now is not None:
        if ui.selected in names and ui.selected_at == turn_key(s):
            return ui.selected
        return now
    if ui.selected in names:
        return ui.selected
    return s["seats"][0] if s["seats"] else None


def _frac(have: int, top: int) -> float:
    return 0.0 if top <= 0 else max(0.0, min(1.0, have / top))


def _wound(c: Mapping) -> str:
    """How a combatant looks without numbers."""
    if is_dead(c):
        return "down"
    if is_dying(c):
        return "dying"
    h, top = c["hearts"], c["max_hearts"]
    if h >= top:
        return "unhurt"
    return "wounded" if h * 2 > top else "badly wounded"


_WOUND_FRAC = {"unhurt": 1.0, "wounded": 0.66, "badly wounded": 0.33, "dying": 0.0, "down": 0.0}


def _bar_frac(c: Mapping, hide: bool) -> float:
    """How full a hearts bar is drawn: exact, or by the wound word alone where the hearts are not shown (a bar
    as long as the hearts left would tell them)."""
    return _WOUND_FRAC[_wound(c)] if hide else _frac(c["hearts"], c["max_hearts"])


def _clock(seconds: int) -> str:
    day, rest = divmod(int(seconds), 86400)
    h, rest = divmod(rest, 3600)
    return f"day {day + 1}, {h:02d}:{rest // 60:02d}"


_pretty_id = fight_name


def _odds_text(p) -> str | None:
    return None if p is None else percent(p, 0)


def _milestones(prepared: list, noun: str, do: str, label: str) -> dict:
    """The Keeper panel's prepared quests or rooms, each done once for its XP, and a form for one not prepared."""
    where = f"keeper:{noun}s"
    return {"rows": [{"name": m["name"], "note": m["note"] or "", "done": m["done"], "label": label,
                      "intent": None if m["done"] else {"do": do, "name": m["name"], "where": where}}
                     for m in prepared],
            "form": {"id": noun, "fields": [field_("name", "text", f"another {noun}", "", required=True)],
                     "submit": {"label": label, "intent": {"do": do, "where": where}}}}


def field_(name: str, kind: str, label: str, value: Any = None, options: list | None = None, *,
           required: bool = False, hint: str = "", min: int | None = None, max: int | None = None) -> dict:
    """A form field the page draws: ``text``, ``number``, ``choice`` (one of options), ``multi`` (any of
    options), ``flag``. Options are ``{"value", "label"}``."""
    out = {"name": name, "kind": kind, "label": label, "value": value, "required": required, "hint": hint}
    if options is not None:
        out["options"] = options
    if min is not None:
        out["min"] = min
    if max is not None:
        out["max"] = max
    return out


def _opt(value: Any, label: str) -> dict:
    return {"value": value, "label": label}


def _hearts_label(camp, name: str, ui: UI) -> str:
    found = combatant(camp.state, name)
    c = found[1] if found is not None else None
    if c is None:
        return name
    if _hidden(camp, ui, name):
        return f"{name} ({_wound(c)})"
    return f"{name} ({c['hearts']}/{c['max_hearts']} hearts{', ' + c['status'] if c['status'] != 'alive' else ''})"


def _hidden(camp, ui: UI, name: str) -> bool:
    """Whether this combatant's hearts are not shown: foes (unless the keeper shows them) and, if asked, delvers
    on the players' screen."""
    if ui.mode != "players":
        return False
    return ui.hide_hearts if name in camp.state["delvers"] else not ui.foe_hearts


# ---------------------------------------------------------------- the party strip

_CONDITION_WORDS = {"next_attack": "next attack readied", "blood_magic_healing_ban": "no healing until a rest",
                    "blood_magic_trace": "spell traced on the sword", "blood_magic_charge": "sword charged",
                    "compelled_truth": "must tell the truth", "truth_immune": "immune to Truth"}


def _conditions(camp, name: str) -> list[dict]:
    out = []
    for c in camp.state["conditions"]:
        if c["who"] != name:
            continue
        text = _CONDITION_WORDS.get(c["kind"], c["kind"].replace("_", " "))
        ends = "until a rest" if c["ends_on"] == "rest" else \
            f"until {c['ends_on'][5:]}'s next turn" if (c["ends_on"] or "").startswith("turn:") else \
            f"until {_clock(c['ends_at'])}" if c["ends_at"] is not None else ""
        src = f" (from {c['source']})" if c["source"] not in (None, name) else ""
        out.append({"text": text, "title": f"{text}{src} {ends}".strip(), "id": c["id"]})
    return out


def _party(camp, ui: UI, actor: str | None, now: str | None) -> list[dict]:
    s, rules = camp.state, camp.rules
    per = rules.core["luck_dice"]["per_session"]
    thresholds = rules.level_thresholds
    ds = queries.death_save(s, rules)
    out = []
    for name in s["seats"]:
        d = s["delvers"][name]
        hide = _hidden(camp, ui, name)
        status = d["status"]
        badge = "DEAD" if is_dead(d) else "DYING: death save!" if is_dying(d) else \
            ("at 0 hearts" if d["hearts"] <= 0 else "")
        nxt = thresholds.get(d["level"] + 1)
        chip = {
            "name": name, "class": d.get("class_name", d["class_id"]), "level": d["level"], "player": d["player"],
            "status": status, "badge": badge, "dead": is_dead(d), "dying": is_dying(d),
            "hearts": None if hide else d["hearts"], "max_hearts": None if hide else d["max_hearts"],
            "hearts_text": _wound(d) if hide else f"{d['hearts']}/{d['max_hearts']}",
            "frac": _bar_frac(d, hide),
            "luck": s["luck"].get(d["player"], 0), "luck_max": per,
            "resources": [{"id": r, "text": f"{r.replace('_', ' ')} {v}/{top}"} for r, v, top in held_resources(d)],
            "conditions": _conditions(camp, name),
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


def _creatures(camp, ui: UI, actor: str | None, now: str | None) -> list[dict]:
    """The named creatures beside the party strip: NPCs the keeper named and the mages' familiars (a familiar
    acts in its mage's turn, so it shows as acting then), living ones; click one to act as it or aim at it."""
    s = camp.state
    out = []
    for c in creatures(s, living=True):
        d = c.data
        hide = _hidden(camp, ui, c.name)
        owner = c.owner
        role = f"{owner}'s familiar" if c.role == "familiar" and owner else "NPC" if c.role == "npc" else c.role
        kind = camp.rules.foe(c.kind).get("name", c.kind) if c.kind in camp.rules.bestiary else d.get("form") or ""
        out.append({"name": c.name, "role": role, "owner": owner, "kind": kind, "status": c.status,
                    "dying": is_dying(d), "dead": is_dead(d),
                    "hearts": None if hide else c.hearts, "max_hearts": None if hide else c.max_hearts,
                    "hearts_text": _wound(d) if hide else f"{c.hearts}/{c.max_hearts}",
                    "frac": _bar_frac(d, hide), "conditions": _conditions(camp, c.name),
                    "note": d.get("note") or "" if ui.mode == "keeper" else "", "selected": c.name == actor,
                    "acting": owner is not None and owner == now, "touched": c.name in ui.touched,
                    "select": {"do": "select", "who": c.name, "where": "party"}})
    return out


# ---------------------------------------------------------------- the fight

def _foes(camp, ui: UI, now: str | None) -> list[dict]:
    enc = camp.state["encounter"]
    out = []
    for f in enc["foes"].values():
        hide = _hidden(camp, ui, f["name"])
        armor = "; ".join((f"AV {a['av']} DV {a['dv']}/{a['dv_max']}" if a["dv"] > 0 else "armor broken")
                          for a in f.get("armor", ()))
        out.append({"name": f["name"], "status": f["status"], "dead": is_dead(f), "wound": _wound(f),
                    "hearts": None if hide else f["hearts"], "max_hearts": None if hide else f["max_hearts"],
                    "hearts_text": _wound(f) if hide else f"{f['hearts']}/{f['max_hearts']}",
                    "frac": _bar_frac(f, hide), "acting": f["name"] == now,
                    "touched": f["name"] in ui.touched,
                    "sub": None if ui.mode == "players" else f"attack +{f['attack_bonus']} · damage {f['damage']}"
                           + (f" · multi-attack {f['multi_attack']}" if f.get("multi_attack", 1) > 1 else "")
                           + (" · ranged" if f.get("ranged") else "") + (f" · {armor}" if armor else ""),
                    "select": {"do": "select", "who": f["name"], "where": "fight"}})
    return out


def _fight_starts(camp) -> dict:
    prepared = []
    for eid, enc in camp.prepared_encounters.items():
        counts: dict[str, int] = {}
        for f in enc["foes"]:
            kind = f if isinstance(f, str) else f["foe"]
            name = camp.rules.foe(kind).get("name", kind)
            counts[name] = counts.get(name, 0) + 1
        foes = ", ".join(f"{n} {name}s" if n > 1 else name for name, n in counts.items())
        prepared.append({"label": f"{_pretty_id(enc['name'])}: {foes}", "note": enc.get("note") or "",
                         "intent": {"do": "start_fight", "prepared": eid, "where": "fight"}})
    bestiary = [_opt(k, camp.rules.foe(k).get("name", k)) for k in camp.rules.bestiary]
    return {"prepared": prepared,
            "form": {"id": "start_fight", "fields": [field_("foe", "choice", "or one", bestiary[0]["value"]
                                                            if bestiary else None, bestiary)],
                     "submit": {"label": "Start", "intent": {"do": "start_fight", "where": "fight"}}}}


def _fight(camp, ui: UI, now: str | None) -> dict | None:
    s = camp.state
    enc = s["encounter"]
    if enc is None:
        return None if ui.mode == "players" else {"running": False, "start": _fight_starts(camp)}
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
    note = (camp.prepared_encounters.get(enc["name"]) or {}).get("note") or "" if keeper else ""
    out = {"running": True, "name": _pretty_id(enc["name"]), "round": enc["round"], "status": status,
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
        bestiary = [_opt(k, camp.rules.foe(k).get("name", k)) for k in camp.rules.bestiary]
        out["join"] = {"id": "add_foe", "fields": [field_("foe", "choice", "A foe joins", bestiary[0]["value"]
                                                          if bestiary else None, bestiary)],
                       "submit": {"label": "Joins", "intent": {"do": "add_foe", "where": "fight"}}}
    return out


# ---------------------------------------------------------------- the action bar

def _checks(camp, ui: UI, who: str) -> dict:
    s, rules = camp.state, camp.rules
    c = combatant(s, who)
    found = c[1] if c is not None else None
    vs = ui.vs if ui.vs in _combatant_names(s) and ui.vs != who else None
    skills = []
    sids = list(found.get("skills", ())) if found is not None else []
    for sid in sids:
        label = queries.skill_label(s, rules, who, sid)
        p = queries.check_odds(s, rules, who, sid, None if vs else ui.target, vs)
        spec = (rules.class_(found["class_id"])["skills"].get(sid) if "class_id" in found else None) or {}
        skills.append({"label": label, "odds": _odds_text(p), "title": spec.get("scope", ""),
                       "intent": {"do": "check", "who": who, "skill": sid, "where": "checks"}})
    p = queries.check_odds(s, rules, who, None, None if vs else ui.target, vs)
    skills.append({"label": "D20, no skill", "odds": _odds_text(p), "title": "a plain D20 (no skill applies)",
                   "intent": {"do": "check", "who": who, "where": "checks"}})
    others = [_opt(n, _hearts_label(camp, n, ui)) for n in _combatant_names(s) if n != who]
    return {"target": ui.target, "vs": vs, "against": f"vs {vs}" if vs else f"vs {ui.target}",
            "presets": [{"label": str(t), "on": t == ui.target and not vs,
                         "intent": {"do": "target", "target": t, "where": "checks"}} for t in TARGET_PRESETS],
            "set_target": {"do": "target", "where": "checks"},
            "vs_options": [_opt("", "a target number")] + others,
            "set_vs": {"do": "vs", "where": "checks"}, "skills": skills}


def _class_ability_ids(rules) -> set:
    out = set()
    for _, cls in rules.classes.items():
        if isinstance(cls, Mapping) and isinstance(cls.get("abilities"), Mapping):
            out |= set(cls["abilities"])
    return out


def _attack_options(camp, ui: UI, who: str, side: str, targets: list[str]) -> list[dict]:
    """The attack's options as toggles: the rules' own (advantage, multi-attack, a bonus, no counter), and what
    classes bring to an attack (effects' attack options and skill boosts) when the attacker has that ability;
    a Dodge when a target may dodge. Read from the engine's registries, so a new option appears by itself."""
    s, rules = camp.state, camp.rules
    a = ui.attack
    out = [{"name": "advantage", "kind": "flag", "label": "advantage", "value": bool(a.get("advantage")),
            "title": "roll two D20s and keep the higher"},
           {"name": "no_counter", "kind": "flag", "label": "no counter", "value": bool(a.get("no_counter")),
            "title": "the target cannot hit back (the keeper's ruling)"},
           {"name": "multi", "kind": "number", "label": "multi-attack", "value": a.get("multi"), "min": 1, "max": 6,
            "title": "an extra D20 per extra attack; the target rolls once against them all"},
           {"name": "bonus", "kind": "text", "label": "bonus", "value": a.get("bonus") or "",
            "title": "dice or a number added to the attack roll (e.g. 2 or d6)"}]
    if side == "delver":
        have = {x.id for x in queries.abilities_available(s, rules, who)}
        known = _class_ability_ids(rules)
        for name, opt in effects.ATTACK_OPTIONS.items():
            if name in have or name not in known:
                out.append({"name": name, "kind": "flag", "label": name.replace("_", " "),
                            "value": bool(a.get(name)), "title": opt.what})
        for name in effects.SKILL_BOOSTS:
            if name in have:
                ab = rules.ability(s["delvers"][who]["class_id"], name)
                out.append({"name": name, "kind": "flag", "label": f"{ab['name']} ({queries.cost_text(ab['cost'])})",
                            "value": bool(a.get(name)), "title": ab["effect"]})
    else:
        for name in effects.DAMAGE_REDUCERS:
            dodgers = [t for t in targets if t in s["delvers"]
                       and name in {x.id for x in queries.abilities_available(s, rules, t)}]
            if dodgers:
                ab = rules.ability(s["delvers"][dodgers[0]]["class_id"], name)
                out.append({"name": name, "kind": "flag",
                            "label": f"target {ab['name'].lower()}s ({queries.cost_text(ab['cost'])})",
                            "value": bool(a.get(name)), "title": ab["effect"]})
    for o in out:
        o["intent"] = {"do": "attack_option", "name": o["name"], "where": "attack"}
    return out


def asked_of(ui: UI) -> dict:
    """The attack options picked, as ``attack`` takes them."""
    asked = {}
    for k, v in ui.attack.items():
        if k == "no_counter":
            if v:
                asked["counter"] = False
        elif k == "multi":
            if v:
                asked["multi"] = int(v)
        elif k == "bonus":
            if v not in (None, ""):
                asked["bonus"] = v
        elif v:
            asked[k] = True
    return asked


def _attacks(camp, ui: UI, who: str, side: str) -> dict | None:
    """The attacks ``who`` can make: each weapon it has (a conjured one too: the Holy Weapon's sword) against each
    target standing, with the exact odds (``queries.attack_odds``) and what stands in the way now
    (``queries.attack_problem``: the turn, ammunition, a crossbow to reload). A delver and its familiar attack the
    foes; a foe attacks the party and the familiars beside it."""
    s, rules = camp.state, camp.rules
    enc = s["encounter"]
    if enc is None:
        return None
    if side == "creature" and owner_of(s, who) is None:
        return None  # an NPC outside the fight: it joins one as a foe (encounter([{"npc": name}]))
    if side in ("delver", "creature"):
        targets = [n for n, f in enc["foes"].items() if not is_dead(f)]
    else:
        targets = [n for n in s["seats"] if not is_dead(s["delvers"][n])] + _familiars(s)
    asked = asked_of(ui)
    weapons = queries.weapons(s, rules, who)
    rows = []
    note = None
    for t in targets:
        c = combatant(s, t)[1]
        buttons = []
        for label, arg in weapons:
            try:
                o = queries.attack_odds(s, rules, who, t, arg, **asked)
            except (Refused, DiceError) as err:
                o, note = None, str(err)
            try:
                problem = queries.attack_problem(s, rules, who, t, arg, **asked)
            except DiceError as err:
                problem = str(err)
            intent = {"do": "attack", "attacker": who, "target": t, "weapon": arg, "where": "attack"}
            said = (f"{who} attacks {t} with {label}: {percent(o.win, 0)} to hit, {percent(o.tie, 0)} a tie (both "
                    f"hit), {percent(o.lose, 0)} a miss" if o else f"{who} attacks {t} with {label}")
            buttons.append({"label": label, "odds": _odds_text(o.win) if o else None,
                            "tie": _odds_text(o.tie) if o else None, "intent": intent, "ready": problem is None,
                            "note": problem or "", "title": said + (f" ({problem})" if problem else "")})
        hide = _hidden(camp, ui, t)
        rows.append({"name": t, "hearts_text": _wound(c) if hide else f"{c['hearts']}/{c['max_hearts']}",
                     "frac": _frac(c["hearts"], c["max_hearts"]), "status": c["status"], "buttons": buttons})
    return {"rows": rows, "options": _attack_options(camp, ui, who, side, targets), "note": note,
            "each": "each attack" if asked.get("multi", 1) > 1 else ""}


def _creature_options(camp, ui: UI, who: str, *, self_first: bool, foes_first: bool, optional: bool) -> list[dict]:
    """Who an ability or a spell may be aimed at: the party, the named creatures (NPCs, familiars) and the foes
    standing; something that harms (an attack, damage) lists the foes first, and in a fight only them."""
    s = camp.state
    party = [n for n in s["seats"] if not is_dead(s["delvers"][n])] + _creature_names(s)
    enc = s["encounter"]
    foes = [n for n, f in enc["foes"].items() if not is_dead(f)] if enc else []
    if foes_first and foes:
        party = []
    if self_first and who in party:
        party.remove(who)
        party.insert(0, who)
    names = foes + party if foes_first else party + foes
    out = [_opt(n, _hearts_label(camp, n, ui) + (" (self)" if n == who else "")) for n in names]
    if optional:
        out.insert(0, _opt("", f"{who} (self)" if self_first else "no one"))
    return out


def _input_field(camp, ui: UI, who: str, inp, *, attack: bool) -> dict:
    s, rules = camp.state, camp.rules
    d = s["delvers"].get(who) or {}
    label = inp.name.replace("_", " ")
    if inp.kind == "creature":
        opts = _creature_options(camp, ui, who, self_first=not inp.required, foes_first=attack,
                                 optional=not inp.required)
        if inp.name == "target" and "dead" in inp.what:
            opts = [_opt(n, _hearts_label(camp, n, ui)) for n in s["seats"] if is_dead(s["delvers"][n])]
        if "target number" in inp.what:  # a number or a creature (Hide: against a number, or who is looking)
            opts = [_opt(str(ui.target), f"the target number {ui.target}")] + [o for o in opts if o["value"] != who]
        return field_(inp.name, "choice", label, opts[0]["value"] if opts else None, opts, required=inp.required,
                      hint=inp.what)
    if inp.kind == "creatures":
        opts = [_opt(n, n) for n in present(s)]
        return field_(inp.name, "multi", label, [], opts, required=inp.required, hint=inp.what)
    if inp.kind == "names":
        opts = [_opt(n, n) for n in d.get("true_names", ())]
        return field_(inp.name, "multi", label, [], opts, required=inp.required, hint=inp.what)
    if inp.kind == "number":
        return field_(inp.name, "number", label, 1 if inp.required else None, required=inp.required, hint=inp.what,
                      min=0)
    if inp.kind == "flag":
        return field_(inp.name, "flag", label, False, hint=inp.what)
    if inp.kind == "spell":
        book = list(d.get("spells", ()))
        ids = book or list(rules.spells)
        opts = [_opt(sid, rules.spell(sid)["name"]) for sid in ids]
        return field_(inp.name, "choice", label, opts[0]["value"] if opts else None, opts, required=inp.required,
                      hint=inp.what)
    if inp.kind == "item":
        opts = [_opt(it.get("item"), it.get("name", it.get("item"))) for it in d.get("items", ())]
        return field_(inp.name, "choice", label, None, [_opt("", "-")] + opts, hint=inp.what)
    if inp.kind == "condition":
        opts = [_opt(c["id"], f"{c['kind'].replace('_', ' ')} on {c['who']}") for c in s["conditions"]]
        return field_(inp.name, "choice", label, opts[0]["value"] if opts else None, opts, required=inp.required,
                      hint=inp.what)
    return field_(inp.name, "text", label, "", required=inp.required, hint=inp.what)


def _action(camp, ui: UI, who: str, kind: str, ident: str, name: str, cost: str, effect: str, inputs: tuple,
            *, ready: bool, note: str = "", via: str | None = None, attack_odds: bool = False,
            harmful: bool = False) -> dict:
    """One ability or spell: a button (no inputs), target chips (one creature to pick), or a small form."""
    s, rules = camp.state, camp.rules
    key = f"{kind}:{who}:{ident}" + (f":{via}" if via else "")
    base = {"do": kind, "who": who, ("ability" if kind == "use" else "spell"): ident, "where": key}
    if via:
        base["via"] = via
    out = {"key": key, "name": name, "cost": cost, "effect": effect, "ready": ready, "note": note}
    creature = [i for i in inputs if i.kind == "creature"]
    rest = [i for i in inputs if i.kind != "creature"]
    attacky = harmful or attack_odds or any("attack" in i.what for i in creature)
    if not inputs:
        out.update(kind="button", intent=base)
    elif len(creature) == 1 and not rest and creature[0].name == "target" and attacky and not _foes_standing(s):
        out.update(kind="chips", chips=[], note=(note + "; " if note else "") + "an attack: in a fight, on a foe")
    elif len(creature) == 1 and not rest and creature[0].name == "target":
        inp = creature[0]
        chips = []
        for o in _input_field(camp, ui, who, inp, attack=attacky)["options"]:
            chip = {"label": o["label"].split(" (")[0] + (" (self)" if o["value"] in ("", who) and not inp.required
                                                          else ""),
                    "intent": {**base, "target": o["value"] or None}}
            if attack_odds and o["value"]:
                try:
                    odd = queries.spell_attack_odds(s, rules, who, o["value"])
                except (Refused, DiceError):
                    odd = None
                chip["odds"] = _odds_text(odd.win + odd.tie) if odd else None
            chips.append(chip)
        out.update(kind="chips", chips=chips)
    else:
        fields = [_input_field(camp, ui, who, i, attack=attacky) for i in inputs]
        if any(i.kind == "spell" for i in inputs) and not creature:
            opts = _creature_options(camp, ui, who, self_first=False, foes_first=True, optional=True)
            fields.append(field_("target", "choice", "target", "", opts, hint="the spell's target, if it has one"))
        if ident == "naming":  # the keeper prices the spell, the table negotiates: the agreed cost is paid
            for f in fields:
                if f["name"] == "cost":
                    f.update(label="agreed cost", value=None, hint="the soul points the table agreed (the keeper's "
                                                                    "price if left empty)", required=False)
            fields.insert([f["name"] for f in fields].index("cost"),
                          field_("price", "number", "keeper's price", None, required=True, min=0,
                                 hint="the soul points the keeper asks for this spell"))
        label = {"use": "Use", "cast": "Cast"}[kind] + f" {name}"
        out.update(kind="form", form={"id": key, "fields": fields, "submit": {"label": label, "intent": base}},
                   open=ui.form == key, toggle={"do": "form", "id": key, "where": key})
    return out


def _foes_standing(state: Mapping) -> list[str]:
    enc = state["encounter"]
    return [n for n, f in enc["foes"].items() if not is_dead(f)] if enc else []


def _abilities(camp, ui: UI, who: str) -> list[dict]:
    s, rules = camp.state, camp.rules
    out = []
    for a in queries.abilities_available(s, rules, who):
        if a.id in effects.CASTINGS:
            continue  # a way of casting: its spells are listed with the spells
        out.append(_action(camp, ui, who, "use", a.id, a.name, a.cost_text, a.effect, a.inputs,
                           ready=a.affordable, note="" if a.affordable else "cannot pay now"))
    return out


def _spells(camp, ui: UI, who: str) -> list[dict]:
    s, rules = camp.state, camp.rules
    out = []
    for sp in queries.spells_available(s, rules, who):
        spec = rules.spells.get(sp.id) if sp.id in rules.spells else None
        attack = bool(spec and spec.get("attack") in ("ranged_spell", "ranged"))
        harmful = bool(spec and (attack or spec.get("damage") is not None))
        via = sp.via if sp.via in ("wand", "sword") else None
        how = {"spellbook": "from the book", "blessing": "a blessing", "bard": "a bard's song",
               "sword": "the sword", "signature": "signature", "naming": "naming magic"}.get(sp.via, sp.via)
        cost = sp.cost_text if sp.via not in ("spellbook",) else f"{how}, {sp.cost_text}"
        out.append(_action(camp, ui, who, "cast", sp.id, sp.name, cost, sp.effect, sp.inputs,
                           ready=not sp.used, note="used since the last rest" if sp.used else "", via=via,
                           attack_odds=attack, harmful=harmful))
    return out


def _choices(camp, ui: UI, who: str) -> list[dict]:
    s, rules = camp.state, camp.rules
    d = s["delvers"].get(who)
    if d is None:
        return []
    out = []
    for p in d.get("pending_choices", ()):
        spec = queries.find_choice(rules, d, p)
        options = []
        for label, oid in queries.choice_options(s, rules, who, p):
            effect = ""
            if "options" in spec and oid in spec["options"]:
                effect = spec["options"][oid].get("effect", "")
            elif "from_skills" in spec:
                label = queries.skill_label(s, rules, who, oid)
                effect = f"raised to {spec['raise_to']}"
            options.append({"label": label, "effect": effect,
                            "intent": {"do": "choose", "who": who, "choice": p["choice"], "option": oid,
                                       "where": f"choice:{who}:{p['choice']}"}})
        out.append({"key": f"choice:{who}:{p['choice']}",
                    "title": f"Level {p['level']}: {spec.get('prompt', p['choice'].replace('_', ' '))}",
                    "options": options})
    return out


def _sheet(camp, ui: UI, who: str) -> dict:
    """The selected delver's whole card: what the party strip leaves out."""
    s, rules = camp.state, camp.rules
    d = s["delvers"][who]
    units = rules.core["currency"]["units"]
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
    return {"rows": rows, "xp_frac": _frac(d["xp"] - lo, (hi - lo) if hi is not None else 0) if hi else 1.0}


def _turn(camp, who: str) -> dict | None:
    """What the turn economy says of ``who`` now (``queries.may_act``): whose turn it is, whether ``who`` still
    has its action, and why not. Shown, not enforced: the keeper may override."""
    a = queries.may_act(camp.state, camp.rules, who)
    if not a.tracked:
        return None
    left = [x.replace("_", " ") for x in a.left]
    return {"why": a.why, "action": a.action, "left": left,
            "text": a.why or ("left this turn: " + ", ".join(left) if left else "")}


def _gear(camp, ui: UI, who: str) -> list[dict]:
    """What a delver does with its gear: reload a crossbow (its action in a fight), drop something (a thrown
    dagger lost), have something taken away or handed to another delver. What can be reloaded, and why not, is
    ``queries.reloadable``; what it carries, ``queries.carried``."""
    s, rules = camp.state, camp.rules
    out = []
    uses = rules.core["ammunition"]["reload_uses"]
    for r in queries.reloadable(s, rules, who):
        what = f"reloading the {r.name}"
        why = r.why if r.why is not None else queries.turn_problem(s, rules, who, uses, what)
        out.append({"key": f"gear:{who}:reload:{r.weapon}", "name": f"Reload {r.name}",
                    "cost": "an action" if uses == queries.ACTION else uses.replace("_", " "),
                    "effect": "" if r.loaded else "empty: it shoots again once reloaded",
                    "ready": why is None, "note": why or "", "kind": "button",
                    "intent": {"do": "reload", "who": who, "weapon": r.weapon, "where": f"gear:{who}:reload:{r.weapon}"}})
    things = queries.carried(s, rules, who)
    if not things:
        return out
    items = [_opt(t.name, t.label) for t in things]
    others = [_opt(n, n) for n in s["seats"] if n != who and not is_dead(s["delvers"][n])]
    for do, name, effect, fields in (
            ("drop", "Drop", f"{who} drops it (a thrown weapon lost, a broken shield): it leaves the sheet",
             [field_("item", "choice", "item", items[0]["value"], items, required=True),
              field_("count", "number", "how many", 1, min=1)]),
            ("take", "Take", f"the keeper takes it from {who} (lost, broken, stolen), or hands it to another "
                             f"delver (armor leaves {who}'s specialty bonus behind)",
             [field_("item", "choice", "item", items[0]["value"], items, required=True),
              field_("count", "number", "how many", 1, min=1),
              field_("to", "choice", "to", "", [_opt("", "no one (it is gone)")] + others)])):
        key = f"gear:{who}:{do}"
        out.append({"key": key, "name": name, "cost": "", "effect": effect, "ready": True, "note": "",
                    "kind": "form", "open": ui.form == key, "toggle": {"do": "form", "id": key, "where": key},
                    "form": {"id": key, "fields": fields,
                             "submit": {"label": name, "intent": {"do": do, "who": who, "where": key}}}})
    return out


def _actor(camp, ui: UI, who: str | None) -> dict | None:
    if who is None:
        return None
    s, rules = camp.state, camp.rules
    found = combatant(s, who)
    if found is None:
        return None
    side, c = found
    hide = _hidden(camp, ui, who)
    out = {"name": who, "side": side, "status": c["status"],
           "hearts_text": _wound(c) if hide else f"{c['hearts']}/{c['max_hearts']} hearts",
           "acting": who == current_actor(s), "why_not": queries.can_act(s, who), "turn": _turn(camp, who)}
    if side == "creature":
        owner = owner_of(s, who)
        out["role"] = f"{owner}'s familiar: acts in {owner}'s turn" if owner else "NPC"
        out["acting"] = owner is not None and owner == current_actor(s)
    if ui.mode != "keeper":
        return out
    if side == "delver":
        out["sheet"] = _sheet(camp, ui, who)
    if is_dying(c) and side == "delver":
        ds = queries.death_save(s, rules)
        out["death_save"] = {"label": f"Death save: {ds.die.upper()}, needs {ds.target}: {percent(ds.chance, 0)}",
                             "intent": {"do": "death_save", "who": who, "where": "actor"}}
    if is_dead(c):
        return out
    out["checks"] = _checks(camp, ui, who)
    out["attacks"] = _attacks(camp, ui, who, side)
    if side == "delver":
        out["abilities"] = _abilities(camp, ui, who)
        out["spells"] = _spells(camp, ui, who)
        out["gear"] = _gear(camp, ui, who)
        out["choices"] = _choices(camp, ui, who)
    return out


# ---------------------------------------------------------------- the outcome, luck and real dice

def _dice(rec: Mapping) -> dict:
    """A roll record drawn as dice: each die with its sides and face, kept or dropped, then luck dice."""
    try:
        r = Roll.from_dict(rec)
    except (DiceError, KeyError, TypeError, ValueError):
        return {"expr": str(rec.get("expr")), "dice": [], "total": rec.get("total"), "was": None}
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


def _roll_label(name: str, rec: Mapping) -> str:
    who = rec.get("who")
    return f"{name.replace('_', ' ')}" + (f" · {who}" if who else "")


def _standing_version(camp, seq: int | None) -> dict | None:
    """The action first made as ``seq`` as it stands now (a luck die or real dice replace it)."""
    if seq is None:
        return None
    _, replaced_by, _ = standing(camp.events)
    while seq in replaced_by:
        seq = replaced_by[seq]
    try:
        return camp.event(seq)
    except KeyError:
        return None


def _default_player(camp, e: Mapping, roll: str) -> str | None:
    """Who is most likely to spend luck on this roll: the player of whoever rolled it; a foe's roll against a
    delver, the defender's player (the one who wants it lower)."""
    s = camp.state
    rec = e.get("rolls", {}).get(roll, {})
    who = rec.get("who")
    if who in s["delvers"]:
        return s["delvers"][who]["player"]
    for key in ("target", "attacker", "who", "vs"):
        other = e.get(key)
        if other in s["delvers"]:
            return s["delvers"][other]["player"]
    return None


def _luck(camp, ui: UI, action: Mapping | None, where: str) -> dict | None:
    if action is None or not action.get("rolls") or ui.mode != "keeper":
        return None
    s = camp.state
    picked = ui.luck_player if ui.luck_seq == action["seq"] and ui.luck_player in s["luck"] else None
    players = [{"player": p, "left": n, "on": p == picked,
                "intent": {"do": "luck_player", "player": p, "seq": action["seq"], "where": where}}
               for p, n in s["luck"].items()]
    rows = []
    for name, rec in action["rolls"].items():
        player = picked or _default_player(camp, action, name)
        left = s["luck"].get(player, 0) if player else 0
        d = _dice(rec)
        row = {"name": name, "label": _roll_label(name, rec), "total": rec.get("total"), "player": player,
               "left": left,
               "amend": {"id": f"amend:{action['seq']}:{name}",
                         "fields": [field_("faces", "text", "", "", required=True,
                                           hint=f"{rec.get('expr')}: {plural(d.get('count', 0), 'face')}")],
                         "submit": {"label": "Real dice", "intent": {"do": "amend", "roll": name, "where": where}}}}
        if player and left > 0:
            row["plus"] = {"label": f"+ {player}", "title": f"{player} spends a luck die: added to the {name} roll", "intent": {"do": "luck", "player": player, "sign": 1,
                                                                        "roll": name, "where": where}}
            row["minus"] = {"label": f"\u2212 {player}",
                            "title": f"{player} spends a luck die: taken off the {name} roll", "intent": {"do": "luck", "player": player, "sign": -1,
                                                                         "roll": name, "where": where}}
        rows.append(row)
    return {"on": title(action, camp), "seq": action["seq"], "players": players, "rows": rows,
            "die": queries.luck_die_sides(camp.rules)}


def _outcome(camp, ui: UI) -> dict | None:
    if ui.scope == "roll":
        e = _standing_version(camp, ui.focus) if ui.focus is not None else camp.latest_action
    elif ui.mode == "players":
        e = camp.latest_action  # the players see the table as it stands: not an undo, nor what it took back
    else:
        e = camp.events[-1] if camp.events else None
    if e is None:
        return None
    hidden = [n for n in _combatant_names(camp.state, living=False) if _hidden(camp, ui, n)]
    told = tell(e, camp, hidden)
    rolls = [{"name": n, "label": _roll_label(n, rec), **_dice(rec)} for n, rec in (e.get("rolls") or {}).items()]
    out = {"seq": e["seq"], "kind": e.get("kind"), "text": told["text"], "lines": told["lines"],
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
        offers = e.get("on_hit_options") or () if latest is not None and latest["seq"] == e["seq"] else ()
        for o in offers:  # a choice once the hit is seen (a smite), as the engine offers it with the attack
            name = str(o.get("name") or o["option"]).replace("_", " ")
            said = ", ".join(str(x) for x in (o.get("cost_text"), f"+{o['adds']}" if o.get("adds") else None) if x)
            follow.append({"label": f"{name} ({said})" if said else name,
                           "intent": {"do": "on_hit", "option": o["option"], "where": "outcome"},
                           "enabled": o.get("affordable", True), "on_hit": o["option"],
                           "title": o.get("why") or f"{name} on the hit just seen: the attack stands as rolled, "
                                                    f"its damage {('+' + str(o['adds'])) if o.get('adds') else 'added'}"})
        out["follow"] = follow
    return out


# ---------------------------------------------------------------- the log

def _log(camp, ui: UI) -> list[dict]:
    events = camp.events
    in_force, replaced_by, undone_by = standing(events)
    hidden = [n for n in _combatant_names(camp.state, living=False) if _hidden(camp, ui, n)]
    rows = []
    for e in reversed(events):
        seq, kind = e["seq"], e.get("kind")
        mark, by = "", None
        if kind in ("undo", "redo"):
            mark = kind
        elif seq in undone_by:
            mark, by = "undone", undone_by[seq]
        elif seq in replaced_by:
            mark, by = "replaced", replaced_by[seq]
        if ui.mode == "players" and mark:
            continue  # the players see the table as it stands
        rows.append({"seq": seq, "kind": kind, "text": tell(e, camp, hidden)["text"], "mark": mark, "by": by,
                     "note": (f"undone by #{by}" if mark == "undone" else
                              f"replaced by #{by}" if mark == "replaced" else "")})
        if len(rows) >= LOG_ROWS:
            break
    return rows


def _last_rolls(camp, ui: UI) -> list[dict]:
    """The players' "last rolls": the latest actions with dice that still stand, newest first; one undone or
    replaced (a luck die, real dice typed) is left out, so each roll shows once, as it stands."""
    events = camp.events
    in_force, replaced_by, _ = standing(events)
    hidden = [n for n in _combatant_names(camp.state, living=False) if _hidden(camp, ui, n)]
    rows = []
    for e in reversed(events):
        seq = e["seq"]
        if not e.get("rolls") or seq not in in_force or seq in replaced_by:
            continue
        told = tell(e, camp, hidden)
        rows.append({"seq": seq, "kind": e.get("kind"), "text": told["text"], "verdict": told["verdict"],
                     "rolls": [{"name": n, "label": _roll_label(n, rec), **_dice(rec)}
                               for n, rec in e["rolls"].items()]})
        if len(rows) >= LAST_ROLLS:
            break
    return rows


def _without_intents(value: Any) -> Any:
    """``value`` with every intent taken out (a dict with ``"do"``, and the key that held it): the players' screen
    has nothing to send back, by construction."""
    if isinstance(value, dict):
        return {k: _without_intents(v) for k, v in value.items()
                if not (isinstance(v, dict) and "do" in v)}
    if isinstance(value, list):
        return [_without_intents(v) for v in value if not (isinstance(v, dict) and "do" in v)]
    return value


def _undo_redo(camp) -> dict:
    act, back = camp.latest_action, camp.latest_undone
    return {"undo": {"label": f"Undo {title(act, camp)}" if act else "Nothing to undo", "enabled": act is not None,
                     "intent": {"do": "undo", "where": "header"}},
            "redo": {"label": f"Redo {title(back, camp)}" if back else "Nothing to redo", "enabled": back is not None,
                     "intent": {"do": "redo", "where": "header"}}}


# ---------------------------------------------------------------- the keeper's panel

def _keeper(camp, ui: UI) -> dict:
    s, rules = camp.state, camp.rules
    sess = s["session"]
    party = [_opt(n, n) for n in s["seats"]]
    everyone = [_opt(n, _hearts_label(camp, n, ui)) for n in _combatant_names(s)]
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
    gear = [_opt(k, v.get("name", k) if isinstance(v, Mapping) else k) for k, v in rules.gear.items()]
    units = [u for _, u in rules.core["currency"]["units"].items() if isinstance(u, Mapping)]
    coin_unit = rules.core["currency"]["units"].get(rules.core["xp"]["coin"])
    smallest = min(units, key=lambda u: u["talons"])
    example = (f"30{coin_unit['symbol']} 5{smallest['symbol']}" if isinstance(coin_unit, Mapping)
               and coin_unit is not smallest else f"30{smallest['symbol']}")
    coin = queries.coin_talons(rules)
    out = {
        "session": {"text": (f"Session {sess['number']} is running" if sess["active"] else
                             f"No session running (session {sess['number']} was the last)") +
                            f" · {_clock(s['clock'])}",
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
        "quests": _milestones(camp.quests, "quest", "complete_quest", f"Complete ({per_quest} XP)"),
        "rooms": _milestones(camp.rooms, "room", "explore_room", f"Explored ({per_room} XP)"),
        "coins": {"hint": f"money like {example!r}; each {money(rules, coin)} earned is "
                          f"{rules.core['xp']['per_crown']} XP, {split}",
                  "earn": {"id": "earn", "fields": [
                      field_("amount", "text", "coins", "", required=True, hint=f"e.g. {example}"),
                      field_("who", "choice", "to", "", [_opt("", "shared by seat")] + party),
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
                           field_("duration", "choice", "for", "", [_opt("", "until lifted")] +
                                  [_opt(k, k) for k in rules.core["durations"] if k not in
                                   ("source", "quote", "reason", "assumed", "note")])],
                           "submit": {"label": "Put on", "intent": {"do": "condition", "where": "keeper:conditions"}}}},
        "roll": {"id": "roll", "fields": [field_("expr", "text", "dice", "", required=True, hint="d66, 2d6+1"),
                                          field_("why", "text", "for", "", hint="a loot table")],
                 "submit": {"label": "Roll", "intent": {"do": "roll", "where": "keeper:roll"}}},
        "download": {"label": f"Download {camp.path.name}.zip", "intent": {"do": "download", "where": "keeper:download"},
                     "hint": f"the whole campaign folder; Campaign.open(\"{camp.path.name}.zip\") reads it"},
        "fight": None if s["encounter"] is not None else _fight_starts(camp),
    }
    out["give"] = {"id": "give", "fields": [
        field_("who", "choice", "to", party[0]["value"] if party else None, party),
        field_("item", "choice", "item", gear[0]["value"] if gear else None, gear),
        field_("name", "text", "called", "", hint="a +1 sword, grandfather's lute"),
        field_("bonus", "number", "bonus", None, hint="a magic weapon's +1"),
        field_("count", "number", "how many", 1, min=1)],
        "submit": {"label": "Give", "intent": {"do": "give", "where": "keeper:give"}}}
    out["npcs"] = _npcs(camp, ui)
    return out


def _npcs(camp, ui: UI) -> dict:
    """The named creatures outside the fight (NPCs the keeper named, the mages' familiars), and a form to name a
    new one: from the bestiary, or typed with its hearts (``camp.npc``)."""
    s, rules = camp.state, camp.rules
    rows = []
    for c in creatures(s, living=False):
        whose = f"{c.owner}'s familiar" if c.role == "familiar" and c.owner else "NPC"
        hearts = "dead" if c.dead else f"{c.hearts}/{c.max_hearts} hearts"
        text = f"{c.name}: {whose}, {hearts}"
        rows.append({"name": c.name, "text": text, "note": c.data.get("note") or "", "dead": c.dead,
                     "intent": {"do": "remove_npc", "name": c.name, "where": "keeper:npcs"}
                     if c.role == "npc" else None, "label": "Leaves the story"})
    bestiary = [_opt(k, rules.foe(k).get("name", k)) for k in rules.bestiary]
    return {"rows": rows, "form": {"id": "npc", "fields": [
        field_("name", "text", "name", "", required=True, hint="Grak the prisoner"),
        field_("foe", "choice", "as", "", [_opt("", "typed: hearts below")] + bestiary),
        field_("hearts", "number", "hearts", None, min=1, hint="a typed creature's hearts"),
        field_("note", "text", "note", "", hint="who they are, what they want")],
        "submit": {"label": "Name the NPC", "intent": {"do": "npc", "where": "keeper:npcs"}}}}


# ---------------------------------------------------------------- charts

def _charts(camp) -> dict | None:
    """XP progress and hearts in the latest fight, as series the page draws as SVG (plotly.js cannot load in an
    offline ES module); built from the analysis frames (``delvebook.analysis``), when that extra is here."""
    if not charts_available():
        return None
    from .. import analysis
    f = analysis.frames(camp, copy=False)
    xp = f["xp"]
    series = []
    for who in camp.state["seats"]:
        rows = xp[xp["who"] == who]
        series.append({"name": who, "points": [[0, 0]] + [[int(q), int(v)] for q, v in zip(rows["seq"], rows["xp"])]})
    last = max([p[0] for s in series for p in s["points"]] + [len(camp.events), 1])
    thresholds = [{"level": int(k), "xp": int(v)} for k, v in camp.rules.level_thresholds.items() if v > 0]
    hearts = f["hearts"]
    enc = hearts["encounter"].dropna()
    fight = None
    if len(enc):
        number = int(enc.max())
        rows = hearts[hearts["encounter"] == number]
        lines = []
        for who in dict.fromkeys(rows["who"].astype(str)):
            r = rows[rows["who"].astype(str) == who]
            lines.append({"name": who, "side": str(r["side"].iloc[0]),
                          "points": [[int(q), int(h)] for q, h in zip(r["seq"], r["hearts"])]})
        fight = {"number": number, "series": lines}
    return {"xp": {"series": series, "thresholds": thresholds, "last": int(last)}, "hearts": fight}


# ---------------------------------------------------------------- the whole table

def in_browser() -> bool:
    """True under Pyodide (JupyterLite): the campaign's files live in the browser's storage."""
    return sys.platform == "emscripten"


def table_view(camp, ui: UI | Mapping | None = None) -> dict:
    """The view model of ``camp`` as ``ui`` asks for it (JSON-shaped: text, numbers, lists, dicts)."""
    if ui is None:
        ui = UI()
    elif not isinstance(ui, UI):
        ui = UI(**ui)
    s = camp.state
    now = current_actor(s)
    scope = ui.scope
    out: dict[str, Any] = {"v": 1, "mode": ui.mode, "scope": scope, "ack": ui.ack, "title": camp.name,
                           "refusal": ui.refusal, "confirm": ui.confirm, "panel": ui.panel}
    sess = s["session"]
    out["session"] = {"number": sess["number"], "active": sess["active"], "clock": _clock(s["clock"]),
                      "text": (f"Session {sess['number']}" if sess["number"] else "No session yet") +
                              (" · running" if sess["active"] else " · not running" if sess["number"] else "")}
    if ui.mode == "keeper":
        out.update(_undo_redo(camp))
        if in_browser():  # JupyterLite: play is kept in the browser's storage, so saving it is one click away
            out["save"] = {"label": "Download zip", "intent": {"do": "download", "where": "header"},
                           "hint": "play is stored in this browser only: download the campaign folder before you "
                                   f"leave (Campaign.open(\"{camp.path.name}.zip\") reads it)"}
    charts = ui.mode == "keeper" and charts_available()
    out["panels"] = [{"id": p, "label": p.capitalize(), "on": p == ui.panel,
                      "intent": {"do": "panel", "panel": p, "where": "header"}}
                     for p in PANELS if p != "charts" or charts] if ui.mode == "keeper" else []
    actor = actor_of(camp, ui)
    if scope == "table":
        out["party"] = _party(camp, ui, actor, now)
        out["creatures"] = _creatures(camp, ui, actor, now)
        out["fight"] = _fight(camp, ui, now)
        if ui.panel == "play" or ui.mode == "players":
            out["actor"] = _actor(camp, ui, actor)
        elif ui.panel == "keeper":
            out["keeper"] = _keeper(camp, ui)
        elif ui.panel == "party":
            out["sheets"] = [{"name": n, **_sheet(camp, ui, n), "choices": _choices(camp, ui, n)}
                             for n in s["seats"]]
        elif ui.panel == "charts" and charts:
            out["charts"] = _charts(camp)
        out["outcome"] = _outcome(camp, ui)
        out["luck"] = _luck(camp, ui, camp.latest_action, "luck")
        out["log"] = _log(camp, ui)
    elif scope == "card":
        out["party"] = [p for p in _party(camp, ui, actor, now) if p["name"] == ui.who]
        out["actor"] = _actor(camp, ui, actor)
        out["outcome"] = _outcome(camp, ui)
        out["luck"] = _luck(camp, ui, camp.latest_action, "luck")
    elif scope == "fight":
        out["party"] = _party(camp, ui, actor, now)
        out["creatures"] = _creatures(camp, ui, actor, now)
        out["fight"] = _fight(camp, ui, now)
        out["actor"] = _actor(camp, ui, actor) if s["encounter"] is not None else None
        out["outcome"] = _outcome(camp, ui)
        out["luck"] = _luck(camp, ui, camp.latest_action, "luck")
    elif scope == "log":
        out["log"] = _log(camp, ui)
    elif scope == "roll":
        out["outcome"] = _outcome(camp, ui)
        action = _standing_version(camp, ui.focus) if ui.focus is not None else camp.latest_action
        if action is not None and camp.latest_action is not None and action["seq"] == camp.latest_action["seq"]:
            out["luck"] = _luck(camp, ui, action, "luck")
        else:
            out["luck"] = None
            if out["outcome"] is not None and action is not None:
                out["outcome"]["standing"] = action["seq"] in standing(camp.events)[0]
    if ui.mode == "players":
        out["rolls"] = _last_rolls(camp, ui)
        return _without_intents(out)
    return out

