"""The forecast's speed tricks, kept apart from the plain path they shorten (``fight.Plain``) and held to it by a
differential test (tests/test_forecast_quick.py: the same fights from the same seeds, turn for turn the same states,
the same dice left in the stream).

``Quick`` plays a simulated fight as ``Plain`` does, with three shortcuts:

- each attack is planned once a forecast: an attack's plan (the weapon, the dice it rolls, the target's resist roll,
  whether it may be countered) is a question of the rules and the two sheets, the same every time the same attacker
  strikes the same target the same way while no condition is in play and the fight is lit. The plan is kept by
  (attacker, target, arguments) and used again while that holds, when it spends nothing and rides no class option
  (nothing in it is changed by rolling it); the refusals that read the state now (the attacker able, the target
  living, whose turn it is) are made every time, and a luck die's re-run of the attack uses the plan too. Anything
  else (a condition in play, darkness, a keeper's override, an argument the policy does not give) is played by
  ``engine.play``. What it rests on: with no condition in play, the hooks that shape a plan (``effects``: edges,
  modifiers, sight, roll bonuses, skill boosts) are silent, and a fight changes no sheet's weapons, skills or class;
  a hook added that reads anything else while no condition is in play would need its key here.
- the turn changes while no condition is in play (``_next_turn``): then nothing can end at a turn's change, and
  ``encounters.next_turn`` only moves to the next in line, so that is all it does here, on the state itself (5 us a
  turn against 17 us through ``engine.play``);
- the death saves while no condition is in play (``_Save``), and the luck dice spent on them: the save's die rolled
  as the rules give it, the delver saved at the rules' hearts or dead, each luck die charged to its player, and a
  luck die's re-run made from the roll itself (its dice and the new die) instead of the command played again from
  its record (a save 6 us against 17 us, a luck die on it 11 us against 30 us).

A change to whose turn comes next (``encounters``), to what a death save does (``checks.resolve_death_save``) or to how
luck dice are charged (``engine._charge_luck``) needs its twin here: the differential test plays random fights, and
parts at the first turn whose state differs.

Worth it while bench/danger.py shows it: the bell tower's attacks ask the rules the same question some thirty times
a fight, it changes turns as often, and makes some twenty death saves and luck dice (a simulated fight 2.66 ms with
the plain path's turns and saves, 1.98 ms with these, on the same machine in the same hour).

Standard library only.
"""

from __future__ import annotations

import random

from ..core.dice import LuckDie, parse
from ..core.model import FOES, PARTY, STATUS_ALIVE, STATUS_DEAD, STATUS_DYING, combatant
from ..engine import Refused, play, played
from ..engine.base import Play
from ..engine.combat import attack_sides, prepare_attack, resolve_attack
from ..engine.queries import death_save, luck_die_sides, weapon_of
from ..engine.turns import take
from .fight import Plain

__all__ = ["Quick"]

_ARGS = frozenset(("attacker", "target", "weapon", "dodge"))
"""The arguments of an attack a policy gives (``Policy.delver_turn``, ``foe_turn``): any other takes the plain path."""


class Quick(Plain):
    """``Plain``, with each attack planned once a forecast, and the turn changes and death saves made here while no
    condition is in play (see the module). ``plans``: the plans kept, shared by the
    fights of one forecast (they all begin from the same sheets)."""

    def __init__(self, state: dict, rules, rng: random.Random, plans: dict | None = None):
        super().__init__(state, rules, rng)
        self._plans = {} if plans is None else plans
        core = rules.core
        self._round_seconds = core["time"]["round_seconds"]
        rule = death_save(state, rules)
        self._save_die = parse(rule.die)
        self._save_rule = (rule.target, core["death_save"]["success_hearts"])
        self._luck_sides = luck_die_sides(rules)

    def do(self, kind: str, args: dict) -> None:
        if kind == "next_turn" and not args and _next_turn(self.state, self._round_seconds):
            self._last = None  # (no roll to spend a luck die on)
            return
        if kind == "death_save" and len(args) == 1 and not self.state["conditions"]:
            d = self.state["delvers"].get(args.get("who"))
            if d is not None and d["status"] == STATUS_DYING and not d.get("retired"):
                save = _Save(self.state, args["who"], self._save_die.roll(self.rng), self._save_rule)
                save.apply()
                self._last = (kind, args, save)
                return
        self._last = (kind, args, self._play(kind, args))

    def luck(self, player: str, roll: str, sign: int = 1) -> None:
        kind, args, last = self._last
        if last.__class__ is not _Save or roll != "death_save":
            return super().luck(player, roll, sign)
        sides = self._luck_sides
        die = LuckDie(sides, self.rng.randrange(sides) + 1, sign, player)
        last.rollback()
        save = _Save(self.state, last.who, last.roll.with_luck(sign, face=die.face, who=player, sides=sides),
                     self._save_rule)
        try:
            save.apply()
        except Refused:  # the save stands as it was rolled
            last.apply()
            raise
        self._last = (kind, args, save)

    def _play(self, kind: str, args: dict, recorded: dict | None = None, extra_luck: dict | None = None):
        if kind != "attack" or not _ARGS.issuperset(args):
            return play(self.state, self.rules, kind, args, self.rng, recorded=recorded, extra_luck=extra_luck)
        return played(Play(self.state, self.rules, self.rng, kind, args, recorded=recorded, extra_luck=extra_luck),
                      self._attack, args)

    def _attack(self, ctx: Play, **args) -> None:
        _attack(ctx, self._plans, **args)


