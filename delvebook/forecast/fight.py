"""One simulated fight, played by the engine's own commands in the engine's turn order.

The fight asks the policy what each combatant does when its turn comes (``current_actor`` after ``initiative`` and
each ``next_turn``), runs the deed through the engine, makes the death saves the deed left owing at once (with the
policy's luck dice, spent as ``decide_luck`` spends them), and stops when one side is gone, the party retreats, or
the round cap is reached. Two tables can play it: ``Plain`` plays each command on a plain state (``engine.play``:
nothing recorded, the forecast's fast path) and ``Recorded`` through a campaign (decided, logged, applied: what the
cross-checks and the bench compare against). With the same dice they play the same fight.

Standard library only.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from ..core.dice import LuckDie
from ..engine import Refused, play
from ..engine.queries import death_save, luck_die_sides, luck_sign_refused
from ..core.model import PARTY, STATUS_ALIVE, STATUS_DEAD, STATUS_DYING, current_actor
from .policy import Act, FightView, Policy

__all__ = ["WON", "WIPED", "FLED", "STALEMATE", "OUTCOMES", "FightResult", "Plain", "Recorded", "play_fight",
           "fight_turns", "MAX_ROUNDS"]

WON, WIPED, FLED, STALEMATE = "won", "wiped", "fled", "stalemate"
OUTCOMES = (WON, WIPED, FLED, STALEMATE)
"""How a fight ends: every foe vanquished; every delver dead; the party retreated; the round cap reached with both
sides standing (neither can hurt the other, say)."""

MAX_ROUNDS = 100


class FightResult(NamedTuple):
    """One fight's outcome and rounds; per delver in the party's order: whether it dropped below 1 heart (a death
    save to make) at some point, whether it died, its hearts at the end and the XP it earned (a win's award); the
    luck dice spent, and the acts the rules refused (each cost its actor the turn)."""

    outcome: str
    rounds: int
    dropped: tuple
    died: tuple
    hearts: tuple
    xp: tuple
    luck_spent: int
    refused: int


class Plain:
    """Plays commands on a plain state with ``engine.play``: the fast path (no event, no log, no copies)."""

    def __init__(self, state: dict, rules, rng: random.Random):
        self.state = state
        self.rules = rules
        self.rng = rng
        self._last = None  # the latest command (kind, args, its Play context), for a luck die on its roll

    def do(self, kind: str, args: dict) -> None:
        self._last = (kind, args, self._play(kind, args))

    def _play(self, kind: str, args: dict, recorded: dict | None = None, extra_luck: dict | None = None):
        """The command played on the state (``engine.play``), its context returned."""
        return play(self.state, self.rules, kind, args, self.rng, recorded=recorded, extra_luck=extra_luck)

    def luck(self, player: str, roll: str, sign: int = 1) -> None:
        """``player`` spends a luck die (``sign``: +1 added, -1 subtracted) on ``roll`` of the latest command: it is
        played again with the same faces and the die, which costs the player one (``Engine.decide_luck``'s way)."""
        kind, args, ctx = self._last
        sides = luck_die_sides(self.rules)
        luck = LuckDie(sides, self.rng.randrange(sides) + 1, sign, player)
        recorded = {k: r.to_dict() for k, r in ctx.roll_objects.items()}
        ctx.rollback()
        try:
            ctx = self._play(kind, args, recorded, {roll: [luck]})
        except Refused:  # the command stands as it was rolled
            self._last = (kind, args, self._play(kind, args, recorded))
            raise
        self._last = (kind, args, ctx)

    def roll_total(self, roll: str) -> int:
        return self._last[2].roll_objects[roll].total


class Recorded:
    """Plays commands through a campaign (``Campaign.act`` and ``spend_luck``: decided, logged, applied)."""

    def __init__(self, camp):
        self.camp = camp
        self.rules = camp.rules

    @property
    def state(self) -> dict:
        return self.camp.state

    @property
    def rng(self) -> random.Random:
        return self.camp.rng

    def do(self, kind: str, args: dict) -> None:
        self._last = self.camp.act(kind, **args)

    def luck(self, player: str, roll: str, sign: int = 1) -> None:
        self._last = self.camp.spend_luck(player, sign, roll=roll)

    def roll_total(self, roll: str) -> int:
        return self._last["rolls"][roll]["total"]


def play_fight(table, policy: Policy, cache: dict | None = None, max_rounds: int = MAX_ROUNDS) -> FightResult:
    """Play the fight on ``table`` (begun: the encounter started; initiative rolled or not) to its end."""
    turns = fight_turns(table, policy, cache, max_rounds)
    while True:
        try:
            next(turns)
        except StopIteration as end:
            return end.value


def fight_turns(table, policy: Policy, cache: dict | None = None, max_rounds: int = MAX_ROUNDS):
    """``play_fight`` a turn at a time: a generator that pauses after every turn (a forecast played in slices
    between a table's messages stops or goes on there, however many foes the fight holds) and returns the
    ``FightResult``."""
    state = table.state
    view = FightView(state, table.rules, table.rng, cache)
    enc = state["encounter"]
    if enc["side"] is None:
        first = policy.initiative(view)
        table.do("initiative", {} if first is None else {"first": first})
        enc = state["encounter"]
    party = list(enc["order"][PARTY])
    delvers = state["delvers"]
    sheets = [delvers[n] for n in party]  # (a fight changes a delver's sheet in place, never replaces it)
    xp_before = [d["xp"] for d in sheets]
    dropped = [False] * len(party)
    luck_spent = refused = 0
    needed = death_save(state, table.rules).target
    outcome = None
    while True:
        enc = state["encounter"]
        foes = enc["foes"]
        if _all_dead(foes.values()):
            outcome = WON
            break
        if _all_dead(sheets):
            outcome = WIPED
            break
        if enc["round"] > max_rounds:
            outcome = STALEMATE
            break
        actor = current_actor(state)
        act: Act | None = None
        if actor is not None:
            if policy.retreat(view):  # asked before every turn: the party leaves once its habit says so
                outcome = FLED
                break
            d = delvers.get(actor)
            if d is not None:
                if d["status"] == STATUS_DYING:
                    act = Act("death_save", {"who": actor})
                elif d["status"] == STATUS_ALIVE:
                    act = policy.delver_turn(view, actor)
            elif foes[actor]["status"] == STATUS_ALIVE:
                act = policy.foe_turn(view, actor)
        if act is not None:
            try:
                if act.kind == "death_save":
                    luck_spent += _death_save(table, policy, view, act.args["who"], needed)
                elif act.kind == "attack" and (policy.luck_on_hits or policy.luck_on_misses):
                    struck = view.combatant(act.args["target"])
                    before = (struck["hearts"], struck["status"])
                    table.do(act.kind, act.args)
                    luck_spent += _luck_on_attack(table, policy, view, act.args, before)
                else:
                    table.do(act.kind, act.args)
            except Refused:
                refused += 1
        for i, d in enumerate(sheets):  # a delver the deed left below 1 heart makes its death save at once
            if d["status"] == STATUS_DYING:
                dropped[i] = True
                luck_spent += _death_save(table, policy, view, party[i], needed)
        table.do("next_turn", {})
        yield
    rounds = state["encounter"]["round"]
    died = tuple(delvers[n]["status"] == STATUS_DEAD for n in party)
    if outcome == WON:
        table.do("end_encounter", {})
        delvers = table.state["delvers"]
        xp = tuple(delvers[n]["xp"] - b for n, b in zip(party, xp_before))
    else:
        xp = (0,) * len(party)
    hearts = tuple(delvers[n]["hearts"] if delvers[n]["status"] != STATUS_DEAD else 0 for n in party)
    return FightResult(outcome, rounds, tuple(dropped), died, hearts, xp, luck_spent, refused)


def _all_dead(combatants) -> bool:
    """Every one of them dead (asked twice a turn: a loop, without a generator's frame)."""
    for c in combatants:
        if c["status"] != STATUS_DEAD:
            return False
    return True


def _luck_on_attack(table, policy: Policy, view: FightView, args: dict, before: tuple) -> int:
    """A luck die against a foe's attack that harmed a delver (-), or on a delver's attack that did its target no
    harm (+), as the policy spends them; ``before``: the target's (hearts, status) before the attack. Returns how
    many it spent (0 or 1)."""
    attacker, target = args["attacker"], args["target"]
    struck = view.combatant(target)
    harmed = (struck["hearts"], struck["status"]) != before
    delvers = table.state["delvers"]
    if attacker in delvers:
        player = None if harmed else policy.luck_on_miss(view, attacker, target)
        sign = 1
    else:
        player = policy.luck_against_hit(view, attacker, target) if harmed and target in delvers else None
        sign = -1
    if player is None or luck_sign_refused(table.rules, sign):
        return 0
    try:
        table.luck(player, "attack", sign)
    except Refused:  # the attack stands as it was rolled
        return 0
    return 1


def _death_save(table, policy: Policy, view: FightView, who: str, needed: int) -> int:
    """``who``'s death save, lifted by the luck dice the policy spends; returns how many it spent."""
    table.do("death_save", {"who": who})
    spent = 0
    delvers = table.state["delvers"]
    while delvers[who]["status"] == STATUS_DEAD and table.rules.core["luck_dice"]["may_add"]:
        player = policy.luck_on_death_save(view, who, table.roll_total("death_save"), needed)
        if player is None or view.luck(player) < 1:
            break
        table.luck(player, "death_save")
        delvers = table.state["delvers"]
        spent += 1
    return spent
