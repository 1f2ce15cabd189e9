"""Character creation, level-ups and the choices they ask of the player."""

from __future__ import annotations

from typing import Any, Mapping

from ..core.declared import Action
from ..core.events import clone
from ..core.model import PARTY, STATUS_ALIVE, is_alive, is_dead
from .base import Ctx, command, data_items
from .creatures import names_in_play, players_named, require_name
from .gear import add_to_sheet, items_to_gear, refit_armor
from ..core.rules import ALL, NUMBERED
from ..core.rules.prepared import TRUE_NAMES, entry_for
from .queries import find_choice, healing_banned, raisable_skills, roll_table
from ..core.records import LevelUp

__all__ = ["items_to_gear", "level_up_in", "add_delver", "choose", "level_up", "AddDelver", "Choose", "LevelUpEvent"]


def _pick_option(ctx: Ctx, who: str, choice_id: str, choice: Mapping, picked: Any) -> tuple[str, Mapping]:
    options = dict(data_items(choice["options"]))
    said = ", ".join(f"{o['name']} ({oid})" for oid, o in options.items())
    if picked is None:
        ctx.refuse(f"{who}: choose {choice['prompt'].lower()}: one of {said}")
    if picked not in options:
        ctx.refuse(f"{who}: {picked!r} is not an option for {choice_id}: {choice['prompt'].lower()}: one of {said}")
    return picked, options[picked]


class AddDelver(Action, kind="add_delver", targets=("who",)):
    """A delver joins the party: its class, player and starting hearts, the starting choices made (``defaulted``:
    those the table left to the first option), and the spells and true names it rolled."""

    who: str
    class_id: str
    player: str
    hearts: int
    choices: dict[str, str]
    defaulted: list[str]
    spells: list[str]
    true_names: list[str]


@command(AddDelver)
def add_delver(ctx: Ctx, name: str, class_id: str, player: str | None = None,
               choices: Mapping[str, str] | None = None, seat: int | None = None) -> None:
    """A new delver: the class's level-1 block applied, everything random rolled and recorded."""
    if not isinstance(name, str) or not name.strip():
        ctx.refuse("a delver needs a name")
    if name in ctx.state["delvers"]:
        ctx.refuse(f"there is already a delver named {name!r}")
    if class_id not in ctx.rules.classes:
        ctx.refuse(f"there is no class {class_id!r} (classes: {', '.join(ctx.rules.classes)})")
    enc = ctx.state["encounter"]
    if enc is not None and name in enc["foes"]:
        ctx.refuse(f"{name!r} is the name of a foe in this encounter")
    if name in ctx.state.get("creatures", {}):
        ctx.refuse(f"{name!r} is the name of a creature in play")
    require_name(ctx, name, "a delver's name", names_in_play(ctx))
    cls = ctx.rules.class_(class_id)
    player = player or name
    players = players_named(ctx)
    if player not in players:  # a new player at the table: a name that reads like no other player's
        require_name(ctx, player, "a player's name", players)
    choices = dict(choices or {})
    made: dict[str, str] = {}
    defaulted: list[str] = []

    # hearts
    rule = ctx.rules.hearts(class_id, 1)
    if "set" in rule:
        hearts = int(rule["set"])
    elif "roll" in rule:
        hearts = ctx.roll("hearts", str(rule["roll"]), who=name, why="starting hearts").total
    else:
        ctx.refuse(f"class {class_id}: level 1 must set or roll hearts")

    # gear and the starting choices (fighter's weapon option, a dagger or a staff)
    gear = cls["starting_gear"]
    items = list(gear["items"])
    for cid, choice in data_items(gear.get("choices", {})):
        picked = choices.pop(cid, None)
        if picked is None:  # a table that has not decided yet gets the first option, said so in the log
            picked = next(k for k, _ in data_items(choice["options"]))
            defaulted.append(cid)
        opt_id, opt = _pick_option(ctx, name, cid, choice, picked)
        made[cid] = opt_id
        items += list(opt.get("items", ()))
    weapons, armor, other = items_to_gear(ctx, items)
    purse = ctx.rules.talons(gear.get("purse", {}))  # a class may start with an empty purse

    level1 = ctx.rules.level(class_id, 1)
    skills = {k: v for k, v in data_items(level1.get("skills", {}))}
    resources, resource_max = {}, {}
    for rid, res in data_items(cls["resources"]):
        resource_max[rid] = res["max"][1]
        resources[rid] = res["max"][1]

    delver = {
        "name": name, "player": player, "class_id": class_id, "class_name": cls["name"],
        "level": 1, "xp": 0, "hearts": hearts, "max_hearts": hearts, "status": STATUS_ALIVE,
        "died_at": None, "skills": skills, "resources": resources, "resource_max": resource_max,
        "weapons": weapons, "armor": armor, "items": other, "purse": purse,
        "choices": made, "abilities": [], "spells": [], "spellbook_used": [], "true_names": [],
        "pending_choices": [],
    }

    # the mage's random spells: D6 on the numbered list, a known spell re-rolled
    abilities = cls["abilities"]
    for aid, ability in data_items(abilities):
        mech = ability.get("mechanics", {})
        if ability["level"] == 1 and "spells_known" in mech and "grimoire" in mech.get("spells_from", ()):
            delver["spells"] = _random_spells(ctx, name, "grimoire", _known(ctx, mech, "grimoire"), [])
    # the namer's random true names: D66, a known name re-rolled
    if "true_names_known" in cls:
        count = cls["true_names_known"]["max"][1]
        delver["true_names"] = _random_true_names(ctx, name, count, [])
    # a level-1 choice (none in the text, but a campaign's class may have one)
    for cid, choice in data_items(level1.get("choices", {})):
        picked = choices.pop(cid, None)
        if picked is None:
            delver["pending_choices"].append({"level": 1, "choice": cid})
        else:
            opt_id, opt = _pick_option(ctx, name, cid, choice, picked)
            _apply_option(ctx, delver, cid, opt_id, opt)
    if choices:
        ctx.refuse(f"{name}: {', '.join(choices)} is not a choice a new {cls['name']} makes")

    seats = list(ctx.state["seats"])
    if seat is None:
        seats.append(name)
    else:
        seats.insert(seat, name)
    ctx.set(["delvers", name], delver)
    ctx.set(["seats"], seats)
    if enc is not None and (enc["round"] > 0 or enc["order"][PARTY]):
        # joining a running fight: the new delver acts at the end of the party's order (this round too, if the
        # party has not finished its turn)
        ctx.set(["encounter", "order", PARTY], enc["order"][PARTY] + [name])
    if player not in ctx.state["luck"]:
        ctx.set(["luck", player], ctx.core["luck_dice"]["per_session"])
    ctx.out(who=name, class_id=class_id, player=player, hearts=hearts, choices=made,
            defaulted=defaulted, spells=delver["spells"], true_names=delver["true_names"])


