"""Checks, saves, opposed checks, plain rolls and death saves."""

from __future__ import annotations

from ..dice import parse
from ..distribution import odds
from ..model import STATUS_ALIVE, STATUS_DEAD, STATUS_DYING
from .base import Ctx, command, data_items


def skill_id(ctx: Ctx, c: dict, skill: str | None) -> str | None:
    """A skill named by id or by its display name ('Sleight of hand'), as the delver's class knows it."""
    if skill is None:
        return None
    if skill in c.get("skills", {}):
        return skill
    wanted = skill.strip().lower().replace(" ", "_")
    for sid in c.get("skills", {}):
        if sid == wanted:
            return sid
    if "class_id" in c:
        for sid, spec in data_items(ctx.rules.class_(c["class_id"])["skills"]):
            if spec.get("name", "").lower() == skill.strip().lower() or sid == wanted:
                return sid
    return wanted


def skill_bonus(ctx: Ctx, c: dict, skill: str | None) -> str | None:
    """The skill's bonus dice for this combatant: +D6 proficient, +2d6 expert (not both), else None."""
    if skill is None:
        return None
    level = c.get("skills", {}).get(skill)
    if level is None:
        return None
    return str(ctx.core["skill_bonus"][level])


def blessing_die(ctx: Ctx, name: str) -> str | None:
    """A blessed creature adds its blessing die to every D20 roll it makes."""
    for cond in ctx.conditions(name, "blessed"):
        return str(cond["data"].get("die", "d6"))
    return None


def d20_expr(ctx: Ctx, name: str, c: dict, skill: str | None, *, advantage: bool = False,
             bonus=None, focus: bool = False, extra: list[str] | None = None) -> tuple[str, list[str]]:
    """The expression for a D20 roll by ``name`` and the parts that made it, in words."""
    parts = [str(ctx.core["advantage"]["dice"]) if advantage else str(ctx.core["check"]["die"])]
    said = ["advantage" if advantage else "D20"]
    sb = skill_bonus(ctx, c, skill)
    if sb:
        parts.append(sb)
        said.append(f"{skill} {sb}")
    if focus:
        parts.append(str(ctx.core["skill_bonus"]["proficient"]))
        said.append("focus")
    bd = blessing_die(ctx, name)
    if bd:
        parts.append(bd)
        said.append(f"blessing {bd}")
    for e in extra or ():
        parts.append(e)
        said.append(e)
    if bonus not in (None, 0, ""):
        b = str(bonus)
        parse(b)  # a bad bonus is the keeper's typo: refuse it clearly
        parts.append(b if b[0] in "+-" else "+" + b)
        said.append(f"bonus {b}")
    expr = parts[0] + "".join(p if p[0] in "+-" else "+" + p for p in parts[1:])
    return parse(expr).text, said


def use_focus(ctx: Ctx, who: str, c: dict, skill: str | None) -> None:
    """The rogue's Focus: grit for +D6 on a roll already using a skill."""
    if c.get("class_id") is None:
        ctx.refuse(f"{who} has no grit to focus with")
    abilities = ctx.rules.class_(c["class_id"]).get("abilities", {})
    if "focus" not in abilities:
        ctx.refuse(f"{who} ({c['class_name']}) has no Focus")
    if skill is None or skill not in c["skills"]:
        ctx.refuse(f"Focus adds to a roll already using a skill; {who} is not using one")
    for res, n in data_items(abilities["focus"].get("cost", {})):
        ctx.spend(who, res, n, "Focus")


def take_focus(ctx: Ctx, who: str, c: dict, skill: str | None, focus: bool) -> bool:
    """Whether this roll gets Focus's +D6: paid now (``focus=True``), or a ``focus`` condition from
    ``use`` is spent on this roll, the next one using a skill."""
    if focus:
        use_focus(ctx, who, c, skill)
        return True
    if skill and skill_bonus(ctx, c, skill) and ctx.conditions(who, "focus"):
        ctx.end_conditions(lambda x: not (x["who"] == who and x["kind"] == "focus"), f"{who} focused a roll")
        return True
    return False


