"""A speed trick of the forecast's, kept apart from the plain path it shortens (``fight.Plain``) and held to it by a
differential test (tests/test_forecast_quick.py: the same fights from the same seeds, the same states).

``Quick`` plays a simulated fight as ``Plain`` does, but plans each attack once a fight: an attack's plan (the
weapon, the dice it rolls, the target's resist roll, whether it may be countered) is a question of the rules and the
two sheets, the same every time the same attacker strikes the same target the same way while no condition is in
play and the fight is lit. The plan is kept by (attacker, target, arguments) and used again while that holds, when
it spends nothing and rides no class option (nothing in it is changed by rolling it); the refusals that read the
state now (the attacker able, the target living, whose turn it is) are made every time. Anything else (a condition
in play, darkness, a keeper's override, an argument the policy does not give) is played by ``engine.play``.
What it rests on: with no condition in play, the hooks that shape a plan (``effects``: edges, modifiers, sight, roll
bonuses, skill boosts) are silent, and a fight changes no sheet's weapons, skills or class; a hook added that reads
anything else while no condition is in play would need its key here (the differential test plays random fights).

Worth it while bench/danger.py shows it: the bell tower's attacks ask the rules the same question some thirty times
a fight.

Standard library only.
"""

from __future__ import annotations

import random

from ..engine import play
from ..engine.base import Play
from ..engine.combat import attack_sides, prepare_attack, resolve_attack
from ..engine.queries import weapon_of
from ..engine.turns import take
from .fight import Plain

__all__ = ["Quick"]

_ARGS = frozenset(("attacker", "target", "weapon", "dodge"))
"""The arguments of an attack a policy gives (``Policy.delver_turn``, ``foe_turn``): any other takes the plain path."""


class Quick(Plain):
    """``Plain``, with each attack planned once a forecast (see the module). ``plans``: the plans kept, shared by the
    fights of one forecast (they all begin from the same sheets)."""

    def __init__(self, state: dict, rules, rng: random.Random, plans: dict | None = None):
        super().__init__(state, rules, rng)
        self._plans = {} if plans is None else plans

    def do(self, kind: str, args: dict) -> None:
        if kind != "attack" or not _ARGS.issuperset(args):
            self._last = (kind, args, play(self.state, self.rules, kind, args, self.rng))
            return
        ctx = Play(self.state, self.rules, self.rng, kind, args)
        try:
            _attack(ctx, self._plans, **args)
        except BaseException:
            ctx.rollback()
            raise
        self._last = (kind, args, ctx)


def _attack(ctx: Play, plans: dict, attacker: str, target: str, weapon=None, dodge=None) -> None:
    """``combat.attack`` with the plan kept (what ``engine.play`` runs for ``attack`` with these arguments)."""
    state = ctx.state
    plan = None
    if not state["conditions"] and not state["encounter"].get("dark"):
        key = (attacker, target, weapon, dodge)
        plan = plans.get(key)
        if plan is None:
            plan = _plan(ctx, attacker, target, weapon, dodge)
            if not plan.options and not plan.spends:
                plans[key] = plan
        else:  # the refusals that read the state now, then the plan aimed at this fight's sheets
            _, a, _, t = attack_sides(ctx, attacker, target)
            plan.a, plan.t, plan.weapon = a, t, weapon_of(ctx, attacker, a, weapon)
    else:
        plan = _plan(ctx, attacker, target, weapon, dodge)
    take(ctx, attacker, plan.timing, f"attack {target}")
    resolve_attack(ctx, plan)


def _plan(ctx: Play, attacker: str, target: str, weapon, dodge):
    """The plan as ``combat.attack`` makes it from these arguments (its defaults: no advantage, no max damage)."""
    return prepare_attack(ctx, attacker, target, weapon, advantage=False, max_damage=False, dodge=dodge)
