"""Class abilities (``use``) and spells (``cast``): each with its cost, its limits and its effect.

``use(who, ability, target=None, **options)`` plays any ability of the delver's class by id (or name);
``cast(who, spell, target=None, via=None, **options)`` casts a mage's grimoire spell (from the book, or
``via="wand"``), a cleric's divine spell, a bard's chosen spell, a Blood Magic sword's traced spell
(``via="sword"``) or a namer's naming magic (``cast(who, "naming", names=[...], description=..., cost=N)``).

How delvebook reads the text where it is silent (each is said again where it is played):
- Dodge is declared before the damage lands: ``use(who, "dodge")`` leaves a ``dodging`` condition that the
  next damage reaching the delver spends, or ``attack(..., dodge=True)`` / ``damage(..., dodge=True)`` spends
  the grit when a hit lands. The D6 comes off before armor; damage dodged to nothing does not touch armor.
- Attack abilities (Volley, the dual-wield multi-attacks, Steady volley, Ambush) make the attack at once.
- Spell attacks (Firebolt, Guiding Bolt, Light's blinding touch) roll D20 + Magic against the target's D20;
  a tie lands (both sides hit where possible; a spell gives nothing to counter, so the keeper plays any
  counter by hand). Armor reduces every spell's damage, each Magic Missile dart being its own hit.
- Firebolt's D6 of 3+ keeps the spell in the book; cast from a wand, a sword or a bard's song there is no
  book to keep it in, so no keep roll is made.
- Saves (Inflict wounds, Truth) are the target's D20 (+ its blessing die) meeting or beating the spell's
  save target from the rules (11, assumed) unless the keeper names one (``save_target=``); a halved damage
  rounds down.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from ..distribution import odds
from ..model import STATUS_ALIVE, STATUS_DEAD, STATUS_DYING, format_purse
from . import combat
from .base import Ctx, command, data_items
from .checks import check as check_cmd, d20_expr, resolve_death_save, take_focus

__all__ = ["use", "cast", "dodge_reduction", "take_sentry_attack", "charge_blood_sword", "INSTRUMENTS"]

INSTRUMENTS = ("instrument", "lute", "flute", "fiddle", "harp", "drum", "horn", "pipes", "lyre", "bagpipes")
_ATTACK_OPTIONS = ("advantage", "bonus", "target_bonus", "counter", "extra_damage", "surprised", "dodge",
                   "focus", "max_damage", "weapon")
_UNHOLY = ("demon", "devil", "undead", "fae", "evil")


# ---------------------------------------------------------------- helpers

class _Options(dict):
    """The options a command was given; whatever no rule read is refused as a likely typo."""

    def take(self, key: str, default: Any = None) -> Any:
        return self.pop(key, default)

    def done(self, ctx: Ctx, what: str) -> None:
        if self:
            ctx.refuse(f"{what} takes no option {', '.join(map(repr, sorted(self)))}")


def _class_abilities(ctx: Ctx, d: Mapping) -> dict:
    return dict(data_items(ctx.rules.class_(d["class_id"]).get("abilities", {})))


def _find_ability(ctx: Ctx, who: str, d: Mapping, ability: str) -> tuple[str, Mapping]:
    abilities = _class_abilities(ctx, d)
    if ability in abilities:
        return ability, abilities[ability]
    wanted = str(ability).strip().lower()
    for aid, a in abilities.items():
        if aid == wanted.replace(" ", "_") or str(a.get("name", "")).lower() == wanted:
            return aid, a
    names = ", ".join(f"{a['name']} ({aid})" for aid, a in abilities.items()) or "none"
    ctx.refuse(f"{who} ({d['class_name']}) has no ability {ability!r} (abilities: {names})")


def _option_name(ctx: Ctx, class_id: str, choice: str, option: str | None) -> str:
    """The display name of a level choice's option ('bows' -> 'Bows'), nested choices included."""
    def search(choices: Mapping) -> str | None:
        for cid, spec in data_items(choices):
            for oid, opt in data_items(spec.get("options", {})):
                if cid == choice and oid == option:
                    return opt.get("name", oid)
                found = search(opt.get("choices", {}))
                if found:
                    return found
        return None
    for lv in range(1, ctx.rules.level_cap + 1):
        found = search(ctx.rules.level(class_id, lv).get("choices", {}))
        if found:
            return found
    return str(option)


def _require_ability(ctx: Ctx, who: str, d: Mapping, aid: str, a: Mapping) -> None:
    """The delver has the ability: its level, and the specialty or technique it comes with."""
    if aid in d.get("abilities", ()):
        return
    level = a.get("level", 1)
    if d["level"] < level:
        ctx.refuse(f"{who} is level {d['level']}; {a['name']} comes at level {level}")
    req = a.get("requires")
    if req and d["choices"].get(req["choice"]) != req["option"]:
        needs = _option_name(ctx, d["class_id"], req["choice"], req["option"])
        chose = d["choices"].get(req["choice"])
        said = (f"{who} chose {_option_name(ctx, d['class_id'], req['choice'], chose)}" if chose
                else f"{who} has not chosen a {req['choice'].replace('_', ' ')} yet")
        ctx.refuse(f"{a['name']} comes with the {needs} {req['choice'].replace('_', ' ')}; {said}")


def _pay(ctx: Ctx, who: str, cost: Mapping, what: str, times: int = 1) -> dict:
    """Pay an ability's cost: a resource (grit, blessings, ...), hearts, or coins from the purse."""
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
        elif res in units:
            talons = n * units[res]["talons"]
            if d["purse"] < talons:
                ctx.refuse(f"{who} has {format_purse(d['purse'])}; {what} needs {format_purse(talons)}")
            ctx.set(["delvers", who, "purse"], d["purse"] - talons)
        else:
            ctx.spend(who, res, n, what)
        paid[res] = n
    return paid


def _in_fight(ctx: Ctx) -> bool:
    return ctx.state["encounter"] is not None


def _until_next_turn(ctx: Ctx, who: str) -> dict:
    """'This turn' / 'until your next turn': the start of ``who``'s next turn in a fight, else a round."""
    return {"ends_on": f"turn:{who}"} if _in_fight(ctx) else {"duration": "round"}


def _end_kind(ctx: Ctx, who: str, kind: str, why: str, source: str | None = None) -> list:
    return ctx.end_conditions(lambda c: not (c["who"] == who and c["kind"] == kind
                                             and (source is None or c["source"] == source)), why)


def _living(ctx: Ctx, name: str, doing: str) -> tuple[str, dict]:
    side, c = ctx.combatant(name)
    if c["status"] == STATUS_DEAD:
        ctx.refuse(f"{name} is dead and cannot {doing}")
    return side, c


