"""Encounters: foes, initiative by side, turns and rounds, attacks with counters, armor, damage, healing."""

from __future__ import annotations

from typing import Any, Mapping

from ..dice import parse
from ..distribution import distribution, odds
from ..model import STATUS_ALIVE, STATUS_DEAD, STATUS_DYING
from .base import Ctx, command, data_items
from .checks import d20_expr, take_focus

PARTY, FOES = "party", "foes"


# ---------------------------------------------------------------- foes and encounters

def _new_foe(ctx: Ctx, spec: Any, taken: set) -> dict:
    if isinstance(spec, str):
        spec = {"foe": spec}
    if not isinstance(spec, Mapping) or "foe" not in spec:
        ctx.refuse(f"a foe is a bestiary id like 'goblin', or {{foe: goblin, name: ...}}; got {spec!r}")
    kind = spec["foe"]
    if kind not in ctx.rules.bestiary:
        ctx.refuse(f"there is no {kind!r} in the bestiary (known: {', '.join(ctx.rules.bestiary)})")
    b = ctx.rules.foe(kind)
    name = spec.get("name")
    if name is None:
        k = 1
        while f"{b['name']} {k}" in taken:
            k += 1
        name = f"{b['name']} {k}"
    if name in taken:
        ctx.refuse(f"{name!r} is already a name in this fight")
    armor = []
    if b.get("armor"):
        armor.append({"item": "natural", "name": "armor", "av": b["armor"]["av"], "dv": b["armor"]["dv"],
                      "dv_max": b["armor"]["dv"], "shield": False, "bonus_av": 0})
    hearts = int(spec.get("hearts", b["hearts"]))
    return {"name": name, "kind": kind, "hearts": hearts, "max_hearts": hearts, "status": STATUS_ALIVE,
            "attack_bonus": str(b.get("attack_bonus", 0)), "damage": str(b.get("damage", 2)),
            "multi_attack": int(b.get("multi_attack", 1)), "ranged": bool(b.get("ranged", False)),
            "armor": armor, "tags": list(b.get("tags", ())), "skills": {}}


@command("encounter")
def start_encounter(ctx: Ctx, foes: list, name: str | None = None) -> None:
    """A fight begins: foes from the bestiary join; initiative comes next."""
    if ctx.state["encounter"] is not None:
        ctx.refuse("a fight is already running: end it before starting another")
    if not foes:
        ctx.refuse("an encounter needs at least one foe")
    taken = set(ctx.state["delvers"])
    made = {}
    for spec in foes:
        f = _new_foe(ctx, spec, taken | set(made))
        made[f["name"]] = f
    number = ctx.state["encounters_fought"] + 1
    enc = {"number": number, "name": name or f"Encounter {number}", "foes": made, "round": 0, "side": None,
           "turn": 0, "first": None, "order": {PARTY: [], FOES: list(made)}, "started_at": ctx.state["clock"],
           "vanquished": []}
    ctx.set(["encounter"], enc)
    ctx.out(name=enc["name"], foes=[{"name": f["name"], "kind": f["kind"], "hearts": f["hearts"]}
                                    for f in made.values()])


@command("add_foes")
def add_foes(ctx: Ctx, foes: list) -> None:
    """Foes join a running fight; they act at the end of the foes' order."""
    enc = _encounter(ctx)
    taken = set(ctx.state["delvers"]) | set(enc["foes"])
    joined = []
    for spec in foes:
        f = _new_foe(ctx, spec, taken)
        taken.add(f["name"])
        ctx.set(["encounter", "foes", f["name"]], f)
        joined.append(f["name"])
    ctx.set(["encounter", "order", FOES], enc["order"][FOES] + joined)
    ctx.out(foes=joined)


def _encounter(ctx: Ctx) -> dict:
    enc = ctx.state["encounter"]
    if enc is None:
        ctx.refuse("no fight is running")
    return enc


def _party_order(ctx: Ctx) -> list[str]:
    return [n for n in ctx.state["seats"] if ctx.state["delvers"][n]["status"] != STATUS_DEAD]


