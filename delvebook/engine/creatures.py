"""Named creatures outside the party: foes from the bestiary (or typed), NPCs the keeper names, and familiars.

A named creature (``npc``) lives in the state beside the party, outside any fight: it can make checks and
saves, be the target of spells (Truth, Dispel magic, Locate Creature, Inflict wounds) and hold conditions that
run on the game clock, so Truth's 24-hour immunity outlasts the fight it was cast in. An NPC may join a fight
as a foe (``encounter([{"npc": "Grak"}])``) and comes back out of it when the fight ends; a foe still standing
may be kept as an NPC (``end_encounter(keep=["Bandit 1"])``). A familiar is a creature too, with its owner.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..core.declared import Action, Text
from ..core.dice import DiceError, parse
from ..core.model import STATUS_ALIVE, is_dead
from ..core.names import NameIndex, check_name
from ..core.rules.schema import FOE_FIELDS, field_name, foe_problems
from .base import Ctx, command
from .queries import foe_type, foe_types

__all__ = ["creature_from", "npc", "remove_npc", "taken_names", "names_in_play", "players_named", "require_name",
           "Npc", "RemoveNpc"]

_TYPED = ("hearts", "attack_bonus", "damage", "multi_attack", "ranged", "armor", "tags", "skills")


def taken_names(ctx: Ctx) -> set:
    """Every name in play (the party, the fight's foes, the named creatures): a new one must read differently."""
    return set(names_in_play(ctx))


def names_in_play(ctx: Ctx) -> dict[str, str]:
    """Every name in play and what it is: "a delver", "a foe in this fight", "an NPC", "a familiar"."""
    s = ctx.state
    enc = s["encounter"]
    out = {n: "a delver" for n in s["delvers"]}
    out.update((n, "a foe in this fight") for n in (enc["foes"] if enc else ()))
    out.update((n, "a familiar" if c.get("role") == "familiar" else "an NPC") for n, c in s.get("creatures", {}).items())
    return out


def players_named(ctx: Ctx) -> dict[str, str]:
    """Every player at the table (with luck dice, or playing a delver)."""
    out = {p: "a player" for p in ctx.state["luck"]}
    out.update((d["player"], "a player") for d in ctx.state["delvers"].values() if d.get("player"))
    return out


def require_name(ctx: Ctx, name: Any, what: str, taken) -> None:
    """Refuse a new name that ``names.check_name`` refuses beside ``taken`` (a name that draws nothing in places,
    turns the text around, or reads the same as one taken): the one check of every command that makes a name."""
    problem = check_name(name, taken, what)
    if problem is not None:
        ctx.refuse(problem)


def creature_from(ctx: Ctx, name: str | None, spec: Mapping, taken, what: str = "a creature's name",
                  numbered: dict | None = None) -> dict:
    """A creature's sheet: from the bestiary (``foe``: an id, with any of its numbers changed) or typed
    (``hearts`` at least, and optionally attack_bonus, damage, multi_attack, ranged, armor {av, dv}, tags,
    skills {skill: proficient|expert}). Named ``name``, or the bestiary name numbered (Goblin 1, Goblin 2: the
    first number whose name reads differently from every name ``taken``: names, or a ``names.NameIndex``);
    ``numbered`` ({name: the number last given}) lets a caller naming many foes in turn start each search where the
    last one ended (every lower number is taken already), so naming n foes is linear."""
    if not isinstance(taken, NameIndex):
        taken = NameIndex(taken)
    kind = spec.get("foe")
    if kind is not None:
        found = foe_type(ctx.state, ctx.rules, kind)
        if found is None:
            types = foe_types(ctx.state, ctx.rules)
            known = ", ".join(types) if len(types) <= 40 else f"{len(types):,} foe types"
            ctx.refuse(f"there is no {kind!r} in the bestiary (known: {known})")
        b = dict(found)
    elif "hearts" in spec:
        b = {"name": name or "Creature", "hearts": spec["hearts"], "attack_bonus": 0, "damage": "d6",
             "multi_attack": 1, "ranged": False, "armor": None, "tags": []}
        kind = "npc"
    else:
        ctx.refuse("a creature comes from the bestiary (foe='bandit') or is typed with its hearts (hearts=6)")
    typed = [key for key in _TYPED if spec.get(key) is not None]
    for key in typed:
        b[key] = spec[key]
    if typed:  # what is typed meets the bestiary's own schema, limits and all
        checked = {k: v for k, v in b.items() if k in FOE_FIELDS and v is not None}
        problems = foe_problems({**checked, "name": "Creature"})  # (its name is checked as a name below)
        if problems:
            ctx.refuse(f"{field_name(problems[0].path)}: {problems[0].reason}")
    hearts = b["hearts"]
    if not (isinstance(hearts, int) and not isinstance(hearts, bool) and hearts >= 1):
        ctx.refuse(f"a creature has 1 heart or more, not {hearts!r}")
    for key in ("attack_bonus", "damage"):
        try:
            parse(str(b[key]))
        except DiceError as err:
            ctx.refuse(f"{key}: {err}")
    tags = b.get("tags") or []
    if not (isinstance(tags, (list, tuple)) and all(isinstance(t, str) for t in tags)):
        ctx.refuse(f"tags are a list of words (undead, evil, ...), not {tags!r}")
    skills = dict(spec.get("skills") or {})
    for sid, level in skills.items():
        if level not in ("proficient", "expert"):
            ctx.refuse(f"a creature's skill is proficient or expert, not {level!r} ({sid})")
    if name is None:
        k = numbered.get(b["name"], 0) + 1 if numbered is not None else 1
        while taken.find(f"{b['name']} {k}") is not None:
            k += 1
        if numbered is not None:
            numbered[b["name"]] = k
        name = f"{b['name']} {k}"
    if not isinstance(name, str) or not name.strip():
        ctx.refuse("a creature needs a name")
    if name in taken:
        ctx.refuse(f"{name!r} is already a name in play")
    require_name(ctx, name, what, taken)
    armor = []
    if b.get("armor"):
        av, dv = b["armor"].get("av"), b["armor"].get("dv")
        if not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in (av, dv)):
            ctx.refuse(f"a creature's armor is {{av: N, dv: N}}, not {b['armor']!r}")
        armor.append({"item": "natural", "name": "armor", "av": av, "dv": dv, "dv_max": dv, "shield": False,
                      "bonus_av": 0})
    sheet = {"name": name, "kind": kind, "hearts": hearts, "max_hearts": hearts, "status": STATUS_ALIVE,
             "attack_bonus": str(b["attack_bonus"]), "damage": str(b["damage"]),
             # optional in a bestiary entry: absent means one plain melee attack
             "multi_attack": int(b.get("multi_attack") or 1), "ranged": bool(b.get("ranged")),
             "armor": armor, "tags": list(tags), "skills": skills}
    if b.get("counters") is False:  # a foe type that never hits back (a wisp, a swarm)
        sheet["counters"] = False
    return sheet