def _heal(ctx: Ctx, who: str, target: str, expr: str, what: str, *, above_max: bool = False) -> dict:
    _, t = _living(ctx, target, "be healed")
    if t["status"] == STATUS_DYING:
        ctx.refuse(f"{target} is dying and must make a death save before being healed")
    r = ctx.roll("heal", expr, who=who, why=f"{what} on {target}")
    return combat.heal(ctx, target, r.total, f"{who} ({what})", above_max=above_max)


def _save_target(ctx: Ctx, spell: Mapping, opts: _Options) -> int:
    given = opts.take("save_target")
    if given is None:
        return int(spell.get("save", {}).get("target", 11))
    if not isinstance(given, int) or isinstance(given, bool):
        ctx.refuse(f"a save target is a whole number, not {given!r}")
    return given


def _save(ctx: Ctx, target: str, t: dict, number: int, why: str) -> dict:
    expr, said = d20_expr(ctx, target, t, None)
    r = ctx.roll("save", expr, who=target, why=why)
    return {"who": target, "expr": expr, "total": r.total, "target": number, "success": r.total >= number,
            "chance": str(odds(expr, target=number))}


def _spell_attack(ctx: Ctx, who: str, c: dict, target: str, what: str, opts: _Options) -> dict:
    """D20 + Magic (and any blessing die, Focus) against the target's D20; a tie lands."""
    t_side, t = _living(ctx, target, "be attacked")
    if target == who:
        ctx.refuse(f"{who} cannot aim {what} at itself")
    advantage = bool(opts.take("advantage", False)) or any(
        cond["data"].get("advantage_against") for cond in ctx.conditions(target, "marked"))
    skill = "magic" if "magic" in c.get("skills", {}) else None
    focus = take_focus(ctx, who, c, skill, bool(opts.take("focus", False)))
    expr, _ = d20_expr(ctx, who, c, skill, advantage=advantage, bonus=opts.take("bonus"), focus=focus)
    r = ctx.roll("attack", expr, who=who, why=f"{what} at {target}")
    rexpr, _ = d20_expr(ctx, target, t, None, bonus=opts.take("target_bonus"))
    res = ctx.roll("resist", rexpr, who=target, why=f"resist {who}'s {what}")
    result = "hit" if r.total > res.total else "tie" if r.total == res.total else "miss"
    chance = odds(expr, vs=rexpr)
    return {"target": target, "attack_expr": expr, "attack_total": r.total, "resist_expr": rexpr,
            "resist_total": res.total, "result": result, "lands": result != "miss", "advantage": advantage,
            "chance": {"win": str(chance.win), "tie": str(chance.tie), "lose": str(chance.lose)}}


def _damage(ctx: Ctx, who: str, target: str, expr: str, what: str, *, halve: bool = False,
            armor: bool = True) -> dict:
    r = ctx.roll("damage", expr, who=who, why=f"{what} on {target}")
    amount = r.total // 2 if halve else r.total
    d = combat.deal_damage(ctx, target, amount, f"{who} ({what})", armor=armor)
    d.update(expr=expr, rolled=r.total, halved=halve)
    return d


# ---------------------------------------------------------------- hooks the combat rules call

def dodge_reduction(ctx: Ctx, target: str, *, pay: bool) -> int:
    """A rogue's Dodge against damage reaching ``target``: a ``dodging`` condition is spent, or (``pay``)
    the grit is paid now. Returns the D6 rolled (subtracted before armor)."""
    if ctx.state["delvers"].get(target) is None:
        ctx.refuse(f"{target} cannot Dodge: only a delver with Dodge can")
    d = ctx.delver(target)
    abilities = _class_abilities(ctx, d)
    ability = abilities.get("dodge")
    declared = ctx.conditions(target, "dodging")
    if declared:
        first = declared[0]["id"]
        ctx.end_conditions(lambda c: c["id"] != first, f"{target} dodged")
        die = declared[0]["data"].get("die", "d6")
    else:
        if ability is None:
            ctx.refuse(f"{target} ({d['class_name']}) cannot Dodge")
        _require_ability(ctx, target, d, "dodge", ability)
        if d["status"] != STATUS_ALIVE:
            ctx.refuse(f"{target} is {d['status']} and cannot Dodge")
        _pay(ctx, target, ability.get("cost", {}), ability["name"])
        die = str(ability.get("mechanics", {}).get("damage_reduction", "d6"))
    return ctx.roll("dodge", die, who=target, why="Dodge").total


def take_sentry_attack(ctx: Ctx, who: str) -> None:
    """One of the (up to three) attacks a fighter on Sentry makes before its next turn."""
    for i, cond in enumerate(ctx.state["conditions"]):
        if cond["who"] == who and cond["kind"] == "sentry":
            left = cond["data"]["attacks_left"]
            if left < 1:
                break
            ctx.set(["conditions", i, "data", "attacks_left"], left - 1)
            ctx.out(sentry_attacks_left=left - 1)
            return
    ctx.refuse(f"{who} has no Sentry attack left before its next turn")


def _is_sword(w: Mapping) -> bool:
    return w.get("skill") == "swords" or "sword" in str(w.get("name", "")).lower() \
        or "sword" in str(w.get("item", "")).lower()


def charge_blood_sword(ctx: Ctx, who: str, w: Mapping) -> None:
    """A kill with a sword charges a traced Blood Magic spell: one charge, never more."""
    if w.get("item") == "holy_weapon" or not _is_sword(w):
        return
    traced = ctx.conditions(who, "blood_magic_trace")
    if not traced or ctx.conditions(who, "blood_magic_charge"):
        return
    spell = traced[0]["data"]["spell"]
    ctx.add_condition("blood_magic_charge", who, who, ends_on="rest", spell=spell)
    ctx.out(blood_magic_charged=spell)


# ---------------------------------------------------------------- use

_USES: dict[str, Callable] = {}


def _uses(*ids: str):
    def register(fn: Callable) -> Callable:
        for aid in ids:
            _USES[aid] = fn
        return fn
    return register


@command("use")
def use(ctx: Ctx, who: str, ability: str, target: str | None = None, **options: Any) -> None:
    """A class ability: the delver must have it (level, specialty or technique), pays its cost, and it acts."""
    d = ctx.delver(who)
    aid, a = _find_ability(ctx, who, d, ability)
    ctx.require_able(who, f"use {a['name']}")
    _require_ability(ctx, who, d, aid, a)
    opts = _Options(options)
    handler = _USES.get(aid, _use_by_mechanics)
    detail = handler(ctx, who, d, aid, a, target, opts) or {}
    opts.done(ctx, a["name"])
    ctx.out(who=who, ability=aid, ability_name=a["name"], target=target, **detail)


def _cost(ctx: Ctx, who: str, a: Mapping, times: int = 1) -> dict:
    return {"paid": _pay(ctx, who, a.get("cost", {}), a["name"], times)}