@command("initiative")
def initiative(ctx: Ctx, first: str | None = None) -> None:
    """Each side rolls D6 and the higher goes first (ties re-rolled), unless one side obviously goes first."""
    enc = _encounter(ctx)
    if enc["round"] > 0:
        ctx.refuse("initiative is rolled once, at the start of the fight")
    rolls = []
    if first is None:
        die = str(ctx.core["initiative"]["die"])
        while True:
            p = ctx.roll("initiative_party", die, who="party", why="initiative")
            f = ctx.roll("initiative_foes", die, who="foes", why="initiative")
            rolls.append([p.total, f.total])
            if p.total != f.total:
                break
            if len(rolls) > 100:
                ctx.refuse("initiative tied a hundred times: the keeper should say who goes first")
        first = PARTY if rolls[-1][0] > rolls[-1][1] else FOES
    elif first not in (PARTY, FOES):
        ctx.refuse(f"the side that goes first is 'party' or 'foes', not {first!r}")
    ctx.set(["encounter", "first"], first)
    ctx.set(["encounter", "order", PARTY], _party_order(ctx))
    ctx.set(["encounter", "side"], first)
    ctx.set(["encounter", "turn"], 0)
    ctx.set(["encounter", "round"], 1)
    ctx.out(first=first, initiative_rolls=rolls, order=ctx.state["encounter"]["order"])
    _start_turn(ctx)


def current_actor(state: dict) -> str | None:
    enc = state["encounter"]
    if enc is None or enc["side"] is None:
        return None
    order = enc["order"][enc["side"]]
    return order[enc["turn"]] if enc["turn"] < len(order) else None


def _can_act(ctx: Ctx, name: str) -> bool:
    _, c = ctx.combatant(name)
    return c["status"] != STATUS_DEAD


def _start_turn(ctx: Ctx) -> None:
    actor = current_actor(ctx.state)
    if actor is not None:
        ctx.end_conditions(lambda c: c["ends_on"] != f"turn:{actor}", f"{actor}'s turn began")
        ctx.out(actor=actor)


@command("set_order")
def set_order(ctx: Ctx, order: list[str]) -> None:
    """The party changes its order (the default is clockwise around the table)."""
    enc = _encounter(ctx)
    current = enc["order"][PARTY] or _party_order(ctx)
    if sorted(order) != sorted(current):
        ctx.refuse(f"the new order must name each delver in the fight once: {', '.join(current)}")
    ctx.set(["encounter", "order", PARTY], list(order))
    ctx.out(order=list(order))


@command("next_turn")
def next_turn(ctx: Ctx) -> None:
    """The current actor is done; the next able combatant acts (a new round when both sides have acted)."""
    enc = _encounter(ctx)
    if enc["side"] is None:
        ctx.refuse("roll initiative (or say who goes first) before taking turns")
    side, turn, rnd = enc["side"], enc["turn"] + 1, enc["round"]
    for _ in range(len(enc["order"][PARTY]) + len(enc["order"][FOES]) + 2):
        order = enc["order"][side]
        while turn < len(order) and not _can_act(ctx, order[turn]):
            turn += 1
        if turn < len(order):
            break
        other = FOES if side == PARTY else PARTY
        if other == enc["first"]:
            rnd += 1
        side, turn = other, 0
    new_round = rnd != enc["round"]
    ctx.set(["encounter", "side"], side)
    ctx.set(["encounter", "turn"], turn)
    if new_round:
        ctx.set(["encounter", "round"], rnd)
        ctx.advance_clock(ctx.core["time"]["round_seconds"])
    ctx.out(side=side, round=rnd, new_round=new_round)
    _start_turn(ctx)


@command("end_encounter")
def end_encounter(ctx: Ctx) -> None:
    """The fight ends: XP for the vanquished (their maximum hearts), split across the party."""
    from .progress import award
    enc = _encounter(ctx)
    vanquished = [f for f in enc["foes"].values() if f["status"] == STATUS_DEAD]
    xp = sum(f["max_hearts"] for f in vanquished) * ctx.core["xp"]["per_heart_vanquished"]
    ctx.out(name=enc["name"], rounds=enc["round"], vanquished=[f["name"] for f in vanquished], xp=xp)
    ctx.end_conditions(lambda c: not (c["ends_on"] or "").startswith("turn:") and c["who"] not in enc["foes"],
                       "the fight ended")
    ctx.set(["encounter"], None)
    ctx.set(["encounters_fought"], enc["number"])
    if xp:
        award(ctx, xp, f"vanquished: {', '.join(f['name'] for f in vanquished)}", "vanquished")