class Npc(Action, kind="npc", targets=("name",)):
    """A creature the keeper names outside any fight: its kind (a bestiary id, or typed), hearts and the keeper's
    note."""

    name: str
    foe: str | None
    hearts: int
    note: Text | None


@command(Npc)
def npc(ctx: Ctx, name: str, foe: str | None = None, note: str | None = None, **typed: Any) -> None:
    """The keeper names a creature outside any fight (a prisoner, a guide, a rival): from the bestiary
    (``foe="bandit"``) or typed (``hearts=6, tags=["humanoid"], skills={"insight": "proficient"}``). It can be
    checked, saved and targeted by spells, and its conditions run on the game clock."""
    unknown = sorted(k for k in typed if k not in _TYPED)
    if unknown:
        ctx.refuse(f"npc takes no {', '.join(map(repr, unknown))} (it takes: foe, note, {', '.join(_TYPED)})")
    c = creature_from(ctx, name, {"foe": foe, **typed}, names_in_play(ctx), "an NPC's name")
    c["role"] = "npc"
    if note:
        c["note"] = str(note)
    if "creatures" not in ctx.state:
        ctx.set(["creatures"], {})
    ctx.set(["creatures", name], c)
    ctx.out(name=name, foe=c["kind"], hearts=c["hearts"], note=note)


class RemoveNpc(Action, kind="remove_npc", targets=("name",)):
    """An NPC leaves the story, alive or dead."""

    name: str
    dead: bool


@command(RemoveNpc)
def remove_npc(ctx: Ctx, name: str) -> None:
    """An NPC leaves the story (gone, or never to be met again); its conditions go with it."""
    c = ctx.state.get("creatures", {}).get(name)
    if c is None or c.get("role") == "familiar":
        known = ", ".join(n for n, x in ctx.state.get("creatures", {}).items() if x.get("role") != "familiar")
        ctx.refuse(f"there is no NPC named {name!r} (NPCs: {known or 'none'})")
    ctx.set(["creatures"], {n: x for n, x in ctx.state["creatures"].items() if n != name})
    ctx.end_conditions(lambda cond: cond["who"] != name, f"{name} left")
    ctx.out(name=name, dead=is_dead(c))