def _use_by_mechanics(ctx: Ctx, who, d, aid, a, target, opts) -> dict:
    """An ability a campaign added: pay it, and play what its mechanics say (heal, next attack), or record it."""
    out = _cost(ctx, who, a)
    mech = a.get("mechanics", {})
    if mech.get("applies_to") == "next_attack":
        data = {k: mech[k] for k in ("advantage", "max_damage", "multi_attack") if k in mech}
        ctx.add_condition("next_attack", who, who, ends_on="rest", ability=aid, **data)
    elif mech.get("heal"):
        out["healing"] = [_heal(ctx, who, target or who, str(mech["heal"]), a["name"])]
    out["effect"] = a.get("effect", "")
    return out


def _not_used_alone(message: str) -> Callable:
    def handler(ctx, who, d, aid, a, target, opts):
        ctx.refuse(f"{a['name']}: {message}")
    return handler


_uses("smite")(_not_used_alone("declare it with a melee attack that hits: attack(..., smite=True)"))
_uses("blind_fighting")(_not_used_alone("nothing to spend or roll: attack creatures within 10 ft as usual, "
                                        "even without sight"))


# ---- rogue

@_uses("dodge")
def _use_dodge(ctx, who, d, aid, a, target, opts):
    """Dodge declared before the damage: the next damage reaching the delver loses D6."""
    if ctx.conditions(who, "dodging"):
        ctx.refuse(f"{who} is already dodging the next damage")
    out = _cost(ctx, who, a)
    end = {"ends_on": f"turn:{who}"} if _in_fight(ctx) else {"ends_on": "rest"}
    ctx.add_condition("dodging", who, who, **end, die=str(a.get("mechanics", {}).get("damage_reduction", "d6")))
    return out


@_uses("sprint")
def _use_sprint(ctx, who, d, aid, a, target, opts):
    out = _cost(ctx, who, a)
    mult = a.get("mechanics", {}).get("movement_multiplier", 2)
    ctx.add_condition("sprinting", who, who, **_until_next_turn(ctx, who), movement_multiplier=mult)
    return {**out, "movement_multiplier": mult, "uses_action": False}


@_uses("hide")
def _use_hide(ctx, who, d, aid, a, target, opts):
    """Hide without an action: a Stealth check against a target number, or opposed by who is looking."""
    vs_skill = opts.take("vs_skill", "perception")
    bonus = opts.take("bonus")
    if isinstance(target, bool) or target is None:
        ctx.refuse("Hide is a Stealth check: give a target number (target=12) or who is looking (target='Goblin 1')")
    out = _cost(ctx, who, a)
    if isinstance(target, int):
        check_cmd(ctx, who=who, skill="stealth", target=target, bonus=bonus, why="Hide (Stealth)")
    else:
        check_cmd(ctx, who=who, skill="stealth", vs=target, vs_skill=vs_skill, bonus=bonus, why="Hide (Stealth)")
    hidden = bool(ctx.fields.get("success"))
    if hidden:
        _end_kind(ctx, who, "hidden", "hid again")
        ctx.add_condition("hidden", who, who, ends_when=["attack", "cast"])
    return {**out, "hidden": hidden, "uses_action": False}


@_uses("focus")
def _use_focus(ctx, who, d, aid, a, target, opts):
    """Focus paid now: the next roll using a skill (a check or an attack) adds D6."""
    if ctx.conditions(who, "focus"):
        ctx.refuse(f"{who} is already focused: the next roll using a skill gets the D6")
    out = _cost(ctx, who, a)
    ctx.add_condition("focus", who, who, ends_on="rest", die=str(a.get("mechanics", {}).get("roll_bonus", "d6")))
    return out


def _weapon_of(ctx: Ctx, who: str, d: Mapping, skill: str, what: str, need: int = 1) -> int | str:
    """The delver's weapon for a weapon skill (an index into its weapons; 'unarmed' for fists)."""
    if skill == "unarmed":
        return "unarmed"
    found = [i for i, w in enumerate(d["weapons"]) if w.get("skill") == skill]
    if len(found) < need:
        kind = {"bows": "bow", "daggers": "dagger", "swords": "sword", "crossbows": "crossbow"}.get(skill, skill)
        have = ", ".join(w["name"] for w in d["weapons"]) or "none"
        ctx.refuse(f"{what} needs {'two ' + kind + 's' if need > 1 else 'a ' + kind}; {who} carries: {have}")
    return found[0]


def _attack_now(ctx: Ctx, who: str, target: str | None, weapon: Any, multi: int, opts: _Options,
                what: str, **fixed: Any) -> dict:
    if target is None:
        ctx.refuse(f"{what} is an attack: name its target")
    args = {k: opts.take(k) for k in _ATTACK_OPTIONS if k in opts}
    if args.get("weapon") is not None:
        weapon = args.pop("weapon")
    args.pop("weapon", None)
    args.update(fixed)
    combat.attack(ctx, attacker=who, target=target, weapon=weapon, multi=multi, **args)
    return {}


@_uses("bow_volley")
def _use_volley(ctx, who, d, aid, a, target, opts):
    """1 grit: a multi-attack(2) with a bow, made now."""
    mech = a.get("mechanics", {})
    weapon = _weapon_of(ctx, who, d, mech.get("weapon", "bows"), a["name"])
    out = _cost(ctx, who, a)
    _attack_now(ctx, who, target, weapon, int(mech.get("multi_attack", 2)), opts, a["name"])
    return out


@_uses("dagger_dual_wield", "sword_dual_wield", "fist_dual_wield")
def _use_dual_wield(ctx, who, d, aid, a, target, opts):
    """Dual wielding two weapons of the kind: a multi-attack(2), made now."""
    mech = a.get("mechanics", {})
    weapon = _weapon_of(ctx, who, d, mech.get("weapon"), a["name"], need=2)
    out = _cost(ctx, who, a)
    _attack_now(ctx, who, target, weapon, int(mech.get("multi_attack", 2)), opts, a["name"])
    return out


@_uses("steady_volley")
def _use_steady_volley(ctx, who, d, aid, a, target, opts):
    """A fighter's bow multi-attack(2), only in a turn it does not move."""
    if opts.take("moved", False) or ctx.conditions(who, "sprinting") or ctx.conditions(who, "command_retreat"):
        ctx.refuse(f"{a['name']} is for a turn {who} does not move")
    mech = a.get("mechanics", {})
    weapon = _weapon_of(ctx, who, d, mech.get("weapon", "bows"), a["name"])
    out = _cost(ctx, who, a)
    _attack_now(ctx, who, target, weapon, int(mech.get("multi_attack", 2)), opts, a["name"])
    return out


@_uses("dagger_ambush")
def _use_ambush(ctx, who, d, aid, a, target, opts):
    """A dagger attack on a surprised target, made now, with the extra D6."""
    weapon = _weapon_of(ctx, who, d, a.get("mechanics", {}).get("weapon", "daggers"), a["name"])
    out = _cost(ctx, who, a)
    _attack_now(ctx, who, target, weapon, 1, opts, a["name"], surprised=True)
    return out


