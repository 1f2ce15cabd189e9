"""What every class's abilities and spells share: options, having an ability, paying its cost, healing,
damage, saves, spell attacks, attacks made as part of an ability, and the effect of a spell.

How delvebook reads the text where it is silent (each is said again where it is played):
- Attack abilities (Volley, the dual-wield multi-attacks, Steady volley, Ambush) make the attack at once.
- Spell attacks (Firebolt, Guiding Bolt, Light's blinding touch) roll D20 + Magic against the target's D20;
  a tie lands (both sides hit where possible; a spell gives nothing to counter, so the keeper plays any
  counter by hand). Armor reduces every spell's damage, each Magic Missile dart being its own hit.
- Saves (Inflict wounds, Truth) are the target's D20 (+ its blessing die) meeting or beating the spell's
  save target from the rules unless the keeper names one (``save_target=``); a halved damage rounds down.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from ...core.declared import Chance, Record
from ...core.dice import parse
from ...core.distribution import odds
from ...core.model import STATUS_DYING, format_purse, is_dying
from ...core.records import Chances, Damage, Healing, Result
from .. import combat, effects
from ..base import Ctx, data_items
from ..effects import Input
from ..queries import ability_refusal, attack_result, plan_spell_attack, save_roll, spell_spec

__all__ = ["Options", "TARGET", "ATTACK_INPUTS", "ATTACK_OPTIONS", "SPELL_ATTACK_OPTIONS", "find_ability", "require_ability",
           "pay", "cost_paid", "in_fight", "until_next_turn", "end_kind", "heal_with", "save_target", "save",
           "spell_attack", "damage_with", "weapon_for", "attack_now", "dual_wield", "use_by_mechanics",
           "not_used_alone", "begin_cast", "spell_effect", "check_names_and_cost", "cast_with", "WRITE_ON",
           "written_item", "Heals", "SpellAttack", "SpellHit", "SaveRoll", "Saved"]


class Heals(Record):
    """What an ability or a spell that heals records: each healing."""

    healing: list[Healing]


class SpellAttack(Record):
    """A spell attack (``spell_attack``): D20 + Magic at ``target`` against its D20, how it went (``lands`` on a tie
    too), with advantage or disadvantage or max damage, and the exact odds."""

    target: str
    attack_expr: str
    attack_total: int
    resist_expr: str
    resist_total: int
    result: Result
    lands: bool
    advantage: bool
    disadvantage: bool = False
    max_damage: bool = False
    chance: Chances


class SpellHit(Record):
    """What a spell attack records: the attack, and the damage of a hit."""

    spell_attack: SpellAttack
    damage: list[Damage]


class SaveRoll(Record):
    """A save against a spell: who, the roll and its total against the number, whether it held, the chance."""

    who: str
    expr: str
    total: int
    target: int
    success: bool
    chance: Chance


class Saved(Record):
    """What a spell a save meets records: the save, and the damage it halved."""

    save: SaveRoll
    damage: list[Damage] = ()


ATTACK_OPTIONS = tuple(w for w in combat.ATTACK_WORDS if w != "multi") + combat.CLASS_OPTIONS + ("weapon",)
"""The options an ability that makes an attack passes on to it: what the attack command takes (the ability sets
the number of attacks), and the weapon."""

SPELL_ATTACK_OPTIONS = ("advantage", "bonus", "target_bonus", "focus")
"""The options a spell attack takes (Focus: a Magic roll is a roll using a skill)."""

TARGET = Input("target", "creature", False, "who it is used on (the delver itself if none)")

WRITE_ON = {"scroll": ("scroll", "Scroll of {name}"), "book": ("spellbook", "Book of {name}")}
"""What a spell is written on (a namer's signature spell, a spell a mage copies out): the gear id, the item's name."""


def written_item(onto: str, name: str, spell: str, words: Mapping | None = None, note: str | None = None) -> dict:
    """A new scroll or book (``onto``) with ``spell`` written in it, under ``name``; ``words``: the spell's own
    words where the rules do not hold it (a namer's), ``note``: what the keeper's words add (a signature's)."""
    item_id, item_name = WRITE_ON[onto]
    item = {"item": item_id, "name": item_name.format(name=name), "count": 1, "spells": [spell]}
    if words is not None:
        item["written"] = {spell: dict(words)}
    if note:
        item["note"] = note
    return item


class Options(dict):
    """The options a command was given; whatever no rule read is refused as a likely typo."""

    def take(self, key: str, default: Any = None) -> Any:
        return self.pop(key, default)

    def done(self, ctx: Ctx, what: str) -> None:
        if self:
            ctx.refuse(f"{what} takes no option {', '.join(map(repr, sorted(self)))}")


# ---------------------------------------------------------------- having and paying for an ability

def find_ability(ctx: Ctx, who: str, d: Mapping, ability: str) -> tuple[str, Mapping]:
    """An ability of the delver's class by id or by name."""
    abilities = ctx.class_abilities(d)
    if ability in abilities:
        return ability, abilities[ability]
    wanted = str(ability).strip().lower()
    for aid, a in abilities.items():
        if aid == wanted.replace(" ", "_") or a["name"].lower() == wanted:
            return aid, a
    names = ", ".join(f"{a['name']} ({aid})" for aid, a in abilities.items()) or "none"
    ctx.refuse(f"{who} ({d['class_name']}) has no ability {ability!r} (abilities: {names})")


def require_ability(ctx: Ctx, who: str, d: Mapping, aid: str, a: Mapping) -> None:
    """The delver has the ability now: its level, and the specialty or technique it comes with."""
    why = ability_refusal(ctx.rules, who, d, aid, a)
    if why:
        ctx.refuse(why)


def pay(ctx: Ctx, who: str, cost: Mapping, what: str, times: int = 1) -> dict:
    """Pay an ability's cost: a resource (grit, blessings, ...), hearts, or coins from the purse. Hearts
    sacrificed below 1 are harm like any other: a death save is due (``core.death_save.after: any_harm``)."""
    paid = {}
    units = dict(data_items(ctx.core["currency"]["units"]))
    for res, n in data_items(cost):
        n = int(n) * times
        if n == 0:
            continue
        d = ctx.delver(who)
        if res == "hearts":
            if d["hearts"] < n:
                ctx.refuse(f"{who} has {d['hearts']} hearts; {what} needs {n}")
            ctx.set(["delvers", who, "hearts"], d["hearts"] - n)
            if d["hearts"] < ctx.core["death_save"]["retrigger_below"] \
                    and ctx.core["death_save"]["after"] == "any_harm":
                ctx.set(["delvers", who, "status"], STATUS_DYING)
                ctx.out(death_save_due=who)
        elif res in units:
            talons = n * units[res]["talons"]
            if d["purse"] < talons:
                ctx.refuse(f"{who} has {format_purse(d['purse'], units)}; {what} needs {n}{units[res]['symbol']}")
            ctx.set(["delvers", who, "purse"], d["purse"] - talons)
        else:
            ctx.spend(who, res, n, what)
        paid[res] = n
    return paid


def cost_paid(ctx: Ctx, who: str, a: Mapping, times: int = 1) -> dict:
    """Pay ability ``a``'s cost (``times`` over, for a cost per heart); what to record."""
    return {"paid": pay(ctx, who, a["cost"], a["name"], times)}


# ---------------------------------------------------------------- time, conditions, the living

def in_fight(ctx: Ctx) -> bool:
    return ctx.state["encounter"] is not None


def until_next_turn(ctx: Ctx, who: str) -> dict:
    """'This turn' / 'until your next turn': the start of ``who``'s next turn in a fight, else a round."""
    return {"ends_on": f"turn:{who}"} if in_fight(ctx) else {"duration": "round"}


def end_kind(ctx: Ctx, who: str, kind: str, why: str, source: str | None = None) -> list:
    """End ``who``'s conditions of ``kind`` (from ``source``, if given)."""
    return ctx.end_conditions(lambda c: not (c["who"] == who and c["kind"] == kind
                                             and (source is None or c["source"] == source)), why)


def living(ctx: Ctx, name: str, doing: str) -> tuple[str, dict]:
    return ctx.require_living(name, doing)


# ---------------------------------------------------------------- healing, damage, saves, spell attacks

def heal_with(ctx: Ctx, who: str, target: str, expr: str, what: str, *, above_max: bool = False) -> dict:
    """``who`` heals ``target`` by a roll of ``expr``."""
    _, t = ctx.require_living(target, "be healed")
    if is_dying(t) and not ctx.core["death_save"]["heal_dying"]:  # said before any die is rolled
        ctx.refuse(f"{target} is dying and must make a death save before being healed")
    r = ctx.roll("heal", expr, who=who, why=f"{what} on {target}")
    return combat.heal(ctx, target, r.total, what, by=who, above_max=above_max)


def save_target(ctx: Ctx, spell: Mapping, opts: Options) -> int:
    """The number a save against ``spell`` must meet or beat: the keeper's, else the rules'."""
    given = opts.take("save_target")
    if given is None:
        return int(spell["save"]["target"])
    if not isinstance(given, int) or isinstance(given, bool):
        ctx.refuse(f"a save target is a whole number, not {given!r}")
    return given


def save(ctx: Ctx, target: str, t: dict, number: int, why: str) -> dict:
    """``target`` saves against a spell: the save any check with ``save=True`` rolls, meeting or beating ``number``."""
    expr = save_roll(ctx, target, t).expr
    r = ctx.roll("save", expr, who=target, why=why)
    return {"who": target, "expr": expr, "total": r.total, "target": number, "success": r.total >= number,
            "chance": str(odds(expr, target=number))}


def spell_attack(ctx: Ctx, who: str, c: dict, target: str, what: str, opts: Options, *,
                 ranged: bool = True) -> dict:
    """D20 + Magic (and any blessing die, Focus) against the target's D20; a tie lands. What gives attack rolls
    advantage or max damage gives it to these too (a mark, Charge!, and Fire on a ranged one): ``max_damage``."""
    t_side, t = ctx.require_living(target, "be attacked")
    if target == who:
        ctx.refuse(f"{who} cannot aim {what} at itself")
    asked = {k: opts.take(k) for k in SPELL_ATTACK_OPTIONS if k in opts}
    plan = plan_spell_attack(ctx, who, c, target, t, asked, ranged=ranged)
    for spend in plan.spends:
        spend(ctx)
    r = ctx.roll("attack", plan.expr, who=who, why=f"{what} at {target}")
    res = ctx.roll("resist", plan.resist, who=target, why=f"resist {who}'s {what}")
    result = attack_result(ctx.core, r.total, res.total)  # a tie: both sides hit (the spell lands)
    chance = odds(plan.expr, vs=plan.resist)
    out = {"target": target, "attack_expr": plan.expr, "attack_total": r.total, "resist_expr": plan.resist,
           "resist_total": res.total, "result": result, "lands": result != "miss", "advantage": plan.advantage,
           "chance": {"win": str(chance.win), "tie": str(chance.tie), "lose": str(chance.lose)}}
    if plan.max_damage:
        out["max_damage"] = True
    if plan.disadvantage:
        out["disadvantage"] = True
    return out


def damage_with(ctx: Ctx, who: str, target: str, expr: str, what: str, *, halve: bool = False,
                armor: bool | None = None, max_damage: bool = False, attack: bool = False) -> dict:
    """``who``'s ``what`` deals a roll of ``expr`` (its maximum, unrolled, with ``max_damage``; halved on a save)
    to ``target``; armor meets it as the rules say of spells (``core.spell_damage.armor``) unless told."""
    if armor is None:
        armor = bool(ctx.core["spell_damage"]["armor"])
    rolled = parse(expr).max if max_damage else ctx.roll("damage", expr, who=who, why=f"{what} on {target}").total
    amount = rolled // 2 if halve else rolled
    d = combat.deal_damage(ctx, target, amount, what, by=who, armor=armor, attack=attack)
    d.update(expr=expr, rolled=rolled, halved=halve, max_damage=max_damage)
    return d


# ---------------------------------------------------------------- attacks made by an ability

def weapon_for(ctx: Ctx, who: str, d: Mapping, skill: str, what: str, need: int = 1) -> int | str:
    """The delver's weapon for a weapon skill (an index into its weapons; 'unarmed' for fists)."""
    if skill == "unarmed":
        return "unarmed"
    found = [i for i, w in enumerate(d["weapons"]) if w.get("skill") == skill]
    if len(found) < need:
        kind = {"bows": "bow", "daggers": "dagger", "swords": "sword", "crossbows": "crossbow"}.get(skill, skill)
        have = ", ".join(w["name"] for w in d["weapons"]) or "none"
        ctx.refuse(f"{what} needs {'two ' + kind + 's' if need > 1 else 'a ' + kind}; {who} carries: {have}")
    return found[0]


def attack_now(ctx: Ctx, who: str, target: str | None, weapon: Any, multi: int, opts: Options,
               what: str, **fixed: Any) -> dict:
    """The attack an ability makes at once (the ability's deed: its action is the ability's), with the attack
    options the ability was given."""
    if target is None:
        ctx.refuse(f"{what} is an attack: name its target")
    args = {k: opts.take(k) for k in ATTACK_OPTIONS if k in opts}
    if args.get("weapon") is not None:
        weapon = args.pop("weapon")
    args.pop("weapon", None)
    args.update(fixed)
    combat.strike(ctx, attacker=who, target=target, weapon=weapon, multi=multi, **args)
    return {}


ATTACK_INPUTS = (Input("target", "creature", True, "who is attacked"),)


def dual_wield(ctx: Ctx, who, d, aid, a, target, opts) -> dict:
    """Dual wielding two weapons of the ability's kind (daggers, swords, fists): a multi-attack(2), made now."""
    mech = a["mechanics"]
    weapon = weapon_for(ctx, who, d, mech["weapon"], a["name"], need=2)
    out = cost_paid(ctx, who, a)
    attack_now(ctx, who, target, weapon, int(mech["multi_attack"]), opts, a["name"])
    return out


# ---------------------------------------------------------------- use, when no class module plays it

def use_by_mechanics(ctx: Ctx, who, d, aid, a, target, opts) -> dict:
    """An ability a campaign added: pay it, and play what its mechanics say (heal, next attack), or record it."""
    out = cost_paid(ctx, who, a)
    mech = a.get("mechanics", {})
    if mech.get("applies_to") == "next_attack":
        data = {k: mech[k] for k in ("advantage", "max_damage", "multi_attack") if k in mech}
        ctx.add_condition("next_attack", who, who, ends_on="rest", ability=aid, **data)
    elif mech.get("heal"):
        out["healing"] = [heal_with(ctx, who, target or who, str(mech["heal"]), a["name"])]
    out["effect"] = a["effect"]
    return out


def not_used_alone(message: str) -> Callable:
    """An ability that is not used by itself (a smite goes with an attack)."""
    def handler(ctx, who, d, aid, a, target, opts):
        ctx.refuse(f"{a['name']}: {message}")
    return handler


# ---------------------------------------------------------------- casting

def begin_cast(ctx: Ctx, who: str, spell_name: str) -> None:
    """Casting ends what casting ends (Invisibility, a hidden rogue's cover)."""
    ctx.end_on_action(who, "cast")
    ctx.out(spell_name=spell_name)


def spell_effect(ctx: Ctx, who: str, d: dict, spell: str, target, opts: Options, spec: Mapping | None = None) -> dict:
    """What a spell does, whoever casts it and however it was paid for; a campaign's own spell (or one written
    by a namer: ``spec``, its words) deals its damage or heals its healing if it has any, and is recorded for the
    keeper."""
    s = spec or spell_spec(ctx.rules, spell, d) or ctx.rules.spell(spell)
    handler = effects.SPELLS.get(spell) if spell in ctx.rules.spells else None
    if handler is not None:
        return handler.fn(ctx, who, d, spell, s, target, opts)
    out = {"effect": s["effect"]}
    if s.get("damage") is not None and target is not None:
        out["damage"] = [damage_with(ctx, who, target, str(s["damage"]), s["name"])]
    elif s.get("heal") is not None:
        out["healing"] = [heal_with(ctx, who, target or who, str(s["heal"]), s["name"],
                                    above_max=bool(s.get("heal_above_max")))]
    return out


def check_names_and_cost(ctx: Ctx, who: str, d: dict, names, cost) -> tuple[list, int]:
    """The true names a spell uses (the namer must know each) and the cost the keeper set (a whole number)."""
    if not names or not isinstance(names, (list, tuple)):
        ctx.refuse("naming magic uses one or more true names (names=[...])")
    known = {n.lower(): n for n in d["true_names"]}
    unknown = [n for n in names if str(n).lower() not in known]
    if unknown:
        ctx.refuse(f"{who} does not know the true name{'s' if len(unknown) > 1 else ''} "
                   f"{', '.join(map(str, unknown))} (known: {', '.join(d['true_names'])})")
    if not isinstance(cost, int) or isinstance(cost, bool) or cost < 0:
        ctx.refuse(f"the keeper sets the spell's soul point cost: a whole number (cost=3), not {cost!r}")
    return [known[str(n).lower()] for n in names], cost


def cast_with(ctx: Ctx, who: str, d: dict, spell: str | None, target, via, opts: Options) -> dict:
    """Cast by the delver's way of casting: the one ``via`` names, else its class's first (a way that comes
    with a specialty or technique counts once it is chosen)."""
    for way in effects.CASTINGS.values():
        if via is not None and via in way.forced_by:
            return way.fn(ctx, who, d, spell, target, via, opts)
    words = [w for way in effects.CASTINGS.values() for w in way.via + way.forced_by]
    if via is not None and via not in words:
        ctx.refuse(f"a spell is cast via {', '.join(repr(w) for w in words)} (or with no via: the caster's own "
                   f"way), not via {via!r}")
    for aid, a in ctx.class_abilities(d).items():
        way = effects.CASTINGS.get(aid)
        if way is None:
            continue
        req = a.get("requires")
        if req and d["choices"].get(req["choice"]) != req["option"]:
            continue
        return way.fn(ctx, who, d, spell, target, via, opts)
    ctx.refuse(f"{who} ({d['class_name']}) casts no spells")