# ---------------------------------------------------------------- attacks

def _weapon(ctx: Ctx, who: str, c: dict, weapon: Any) -> dict:
    if "class_id" not in c:  # a foe: its bestiary attack
        return {"name": "attack", "damage": c["damage"], "skill": None, "ranged": c["ranged"], "bonus": 0,
                "attack_bonus": c["attack_bonus"]}
    if isinstance(weapon, str) and weapon.strip().lower().replace("_", " ") == "holy weapon":
        # the cleric's Holy Weapon: a flying sword that shares the cleric's turn (see abilities.py)
        for cond in ctx.conditions(who, "holy_weapon"):
            return {"name": "Holy weapon", "item": "holy_weapon", "damage": str(cond["data"]["damage"]),
                    "skill": None, "ranged": False, "bonus": 0, "attack_bonus": str(cond["data"]["attack_bonus"]),
                    "counter": False}
        ctx.refuse(f"{who} has no holy weapon conjured (Holy Weapon calls one for a minute)")
    if weapon in (None, "") and c["weapons"]:
        return c["weapons"][0]
    if weapon in (None, "", "unarmed", "Unarmed"):
        return {"name": "Unarmed", "item": "unarmed", "damage": str(ctx.core["unarmed"]["damage"]),
                "skill": "unarmed", "ranged": False, "bonus": 0}
    if isinstance(weapon, int) and 0 <= weapon < len(c["weapons"]):
        return c["weapons"][weapon]
    for w in c["weapons"]:
        if weapon in (w.get("item"), w.get("name")) or str(weapon).lower() == str(w.get("name", "")).lower():
            return w
    names = ", ".join(w["name"] for w in c["weapons"]) or "none"
    ctx.refuse(f"{who} has no weapon {weapon!r} (weapons: {names}, or unarmed)")


def weapon_skill(ctx: Ctx, c: dict, w: Mapping) -> str | None:
    """The best skill that applies: the weapon's own skill, or a fighter's Weapons (anything it can kill with)."""
    best, rank = None, 0
    ranks = {"proficient": 1, "expert": 2}
    for s in (w.get("skill"), "weapons"):
        if s and ranks.get(c.get("skills", {}).get(s), 0) > rank:
            best, rank = s, ranks[c["skills"][s]]
    return best


def attack_expr(ctx: Ctx, who: str, c: dict, w: Mapping, *, advantage: bool, bonus=None,
                multi: int = 1, focus: bool = False) -> tuple[str, str | None]:
    """(the D20 part, the bonus part) of an attack roll; for a single attack the two are one roll."""
    skill = weapon_skill(ctx, c, w)
    extra = [str(w["attack_bonus"])] if w.get("attack_bonus") not in (None, "0", 0) else []
    full, _ = d20_expr(ctx, who, c, skill, advantage=advantage, bonus=bonus, extra=extra, focus=focus)
    base = str(ctx.core["advantage"]["dice"]) if advantage else str(ctx.core["attack"]["die"])
    e = parse(full)
    rest = e.text[len(parse(base).text):]
    return parse(base).text, (rest.lstrip("+") if rest else None)


def armor_value(ctx: Ctx, name: str, c: dict) -> tuple[int, list[int]]:
    """Total AV of intact armor (plus Hold the line), and the indexes of the intact pieces."""
    intact = [i for i, a in enumerate(c.get("armor", ())) if a["dv"] > 0]
    av = sum(c["armor"][i]["av"] + c["armor"][i].get("bonus_av", 0) for i in intact)
    for cond in ctx.conditions(name, "hold_the_line"):
        av += cond["data"].get("av", 0)
    return av, intact