@_uses("bard_magic")
def _use_bard_magic(ctx, who, d, aid, a, target, opts):
    """Choose the bard's spell (``choose=``: once, then one change a rest), or cast it for 1 grit."""
    chosen = opts.take("choose")
    if chosen is None:
        spell = opts.take("spell") or d["choices"].get("bard_spell")
        return _cast_bard(ctx, who, d, spell, target, opts)
    grimoire = dict(data_items(ctx.rules.spell_lists["grimoire"]["spells"]))
    if chosen not in grimoire:
        ctx.refuse(f"Bard Magic takes a spell from the mage spell list ({', '.join(grimoire)}), not {chosen!r}")
    before = d["choices"].get("bard_spell")
    if before == chosen:
        ctx.refuse(f"{who}'s bard spell is already {grimoire[chosen]['name']}")
    if before is not None:
        if ctx.conditions(who, "bard_spell_changed"):
            ctx.refuse(f"{who} already changed the bard spell since the last rest (it changes once each rest)")
        ctx.add_condition("bard_spell_changed", who, who, ends_on="rest", was=before)
    ctx.set(["delvers", who, "choices", "bard_spell"], chosen)
    return {"bard_spell": chosen, "was": before}


# ---- fighter

@_uses("ferocious_strike", "double_strike")
def _use_next_attack(ctx, who, d, aid, a, target, opts):
    """Shapes the fighter's next attack (advantage and max damage; or multi-attack 2)."""
    if any(c["data"].get("ability") == aid for c in ctx.conditions(who, "next_attack")):
        ctx.refuse(f"{who}'s next attack already has {a['name']}")
    out = _cost(ctx, who, a)
    mech = a.get("mechanics", {})
    data = {k: mech[k] for k in ("advantage", "max_damage", "multi_attack") if k in mech}
    ctx.add_condition("next_attack", who, who, ends_on="rest", ability=aid, **data)
    return {**out, "next_attack": data}


@_uses("second_wind")
def _use_second_wind(ctx, who, d, aid, a, target, opts):
    if target not in (None, who):
        ctx.refuse(f"{a['name']} heals only {who}")
    out = _cost(ctx, who, a)
    out["healing"] = [_heal(ctx, who, who, str(a.get("mechanics", {}).get("heal", "d6")), a["name"])]
    return out


@_uses("sentry")
def _use_sentry(ctx, who, d, aid, a, target, opts):
    """Uses the action and ends the turn; up to three attacks (attack(..., sentry=True)) before the next turn."""
    enc = ctx.state["encounter"]
    if enc is None or enc["side"] is None:
        ctx.refuse(f"{a['name']} is taken on {who}'s turn in a fight")
    actor = combat.current_actor(ctx.state)
    if actor != who:
        ctx.refuse(f"it is {actor}'s turn, not {who}'s: {a['name']} uses {who}'s action")
    out = _cost(ctx, who, a)
    attacks = int(a.get("mechanics", {}).get("attacks", 3))
    _end_kind(ctx, who, "sentry", "a new watch")
    ctx.add_condition("sentry", who, who, ends_on=f"turn:{who}", attacks_left=attacks)
    detail = {**out, "sentry_attacks": attacks}
    combat.next_turn(ctx)  # Sentry ends the turn
    return detail


_ORDERS = {"command_retreat": "command_retreat", "command_charge": "command_charge",
           "command_fire": "command_fire", "command_hold_the_line": "hold_the_line"}


@_uses(*_ORDERS)
def _use_order(ctx, who, d, aid, a, target, opts):
    """A Commander's order (1 grit): every friendly delver who hears it benefits until the fighter's next turn."""
    hearing = opts.take("hearing")
    party = [n for n in ctx.state["seats"] if ctx.state["delvers"][n]["status"] == STATUS_ALIVE]
    if hearing is not None:
        unknown = [n for n in hearing if n not in party]
        if unknown:
            ctx.refuse(f"{', '.join(unknown)} cannot take an order (the able party: {', '.join(party)})")
        party = [n for n in party if n in hearing]
    out = _cost(ctx, who, a)
    mech = a.get("mechanics", {})
    data = {}
    if "movement_multiplier" in mech:
        data["movement_multiplier"] = mech["movement_multiplier"]
    if mech.get("advantage"):
        data["advantage"] = True
    if mech.get("max_damage"):
        data["max_damage"] = True
    if "av_bonus" in mech:
        data["av"] = mech["av_bonus"]
    kind = _ORDERS[aid]
    for name in party:
        _end_kind(ctx, name, kind, "a new order")
        ctx.add_condition(kind, name, who, **_until_next_turn(ctx, who), **data)
    return {**out, "order": a["name"], "hearing": party}


@_uses("blood_magic_sword")
def _use_blood_sword(ctx, who, d, aid, a, target, opts):
    """Trace a spell on the sword (``trace=``, once each rest), or cast the charged spell."""
    spell = opts.take("trace")
    if spell is None:
        return _cast_sword(ctx, who, d, opts.take("spell"), target, opts)
    if spell not in ctx.rules.spells:
        ctx.refuse(f"there is no spell {spell!r} to trace (spells: {', '.join(ctx.rules.spells)})")
    if ctx.conditions(who, "blood_magic_trace"):
        ctx.refuse(f"{who} already traced a spell on the sword since the last rest")
    if not any(_is_sword(w) for w in d["weapons"]):
        ctx.refuse(f"{who} has no sword to trace a spell on")
    ctx.add_condition("blood_magic_trace", who, who, ends_on="rest", spell=spell)
    return {"traced": spell}


# ---- cleric

@_uses("lay_on_hands")
def _use_lay_on_hands(ctx, who, d, aid, a, target, opts):
    """Touch a creature: one healing point a heart."""
    n = opts.take("hearts")
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        ctx.refuse(f"Lay on Hands heals 1 or more hearts: say how many (hearts=3), not {n!r}")
    target = target or who
    _, t = _living(ctx, target, "be healed")
    if t["status"] == STATUS_DYING:
        ctx.refuse(f"{target} is dying and must make a death save before being healed")
    missing = t["max_hearts"] - t["hearts"]
    if n > missing:
        ctx.refuse(f"{target} is missing {missing} hearts; Lay on Hands cannot heal {n}")
    out = _cost(ctx, who, a, times=n)
    out["healing"] = [combat.heal(ctx, target, n, f"{who} (Lay on Hands)")]
    return out


