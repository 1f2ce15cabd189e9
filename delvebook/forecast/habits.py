"""How this party plays, learned from its own fights: the forecast's policy fitted to the campaign's log.

``learn(camp)`` walks the log (``walk.py``) and fits each choice the policy makes to what the table did:

- **when it leaves a fight**: the rule "once N of its delvers are down, or once a standing one is below a share s
  of its hearts" (N from 1 to the party's size or never, s by 5 points or never) that agrees with the most
  fights: a fight agrees when the rule would not have left at any action the party stayed for, and, if the party
  left with foes standing, would have left when it did. Ties go to the simpler rule (never, then N alone, then s
  alone), and among shares that agree as often, to the middle one;
- **whom the foes and the delvers attack**: the named rule (``policy.FOE_TARGETS``, ``DELVER_TARGETS``) under
  which the targets chosen were likeliest, a rule followed with ``walk.EPSILON`` of picks off it, or ``random``;
- **luck**: whether the table spent luck dice on a failed death save when any were at hand, how often, and
  whether the other players chipped in; how often it spent one against a foe's hit on a delver, and on a delver's
  missed attack (the documented default spends none there).

A choice rests on enough of the log or keeps the documented default (``Policy()``) and says so: ``MIN_FIGHTS``
finished fights for leaving (and for anything at all), ``MIN_ATTACKS`` attacks with a choice of target per side,
``MIN_SAVES`` failed death saves with luck at hand. ``Habits.describe()`` says each in words with what it rests on
("This party leaves a fight once one of its delvers is down: 31 of 34 fights."), ``Habits.policy()`` is the policy
the forecast plays by. ``held_out(walk)`` fits the habits once per session on every other session's fights (what the
calibration scores them with: fitting and scoring on the same fights would flatter the fit).

Standard library only.
"""

from __future__ import annotations

import weakref
from typing import Any, Iterable, Mapping, NamedTuple, Sequence

from .policy import DELVER_TARGET_KEYS, DELVER_TARGET_WORDS, FOE_TARGET_KEYS, FOE_TARGET_WORDS, Policy, retreat_words
from .walk import FightRecord, Walk, Walker, walk

__all__ = ["Habits", "Choice", "learn", "policy_named", "fit", "held_out", "MIN_FIGHTS", "MIN_ATTACKS", "MIN_SAVES",
           "SHARES"]

MIN_FIGHTS = 10
"""Finished fights the habits need: with fewer, the forecast plays by the documented default."""
MIN_ATTACKS = 20
"""Attacks with a choice of target a side needs before its rule for whom to attack is learned."""
MIN_SAVES = 5
"""Failed death saves with a luck die at hand needed before how the table spends luck on them is learned."""
SHARES = tuple(round(0.05 * k, 2) for k in range(1, 20))
"""The shares of a delver's hearts tried for leaving a fight: 5%, 10% ... 95%."""
MOSTLY = 0.9
"""A table that spends luck on at least this share of the failed death saves it could is taken to always do."""


class Choice(NamedTuple):
    """One choice of the policy as learned: its ``value`` (what the policy is given), whether it was ``learned``
    (False: the documented default kept), how many of the times it rests on agree with it (``agree`` of ``of``),
    and the choice in ``words``."""

    name: str
    value: Any
    learned: bool
    agree: float
    of: float
    words: str


# ---------------------------------------------------------------- tallies: what the fit adds up, fight by fight

def _retreat_rules(most_down: int) -> list[tuple]:
    """Every rule for leaving tried, simplest first: never; N down; below a share; both."""
    downs = list(range(1, max(1, most_down) + 1))
    return ([(None, None)] + [(n, None) for n in downs] + [(None, s) for s in SHARES]
            + [(n, s) for n in downs for s in SHARES])


def _agrees(r: FightRecord, down: int | None, below: float | None) -> bool:
    def leaves(n_down: int, low: float) -> bool:
        return (down is not None and n_down >= down) or (below is not None and low < below)
    if leaves(r.stay_down, r.stay_low):  # the rule would have left while the party stayed
        return False
    return leaves(r.end_down, r.end_low) if r.outcome == "left" else True


