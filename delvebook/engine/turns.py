"""The turn economy of a fight: each combatant has its action on its turn.

A command says what its deed is (``ACTION``: an attack, a spell, Bless, Sentry, a reload; ``FREE``: taken on
one's own turn without an action, Sprint and Hide; ``REACTION``: at any moment, a Sentry's attacks, a Dodge,
a Commander's order; or a companion's slot in its owner's turn, the Holy Weapon's sword) and ``take`` refuses
it out of turn or past the action, naming whose turn it is, unless the keeper overrides (then the refusal is
waived and written on the event). The question itself is ``queries.may_act`` / ``queries.turn_problem``, the
one a view asks. Outside a fight there is no turn economy.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from .base import Ctx
from .queries import ACTION, FREE, REACTION, acting_problem, may_act

__all__ = ["ACTION", "FREE", "REACTION", "take"]


def take(ctx: Ctx, who: str, timing: str, what: str) -> None:
    """``who`` does ``what`` (of ``timing``) now: refused out of turn or past its action (unless the keeper
    overrides); on its turn the action (or the companion's slot) is marked used for this turn."""
    if timing == REACTION:
        return
    acting = may_act(ctx.state, ctx.rules, who)
    problem = acting_problem(acting, who, timing, what)  # queries.turn_problem, asked once
    if problem is not None:
        ctx.refuse_unless_overridden(problem)
        return  # the keeper's call: the deed stands outside the turn economy, nothing is marked
    if timing == FREE:
        return
    if not acting.tracked:
        return
    used = acting.used  # (``may_act``'s own copy, made for this question: marked here, then set)
    key, n = timing, 2
    while key in used:
        key = f"{timing}#{n}"
        n += 1
    used[key] = what
    if "used" in ctx.state["encounter"]:
        ctx.set(["encounter", "used", who], used)
    else:  # a fight begun before turns were tracked
        ctx.set(["encounter", "used"], {who: used})
