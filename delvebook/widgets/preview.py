"""What a roll button shows before the click: the dice a check or attack would roll and its exact chance.

The expressions come from the engine's own helpers on the current state (read, never changed), so a button's
odds are the rules' odds: skill bonus, blessing die, weapon skill, the target's resist die.
"""

from __future__ import annotations

from fractions import Fraction

from ..distribution import odds, percent
from ..engine.base import Ctx, data_items
from ..engine.checks import d20_expr
from ..engine.combat import attack_expr
from ..dice import parse

__all__ = ["skill_label", "check_chance", "attack_chance", "weapon_choices", "pct", "odds_inputs"]


def _ctx(camp) -> Ctx:
    return Ctx(camp.state, camp.rules, None, "preview", {})


def _combatant(camp, name: str) -> dict | None:
    s = camp.state
    if name in s["delvers"]:
        return s["delvers"][name]
    enc = s["encounter"]
    if enc is not None and name in enc["foes"]:
        return enc["foes"][name]
    return None


def pct(p: Fraction) -> str:
    return percent(p, 0)


def skill_label(camp, delver: dict, sid: str) -> str:
    """'Stealth +D6' (the class's name for the skill, and its bonus dice)."""
    spec = camp.rules.class_(delver["class_id"]).get("skills", {}).get(sid, {})
    name = spec.get("name") if hasattr(spec, "get") else None
    bonus = camp.rules.core["skill_bonus"].get(delver["skills"][sid], "")
    return f"{name or sid.replace('_', ' ').capitalize()} +{str(bonus).upper()}"


def _fmt_dice(expr: str) -> str:
    """'d6' -> 'D6', '2d6' stays '2d6' (the game writes a lone die in capitals)."""
    return expr.upper() if expr.startswith("d") else expr


def check_chance(camp, who: str, sid: str | None, target: int | None, vs: str | None) -> Fraction | None:
    """The exact chance a check by ``who`` with skill ``sid`` succeeds against a target or an opponent."""
    c = _combatant(camp, who)
    if c is None:
        return None
    ctx = _ctx(camp)
    expr, _ = d20_expr(ctx, who, c, sid)
    if vs:
        oc = _combatant(camp, vs)
        if oc is None or vs == who:
            return None
        oexpr, _ = d20_expr(ctx, vs, oc, None)
        return odds(expr, vs=oexpr).win
    if target is None:
        return None
    return odds(expr, target=target)


def weapon_choices(camp, who: str) -> list[tuple[str, object]]:
    """(label, weapon argument) for each distinct weapon ``who`` can attack with; foes have their one attack."""
    c = _combatant(camp, who)
    if c is None:
        return []
    if "class_id" not in c:
        return [(f"Attack {_fmt_dice(str(c['damage']))}", None)]
    out, seen = [], set()
    for i, wpn in enumerate(c.get("weapons", ())):
        key = (wpn["name"], wpn["damage"], wpn.get("bonus"))
        if key in seen:
            continue
        seen.add(key)
        out.append((f"{wpn['name']} {_fmt_dice(str(wpn['damage']))}", i))
    if not out:
        out.append((f"Unarmed {camp.rules.core['unarmed']['damage']}", "unarmed"))
    return out


def attack_chance(camp, attacker: str, target: str, weapon) -> Fraction | None:
    """The chance an attack hits (higher than the target's resist roll); a tie, where both hit, is not counted."""
    a, t = _combatant(camp, attacker), _combatant(camp, target)
    if a is None or t is None or attacker == target:
        return None
    ctx = _ctx(camp)
    if "class_id" in a:
        if weapon == "unarmed" or not a.get("weapons"):
            wpn = {"name": "Unarmed", "damage": str(camp.rules.core["unarmed"]["damage"]), "skill": "unarmed"}
        else:
            wpn = a["weapons"][weapon or 0]
    else:
        wpn = {"name": "attack", "damage": a["damage"], "skill": None, "attack_bonus": a["attack_bonus"]}
    advantage = any(cond["data"].get("advantage_against")
                    for cond in camp.state["conditions"] if cond["who"] == target and cond["kind"] == "marked")
    base, bonus = attack_expr(ctx, attacker, a, wpn, advantage=advantage)
    full = parse(base + ("+" + bonus if bonus else "")).text
    rexpr, _ = d20_expr(ctx, target, t, None)
    core = camp.rules.core
    rexpr = parse(rexpr.replace(str(core["check"]["die"]), str(core["attack"]["resist_die"]), 1)).text
    return odds(full, vs=rexpr).win


def odds_inputs(camp, *names: str | None) -> tuple:
    """What a button's odds depend on besides who, which skill or weapon, and the target: the conditions in
    play (blessings, marks) and each named combatant's skills, weapons and attack bonus. Views keep their
    odds while this stays the same (working odds out again on every click would cost far more)."""
    out: list = [tuple(c["id"] for c in camp.state["conditions"])]
    for n in names:
        c = _combatant(camp, n) if n else None
        out.append(None if c is None else repr((c.get("skills"), c.get("weapons"), c.get("attack_bonus"))))
    return tuple(out)


def ability_choices(camp, who: str) -> list[tuple[str, str]]:
    """(label with cost, ability id) for the abilities this delver has now (level and specialty met)."""
    d = camp.state["delvers"].get(who)
    if d is None:
        return []
    out = []
    for aid, a in data_items(camp.rules.class_(d["class_id"]).get("abilities", {})):
        if aid not in d.get("abilities", ()):
            if a.get("level", 1) > d["level"]:
                continue
            req = a.get("requires")
            if req and d["choices"].get(req["choice"]) != req["option"]:
                continue
        cost = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in data_items(a.get("cost", {})))
        out.append((f"{a['name']} ({cost or 'free'})", aid))
    return out


def spell_choices(camp, who: str) -> list[tuple[str, str]]:
    """(label with cost, spell id) for the spells this delver could cast (book, divine list, signature)."""
    d = camp.state["delvers"].get(who)
    if d is None:
        return []
    rules = camp.rules
    abilities = dict(data_items(rules.class_(d["class_id"]).get("abilities", {})))
    out = []
    if "grimoire_magic" in abilities:
        used = set(d.get("spellbook_used", ()))
        for sid in d.get("spells", ()):
            name = rules.spell(sid).get("name", sid)
            out.append((f"{name} (spellbook{', used' if sid in used else ''})", sid))
    if "divine_spellcasting" in abilities and d["level"] >= abilities["divine_spellcasting"].get("level", 1):
        for sid, s in data_items(rules.spell_lists["divine"]["spells"]):
            out.append((f"{s['name']} (1 blessing)", sid))
    sig = d.get("signature_spell")
    if sig and sig.get("name"):
        out.append((f"{sig['name']} (signature, {sig.get('cost', '?')})", sig["name"]))
    return out


def choice_options(camp, who: str, pending: dict) -> list[tuple[str, str]]:
    """(label, option id) for a level-up choice waiting on ``who``."""
    from ..engine.creation import _find_choice
    d = camp.state["delvers"][who]
    spec = _find_choice(_ctx(camp), d, pending)
    if "from_skills" in spec:
        wanted = spec["from_skills"]
        class_skills = camp.rules.class_(d["class_id"])["skills"]
        return [(s, s) for s, bonus in d["skills"].items()
                if bonus == wanted.get("bonus", "proficient")
                and bool(class_skills.get(s, {}).get("weapon")) == bool(wanted.get("weapon", False))]
    return [(str(opt.get("name", oid)), oid) for oid, opt in data_items(spec.get("options", {}))]