def _known(ctx: Ctx, mech: Mapping, list_id: str) -> int:
    """How many spells of a list an ability knows: its count, or (``all``) every spell the list holds now, a house
    rule's additions included."""
    known = mech["spells_known"]
    return len(ctx.rules.spell_by_number(list_id)) if known == ALL else int(known)


def _random_spells(ctx: Ctx, who: str, list_id: str, count: int, known: list[str]) -> list[str]:
    by_number = ctx.rules.spell_by_number(list_id)
    pick = ctx.rules.spell_lists[list_id].get("random_pick")
    die = pick if pick and pick != NUMBERED else f"d{len(by_number)}"  # numbered: a face for each spell
    spells = list(known)
    target = min(count, len(by_number))
    while len(spells) < target:
        n = ctx.roll("spell", die, who=who, why="random spell").total
        sid = by_number.get(n)
        if sid is not None and sid not in spells:
            spells.append(sid)
    return spells


def _random_true_names(ctx: Ctx, who: str, count: int, known: list[str]) -> list[str]:
    """Rolled on the true names table (D66; the campaign may change it like any roll table), a name already known
    rolled again; a total a luck die pushed off the table lands on its first or last entry, one it pushed between
    two results on the next the way it was pushed (``entry_for``)."""
    table = roll_table(ctx.state, ctx.rules, TRUE_NAMES)
    if table is None:
        ctx.refuse("there is no true names table to roll the namer's names on (the roll table true_names)")
    names = list(known)
    target = min(count, len({e.get("result") for e in table["entries"] if e.get("result")} | set(known)))
    while len(names) < target:
        r = ctx.roll("true_name", table["dice"], who=who, why="random true name")
        name = entry_for(table, r.total, r.total - r.base_total)[1].get("result")
        if name and name not in names:
            names.append(name)
    return names


def _apply_option(ctx: Ctx, delver: dict, choice_id: str, opt_id: str, opt: Mapping) -> None:
    """Apply a chosen option to a delver dict that is being built or changed (caller sets it)."""
    delver["choices"][choice_id] = opt_id
    fx = opt.get("effects", {})
    for skill, bonus in data_items(fx.get("skills", {})):
        delver["skills"][skill] = bonus
    armor_bonus = fx.get("armor_bonus")
    if armor_bonus:  # the wearer's: every worn piece, now and however it is gained later, is fitted with it
        delver["armor_bonus"] = {"av": armor_bonus["av"], "dv": armor_bonus["dv"],
                                 "excludes": armor_bonus.get("excludes", "shields")}
        refit_armor(delver)
    if fx.get("free_reload"):
        delver["free_reload"] = fx["free_reload"]
    for ability in opt.get("grants", ()):
        if ability not in delver["abilities"]:
            delver["abilities"].append(ability)
    for item in opt.get("items", ()):
        add_to_sheet(delver, *items_to_gear(ctx, [item]))
    for nested_id, _ in data_items(opt.get("choices", {})):
        delver["pending_choices"].append({"level": delver["level"], "choice": nested_id, "within": choice_id})