@_uses("lay_on_hands_revive")
def _use_revive(ctx, who, d, aid, a, target, opts):
    """1 healing point: repeat the death save of a delver who died within the hour."""
    if target is None:
        ctx.refuse("Lay on Hands on the dead: name the delver who died")
    t = ctx.delver(target)
    if t["status"] != STATUS_DEAD:
        ctx.refuse(f"{target} is not dead ({t['status']})")
    within = ctx.rules.duration_seconds(a.get("mechanics", {}).get("within", "hour"))
    died_at = t.get("died_at")
    if died_at is None or ctx.state["clock"] - died_at > within:
        ago = "at an unknown time" if died_at is None else f"{(ctx.state['clock'] - died_at) // 60} minutes ago"
        ctx.refuse(f"{target} died {ago}; Lay on Hands repeats a death save only within {within // 60} minutes")
    out = _cost(ctx, who, a)
    resolve_death_save(ctx, target, t, why=f"death save repeated by {who}'s Lay on Hands")
    if ctx.state["delvers"][target]["status"] == STATUS_DEAD:
        ctx.set(["delvers", target, "died_at"], died_at)  # still dead since then: the hour does not restart
    return {**out, "revived": ctx.state["delvers"][target]["status"] == STATUS_ALIVE}


@_uses("bless")
def _use_bless(ctx, who, d, aid, a, target, opts):
    """A blessing die on all the creature's D20 rolls for a minute; one blessed creature at a time."""
    target = target or who
    _living(ctx, target, "be blessed")
    out = _cost(ctx, who, a)
    ended = ctx.end_conditions(lambda c: not (c["kind"] == "blessed" and c["source"] == who),
                               f"{who} blessed {target}: one creature at a time")
    mech = a.get("mechanics", {})
    ctx.add_condition("blessed", target, who, duration=mech.get("duration", "minute"),
                      die=str(mech.get("blessing_die", "d6")))
    return {**out, "blessing_die": str(mech.get("blessing_die", "d6")),
            "no_longer_blessed": [c["who"] for c in ended if c["who"] != target]}


@_uses("holy_water")
def _use_holy_water(ctx, who, d, aid, a, target, opts):
    """Holy water: 3d6 to the unholy (demon, devil, undead, fae, evil); lifts curses.
    Without a target it is kept as a flask; ``flask=True`` splashes a kept flask instead of a blessing."""
    from_flask = bool(opts.take("flask", False))
    flasks = [i for i, it in enumerate(d["items"]) if it.get("item") == "holy_water" and it.get("count", 0) > 0]
    if from_flask:
        if target is None:
            ctx.refuse("a flask of holy water is splashed on someone: name the target")
        if not flasks:
            ctx.refuse(f"{who} carries no holy water")
        i = flasks[0]
        ctx.set(["delvers", who, "items", i, "count"], d["items"][i]["count"] - 1)
        out = {"paid": {"holy_water": 1}}
    else:
        out = _cost(ctx, who, a)
    if target is None:
        if flasks:
            i = flasks[0]
            ctx.set(["delvers", who, "items", i, "count"], d["items"][i]["count"] + 1)
        else:
            ctx.append(["delvers", who, "items"], {"item": "holy_water", "name": "Holy water", "count": 1})
        return {**out, "made": "holy water"}
    _, t = _living(ctx, target, "be splashed")
    special = a.get("mechanics", {}).get("extra_damage_against", {})
    unholy = set(special.get("tags", _UNHOLY)) & set(t.get("tags", ()))
    if unholy:
        out["damage"] = [_damage(ctx, who, target, str(special.get("dice", "3d6")), "holy water", armor=False)]
    else:
        out["damage"] = []
    out["unholy"] = sorted(unholy)
    lifted = ctx.end_conditions(lambda c: not (c["who"] == target and c["kind"] == "cursed"), "holy water lifts curses")
    out["curses_lifted"] = [c["id"] for c in lifted]
    return out


@_uses("heal_by_touch", "heal_at_range")
def _use_healer(ctx, who, d, aid, a, target, opts):
    """The Healer: a blessing heals 2d6 by touch, or D6 within 60 ft."""
    out = _cost(ctx, who, a)
    out["healing"] = [_heal(ctx, who, target or who, str(a["mechanics"]["heal"]), a["name"])]
    return out


@_uses("holy_weapon")
def _use_holy_weapon(ctx, who, d, aid, a, target, opts):
    """A flying sword for a minute: attack(attacker=cleric, weapon="holy weapon"), +2d6 to hit, 2d6 damage."""
    out = _cost(ctx, who, a)
    _end_kind(ctx, who, "holy_weapon", "a new holy weapon")
    mech = a.get("mechanics", {})
    ctx.add_condition("holy_weapon", who, who, duration=mech.get("duration", "minute"),
                      attack_bonus=str(mech.get("attack_bonus", "2d6")), damage=str(mech.get("damage", "2d6")))
    return out


# ---- spellcasting abilities lead to cast

@_uses("grimoire_magic", "wand_magic", "divine_spellcasting", "naming_magic")
def _use_spellcasting(ctx, who, d, aid, a, target, opts):
    spell = opts.take("spell", "naming" if aid == "naming_magic" else None)
    if spell is None:
        ctx.refuse(f"{a['name']}: name the spell (spell=...)")
    via = "wand" if aid == "wand_magic" else opts.take("via")
    return _cast(ctx, who, d, spell, target, via, opts)


@_uses("signature_spell")
def _use_signature(ctx, who, d, aid, a, target, opts):
    """Record the signature spell: a mage improves a book spell with the keeper; a namer writes one
    spell with a fixed soul point cost."""
    if d.get("signature_spell"):
        ctx.refuse(f"{who} already has a signature spell ({d['signature_spell']['name']})")
    description = opts.take("description")
    if not description:
        ctx.refuse("a signature spell needs the description agreed with the keeper (description=...)")
    if "true_names_known" in ctx.rules.class_(d["class_id"]):
        names, cost = _check_names_and_cost(ctx, who, d, opts.take("names"), opts.take("cost"))
        sig = {"name": opts.take("name") or "signature", "names": names, "description": description,
               "cost": cost, "resource": a.get("variable_cost", {}).get("resource", "soul_points")}
    else:
        spell = opts.take("spell")
        if spell not in d["spells"]:
            ctx.refuse(f"a signature spell improves a spell in {who}'s book ({', '.join(d['spells'])}), "
                       f"not {spell!r}")
        sig = {"name": opts.take("name") or spell, "spell": spell, "description": description}
    ctx.set(["delvers", who, "signature_spell"], sig)
    return {"signature_spell": sig}