def _tally(r: FightRecord, rules: Sequence[tuple]) -> dict:
    """One finished fight's part of every sum the fit reads."""
    t: dict = {"fights": 1}
    for rule in rules:
        if _agrees(r, *rule):
            t[("leave",) + rule] = 1
    for side, got in r.targets.items():
        t[(side, "n")] = got["n"]
        for rule, v in got["share"].items():
            t[(side, "share", rule)] = v
        for rule, v in got["ll"].items():
            t[(side, "ll", rule)] = v
    for roll, (n, spent) in r.luck_rolls.items():
        t[("rolls", roll)] = n
        t[("rolls spent", roll)] = spent
    for total, own, table, dice, others in r.saves:
        at = "own" if own > 0 else "table"  # whose luck was at hand: the delver's own player's, or only others'
        t[("saves", at)] = t.get(("saves", at), 0) + 1
        t[("spent", at)] = t.get(("spent", at), 0) + (dice > 0)
        t["pooled"] = t.get("pooled", 0) + (others > 0)
    return t


def _add(into: dict, t: Mapping, sign: int = 1) -> dict:
    for k, v in t.items():
        into[k] = into.get(k, 0) + sign * v
    return into


# ---------------------------------------------------------------- the fit

class Habits:
    """How a party plays, as learned from ``fights`` finished fights of its campaign (see the module):
    ``choices`` by name (``leaving``, ``foes' targets``, ``delvers' targets``, ``luck``), ``learned`` (whether any
    differs from what the documented default would play), ``policy()`` and ``describe()``."""

    def __init__(self, fights: int, choices: Mapping[str, Choice]):
        self.fights = fights
        self.choices = dict(choices)

    @property
    def enough(self) -> bool:
        """Whether there were fights enough to learn from at all (``MIN_FIGHTS``)."""
        return self.fights >= MIN_FIGHTS

    def policy(self) -> Policy:
        """The forecast's policy with every learned choice set (the rest as documented)."""
        c = {k: ch.value for k, ch in self.choices.items()}
        luck = c.get("luck") or {}
        down, below = c.get("leaving") or (None, None)
        return Policy(c.get("foes' targets") or "fewest_hearts",
                      delver_target=c.get("delvers' targets") or "likeliest_drop",
                      luck=luck.get("luck", True), luck_chance=luck.get("chance", 1.0),
                      pool_luck=luck.get("pool", False), luck_on_hits=c.get("luck hit") or 0.0,
                      luck_on_misses=c.get("luck miss") or 0.0, retreat_when_down=down, retreat_below=below)

    @property
    def learned(self) -> bool:
        """Whether the learned policy plays differently from the documented default."""
        return repr(self.policy()) != repr(Policy())

    @property
    def retreats(self) -> bool:
        """Whether the party, as learned, leaves fights (the default never does)."""
        down, below = self.choices["leaving"].value if "leaving" in self.choices else (None, None)
        return down is not None or below is not None

    def describe(self) -> list[str]:
        """The habits in a keeper's words, one choice a line, each with what it rests on."""
        if not self.enough:
            have = ("no finished fight" if not self.fights else
                    f"only {_fights(self.fights).replace(' ', ' finished ', 1)}")
            return [f"This campaign has {have} yet; the forecast learns how a party plays from {MIN_FIGHTS}, so it "
                    "plays by the documented default."]
        return [c.words for c in self.choices.values()]

    def __repr__(self) -> str:
        return f"<Habits from {self.fights} fights: {self.policy()!r}>"


def _fights(n: float) -> str:
    n = int(n)
    return f"{n:,} fight{'s' if n != 1 else ''}"


