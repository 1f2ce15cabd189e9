"""How the simulated table plays a fight: a written policy, one method per decision, that a keeper can read,
change (its knobs) or replace (a subclass overriding any method).

The defaults (``Policy()``; ``Policy().describe()`` says them in words):

- initiative is rolled (each side a D6, ties re-rolled, as the engine rolls it);
- foes attack the standing delver with the fewest hearts (ties: the earlier in the party's order); when no delver
  stands, the dying one with the fewest hearts. Other named rules: ``most_hearts``, ``first`` (the party's order:
  the front rank) and ``random``;
- a delver attacks, with its first weapon, the foe it can most likely drop with this attack (ties: the foe with
  the fewest hearts, then the likelier hit);
- a delver left below 1 heart makes its death save at once, and its player spends luck dice on a failed one, one
  at a time, while any are left (``pool_luck=True``: the other players chip in once the delver's own are gone);
- below a third of its hearts, a delver spends grit: Second Wind as its action if it has it and the grit (2), and
  a Dodge against a foe's blow if it has Dodge and the grit (1);
- the party never retreats (``retreat_when_down=N``: it leaves the fight once N delvers are down).

A decision returns an ``Act`` (a command of the engine and its arguments), a name, a flag or None; the fight runs
every act through the engine's own commands, in the engine's turn order, so the rules decide what it does. An act
the rules refuse costs the actor its turn (the forecast counts them).

Standard library only (the policy reads the state through ``engine.queries`` and ``model``).
"""

from __future__ import annotations

import random
from typing import Any, Callable, Mapping, NamedTuple

from ..core.distribution import distribution
from ..engine import Reader, Refused
from ..engine.queries import ability_available, armor_in, plan_attack
from ..core.dice import parse
from ..core.model import FOES, PARTY, STATUS_ALIVE, STATUS_DYING

__all__ = ["Act", "FightView", "Policy", "FOE_TARGETS"]


class Act(NamedTuple):
    """One deed for the engine: its command (``attack``, ``use``, ``cast``...) and the command's arguments."""

    kind: str
    args: dict


class FightView:
    """The fight as a policy sees it: the state and the rules (to read, never to change), the fight's dice (for a
    random choice: the same seed plays the same fight), and the questions a decision asks, answered by the rules.
    """

    def __init__(self, state: dict, rules, rng: random.Random, cache: dict | None = None):
        self.state = state
        self.rules = rules
        self.rng = rng
        self._cache = {} if cache is None else cache  # attack shapes by (attacker, target, conditions in play)
        self._reader = Reader(state, rules)  # the rules' questions read the live state through it

    # ---- who is here
    @property
    def party(self) -> list[str]:
        """The delvers in this fight, in the party's order."""
        return list(self.state["encounter"]["order"][PARTY])

    @property
    def foes(self) -> list[str]:
        """The foes in this fight, in the foes' order."""
        return list(self.state["encounter"]["order"][FOES])

    def combatant(self, name: str) -> Mapping:
        d = self.state["delvers"].get(name)
        return d if d is not None else self.state["encounter"]["foes"][name]

    def standing(self, side: str) -> list[str]:
        """Who on ``side`` (``"party"`` or ``"foes"``) is up and able to act, in order."""
        enc = self.state["encounter"]
        return [n for n in enc["order"][side] if self.combatant(n)["status"] == STATUS_ALIVE]

    def dying(self) -> list[str]:
        """Delvers of this fight below 1 heart with a death save to make."""
        return [n for n in self.party if self.state["delvers"][n]["status"] == STATUS_DYING]

    def hearts(self, name: str) -> int:
        return self.combatant(name)["hearts"]

    def max_hearts(self, name: str) -> int:
        return self.combatant(name)["max_hearts"]

    def status(self, name: str) -> str:
        return self.combatant(name)["status"]

    def luck(self, player: str) -> int:
        """Luck dice ``player`` has left this session."""
        return self.state["luck"].get(player, 0)

    def can_use(self, who: str, ability: str) -> bool:
        """Whether delver ``who`` is up, has ``ability`` now (its level and specialty) and can pay for it, as
        ``engine.queries.ability_available`` says."""
        d = self.state["delvers"].get(who)
        if d is None or d["status"] != STATUS_ALIVE:
            return False
        a = ability_available(self.state, self.rules, who, ability)
        return a is not None and a.affordable

    # ---- what an attack can do
    def _shape(self, attacker: str, target: str) -> tuple | None:
        """(chance the attack lands, P(damage >= k) by k, attacks in it) for ``attacker``'s plain attack on
        ``target`` as the rules shape it now; None when there is no such attack."""
        conds = self.state["conditions"]
        key = (attacker, target, tuple((c["kind"], c["who"], c["source"], repr(c["data"])) for c in conds)
               if conds else ())
        shape = self._cache.get(key, False)
        if shape is not False:
            return shape
        try:
            plan = plan_attack(self._reader, attacker, target)
        except Refused:
            shape = None
        else:
            chance = distribution(plan.expr).opposed(distribution(plan.resist))
            w = plan.weapon
            parts = [str(w["damage"])] + [str(x) for x in plan.extra_damage]
            if w.get("bonus"):
                parts.append(str(w["bonus"]))
            dmg = distribution(parse("+".join(p.lstrip("+") for p in parts)).text)
            if plan.max_damage:
                survival = [1.0] * (dmg.max + 1)
            else:
                survival, run = [], 1.0
                probs = {k: float(v) / dmg.total for k, v in dmg.items()}
                for k in range(dmg.max + 1):
                    survival.append(max(0.0, run))
                    run -= probs.get(k, 0.0)
            shape = (float(chance.win + chance.tie), survival, plan.n)
        self._cache[key] = shape
        return shape

    def hit_chance(self, attacker: str, target: str) -> float:
        """The chance ``attacker``'s attack lands on ``target`` (it wins, or ties: both hit)."""
        shape = self._shape(attacker, target)
        return 0.0 if shape is None else shape[0]

    def drop_chance(self, attacker: str, target: str) -> float:
        """The chance one attack by ``attacker`` leaves ``target`` below 1 heart now (its intact armor counted; a
        multi-attack's attacks counted as if each rolled alone)."""
        shape = self._shape(attacker, target)
        if shape is None:
            return 0.0
        p_hit, survival, n = shape
        t = self.combatant(target)
        av = armor_in(self._reader, target, t)[0]
        need = max(1, t["hearts"]) + av
        one = p_hit * (survival[need] if need < len(survival) else 0.0)
        return 1.0 - (1.0 - one) ** n if n > 1 else one


