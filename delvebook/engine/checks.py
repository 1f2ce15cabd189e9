"""Checks, saves, opposed checks, plain rolls and death saves."""

from __future__ import annotations

from typing import Any, Literal

from ..core.declared import Action, Chance, Record, field
from ..core.dice import parse
from ..core.distribution import odds
from ..core.model import STATUS_ALIVE, STATUS_DEAD, combatant, is_dying
from . import queries
from .base import Ctx, command
from .queries import d20_in, opposed_expr, save_roll, skill_id

__all__ = ["check", "plain_roll", "death_save", "resolve_death_save", "Checked", "Check", "PlainRoll", "DeathSave"]


def _opponent(event) -> str | None:
    """Who opposes a check: the one its opposed roll is rolled for (someone here, or the keeper rolling dice)."""
    rolls = event.get("rolls")
    opposed = rolls.get("opposed") if isinstance(rolls, dict) else None
    return opposed.get("who") if isinstance(opposed, dict) else None


class Checked(Record):
    """A check or a save rolled, wherever (a check, a Hide): who, with which skill, why, the roll and its total;
    against a ``target`` number (success, and the chance of it), or opposed by ``vs`` (someone here, or dice),
    whose roll and total it met (``result``: win, tie or lose; ``chance`` to win, ``tie_chance``)."""

    who: str
    skill: str | None
    save: bool
    why: str
    expr: str
    total: int
    target: int | None = field(None, column="target_number")
    success: bool
    chance: Chance
    vs: str | None = None
    vs_expr: str | None = None
    vs_total: int | None = None
    result: Literal["win", "tie", "lose"] | None = None
    tie_chance: Chance | None = None


class Check(Checked, Action, kind="check", actor="who", targets=(_opponent,)):
    """A check, a save or an opposed check (``Checked``)."""


@command(Check, options=("focus",))
def check(ctx: Ctx, who: str, skill: str | None = None, target: int | None = None, vs: str | None = None,
          vs_skill: str | None = None, bonus=None, vs_bonus=None, advantage: bool = False, save: bool = False,
          why: str | None = None, **options: Any) -> None:
    """A check (D20 + skill bonus meets or beats a target), a save, or an opposed check, by a delver, a foe or a
    named creature (an NPC), at any moment: the keeper calls for checks, so they use no action
    (``core.turns.checks``). ``options`` are what a class brings to a roll using a skill (``focus=True``)."""
    if target is None and vs is None:
        ctx.refuse("a check needs a target number or an opponent")
    if target is not None and vs is not None:
        ctx.refuse("a check is against a target number or an opponent, not both")
    c = ctx.require_able(who, "make a check")
    sid = skill_id(ctx, c, skill)
    roll = (save_roll if save else d20_in)(ctx, who, c, sid, advantage=advantage, bonus=bonus, asked=options)
    for spend in roll.spends:
        spend(ctx)
    expr = roll.expr
    label = why or ("save" if save else "check") + (f" ({skill})" if skill else "")
    r = ctx.roll("check", expr, who=who, why=label)
    out = {"who": who, "skill": sid, "save": save, "why": label, "expr": expr, "total": r.total}
    if target is not None:
        success = r.total >= target
        out.update(target=target, success=success, chance=str(odds(expr, target=target)))
    else:
        if combatant(ctx.state, vs) is not None:  # a delver, a foe, or a named creature (an NPC)
            oc = ctx.require_able(vs, "oppose a check")
            oexpr = opposed_expr(ctx, vs, oc, vs_skill, vs_bonus)
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


class PlainRoll(Action, kind="roll", actor="who"):
    """Any roll the table wants recorded: who rolled, why, the dice and the total."""

    who: str
    why: str | None
    expr: str
    total: int


@command(PlainRoll)
def plain_roll(ctx: Ctx, expr: str, who: str | None = None, why: str | None = None) -> None:
    """Any roll the table wants recorded (a loot table, a wandering monster, a D66 name)."""
    r = ctx.roll("roll", expr, who=who or "keeper", why=why)
    ctx.out(who=who or "keeper", why=why, expr=r.expr, total=r.total)


class DeathSave(Action, kind="death_save", actor="who"):
    """A death save: its total against the number it needs, whether the delver defies death, and the chance."""

    who: str
    total: int
    target: int = field(column="target_number")
    success: bool
    chance: Chance


@command(DeathSave)
def death_save(ctx: Ctx, who: str) -> None:
    """A delver left below 1 heart rolls D6: 6 or higher defies death, and lives at 0 hearts."""
    d = ctx.delver(who)
    if not is_dying(d):
        ctx.refuse(f"{who} has no death save to make ({who} is {d['status']})")
    resolve_death_save(ctx, who, d, why="death save")


def resolve_death_save(ctx: Ctx, who: str, d: dict, why: str) -> None:
    """Roll the death save: meeting the target defies death (at the rules' hearts), else the delver dies."""
    rule = queries.death_save(ctx.state, ctx.rules)
    r = ctx.roll("death_save", rule.die, who=who, why=why)
    success = r.total >= rule.target
    if success:
        ctx.set(["delvers", who, "status"], STATUS_ALIVE)
        ctx.set(["delvers", who, "hearts"], ctx.core["death_save"]["success_hearts"])
        ctx.set(["delvers", who, "died_at"], None)
    else:
        ctx.set(["delvers", who, "status"], STATUS_DEAD)
        ctx.set(["delvers", who, "died_at"], ctx.state["clock"])
        ctx.end_conditions(lambda c: c["who"] != who, f"{who} died")
    ctx.out(who=who, total=r.total, target=rule.target, success=success, chance=str(rule.chance))