@_uses("continued_research")
def _use_research(ctx, who, d, aid, a, target, opts):
    """Copy a spell from a book or scroll for 20 coins of ink; a scroll is destroyed."""
    spell = opts.take("spell")
    source = opts.take("source", "book")
    if source not in ("book", "scroll"):
        ctx.refuse(f"a spell is copied from a book or a scroll, not {source!r}")
    if spell not in ctx.rules.spells:
        ctx.refuse(f"there is no spell {spell!r} in the rules (add a campaign spell first)")
    if spell in d["spells"]:
        ctx.refuse(f"{who}'s book already holds {ctx.rules.spell(spell)['name']}")
    out = _cost(ctx, who, a)
    ctx.append(["delvers", who, "spells"], spell)
    return {**out, "copied": spell, "source": source, "scroll_destroyed": source == "scroll"}


# ---- namer

@_uses("blood_magic")
def _use_namer_blood_magic(ctx, who, d, aid, a, target, opts):
    """Sacrifice 1 heart for D6 soul points (up to the maximum); no healing until a rest."""
    out = _cost(ctx, who, a)
    mech = a.get("mechanics", {})
    gains = {}
    for res, dice in data_items(mech.get("resource_gain", {"soul_points": "d6"})):
        r = ctx.roll(res, str(dice), who=who, why=a["name"])
        have, top = d["resources"].get(res, 0), d["resource_max"].get(res, 0)
        new = min(top, have + r.total)
        ctx.set(["delvers", who, "resources", res], new)
        gains[res] = {"rolled": r.total, "gained": new - have, "now": new}
    for ban in mech.get("bans", ("blood_magic_healing_ban",)):
        if not ctx.conditions(who, ban):
            ctx.add_condition(ban, who, who, ends_on="rest")
    return {**out, "gained": gains}


# ---------------------------------------------------------------- cast

@command("cast")
def cast(ctx: Ctx, who: str, spell: str, target: str | None = None, via: str | None = None,
         **options: Any) -> None:
    """A spell: a mage's from the book or wand, a cleric's divine spell, a bard's song, a Blood Magic
    sword's charge (``via="sword"``), or a namer's naming magic."""
    d = ctx.delver(who)
    ctx.require_able(who, "cast a spell")
    opts = _Options(options)
    detail = _cast(ctx, who, d, spell, target, via, opts)
    opts.done(ctx, f"casting {spell}")
    ctx.out(who=who, target=target, **detail)


def _cast(ctx: Ctx, who: str, d: dict, spell: str | None, target, via, opts: _Options) -> dict:
    abilities = _class_abilities(ctx, d)
    if via == "sword":
        return _cast_sword(ctx, who, d, spell, target, opts)
    if via not in (None, "book", "spellbook", "wand"):
        ctx.refuse(f"a spell is cast from the book, the wand (via='wand') or a Blood Magic sword (via='sword'), "
                   f"not via {via!r}")
    if "naming_magic" in abilities:
        return _cast_naming(ctx, who, d, spell, abilities, opts)
    if "grimoire_magic" in abilities:
        return _cast_grimoire(ctx, who, d, spell, target, via, abilities, opts)
    if "divine_spellcasting" in abilities:
        return _cast_divine(ctx, who, d, spell, target, abilities["divine_spellcasting"], opts)
    if "bard_magic" in abilities and d["choices"].get("specialty") == "bard_magic":
        return _cast_bard(ctx, who, d, spell, target, opts)
    if "blood_magic_sword" in abilities and d["choices"].get("technique") == "blood_magic":
        return _cast_sword(ctx, who, d, spell, target, opts)
    ctx.refuse(f"{who} ({d['class_name']}) casts no spells")


def _begin_cast(ctx: Ctx, who: str, spell_name: str) -> None:
    """Casting ends what casting ends (Invisibility, a hidden rogue's cover)."""
    ctx.end_on_action(who, "cast")
    ctx.out(spell_name=spell_name)


def _cast_grimoire(ctx: Ctx, who: str, d: dict, spell: str, target, via, abilities, opts) -> dict:
    grimoire = abilities["grimoire_magic"]
    _require_ability(ctx, who, d, "grimoire_magic", grimoire)
    sig = d.get("signature_spell") or {}
    if spell not in d["spells"] and spell == sig.get("name"):
        spell = sig["spell"]
    if spell not in d["spells"]:
        ctx.refuse(f"{who}'s spellbook holds {', '.join(d['spells']) or 'nothing'}; not {spell!r}")
    worn = [a["name"] for a in d["armor"] if not a.get("shield")]
    if worn:
        ctx.refuse(f"{who} wears {', '.join(worn)}: grimoire magic cannot be cast in physical armor")
    held = [a["name"] for a in d["armor"] if a.get("shield")]
    if held or opts.take("hands_free", True) is False:
        ctx.refuse(f"casting grimoire magic needs both hands; {who} holds {', '.join(held) or 'something'}")
    name = ctx.rules.spell(spell)["name"]
    out: dict = {"spell": spell, "via": "wand" if via == "wand" else "spellbook"}
    if via == "wand":
        wand = abilities.get("wand_magic")
        if wand is None:
            ctx.refuse(f"{who} has no wand magic")
        _require_ability(ctx, who, d, "wand_magic", wand)
        if not any(it.get("item") == "wand" and it.get("count", 1) > 0 for it in d["items"]):
            ctx.refuse(f"{who} carries no wand")
        out["paid"] = _pay(ctx, who, wand.get("cost", {}), f"{name} from the wand")
    else:
        if d["resources"].get("spellbook", 0) < 1:
            ctx.refuse(f"{who}'s spellbook is not charged: it charges at night (a rest)")
        if spell in d["spellbook_used"]:
            ctx.refuse(f"{who} has already cast {name} from the book since the last rest "
                       f"(each spell once a charge; the wand may still cast it)")
    _begin_cast(ctx, who, name)
    out.update(_grimoire_effect(ctx, who, d, spell, target, opts))
    if sig.get("spell") == spell:
        out["signature"] = sig["description"]
    if via != "wand":
        keep = ctx.rules.spell(spell).get("keep_on")
        kept = False
        if keep:
            r = ctx.roll("keep", str(keep["die"]), who=who, why=f"is {name} consumed?")
            kept = r.total >= keep["target"]
            out["keep"] = {"total": r.total, "target": keep["target"], "kept": kept,
                           "chance": str(odds(str(keep["die"]), target=keep["target"]))}
        if not kept:
            ctx.append(["delvers", who, "spellbook_used"], spell)
    return out