def deal_damage(ctx: Ctx, target: str, raw: int, source: str, *, armor: bool = True, dodge: bool = False) -> dict:
    """Damage reaches ``target``: armor absorbs its AV and loses 1 DV a hit; hearts never go below 0.

    A rogue's Dodge (``dodge=True`` spends the grit now; a ``dodging`` condition from ``use`` was paid
    before) subtracts D6 first; damage dodged down to nothing does not reach the armor."""
    side, c = ctx.combatant(target)
    path = ["delvers", target] if side == "delver" else ["encounter", "foes", target]
    dodged = None
    if raw > 0 and (dodge or ctx.conditions(target, "dodging")):
        from .abilities import dodge_reduction
        dodged = dodge_reduction(ctx, target, pay=dodge)
    incoming = raw - min(raw, dodged or 0)
    av, intact = armor_value(ctx, target, c) if armor else (0, [])
    if dodged is not None and incoming == 0:
        intact = []
    dealt = max(ctx.core["armor"]["damage_floor"], incoming - av)
    dv_lost = []
    for i in intact:
        piece = c["armor"][i]
        left = max(0, piece["dv"] - ctx.core["armor"]["dv_per_hit"])
        ctx.set(path + ["armor", i, "dv"], left)
        dv_lost.append({"piece": piece["name"], "dv": left, "broken": left <= ctx.core["armor"]["broken_at_dv"]})
    before = c["hearts"]
    after = max(ctx.core["hearts"]["floor"], before - dealt)
    ctx.set(path + ["hearts"], after)
    result = {"target": target, "source": source, "raw": raw, "av": av, "absorbed": incoming - dealt, "dealt": dealt,
              "hearts_before": before, "hearts_after": after, "dv": dv_lost}
    if dodged is not None:
        result["dodged"] = dodged
    if dealt > 0 and before - dealt < ctx.core["death_save"]["retrigger_below"]:
        if side == "delver":
            if c["status"] == STATUS_ALIVE:
                ctx.set(path + ["status"], STATUS_DYING)
            result["death_save_due"] = c["status"] != STATUS_DEAD
        elif c["status"] != STATUS_DEAD:
            ctx.set(path + ["status"], STATUS_DEAD)
            ctx.append(["encounter", "vanquished"], target)
            ctx.end_conditions(lambda cond: cond["who"] != target, f"{target} was vanquished")
            result["vanquished"] = True
    return result


def damage_roll(ctx: Ctx, who: str, w: Mapping, *, max_damage: bool, extra: list[str] = (), name="damage") -> tuple[int, str]:
    parts = [str(w["damage"])] + [str(x) for x in extra]
    if w.get("bonus"):
        parts.append(str(w["bonus"]))
    e = parse("+".join(p.lstrip("+") for p in parts))
    expr = e.text
    if max_damage or e.dice_count == 0:  # flat damage (unarmed 2) needs no roll
        return distribution(expr).max, expr
    return ctx.roll(name, expr, who=who, why=f"damage ({w['name']})").total, expr


def _take_next_attack_riders(ctx: Ctx, who: str) -> dict:
    """Conditions that shape the next attack (Ferocious strike, Double Strike) are used up by it."""
    riders: dict = {}
    conds = ctx.conditions(who, "next_attack")
    for cond in conds:
        for k, v in cond["data"].items():
            if k == "multi_attack":  # two riders that both add attacks: the larger holds
                v = max(int(v), int(riders.get(k, 1)))
            riders[k] = v
    if conds:
        ctx.end_conditions(lambda c: not (c["who"] == who and c["kind"] == "next_attack"), f"{who} attacked")
    return riders