class _Save:
    """A death save while no condition is in play (``checks.resolve_death_save``: meeting the target defies death at
    the rules' hearts, else the delver dies; nothing can end), its luck dice charged to their players as
    ``engine._charge_luck`` charges them. What the fight reads of it is a ``Play``'s: ``roll_objects``, ``rollback``."""

    __slots__ = ("state", "who", "roll", "rule", "_undo")

    def __init__(self, state: dict, who: str, roll, rule: tuple):
        self.state, self.who, self.roll, self.rule = state, who, roll, rule
        self._undo = None

    @property
    def roll_objects(self) -> dict:
        return {"death_save": self.roll}

    def apply(self) -> None:
        luck = self.state["luck"]
        spent: dict = {}
        for die in self.roll.luck:
            spent[die.who] = spent.get(die.who, 0) + 1
        for player, n in spent.items():
            have = luck.get(player)
            if have is None:
                raise Refused(f"{player!r} is not a player at this table")
            if have < n:
                raise Refused(f"{player} has no luck dice left this session")
        d = self.state["delvers"][self.who]
        self._undo = (d["status"], d["hearts"], d.get("died_at", _ABSENT), {p: luck[p] for p in spent})
        target, hearts = self.rule
        if self.roll.total >= target:
            d["status"], d["hearts"], d["died_at"] = STATUS_ALIVE, hearts, None
        else:
            d["status"], d["died_at"] = STATUS_DEAD, self.state["clock"]
        for player, n in spent.items():
            luck[player] -= n

    def rollback(self) -> None:
        d = self.state["delvers"][self.who]
        d["status"], d["hearts"], died_at, charged = self._undo
        if died_at is _ABSENT:
            del d["died_at"]
        else:
            d["died_at"] = died_at
        self.state["luck"].update(charged)


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


_ABSENT = object()
_ASK = object()
"""What ``_next_in`` answers where the plain path must (a name that is no one here, or has retired)."""


def _next_turn(state: dict, round_seconds) -> bool:
    """``encounters.next_turn`` while no condition is in play (nothing can end at a turn's change): the next in the
    side's order who has not acted this round and is not dead, else the other side's (a new round when the side
    that went first comes again). False, and nothing changed, where the plain path must answer (no fight, no
    initiative yet, a condition in play, a name in the order that is no one here or has retired)."""
    enc = state["encounter"]
    if enc is None or enc["side"] is None or state["conditions"]:
        return False
    side, orders, turn = enc["side"], enc["order"], enc["turn"]
    order = orders[side]
    actor = order[turn] if turn < len(order) else None
    acted = list(enc.get("acted", ()))
    if actor is not None and actor not in acted:
        acted.append(actor)
    rnd = enc["round"]
    nxt = _next_in(state, order, acted)
    for _ in range(2):
        if nxt is not None:
            break
        other = FOES if side == PARTY else PARTY
        if other == enc["first"]:
            rnd += 1
        side, acted = other, []
        nxt = _next_in(state, orders[side], acted)
    if nxt is _ASK:
        return False
    order = orders[side]
    enc["side"] = side
    enc["turn"] = order.index(nxt) if nxt is not None else len(order)
    enc["acted"] = acted
    if rnd != enc["round"]:
        enc["round"] = rnd
        state["clock"] += round_seconds
    if enc.get("used") or "used" not in enc:
        enc["used"] = {}
    return True


def _next_in(state: dict, order: list, acted: list):
    """``encounters._next_in``: the first in ``order`` yet to act who is not dead (None: no one), or ``_ASK`` where
    a name is no one here or has retired (the plain path refuses it, in words)."""
    for n in order:
        if n not in acted:
            found = combatant(state, n)
            if found is None or found[1].get("retired"):
                return _ASK
            if found[1]["status"] != STATUS_DEAD:
                return n
    return None