def _fit_leaving(t: Mapping, rules: Sequence[tuple], n: int) -> Choice:
    scores = [(t.get(("leave",) + rule, 0), i) for i, rule in enumerate(rules)]
    top = max(s for s, _ in scores)
    first = min(i for s, i in scores if s == top)
    down, below = rules[first]
    if below is not None:  # among the shares that agree as often (with the same N), the middle one
        equal = [r[1] for s, r in zip((s for s, _ in scores), rules) if s == top and r[0] == down and r[1] is not None]
        below = equal[(len(equal) - 1) // 2]
    words = retreat_words(down, below, "This party", "leaves a fight")
    return Choice("leaving", (down, below), (down, below) != (None, None), top, n,
                  f"{words[:-1]}: {int(top):,} of {_fights(n)}.")


def _fit_targets(t: Mapping, side: str, keys: Mapping, words: Mapping, default: str) -> Choice:
    n = t.get((side, "n"), 0)
    who = "Its foes attack" if side == "foes" else "Its delvers attack"
    attacks = f"{int(n):,} attack{'s' if n != 1 else ''} with a choice of target"
    if n < MIN_ATTACKS:
        return Choice(f"{side}' targets", default, False, 0, n,
                      f"{who} {words[default]}, as the documented default says: {attacks} are too few to learn "
                      f"from ({MIN_ATTACKS} needed).")
    best = max(keys, key=lambda rule: (t.get((side, "ll", rule), float("-inf")), rule == default))
    matched = t.get((side, "share", best), 0)
    if best == "random":
        rival = max((r for r in keys if r != "random"), key=lambda rule: t.get((side, "share", rule), 0))
        said = (f"{who} {words['random']}: no rule names the choice better ({words[rival].replace('the ', '', 1)} "
                f"matched {round(t.get((side, 'share', rival), 0)):,} of {attacks}, chance alone {round(matched):,}).")
    else:
        said = (f"{who} {words[best]}: {round(matched):,} of {attacks} (chance alone: "
                f"{round(t.get((side, 'share', 'random'), 0)):,}).")
    return Choice(f"{side}' targets", best, best != default, matched, n, said)


def _fit_luck(t: Mapping) -> Choice:
    """Luck on a failed death save: spent or not, how often, and by the delver's own player or the whole table
    (pooled when others spent on at least half the saves luck lifted; then a save with only others' dice at hand
    counts too)."""
    own, table = t.get(("saves", "own"), 0), t.get(("saves", "table"), 0)
    spent_own, spent_table, pooled = t.get(("spent", "own"), 0), t.get(("spent", "table"), 0), t.get("pooled", 0)
    spent = spent_own + spent_table
    pool = spent > 0 and pooled * 2 >= spent
    saves, spent = (own + table, spent) if pool else (own, spent_own)
    default = {"luck": True, "chance": 1.0, "pool": False}
    if saves < MIN_SAVES:
        return Choice("luck", default, False, 0, saves,
                      f"Luck dice on a failed death save: spent by its player while any are left, as the documented "
                      f"default says: too few failed death saves with a luck die at hand to learn from ({int(saves)}; "
                      f"{MIN_SAVES} needed).")
    share = spent / saves
    chance = 1.0 if share >= MOSTLY else round(share, 2)
    value = {"luck": spent > 0, "chance": chance if spent else 1.0, "pool": pool}
    if not spent:
        said = f"Luck dice on a failed death save: never spent, in {int(saves)} failed saves with a luck die at hand."
    else:
        said = (f"Luck dice on a failed death save: spent on {int(spent)} of {int(saves)} with a luck die at hand"
                + (", by any player at the table" if pool else " (the delver's own player's)") + ".")
    return Choice("luck", value, value != default, spent, saves, said)


def _fit_luck_rolls(t: Mapping, roll: str) -> Choice:
    n, spent = t.get(("rolls", roll), 0), t.get(("rolls spent", roll), 0)
    what = ("against a foe's hit on a delver" if roll == "hit" else "on a delver's missed attack")
    rolls = "foes' hits on a delver" if roll == "hit" else "delvers' missed attacks"
    if n < MIN_ATTACKS:
        return Choice(f"luck {roll}", 0.0, False, 0, n,
                      f"Luck dice {what}: none, as the documented default says: {int(n)} {rolls} with a luck die at "
                      f"the table are too few to learn from ({MIN_ATTACKS} needed).")
    share = round(spent / n, 2)
    return Choice(f"luck {roll}", share, share > 0, spent, n,
                  f"Luck dice {what}: spent on {int(spent):,} of {int(n):,} {rolls} with a luck die at the table.")


def _fit(t: Mapping, rules: Sequence[tuple]) -> Habits:
    n = t.get("fights", 0)
    choices = {"leaving": _fit_leaving(t, rules, n) if n >= MIN_FIGHTS else
               Choice("leaving", (None, None), False, 0, n, "")}
    choices["foes' targets"] = _fit_targets(t, "foes", FOE_TARGET_KEYS, FOE_TARGET_WORDS, "fewest_hearts")
    choices["delvers' targets"] = _fit_targets(t, "party", DELVER_TARGET_KEYS, DELVER_TARGET_WORDS, "likeliest_drop")
    choices["luck"] = _fit_luck(t)
    choices["luck hit"] = _fit_luck_rolls(t, "hit")
    choices["luck miss"] = _fit_luck_rolls(t, "miss")
    if n < MIN_FIGHTS:  # too little to learn anything from: the documented default, said so
        choices = {k: Choice(k, _DEFAULTS[k], False, 0, c.of, c.words) for k, c in choices.items()}
    return Habits(int(n), choices)


_DEFAULTS = {"leaving": (None, None), "foes' targets": "fewest_hearts", "delvers' targets": "likeliest_drop",
             "luck": {"luck": True, "chance": 1.0, "pool": False}, "luck hit": 0.0, "luck miss": 0.0}


def _most_down(records: Iterable[FightRecord]) -> int:
    return min(6, max([len(r.party) for r in records] + [1]))


def fit(records: Sequence[FightRecord]) -> Habits:
    """The habits the finished fights among ``records`` show (see the module)."""
    done = [r for r in records if r.outcome is not None]
    rules = _retreat_rules(_most_down(done))
    total: dict = {}
    for r in done:
        _add(total, _tally(r, rules))
    return _fit(total, rules)


def held_out(w: Walk) -> dict[Any, Habits]:
    """For each session with a finished fight, the habits fitted on every other session's finished fights."""
    done = w.finished
    rules = _retreat_rules(_most_down(done))
    total: dict = {}
    by_session: dict[Any, dict] = {}
    for r in done:
        t = _tally(r, rules)
        _add(total, t)
        _add(by_session.setdefault(r.session, {}), t)
    return {s: _fit(_add(dict(total), part, -1), rules) for s, part in by_session.items()}


_MEMO: "weakref.WeakKeyDictionary[Any, tuple]" = weakref.WeakKeyDictionary()


def learn(camp) -> Habits:
    """How ``camp``'s party plays, learned from its log (a Campaign: its ``setup``, ``events``, ``rules``); kept
    for the log as it stands, and its walk kept open, so the habits after a few more events (an undo included) cost
    those events, not the whole log again."""
    events = camp.events
    key = (len(events), events[-1]["seq"] if events else 0)
    try:
        memo = _MEMO.get(camp)
    except TypeError:  # not weakly referable: learned each time
        return fit(walk(camp).fights)
    if memo is None or memo[0] != key:
        walker = memo[2] if memo is not None and memo[2].follows(events) else Walker(camp)
        memo = (key, fit(walker.feed(events).result().fights), walker)
        _MEMO[camp] = memo
    return memo[1]


def policy_named(camp, policy: Any) -> Policy:
    """The policy a forecast of ``camp`` plays by: ``None`` or ``"habits"``: how its party plays (``learn``);
    ``"default"``: the documented default; a ``Policy``: itself."""
    if policy is None or policy == "habits":
        return learn(camp).policy()
    if policy == "default":
        return Policy()
    if isinstance(policy, Policy):
        return policy
    raise ValueError(f"a policy is 'habits' (how this party plays), 'default' or a forecast.Policy, not {policy!r}")