@command("attack")
def attack(ctx: Ctx, attacker: str, target: str, weapon: Any = None, advantage: bool = False,
           multi: int | None = None, bonus=None, target_bonus=None, counter: bool | None = None,
           max_damage: bool = False, extra_damage: str | None = None, surprised: bool = False,
           smite: bool = False, dodge: bool = False, focus: bool = False, sentry: bool = False) -> None:
    """Attacker's D20 + skill against the target's D20: higher hits, lower is countered, a tie both hit.

    A multi-attack rolls an extra D20 per extra attack, all bonus dice once; the target rolls one D20
    against them all and counters only if every attack fails."""
    a_side, a = ctx.combatant(attacker)
    ctx.require_able(attacker, "attack")
    t_side, t = ctx.combatant(target)
    if t["status"] == STATUS_DEAD:
        ctx.refuse(f"{target} is already dead")
    if attacker == target:
        ctx.refuse("a combatant cannot attack itself")
    w = _weapon(ctx, attacker, a, weapon)
    if sentry:  # one of a fighter's Sentry attacks (abilities.py)
        from .abilities import take_sentry_attack
        take_sentry_attack(ctx, attacker)
    riders = _take_next_attack_riders(ctx, attacker)
    advantage = bool(advantage or riders.get("advantage"))
    max_damage = bool(max_damage or riders.get("max_damage"))
    for cond in ctx.conditions(target, "marked"):
        if cond["data"].get("advantage_against"):
            advantage = True
    if ctx.conditions(attacker, "command_charge"):
        advantage = True
    if w.get("ranged") and ctx.conditions(attacker, "command_fire"):
        max_damage = True
    n = int(multi or riders.get("multi_attack") or (a.get("multi_attack", 1) if a_side == "foe" else 1))
    if n < 1:
        ctx.refuse("a multi-attack makes at least one attack")
    ranged = bool(w.get("ranged"))
    if counter is None:
        counter = not ranged and w.get("counter", True)
    focus = take_focus(ctx, attacker, a, weapon_skill(ctx, a, w), focus) if a_side == "delver" else False

    base, bonus_part = attack_expr(ctx, attacker, a, w, advantage=advantage, bonus=bonus, multi=n, focus=focus)
    if n == 1:
        full = parse(base + ("+" + bonus_part if bonus_part else "")).text
        r = ctx.roll("attack", full, who=attacker, why=f"attack {target} ({w['name']})")
        totals = [r.total]
        attack_exprs = [full]
    else:
        d20s = [ctx.roll("attack", base, who=attacker, why=f"attack {k + 1} of {n} on {target}") for k in range(n)]
        b = ctx.roll("bonus", bonus_part, who=attacker, why="attack bonus, once for every attack").total \
            if bonus_part else 0
        totals = [d.total + b for d in d20s]
        attack_exprs = [parse(base + ("+" + bonus_part if bonus_part else "")).text] * n
    resist_expr, _ = d20_expr(ctx, target, t, None, bonus=target_bonus)
    resist_expr = parse(resist_expr.replace(str(ctx.core["check"]["die"]), str(ctx.core["attack"]["resist_die"]), 1)).text
    res = ctx.roll("resist", resist_expr, who=target, why=f"resist {attacker}")
    results = ["hit" if x > res.total else "tie" if x == res.total else "miss" for x in totals]

    damage = []
    extra = [extra_damage] if extra_damage else []
    if surprised:  # the rogue's Ambush: extra damage with its weapon against a surprised target
        for aid in a.get("abilities", ()):
            mech = ctx.rules.ability(a["class_id"], aid).get("mechanics", {})
            if "surprised" in str(mech.get("when", "")) and mech.get("extra_damage") \
                    and mech.get("weapon") in (None, w.get("skill")):
                extra.append(str(mech["extra_damage"]))
    smite_spent = False
    dodged = False
    for k, outcome in enumerate(results):
        if outcome == "miss":
            continue
        if t["status"] == STATUS_DEAD:
            break
        hit_extra = list(extra)
        if smite and not smite_spent and not ranged:
            hit_extra.append(_smite(ctx, attacker, a, t))
            smite_spent = True
        amount, dexpr = damage_roll(ctx, attacker, w, max_damage=max_damage, extra=hit_extra)
        d = deal_damage(ctx, target, amount, f"{attacker} ({w['name']})", dodge=dodge and not dodged)
        dodged = dodged or "dodged" in d
        d.update(attack=k + 1, expr=dexpr, max_damage=max_damage)
        damage.append(d)
    if a_side == "delver" and any(d.get("vanquished") for d in damage):
        from .abilities import charge_blood_sword  # a Blood Magic sword is charged by each kill
        charge_blood_sword(ctx, attacker, w)
    if smite and not smite_spent:
        ctx.refuse(f"{attacker} can smite only on a melee hit" if not ranged or "miss" in results
                   else "smite needs a melee weapon")

    countered = None
    all_failed = all(x == "miss" for x in results)
    tie_single = n == 1 and results[0] == "tie"
    if counter and (all_failed or tie_single):
        if t["status"] in (STATUS_DEAD, STATUS_DYING):
            countered = {"by": target, "possible": False, "why": f"{target} is down"}
        else:
            tw = _weapon(ctx, target, t, None)
            amount, dexpr = damage_roll(ctx, target, tw, max_damage=False, name="counter_damage")
            d = deal_damage(ctx, attacker, amount, f"{target} ({tw['name']}, counter)")
            d.update(expr=dexpr)
            countered = {"by": target, "possible": True, "damage": d}
    ctx.end_on_action(attacker, "attack")
    chance = odds(attack_exprs[0], vs=resist_expr)
    ctx.out(attacker=attacker, target=target, weapon=w["name"], multi=n, advantage=advantage,
            attack_totals=totals, resist_total=res.total, results=results, damage=damage, counter=countered,
            attack_expr=attack_exprs[0], resist_expr=resist_expr,
            chance={"win": str(chance.win), "tie": str(chance.tie), "lose": str(chance.lose)})


