"""What the keeper says of the scene: whether a fight is in darkness, who moved this turn, a trap that springs.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from ..core.declared import Action, Chance, field
from ..core.distribution import odds
from ..core.model import combatant
from ..core.names import name_problem
from ..core.records import Damage
from ..core.roles import KEEPER
from .base import Ctx, command
from .combat import deal_damage
from .queries import save_roll, skill_id

__all__ = ["moved", "lighting", "trap", "Moved", "Lighting", "Trap"]


def _fight(ctx: Ctx) -> dict:
    enc = ctx.state["encounter"]
    if enc is None:
        ctx.refuse("no fight is running")
    return enc


class Moved(Action, kind="moved", actor="who"):
    """A delver moved this turn."""

    who: str


@command(Moved)
def moved(ctx: Ctx, who: str) -> None:
    """A delver moved this turn (what the text's Bows specialty asks: 'if you do not move that turn'); it lasts
    until its next turn. Moving is free: it uses no action."""
    enc = _fight(ctx)
    if enc["side"] is None:
        ctx.refuse("roll initiative (or say who goes first) before taking turns")
    ctx.require_able(who, "move")
    if ctx.conditions(who, "moved"):
        ctx.refuse(f"{who} has already moved this turn")
    ctx.add_condition("moved", who, who, ends_on=f"turn:{who}")
    ctx.out(who=who)


class Lighting(Action, kind="lighting"):
    """The fight is now dark, or lit."""

    dark: bool


@command(Lighting)
def lighting(ctx: Ctx, dark: bool) -> None:
    """The keeper says whether the fight is in darkness (a torch goes out, a lantern is lit); a Light in play lights
    it whatever is said here (``core.sight.light_ends_darkness``)."""
    enc = _fight(ctx)
    if not isinstance(dark, bool):
        ctx.refuse(f"dark is true or false, not {dark!r}")
    if bool(enc.get("dark")) == dark:
        ctx.refuse(f"the fight is already {'dark' if dark else 'lit'}")
    ctx.set(["encounter", "dark"], dark)
    ctx.out(dark=dark)


class Trap(Action, kind="trap", targets=("who",)):
    """A trap springs on ``who``: its save (the skill, the roll, its total against the target and the chance to
    avoid it) and, failed, the trap's damage, credited to the trap."""

    who: str
    trap: str
    skill: str | None
    expr: str
    total: int
    target: int = field(column="target_number")
    success: bool
    chance: Chance
    damage: list[Damage] = ()


@command(Trap)
def trap(ctx: Ctx, who: str, target: int, name: str = "a trap", damage: str = "2d6", skill: str | None = None,
         armor: bool = True) -> None:
    """A trap springs on ``who``: a save (the save's die, and the skill the keeper names) that must meet or beat
    ``target``; failed, the trap's ``damage`` is rolled and dealt, credited to the trap (``name``: a hazard, not
    anyone here). Armor absorbs it as any incoming damage (the text: 'Armor reduces incoming damage') unless the
    keeper says this trap slips past it (``armor=False``: a poisoned needle). The keeper calls the save: it uses
    no action."""
    if isinstance(target, bool) or not isinstance(target, int):
        ctx.refuse(f"the save's target is a whole number, not {target!r}")
    problem = name_problem(name, "a trap's name")
    if problem:
        ctx.refuse(problem)
    if name == KEEPER or combatant(ctx.state, name) is not None:
        ctx.refuse(f"{name!r} is someone here: a trap is named for what it is (a falling block, a poisoned needle)")
    c = ctx.require_able(who, "save against a trap")
    sid = skill_id(ctx, c, skill)
    plan = save_roll(ctx, who, c, sid)
    for spend in plan.spends:
        spend(ctx)
    r = ctx.roll("check", plan.expr, who=who, why=f"save against {name}")
    saved = r.total >= target
    out = {"who": who, "trap": name, "skill": sid, "expr": plan.expr, "total": r.total, "target": target,
           "success": saved, "chance": str(odds(plan.expr, target=target))}
    if not saved:
        hurt = ctx.roll("damage", damage, who=KEEPER, why=f"{name}'s damage")
        out["damage"] = [deal_damage(ctx, who, hurt.total, name, by=name, armor=armor)]
    ctx.out(**out)
    ctx.end_on_action(who, "check")