def level_up_in(ctx: Ctx, delver: dict) -> dict:
    """Apply the next level's features to ``delver`` (a copy being changed); returns what happened."""
    class_id = delver["class_id"]
    new = delver["level"] + 1
    cls = ctx.rules.class_(class_id)
    block = ctx.rules.level(class_id, new)
    rule = ctx.rules.hearts(class_id, new)
    before = delver["max_hearts"]
    if "set" in rule:
        delver["max_hearts"] = int(rule["set"])
    elif "gain" in rule:
        gain = rule["gain"]
        delver["max_hearts"] += gain if isinstance(gain, int) else \
            ctx.roll("hearts", str(gain), who=delver["name"], why=f"level {new} hearts").total
    elif "roll" in rule:
        delver["max_hearts"] = ctx.roll("hearts", str(rule["roll"]), who=delver["name"],
                                        why=f"level {new} hearts").total
    gained = delver["max_hearts"] - before
    held = None
    if gained > 0 and ctx.core["level_up"]["hearts_gained_heal"]:
        held = healing_banned(ctx, delver["name"])
    if is_alive(delver) and held is None:
        delver["hearts"] = max(0, delver["hearts"] + gained)
    delver["level"] = new
    for skill, bonus in data_items(block.get("skills", {})):
        delver["skills"][skill] = bonus
    for rid, res in data_items(cls["resources"]):
        old_max = delver["resource_max"].get(rid, 0)
        new_max = res["max"][new]
        delver["resource_max"][rid] = new_max
        delver["resources"][rid] = delver["resources"].get(rid, 0) + max(0, new_max - old_max)
    spells_before, names_before = list(delver["spells"]), list(delver["true_names"])
    for aid, ability in data_items(cls["abilities"]):
        mech = ability.get("mechanics", {})
        if ability["level"] == new and mech.get("spells_known") and "spellbook" in mech.get("spells_from", ()):
            # the mage's level 2 (Wand Magic, casting from the book): learns the rest of the list (``all``: every
            # spell it holds, however many), or as many as the count says
            rest = [sid for sid in ctx.rules.spell_by_number("grimoire").values() if sid not in delver["spells"]]
            delver["spells"] = delver["spells"] + rest[: max(0, _known(ctx, mech, "grimoire") - len(delver["spells"]))]
    if "true_names_known" in cls:
        count = cls["true_names_known"]["max"][new]
        delver["true_names"] = _random_true_names(ctx, delver["name"], count, delver["true_names"])
    for cid, _ in data_items(block.get("choices", {})):
        delver["pending_choices"].append({"level": new, "choice": cid})
    out = {"who": delver["name"], "level": new, "max_hearts": delver["max_hearts"], "hearts_gained": gained,
           "choices": [p["choice"] for p in delver["pending_choices"] if p["level"] == new]}
    learned = [sid for sid in delver["spells"] if sid not in spells_before]
    if learned:
        out["spells_learned"] = learned
    named = [n for n in delver["true_names"] if n not in names_before]
    if named:
        out["true_names_learned"] = named
    if held is not None:
        out["hearts_held_back"] = held  # the maximum rose; the hearts it adds are healing, and healing is banned
    return out


class Choose(Action, kind="choose", actor="who"):
    """A player's choice for their delver: which choice, and the option taken."""

    who: str
    choice: str
    option: str


@command(Choose)
def choose(ctx: Ctx, who: str, choice: str, option: str) -> None:
    """Record a player's choice from a level (a specialty, a technique, an oath, an expertise)."""
    d = ctx.delver(who)
    if is_dead(d):
        ctx.refuse(f"{who} is dead and makes no more choices")
    pending = next((p for p in d["pending_choices"] if p["choice"] == choice), None)
    if pending is None:
        waiting = ", ".join(p["choice"] for p in d["pending_choices"]) or "nothing"
        ctx.refuse(f"{who} has no {choice!r} choice to make (waiting: {waiting})")
    spec = find_choice(ctx.rules, d, pending)
    delver = clone(d)
    del delver["pending_choices"][d["pending_choices"].index(pending)]
    if "from_skills" in spec:
        skills = raisable_skills(ctx.rules, d, spec)
        if option not in skills:
            ctx.refuse(f"{who}: {option!r} is not a skill {who} can raise here (one of: {', '.join(skills)})")
        delver["skills"][option] = spec["raise_to"]
        delver["choices"][choice] = option
    else:
        opt_id, opt = _pick_option(ctx, who, choice, spec, option)
        _apply_option(ctx, delver, choice, opt_id, opt)
    ctx.update(["delvers", who], delver)
    ctx.out(who=who, choice=choice, option=option)


class LevelUpEvent(Action, kind="level_up", targets=("who",)):
    """A level the keeper grants without the XP (a milestone)."""

    who: str
    level_ups: list[LevelUp]


@command(LevelUpEvent)
def level_up(ctx: Ctx, who: str) -> None:
    """Grant the next level now (the keeper's call, e.g. a milestone); the cap still holds."""
    d = ctx.delver(who)
    if is_dead(d):
        ctx.refuse(f"{who} is dead and gains no more levels")
    cap = ctx.rules.level_cap
    if d["level"] >= cap:
        ctx.refuse(f"{who} is level {d['level']}: the highest level is {cap}")
    delver = clone(d)
    result = level_up_in(ctx, delver)
    ctx.update(["delvers", who], delver)
    ctx.out(who=who, level_ups=[result])