def _smite(ctx: Ctx, who: str, a: dict, t: dict) -> str:
    if "smite" not in a.get("abilities", ()):
        ctx.refuse(f"{who} cannot smite (it comes with a fighter's Oath at level 3)")
    ability = ctx.rules.ability(a["class_id"], "smite")
    for res, n in data_items(ability.get("cost", {})):
        ctx.spend(who, res, n, "a smite")
    mech = ability["mechanics"]
    special = mech.get("extra_damage_against", {})
    if set(special.get("tags", ())) & set(t.get("tags", ())):
        return str(special["dice"])
    return str(mech["extra_damage"])


@command("damage")
def damage_cmd(ctx: Ctx, who: str, amount: int, source: str = "keeper", armor: bool = False,
               dodge: bool = False) -> None:
    """The keeper deals damage outside an attack (a trap, a fall); armor applies only if asked.
    ``dodge=True``: the delver spends grit to Dodge it (D6 off)."""
    if not isinstance(amount, int) or amount < 0:
        ctx.refuse(f"damage is a whole number of hearts, not {amount!r}")
    _, c = ctx.combatant(who)
    if c["status"] == STATUS_DEAD:
        ctx.refuse(f"{who} is already dead")
    ctx.out(damage=[deal_damage(ctx, who, amount, source, armor=armor, dodge=dodge)])


def heal(ctx: Ctx, who: str, amount: int, source: str, *, above_max: bool = False) -> dict:
    """Hearts restored, up to the maximum (Aid may go above it); refused while healing is banned."""
    side, c = ctx.combatant(who)
    if c["status"] == STATUS_DEAD:
        ctx.refuse(f"{who} is dead: hearts cannot be restored")
    if c["status"] == STATUS_DYING:
        ctx.refuse(f"{who} is dying and must make a death save first")
    if ctx.conditions(who, "blood_magic_healing_ban"):
        ctx.refuse(f"{who} gave blood for magic and cannot be healed until a rest")
    path = ctx.path_of(who)
    before = c["hearts"]
    cap = c["max_hearts"] if not above_max else max(c["max_hearts"], before + amount)
    after = min(cap, before + amount)
    ctx.set(path + ["hearts"], after)
    return {"who": who, "source": source, "amount": amount, "hearts_before": before, "hearts_after": after}


@command("heal")
def heal_cmd(ctx: Ctx, who: str, amount: int, source: str = "keeper") -> None:
    """The keeper restores hearts (a potion, a rest the table agreed on)."""
    if not isinstance(amount, int) or amount < 0:
        ctx.refuse(f"healing is a whole number of hearts, not {amount!r}")
    ctx.out(healing=[heal(ctx, who, amount, source)])