def _cast_bard(ctx: Ctx, who: str, d: dict, spell: str | None, target, opts) -> dict:
    """A bard's one spell, for 1 grit, played on an instrument."""
    ability = _class_abilities(ctx, d).get("bard_magic")
    if ability is None:
        ctx.refuse(f"{who} has no Bard Magic")
    _require_ability(ctx, who, d, "bard_magic", ability)
    chosen = d["choices"].get("bard_spell")
    if chosen is None:
        ctx.refuse(f"{who} has not chosen a bard spell yet: use(who, 'bard_magic', choose=...)")
    if spell not in (None, chosen):
        ctx.refuse(f"{who}'s bard spell is {ctx.rules.spell(chosen)['name']}, not {spell!r}")
    instrument = opts.take("instrument")
    if instrument is None:
        carried = [it["name"] for it in d["items"]
                   if any(k in f"{it.get('item', '')} {it.get('name', '')}".lower() for k in INSTRUMENTS)]
        if not carried:
            ctx.refuse(f"Bard Magic is cast by playing music: {who} carries no instrument "
                       f"(say which, instrument='lute')")
        instrument = carried[0]
    paid = _pay(ctx, who, ability.get("cost", {}), "Bard Magic")
    _begin_cast(ctx, who, ctx.rules.spell(chosen)["name"])
    return {"spell": chosen, "via": "bard", "instrument": instrument, "paid": paid,
            **_grimoire_effect(ctx, who, d, chosen, target, opts)}


def _cast_sword(ctx: Ctx, who: str, d: dict, spell: str | None, target, opts) -> dict:
    """The Blood Magic sword casts its traced spell once per charge; the charge is spent."""
    ability = _class_abilities(ctx, d).get("blood_magic_sword")
    if ability is None:
        ctx.refuse(f"{who} has no Blood Magic sword")
    _require_ability(ctx, who, d, "blood_magic_sword", ability)
    traced = ctx.conditions(who, "blood_magic_trace")
    if not traced:
        ctx.refuse(f"{who} has traced no spell on the sword since the last rest")
    traced_spell = traced[0]["data"]["spell"]
    if spell not in (None, traced_spell):
        ctx.refuse(f"the sword carries {ctx.rules.spell(traced_spell)['name']}, not {spell!r}")
    charge = ctx.conditions(who, "blood_magic_charge")
    if not charge:
        ctx.refuse(f"{who}'s sword is not charged: a kill with it charges it")
    cid = charge[0]["id"]
    ctx.end_conditions(lambda c: c["id"] != cid, f"{who} cast the sword's spell")
    _begin_cast(ctx, who, ctx.rules.spell(traced_spell)["name"])
    return {"spell": traced_spell, "via": "sword", "paid": {"blood_magic_charge": 1},
            **_grimoire_effect(ctx, who, d, traced_spell, target, opts)}


def _grimoire_effect(ctx: Ctx, who: str, d: dict, spell: str, target, opts: _Options) -> dict:
    """What a mage spell does, whoever casts it."""
    s = ctx.rules.spell(spell)
    name = s["name"]
    if spell == "light":
        if opts.take("blind", False):  # the touch form: an unarmed attack that blinds for an hour on a hit
            a = _spell_attack(ctx, who, d, target, "Light (blinding touch)", opts)
            if a["lands"]:
                ctx.add_condition("blinded", target, who, duration=s.get("duration", "hour"), spell=spell)
            return {"spell_attack": a, "blinded": a["lands"]}
        item = opts.take("item", "an item")
        ctx.add_condition("light", who, who, duration=s.get("duration", "hour"), item=item,
                          light_ft=s.get("light_ft", 30))
        return {"light": {"item": item, "ft": s.get("light_ft", 30)}}
    if spell == "magic_missile":
        darts = int(s.get("darts", 3))
        aims = target if isinstance(target, list) else [target] * darts
        if target is None or len(aims) != darts:
            ctx.refuse(f"{name} fires {darts} darts: name one target, or one per dart")
        for t in set(aims):
            _living(ctx, t, "be hit")
        damage = []
        for k, t in enumerate(aims):  # each dart always hits; armor meets each one
            if ctx.combatant(t)[1]["status"] == STATUS_DEAD:
                damage.append({"target": t, "dart": k + 1, "wasted": True})
                continue
            hit = combat.deal_damage(ctx, t, int(s.get("damage", 2)), f"{who} ({name}, dart {k + 1})")
            hit.update(dart=k + 1)
            damage.append(hit)
        return {"damage": damage}
    if spell == "find_familiar":
        if d.get("familiar"):
            ctx.refuse(f"{who} already has a familiar ({d['familiar']['name']}); each mage has only one")
        fam = s.get("familiar", {})
        familiar = {"name": opts.take("name", f"{who}'s familiar"), "form": opts.take("form", "varmint"),
                    "hearts": fam.get("hearts", 1), "max_hearts": fam.get("hearts", 1),
                    "damage": fam.get("damage", 1), "range_ft": fam.get("range_ft", 120)}
        ctx.set(["delvers", who, "familiar"], familiar)
        return {"familiar": familiar}
    if spell == "firebolt":
        if target is None:
            ctx.refuse(f"{name} is a ranged spell attack: name its target")
        a = _spell_attack(ctx, who, d, target, name, opts)
        damage = [_damage(ctx, who, target, str(s.get("damage", "2d6")), name)] if a["lands"] else []
        return {"spell_attack": a, "damage": damage}
    if spell == "invisibility":
        target = target or who
        _living(ctx, target, "turn invisible")
        _end_kind(ctx, target, "invisible", "invisible anew")
        ctx.add_condition("invisible", target, who, duration=s.get("duration", "hour"), ends_when=["attack", "cast"])
        return {"invisible": target}
    if spell == "minor_illusion":
        what = opts.take("description", "an illusion")
        ctx.add_condition("illusion", who, who, duration=s.get("duration", "hour"), description=what,
                          area=s.get("area", "5ft cube"))
        return {"illusion": what}
    # a campaign's own spell: its damage or healing if it has any, else recorded for the keeper
    out = {"effect": s.get("effect", "")}
    if s.get("damage") is not None and target is not None:
        out["damage"] = [_damage(ctx, who, target, str(s["damage"]), name)]
    elif s.get("heal") is not None:
        out["healing"] = [_heal(ctx, who, target or who, str(s["heal"]), name, above_max=bool(s.get("heal_above_max")))]
    return out