@command("check")
def check(ctx: Ctx, who: str, skill: str | None = None, target: int | None = None, vs: str | None = None,
          vs_skill: str | None = None, bonus=None, vs_bonus=None, advantage: bool = False, focus: bool = False,
          save: bool = False, why: str | None = None) -> None:
    """A check (D20 + skill bonus meets or beats a target), a save, or an opposed check."""
    if target is None and vs is None:
        ctx.refuse("a check needs a target number or an opponent")
    if target is not None and vs is not None:
        ctx.refuse("a check is against a target number or an opponent, not both")
    c = ctx.require_able(who, "make a check")
    sid = skill_id(ctx, c, skill)
    focus = take_focus(ctx, who, c, sid, focus)
    expr, said = d20_expr(ctx, who, c, sid, advantage=advantage, bonus=bonus, focus=focus)
    label = why or ("save" if save else "check") + (f" ({skill})" if skill else "")
    r = ctx.roll("check", expr, who=who, why=label)
    out = {"who": who, "skill": sid, "save": save, "why": label, "expr": expr, "total": r.total}
    if target is not None:
        success = r.total >= target
        out.update(target=target, success=success, chance=str(odds(expr, target=target)))
    else:
        if vs in ctx.state["delvers"] or (ctx.state["encounter"] and vs in ctx.state["encounter"]["foes"]):
            oc = ctx.require_able(vs, "oppose a check")
            osid = skill_id(ctx, oc, vs_skill)
            oexpr, _ = d20_expr(ctx, vs, oc, osid, bonus=vs_bonus)
            opponent = vs
        else:
            try:
                oexpr = parse(vs).text  # an opposed roll of given dice (a foe the keeper plays by hand)
            except ValueError:
                ctx.refuse(f"{vs!r} is neither someone here nor dice to oppose with")
            opponent = "keeper"
        o = ctx.roll("opposed", oexpr, who=opponent, why=f"opposes {who}")
        result = "win" if r.total > o.total else "tie" if r.total == o.total else "lose"
        chances = odds(expr, vs=oexpr)
        out.update(vs=vs, vs_expr=oexpr, vs_total=o.total, result=result,
                   success=result == "win",  # on a tie the defender holds unless the keeper says otherwise
                   chance=str(chances.win), tie_chance=str(chances.tie))
    ctx.out(**out)
    ctx.end_on_action(who, "check")


@command("roll")
def plain_roll(ctx: Ctx, expr: str, who: str | None = None, why: str | None = None) -> None:
    """Any roll the table wants recorded (a loot table, a wandering monster, a D66 name)."""
    r = ctx.roll("roll", expr, who=who or "keeper", why=why)
    ctx.out(who=who or "keeper", why=why, expr=r.expr, total=r.total)


@command("death_save")
def death_save(ctx: Ctx, who: str) -> None:
    """A delver left below 1 heart rolls D6: 6 or higher defies death, and lives at 0 hearts."""
    d = ctx.delver(who)
    if d["status"] != STATUS_DYING:
        ctx.refuse(f"{who} has no death save to make ({who} is {d['status']})")
    resolve_death_save(ctx, who, d, why="death save")


def resolve_death_save(ctx: Ctx, who: str, d: dict, why: str) -> None:
    rule = ctx.core["death_save"]
    r = ctx.roll("death_save", str(rule["die"]), who=who, why=why)
    success = r.total >= rule["target"]
    if success:
        ctx.set(["delvers", who, "status"], STATUS_ALIVE)
        ctx.set(["delvers", who, "hearts"], rule["success_hearts"])
        ctx.set(["delvers", who, "died_at"], None)
    else:
        ctx.set(["delvers", who, "status"], STATUS_DEAD)
        ctx.set(["delvers", who, "died_at"], ctx.state["clock"])
        ctx.end_conditions(lambda c: c["who"] != who, f"{who} died")
    ctx.out(who=who, total=r.total, target=rule["target"], success=success,
            chance=str(odds(str(rule["die"]), target=rule["target"])))
