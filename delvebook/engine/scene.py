"""What the keeper says of the scene of a fight: whether it is in darkness, and who moved this turn.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from .base import Ctx, command

__all__ = ["moved", "lighting"]


def _fight(ctx: Ctx) -> dict:
    enc = ctx.state["encounter"]
    if enc is None:
        ctx.refuse("no fight is running")
    return enc


@command("moved", actor="who")
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


@command("lighting")
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