# ---------------------------------------------------------------- foes' targets

def _fewest_hearts(fight: FightView, foe: str, targets: list[str]) -> str:
    return min(targets, key=fight.hearts)


def _most_hearts(fight: FightView, foe: str, targets: list[str]) -> str:
    return max(targets, key=fight.hearts)


def _first(fight: FightView, foe: str, targets: list[str]) -> str:
    return targets[0]


def _random(fight: FightView, foe: str, targets: list[str]) -> str:
    return targets[fight.rng.randrange(len(targets))]


FOE_TARGETS: dict[str, Callable[[FightView, str, list], str]] = {
    "fewest_hearts": _fewest_hearts,
    "most_hearts": _most_hearts,
    "first": _first,
    "random": _random,
}
"""Named rules for whom a foe attacks, among the delvers it can reach (ties: the earlier in the party's order)."""

_FOE_TARGET_WORDS = {"fewest_hearts": "the standing delver with the fewest hearts",
                     "most_hearts": "the standing delver with the most hearts",
                     "first": "the first standing delver in the party's order (the front rank)",
                     "random": "a standing delver at random"}


# ---------------------------------------------------------------- the policy

class Policy:
    """How the simulated table plays a fight (see the module's docstring for the defaults, or ``describe()``).

    ``foe_target``: a name in ``FOE_TARGETS``; ``grit_below``: the share of its hearts below which a delver spends
    grit (Second Wind, Dodge; 0 never); ``luck``: players spend luck dice on a failed death save; ``pool_luck``:
    the whole table does; ``retreat_when_down``: the party leaves once this many delvers are down (None never).
    Subclass and override any decision for a table of your own. A decision reads the fight it is shown (and its
    ``rng`` for a random choice), never what it kept from another fight: fights are played by several processes,
    in blocks, and the same seed must give the same forecast."""

    def __init__(self, foe_target: str = "fewest_hearts", *, grit_below: float = 1 / 3, luck: bool = True,
                 pool_luck: bool = False, retreat_when_down: int | None = None):
        if foe_target not in FOE_TARGETS:
            raise ValueError(f"no foe target rule {foe_target!r} (the rules: {', '.join(FOE_TARGETS)})")
        self.foe_target_rule = foe_target
        self.grit_below = float(grit_below)
        self.luck = bool(luck)
        self.pool_luck = bool(pool_luck)
        self.retreat_when_down = retreat_when_down

    # ---- the fight
    def initiative(self, fight: FightView) -> str | None:
        """Who goes first: None rolls initiative (the engine's D6 a side); ``"party"`` or ``"foes"`` says so."""
        return None

    def retreat(self, fight: FightView) -> bool:
        """Whether the party leaves the fight now (asked at the start of each delver's turn)."""
        n = self.retreat_when_down
        if n is None:
            return False
        down = sum(1 for name in fight.party if fight.status(name) != STATUS_ALIVE)
        return down >= n

    # ---- a delver's turn
    def delver_turn(self, fight: FightView, who: str) -> Act | None:
        """``who``'s action this turn: Second Wind when it should, else an attack on its chosen foe."""
        if self.second_wind(fight, who):
            return Act("use", {"who": who, "ability": "second_wind"})
        target = self.delver_target(fight, who)
        if target is None:
            return None
        args: dict[str, Any] = {"attacker": who, "target": target}
        weapon = self.weapon(fight, who, target)
        if weapon is not None:
            args["weapon"] = weapon
        return Act("attack", args)

    def _low(self, fight: FightView, who: str) -> bool:
        return fight.hearts(who) < fight.max_hearts(who) * self.grit_below

    def second_wind(self, fight: FightView, who: str) -> bool:
        """Spend the action and 2 grit on Second Wind: below a third of its hearts, if it has it."""
        return self._low(fight, who) and fight.can_use(who, "second_wind")

    def delver_target(self, fight: FightView, who: str) -> str | None:
        """The standing foe ``who`` can most likely drop with this attack (ties: fewest hearts, likelier hit)."""
        foes = fight.standing(FOES)
        if len(foes) < 2:  # nothing to choose
            return foes[0] if foes else None
        best, best_key = None, None
        for f in foes:
            hit = fight.hit_chance(who, f)
            key = (fight.drop_chance(who, f) if hit else 0.0, -fight.hearts(f), hit)
            if best_key is None or key > best_key:
                best, best_key = f, key
        return best

    def weapon(self, fight: FightView, who: str, target: str) -> Any:
        """The weapon ``who`` attacks with (None: its first, as the engine picks)."""
        return None

    # ---- a foe's turn
    def foe_turn(self, fight: FightView, foe: str) -> Act | None:
        """``foe`` attacks its chosen delver; the delver Dodges if it should."""
        target = self.foe_target(fight, foe)
        if target is None:
            return None
        args: dict[str, Any] = {"attacker": foe, "target": target}
        if self.dodge(fight, target, foe):
            args["dodge"] = True
        return Act("attack", args)

    def foe_target(self, fight: FightView, foe: str) -> str | None:
        """Whom ``foe`` attacks, by the named rule, among the standing delvers (or the dying when none stands)."""
        targets = fight.standing(PARTY) or fight.dying()
        if not targets:
            return None
        return FOE_TARGETS[self.foe_target_rule](fight, foe, targets)

    def dodge(self, fight: FightView, who: str, attacker: str) -> bool:
        """Spend 1 grit on a Dodge against ``attacker``'s blow: below a third of its hearts, if it has Dodge."""
        return self._low(fight, who) and fight.can_use(who, "dodge")

    # ---- death
    def luck_on_death_save(self, fight: FightView, who: str, total: int, needed: int) -> str | None:
        """The player who spends a luck die (+) on ``who``'s failed death save (``total`` against ``needed``), or
        None to let it stand: the delver's own player while it has any, then (``pool_luck``) the others."""
        if not self.luck:
            return None
        own = fight.state["delvers"][who]["player"]
        if fight.luck(own) > 0:
            return own
        if self.pool_luck:
            for name in fight.party:
                p = fight.state["delvers"][name]["player"]
                if fight.luck(p) > 0:
                    return p
        return None

    # ---- in words
    def describe(self) -> list[str]:
        """The policy in a keeper's words, one decision a line."""
        low = f"below {_share(self.grit_below)} of its hearts" if self.grit_below > 0 else None
        lines = [
            "Initiative is rolled (a D6 a side, ties re-rolled).",
            f"Foes attack {_FOE_TARGET_WORDS[self.foe_target_rule]} (when none stands, the dying one with the "
            "fewest hearts).",
            "A delver attacks, with its first weapon, the foe it can most likely drop with this attack.",
            ("A delver below 1 heart makes its death save at once; " +
             ("its player spends luck dice on a failed one while any are left" +
              (", then the rest of the table does." if self.pool_luck else ".") if self.luck
              else "no luck dice are spent on it.")),
            (f"{low[0].upper() + low[1:]}, a delver spends grit: Second Wind as its action, a Dodge against a blow."
             if low else "No grit is spent."),
            ("The party never retreats." if self.retreat_when_down is None else
             f"The party retreats once {self.retreat_when_down} of its delvers are down."),
        ]
        if type(self) is not Policy:
            lines.append(f"Decisions overridden by {type(self).__name__}: "
                         + (", ".join(_overridden(type(self))) or "none") + ".")
        return lines

    def __repr__(self) -> str:
        return (f"Policy(foe_target={self.foe_target_rule!r}, grit_below={self.grit_below:.3g}, luck={self.luck}, "
                f"pool_luck={self.pool_luck}, retreat_when_down={self.retreat_when_down})")


def _share(x: float) -> str:
    for n, word in ((2, "a half"), (3, "a third"), (4, "a quarter"), (5, "a fifth")):
        if abs(x - 1 / n) < 1e-9:
            return word
    return f"{x:.0%}"


_DECISIONS = ("initiative", "retreat", "delver_turn", "second_wind", "delver_target", "weapon", "foe_turn",
              "foe_target", "dodge", "luck_on_death_save")


def _overridden(cls: type) -> list[str]:
    return [d for d in _DECISIONS if getattr(cls, d) is not getattr(Policy, d)]