def _cast_divine(ctx: Ctx, who: str, d: dict, spell: str, target, ability: Mapping, opts: _Options) -> dict:
    """A cleric's divine spell for one blessing."""
    _require_ability(ctx, who, d, "divine_spellcasting", ability)
    divine = dict(data_items(ctx.rules.spell_lists["divine"]["spells"]))
    if spell not in divine:
        ctx.refuse(f"divine spells are {', '.join(divine)}; not {spell!r}")
    s = divine[spell]
    name = s["name"]
    out: dict = {"spell": spell, "via": "blessing"}
    if spell == "truth":
        if target is None:
            ctx.refuse("Truth needs a creature to question")
        _living(ctx, target, "be questioned")
        immune = ctx.conditions(target, "truth_immune")
        if immune:
            ctx.refuse(f"{target} saved against Truth and is immune to it until the clock reads "
                       f"{immune[0]['ends_at']} s")
    out["paid"] = _pay(ctx, who, ability.get("cost", {}), name)
    _begin_cast(ctx, who, name)
    if spell == "aid":
        out["healing"] = [_heal(ctx, who, target or who, str(s.get("heal", "d6")), name,
                                above_max=bool(s.get("heal_above_max", True)))]
    elif spell == "dispel_magic":
        out.update(_dispel(ctx, who, d, target, opts))
    elif spell == "inflict_wounds":
        if target is None:
            ctx.refuse("Inflict wounds needs a target to touch")
        _, t = _living(ctx, target, "be touched")
        saved = _save(ctx, target, t, _save_target(ctx, s, opts), f"save against {name}")
        out["save"] = saved
        out["damage"] = [_damage(ctx, who, target, str(s.get("damage", "4d6")), name, halve=saved["success"])]
    elif spell == "locate_creature":
        creature = opts.take("creature", target)
        if not creature:
            ctx.refuse("Locate Creature: name a creature, or a type of creature (creature=...)")
        ctx.add_condition("locating", who, who, duration=s.get("duration", "hour"), creature=creature)
        out["locating"] = creature
    elif spell == "truth":
        _, t = ctx.combatant(target)
        saved = _save(ctx, target, t, _save_target(ctx, s, opts), f"save against {name}")
        out["save"] = saved
        if saved["success"]:
            ctx.add_condition("truth_immune", target, who, duration=s.get("immunity_after_save", "day"))
        else:
            ctx.add_condition("compelled_truth", target, who, duration=s.get("duration", "hour"))
    elif spell == "guiding_bolt":
        if target is None:
            ctx.refuse("Guiding Bolt is a ranged attack: name its target")
        a = _spell_attack(ctx, who, d, target, name, opts)
        out["spell_attack"] = a
        out["damage"] = [_damage(ctx, who, target, str(s.get("damage", "3d6")), name)] if a["lands"] else []
        if a["lands"] and ctx.combatant(target)[1]["status"] != STATUS_DEAD:
            ctx.add_condition("marked", target, who, ends_on=f"turn:{who}", advantage_against=True)
            out["marked"] = target
    else:  # a campaign's own divine spell
        out.update(_grimoire_effect(ctx, who, d, spell, target, opts))
    return out


def _dispel(ctx: Ctx, who: str, d: dict, target, opts: _Options) -> dict:
    """End one spell or magic effect (a condition, by id or by kind on the target); a target that
    resists makes a contested Magic check, and the defender holds a tie."""
    which = opts.take("condition")
    if isinstance(which, int) and not isinstance(which, bool):
        found = [c for c in ctx.state["conditions"] if c["id"] == which]
    else:
        if target is None or which is None:
            ctx.refuse("Dispel magic: name the effect (condition=<id>, or target= and condition=<kind>)")
        found = ctx.conditions(target, which)
    if not found:
        ctx.refuse(f"there is no such effect to dispel ({which!r}{' on ' + target if target else ''})")
    cond = found[0]
    resister = opts.take("resister", cond["who"] if opts.take("resist", False) else None)
    out: dict = {"dispelled": None}
    if resister is not None:
        _, rc = _living(ctx, resister, "resist")
        mine, _ = d20_expr(ctx, who, d, "magic" if "magic" in d["skills"] else None)
        theirs, _ = d20_expr(ctx, resister, rc, "magic" if "magic" in rc.get("skills", {}) else None)
        a = ctx.roll("check", mine, who=who, why="Dispel magic")
        b = ctx.roll("opposed", theirs, who=resister, why="resists Dispel magic")
        out["contest"] = {"expr": mine, "total": a.total, "vs": resister, "vs_expr": theirs, "vs_total": b.total,
                          "result": "win" if a.total > b.total else "tie" if a.total == b.total else "lose"}
        if a.total <= b.total:
            return out
    ctx.end_conditions(lambda c: c["id"] != cond["id"], f"{who} dispelled it")
    out["dispelled"] = {"id": cond["id"], "kind": cond["kind"], "who": cond["who"]}
    return out


def _check_names_and_cost(ctx: Ctx, who: str, d: dict, names, cost) -> tuple[list, int]:
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


def _cast_naming(ctx: Ctx, who: str, d: dict, spell: str, abilities: Mapping, opts: _Options) -> dict:
    """Names chosen, a spell described, a cost agreed with the keeper: soul points paid, the spell cast."""
    ability = abilities["naming_magic"]
    resource = ability.get("variable_cost", {}).get("resource", "soul_points")
    sig = d.get("signature_spell") or {}
    if sig and spell in (sig.get("name"), "signature"):
        cost = opts.take("cost")
        if cost not in (None, sig["cost"]):
            ctx.refuse(f"{sig['name']} is a signature spell: its cost is fixed at {sig['cost']}")
        paid = _pay(ctx, who, {resource: sig["cost"]}, sig["name"])
        _begin_cast(ctx, who, sig["name"])
        return {"spell": "signature", "names": sig["names"], "description": sig["description"],
                "cost": sig["cost"], "paid": paid}
    if spell != "naming":
        ctx.refuse(f"{who} casts by naming: cast(who, 'naming', names=[...], description=..., cost=N)")
    names, cost = _check_names_and_cost(ctx, who, d, opts.take("names"), opts.take("cost"))
    description = opts.take("description")
    if not description:
        ctx.refuse("describe the spell (description=...) so the keeper can price it")
    paid = _pay(ctx, who, {resource: cost}, "this spell")
    _begin_cast(ctx, who, "naming magic")
    return {"spell": "naming", "names": names, "description": description, "cost": cost, "paid": paid}


# ---------------------------------------------------------------- keeper's conditions

@command("condition")
def add_condition_cmd(ctx: Ctx, who: str, name: str, duration: str | None = None, ends_on: str | None = None,
                      source: str = "keeper", **data: Any) -> None:
    """The keeper puts a condition on someone (a curse, a poison): it lasts until it ends or is lifted."""
    ctx.combatant(who)
    kind = name
    if not isinstance(kind, str) or not kind.strip():
        ctx.refuse("a condition needs a kind, e.g. 'cursed'")
    if duration is not None:
        try:
            ctx.rules.duration_seconds(duration)
        except ValueError as err:
            ctx.refuse(str(err))
    cond = ctx.add_condition(kind, who, source, duration=duration, ends_on=ends_on, **data)
    ctx.out(who=who, name=kind, condition=cond["id"])


@command("end_condition")
def end_condition_cmd(ctx: Ctx, id: int | None = None, who: str | None = None, name: str | None = None) -> None:
    """The keeper ends a condition (by id, or every one of a kind on someone)."""
    if id is None and (who is None or name is None):
        ctx.refuse("end a condition by id, or by who and name")
    ended = ctx.end_conditions(lambda c: not (c["id"] == id if id is not None else
                                              (c["who"] == who and c["kind"] == name)), "the keeper ended it")
    if not ended:
        ctx.refuse("there is no such condition")
