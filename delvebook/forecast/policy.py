"""How the simulated table plays a fight: a written policy, one method per decision, that a keeper can read,
change (its knobs) or replace (a subclass overriding any method).

The defaults (``Policy()``; ``Policy().describe()`` says them in words):

- initiative is rolled (each side a D6, ties re-rolled, as the engine rolls it);
- foes attack the standing delver with the fewest hearts (ties: the earlier in the party's order); when no delver
  stands, the dying one with the fewest hearts. Other named rules (``FOE_TARGETS``): ``most_hearts``, ``first``
  (the party's order: the front rank) and ``random``;
- a delver attacks, with its first weapon, the foe it can most likely drop with this attack (ties: the foe with
  the fewest hearts, then the likelier hit). Other named rules (``DELVER_TARGETS``): ``fewest_hearts``,
  ``most_hearts``, ``first`` (the foes' order) and ``random``;
- a delver left below 1 heart makes its death save at once, and its player spends luck dice on a failed one, one
  at a time, while any are left (``pool_luck=True``: the other players chip in once the delver's own are gone;
  ``luck_chance``: the share of such dice a table actually spends, 1 by default); no luck dice on other rolls
  (``luck_on_hits``: the share of foes' hits on a delver its player subtracts one from; ``luck_on_misses``: the
  share of a delver's missed attacks its player adds one to);
- below a third of its hearts, a delver spends grit: Second Wind as its action if it has it and the grit (2), and
  a Dodge against a foe's blow if it has Dodge and the grit (1);
- the party never retreats (``retreat_when_down=N``: it leaves the fight once N delvers are down;
  ``retreat_below=s``: once a standing delver is below that share of its hearts; asked before every turn).

``habits.learn`` sets these knobs from a campaign's own fights (how that party plays); ``Policy()`` is the
documented default the forecast falls back on.

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

__all__ = ["Act", "FightView", "Policy", "FOE_TARGETS", "DELVER_TARGETS", "FOE_TARGET_KEYS",
           "DELVER_TARGET_KEYS", "FOE_TARGET_WORDS", "DELVER_TARGET_WORDS", "pick", "ties", "retreat_words"]


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
        sheets = self.state["delvers"] if side == PARTY else enc["foes"]
        return [n for n in enc["order"][side] if sheets[n]["status"] == STATUS_ALIVE]

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

    def drop_chance(self, attacker: str, target: str, shape: tuple | None | bool = False) -> float:
        """The chance one attack by ``attacker`` leaves ``target`` below 1 heart now (its intact armor counted; a
        multi-attack's attacks counted as if each rolled alone). ``shape``: the attack's, when the caller has it."""
        if shape is False:
            shape = self._shape(attacker, target)
        if shape is None:
            return 0.0
        p_hit, survival, n = shape
        t = self.combatant(target)
        av = armor_in(self._reader, target, t)[0]
        need = max(1, t["hearts"]) + av
        one = p_hit * (survival[need] if need < len(survival) else 0.0)
        return 1.0 - (1.0 - one) ** n if n > 1 else one


# ---------------------------------------------------------------- whom to attack

# A named rule for whom to attack is a key: the target is the candidate with the highest key (ties: the earlier in
# its side's order); ``random`` has none. The same keys tell ``habits`` which targets each rule would have picked.

def _fewer_hearts(fight: FightView, attacker: str, target: str) -> Any:
    return -fight.hearts(target)


def _more_hearts(fight: FightView, attacker: str, target: str) -> Any:
    return fight.hearts(target)


def _likeliest_drop(fight: FightView, attacker: str, target: str) -> Any:
    shape = fight._shape(attacker, target)
    hit = 0.0 if shape is None else shape[0]
    return (fight.drop_chance(attacker, target, shape) if hit else 0.0, -fight.hearts(target), hit)


TargetKey = Callable[[FightView, str, str], Any]

FOE_TARGET_KEYS: dict[str, TargetKey | None] = {"fewest_hearts": _fewer_hearts, "most_hearts": _more_hearts,
                                                "first": None, "random": None}
DELVER_TARGET_KEYS: dict[str, TargetKey | None] = {"likeliest_drop": _likeliest_drop, "fewest_hearts": _fewer_hearts,
                                                   "most_hearts": _more_hearts, "first": None, "random": None}
"""The named rules for whom a foe (a delver) attacks, each a key (None: ``first`` and ``random``, read off the
order)."""


def pick(rule: str, keys: Mapping[str, TargetKey | None], fight: FightView, attacker: str, targets: list[str]) -> str:
    """The target ``rule`` picks among ``targets`` (in their side's order)."""
    if rule == "random":
        return targets[fight.rng.randrange(len(targets))]
    key = keys[rule]
    if key is None or len(targets) < 2:
        return targets[0]
    best, best_key = targets[0], key(fight, attacker, targets[0])
    for t in targets[1:]:
        k = key(fight, attacker, t)
        if k > best_key:
            best, best_key = t, k
    return best


def ties(rule: str, keys: Mapping[str, TargetKey | None], fight: FightView, attacker: str,
         targets: list[str]) -> list[str] | None:
    """Every target ``rule`` could pick among ``targets``, its best equals (None for ``random``: any of them)."""
    if rule == "random":
        return None
    key = keys[rule]
    if key is None:
        return targets[:1]
    scored = [(key(fight, attacker, t), t) for t in targets]
    top = max(k for k, _ in scored)
    return [t for k, t in scored if k == top]


FOE_TARGETS: dict[str, Callable[[FightView, str, list], str]] = {
    rule: (lambda rule: lambda fight, foe, targets: pick(rule, FOE_TARGET_KEYS, fight, foe, targets))(rule)
    for rule in FOE_TARGET_KEYS}
"""Named rules for whom a foe attacks, among the delvers it can reach (ties: the earlier in the party's order)."""

DELVER_TARGETS: dict[str, Callable[[FightView, str, list], str]] = {
    rule: (lambda rule: lambda fight, who, targets: pick(rule, DELVER_TARGET_KEYS, fight, who, targets))(rule)
    for rule in DELVER_TARGET_KEYS}
"""Named rules for whom a delver attacks, among the standing foes (ties: the earlier in the foes' order)."""

FOE_TARGET_WORDS = {"fewest_hearts": "the standing delver with the fewest hearts",
                    "most_hearts": "the standing delver with the most hearts",
                    "first": "the first standing delver in the party's order (the front rank)",
                    "random": "a standing delver at random"}
DELVER_TARGET_WORDS = {"likeliest_drop": "the foe it can most likely drop with this attack",
                       "fewest_hearts": "the standing foe with the fewest hearts",
                       "most_hearts": "the standing foe with the most hearts",
                       "first": "the first standing foe in the foes' order",
                       "random": "a standing foe at random"}


# ---------------------------------------------------------------- the policy

class Policy:
    """How the simulated table plays a fight (see the module's docstring for the defaults, or ``describe()``).

    ``foe_target``: a name in ``FOE_TARGETS``; ``grit_below``: the share of its hearts below which a delver spends
    grit (Second Wind, Dodge; 0 never); ``luck``: players spend luck dice on a failed death save; ``pool_luck``:
    the whole table does; ``retreat_when_down``: the party leaves once this many delvers are down (None never).
    Subclass and override any decision for a table of your own. A decision reads the fight it is shown (and its
    ``rng`` for a random choice), never what it kept from another fight: fights are played by several processes,
    in blocks, and the same seed must give the same forecast."""

    def __init__(self, foe_target: str = "fewest_hearts", *, delver_target: str = "likeliest_drop",
                 grit_below: float = 1 / 3, luck: bool = True, luck_chance: float = 1.0, pool_luck: bool = False,
                 luck_on_hits: float = 0.0, luck_on_misses: float = 0.0, retreat_when_down: int | None = None,
                 retreat_below: float | None = None):
        if foe_target not in FOE_TARGETS:
            raise ValueError(f"no foe target rule {foe_target!r} (the rules: {', '.join(FOE_TARGETS)})")
        if delver_target not in DELVER_TARGETS:
            raise ValueError(f"no delver target rule {delver_target!r} (the rules: {', '.join(DELVER_TARGETS)})")
        for name, share in (("luck_chance", luck_chance), ("luck_on_hits", luck_on_hits),
                            ("luck_on_misses", luck_on_misses)):
            if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 <= share <= 1:
                raise ValueError(f"{name} is a share from 0 to 1, not {share!r}")
        if retreat_when_down is not None and (isinstance(retreat_when_down, bool) or
                                              not isinstance(retreat_when_down, int) or retreat_when_down < 1):
            raise ValueError(f"retreat_when_down is a whole number of delvers (at least 1) or None, not "
                             f"{retreat_when_down!r}")
        if retreat_below is not None and not 0 < retreat_below <= 1:
            raise ValueError(f"retreat_below is a share of a delver's hearts above 0 and at most 1, or None, not "
                             f"{retreat_below!r}")
        self.foe_target_rule = foe_target
        self.delver_target_rule = delver_target
        self.grit_below = float(grit_below)
        self.luck = bool(luck)
        self.luck_chance = float(luck_chance)
        self.pool_luck = bool(pool_luck)
        self.luck_on_hits = float(luck_on_hits)
        self.luck_on_misses = float(luck_on_misses)
        self.retreat_when_down = retreat_when_down
        self.retreat_below = None if retreat_below is None else float(retreat_below)

    # ---- the fight
    def initiative(self, fight: FightView) -> str | None:
        """Who goes first: None rolls initiative (the engine's D6 a side); ``"party"`` or ``"foes"`` says so."""
        return None

    def retreat(self, fight: FightView) -> bool:
        """Whether the party leaves the fight now (asked before every turn, whichever side's): once
        ``retreat_when_down`` of its delvers are down (below 1 heart: dying, dead, or saved at 0 hearts), or a
        standing one is below ``retreat_below`` of its hearts."""
        n, share = self.retreat_when_down, self.retreat_below
        if n is None and share is None:
            return False
        down = 0
        for name in fight.party:
            hearts = fight.hearts(name)
            if hearts < 1 or fight.status(name) != STATUS_ALIVE:  # down: dying, dead, or saved at 0 hearts
                down += 1
            elif share is not None and hearts < share * fight.max_hearts(name):
                return True
        return n is not None and down >= n

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
        """The standing foe ``who`` attacks, by the named rule (by default the one it can most likely drop with
        this attack; ties: fewest hearts, likelier hit)."""
        foes = fight.standing(FOES)
        if not foes:
            return None
        return DELVER_TARGETS[self.delver_target_rule](fight, who, foes)

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
        return self._luck_of(fight, who, self.luck_chance) if self.luck else None

    def _luck_of(self, fight: FightView, who: str, chance: float) -> str | None:
        """The player who spends a luck die for delver ``who``, with ``chance``: its own player while it has any,
        then (``pool_luck``) another; None to let the roll stand."""
        if chance <= 0 or (chance < 1 and fight.rng.random() >= chance):
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

    def luck_against_hit(self, fight: FightView, foe: str, target: str) -> str | None:
        """The player who subtracts a luck die from ``foe``'s attack roll that harmed delver ``target`` (a share
        ``luck_on_hits`` of such blows; none by default), or None."""
        return self._luck_of(fight, target, self.luck_on_hits)

    def luck_on_miss(self, fight: FightView, who: str, target: str) -> str | None:
        """The player who adds a luck die to delver ``who``'s attack roll that did its target no harm (a share
        ``luck_on_misses`` of such attacks; none by default), or None."""
        return self._luck_of(fight, who, self.luck_on_misses)

    # ---- in words
    def describe(self) -> list[str]:
        """The policy in a keeper's words, one decision a line."""
        low = f"below {_share(self.grit_below)} of its hearts" if self.grit_below > 0 else None
        chance = "" if self.luck_chance >= 1 else f" ({_pct(self.luck_chance)} of the time)"
        lines = [
            "Initiative is rolled (a D6 a side, ties re-rolled).",
            f"Foes attack {FOE_TARGET_WORDS[self.foe_target_rule]} (when none stands, the dying one with the "
            "fewest hearts).",
            f"A delver attacks, with its first weapon, {DELVER_TARGET_WORDS[self.delver_target_rule]}.",
            ("A delver below 1 heart makes its death save at once; " +
             (f"its player spends luck dice on a failed one while any are left{chance}" +
              (", then the rest of the table does." if self.pool_luck else ".") if self.luck
              else "no luck dice are spent on it.")),
            (f"{low[0].upper() + low[1:]}, a delver spends grit: Second Wind as its action, a Dodge against a blow."
             if low else "No grit is spent."),
            *([f"Luck dice against a foe's hit on a delver: {_pct(self.luck_on_hits)} of the time."]
              if self.luck_on_hits else []),
            *([f"Luck dice on a delver's missed attack: {_pct(self.luck_on_misses)} of the time."]
              if self.luck_on_misses else []),
            retreat_words(self.retreat_when_down, self.retreat_below),
        ]
        if type(self) is not Policy:
            lines.append(f"Decisions overridden by {type(self).__name__}: "
                         + (", ".join(_overridden(type(self))) or "none") + ".")
        return lines

    def __repr__(self) -> str:
        return (f"Policy(foe_target={self.foe_target_rule!r}, delver_target={self.delver_target_rule!r}, "
                f"grit_below={self.grit_below:.3g}, luck={self.luck}, luck_chance={self.luck_chance:.3g}, "
                f"pool_luck={self.pool_luck}, luck_on_hits={self.luck_on_hits:.3g}, "
                f"luck_on_misses={self.luck_on_misses:.3g}, retreat_when_down={self.retreat_when_down}, "
                f"retreat_below={self.retreat_below if self.retreat_below is None else round(self.retreat_below, 3)})")


def retreat_words(down: int | None, below: float | None, who: str = "The party", verb: str = "retreats") -> str:
    """When ``who`` leaves a fight, in words: 'The party never retreats.', 'The party retreats once 2 of its delvers
    are down.', '... once one of its delvers is down or one of them is below 40% of its hearts.'"""
    if down is None and below is None:
        return f"{who} never {verb}."
    parts = []
    if down is not None:
        parts.append("one of its delvers is down" if down == 1 else f"{down} of its delvers are down")
    if below is not None:
        parts.append(f"{'one of them' if parts else 'one of its delvers'} is below {_pct(below)} of its hearts")
    return f"{who} {verb} once {' or '.join(parts)}."


def _pct(x: float) -> str:
    return f"{x * 100:.0f}%"


def _share(x: float) -> str:
    for n, word in ((2, "a half"), (3, "a third"), (4, "a quarter"), (5, "a fifth")):
        if abs(x - 1 / n) < 1e-9:
            return word
    return f"{x:.0%}"


_DECISIONS = ("initiative", "retreat", "delver_turn", "second_wind", "delver_target", "weapon", "foe_turn",
              "foe_target", "dodge", "luck_on_death_save", "luck_against_hit", "luck_on_miss")


def _overridden(cls: type) -> list[str]:
    return [d for d in _DECISIONS if getattr(cls, d) is not getattr(Policy, d)]
