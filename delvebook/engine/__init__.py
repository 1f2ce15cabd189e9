"""Rule resolution: (state, intent, rng) -> event. No I/O.

``Engine.decide`` runs a command on the live state, records its rolls and changes, puts the state
back, and returns the event; ``Engine.apply`` folds an event in (the same path replay takes, so the
live state and a replayed log cannot drift apart). Luck dice and faces typed after the fact re-run
the latest action with the same faces plus the new ones, as an action that replaces it.

Every command declares the event it makes where it is registered (``@command(Event)``, ``core.declared``): its
fields and their types, its roles (``actor``, ``targets``, ``sides``; each damage or healing entry its dealer,
``by``) and its version. The engine writes the roles and the version on each event it decides; an event of an older
version is read in today's through its declaration's upcasters as it is folded (``Engine.apply``, and the replay of
a log: ``declared.upcast``).

``play`` runs a command on a plain state and keeps its changes with nothing recorded (a ``Play`` context): the
same rules for a simulation, without the event, the copies and the log (the danger forecast).

The package, one way down: ``base`` (Reader, Ctx, Play, Refused), ``effects`` (where class features plug in),
``queries`` (the questions views ask; the commands build their rolls with them), ``turns`` (the turn economy
the commands refuse by), then every other module of the package, each registering its commands as it is imported
(found, not listed: a new module of commands is one file), and ``abilities/`` (one module per class, found the same
way). A command is refused (``Refused``) only by a rule; any other exception is an error and propagates.

Any command takes ``keeper_override="why"``: the keeper ignores the table's rules of play for this action (the
turn economy, ammunition, reloading); each refusal it waived is written on the event (``keeper_override``:
reason and waived). A choice offered once a hit is seen (``on_hit_options``: a smite) is taken with
``decide_on_hit``: the attack re-run with its recorded dice and the choice, as an action that replaces it.

Standard library only: part of the pure core.
"""

from __future__ import annotations

import importlib
import pkgutil
import random
from typing import Any, Mapping

from ..core.declared import Event, upcast
from ..core.dice import DiceError, LuckDie
from ..core.events import apply_changes, revert
from ..core.events import History, REDO, Touched, UNDO, clone
from ..core.roles import fill
from ..core.rules import Rules
from ..core.rules.schema.bounds import MAX_WORDS, argument_problem, cut
from ..core.names import text_problem
from .base import COMMANDS, Ctx, Invalid, Overridable, Play, Reader, Refused, command
from .queries import coin_talons, luck_die_sides, luck_sign_refused

__all__ = ["Engine", "Refused", "Overridable", "Invalid", "Reader", "Play", "COMMANDS", "command", "play",
           "played", "refusal", "redecide", "Unrecorded", "OVERRIDE", "ASKED_BY", "Undo", "Redo"]

for _module in pkgutil.iter_modules(__path__):  # every module registers its commands as it is imported
    importlib.import_module(f"{__name__}.{_module.name}")


class Undo(Event, kind=UNDO):
    """The keeper takes back the latest action still in force (``undoes``, its seq, and its kind)."""

    undoes: int
    what: str


class Redo(Event, kind=REDO):
    """The keeper puts back the latest action undone (``redoes``, its seq, and its kind)."""

    redoes: int
    what: str


_RESERVED = {"seq", "kind", "v", "at", "session", "encounter", "args", "rolls", "changes", "replaces",
             "luck", "amended", "ts", "undoes", "redoes", "keeper_override", "on_hit", "actor", "targets", "sides",
             "asked_by"}
OVERRIDE = "keeper_override"
"""The argument any command takes for the keeper's override: a reason in words."""
ASKED_BY = "asked_by"
"""The field of an event a player asked for from their own device and the keeper accepted: ``{"player", "request"}``
(the campaign writes it as it records the event; the rules never read it)."""


class Engine:
    """The rules engine over one campaign's state."""

    def __init__(self, rules: Rules, setup: dict, events: list[dict] = (), *, history: History | None = None):
        """The engine after ``events`` folded over ``setup``; or, given ``history``, after what it has folded
        (a campaign folds its log as it reads it)."""
        # rules the engine cannot play are an error now, not at the first luck die or the first coin earned
        luck_die_sides(rules)
        coin_talons(rules)
        self.rules = rules
        self.setup = setup
        if history is None:
            history = History(clone(setup))
            for e in events:  # an event of an older version is read in today's (each sees the state before it)
                history.fold(upcast(e, history.state))
        self.history: History = history
        self._last_rolls: tuple | None = None  # (the event decided last, the Roll objects behind its records)
        self._luck_would: tuple = (None, {})  # (the latest action's seq, what luck dice on it would make of it)

    @property
    def state(self) -> dict:
        return self.history.state

    def apply(self, event: dict) -> Touched:
        """Fold ``event`` in (the path replay takes; an event of an older version is upcast in place first);
        returns what it touched."""
        return self.history.apply(upcast(event, self.history.state))

    # ---- deciding
    def _meta(self, version: int) -> dict:
        s = self.state
        enc = s["encounter"]
        meta = {"v": version, "at": s["clock"], "session": s["session"]["number"]}
        if enc is not None:
            meta["encounter"] = enc["number"]
            meta["round"] = enc["round"]
        return meta

    def _run(self, kind: str, args: dict, rng: random.Random, *, faces=None, recorded=None,
             extra_luck=None) -> Ctx:
        fn = COMMANDS.get(kind)
        if fn is None:
            raise Refused(f"there is no action {kind!r}")
        call, override = _split_override(args)
        _bind(kind, fn, call)  # a wrong argument is the caller's mistake: refused, naming it
        _bounded(kind, call)
        ctx = Ctx(self.state, self.rules, rng, kind, call, faces=faces, recorded=recorded, extra_luck=extra_luck)
        ctx.override = override
        try:
            fn(ctx, **call)
            ctx.check_faces_used()
            _charge_luck(ctx)
        finally:  # refused, or a programming error (which propagates as itself): nothing stays changed
            ctx.rollback()
        return ctx

    def _event(self, seq: int, kind: str, args: dict, ctx: Ctx, meta: dict, **extra: Any) -> dict:
        clash = _RESERVED & set(ctx.fields)
        if clash:  # a command's own words must not overwrite the event's frame
            raise ValueError(f"{kind} wrote reserved event fields: {sorted(clash)}")
        event = {"seq": seq, "kind": kind, **meta, "args": clone(args)}
        if ctx.rolls:
            event["rolls"] = ctx.rolls
        event.update(ctx.fields)
        if ctx.override is not None:
            event[OVERRIDE] = {"reason": ctx.override, "waived": list(ctx.waived)}
        event.update(extra)
        event["changes"] = ctx.changes
        fill(event, COMMANDS[kind].event.roles, self.state)  # (the state before the command: ctx rolled it back)
        self._last_rolls = (event, ctx.roll_objects)
        return event

    def rolls_of(self, event: dict) -> dict | None:
        """The ``Roll`` objects behind ``event``'s roll records, when it is the event this engine decided last
        (a view draws them without rebuilding each roll from its record); otherwise None."""
        last = self._last_rolls
        return dict(last[1]) if last is not None and last[0] is event else None

    def decide(self, kind: str, args: Mapping[str, Any], rng: random.Random, seq: int,
               faces: Mapping[str, Any] | None = None) -> dict:
        """The event that ``kind`` with ``args`` makes now (not yet applied)."""
        args = dict(args)
        fn = COMMANDS.get(kind)
        meta = self._meta(fn.event.class_version if fn is not None else 0)
        ctx = self._run(kind, args, rng, faces=faces)
        return self._event(seq, kind, args, ctx, meta)

    def _rerun_latest(self, rng: random.Random, seq: int, recorded: dict, *, faces=None, extra_luck=None,
                      args: Mapping | None = None, **extra) -> dict:
        target = self.history.latest_action()
        entry = self.history.done[-1]
        args = dict(target["args"] if args is None else args)
        revert(self.state, entry.changes, entry.inverse)  # back to just before it
        try:
            meta = {k: target[k] for k in ("v", "at", "session", "encounter", "round") if k in target}
            ctx = self._run(target["kind"], dict(args), rng, faces=faces, recorded=recorded, extra_luck=extra_luck)
            return self._event(seq, target["kind"], args, ctx, meta, replaces=target["seq"], **extra)
        finally:
            entry.inverse = apply_changes(self.state, entry.changes)

    def decide_on_hit(self, option: str, rng: random.Random, seq: int, faces: Mapping[str, Any] | None = None,
                      hit: int | None = None) -> dict:
        """Take a choice the latest attack offered once its hit was seen (``on_hit_options``: a smite): the
        attack is re-run with its recorded dice and the choice (new dice, such as the smite's, are rolled or
        typed in ``faces``), as an action that replaces it; undoing it brings the attack back as it was."""
        target = self.history.latest_action()
        offered = (target or {}).get("on_hit_options") or []
        names = [o["option"] for o in offered]
        if option not in names:
            what = f"{target['kind']} (event {target['seq']})" if target else "nothing"
            raise Refused(f"the latest action, {what}, offers no {option!r} on a hit"
                          + (f" (it offers: {', '.join(names)})" if names else ""))
        offer = offered[names.index(option)]
        if not offer.get("affordable", True):
            raise Refused(f"{offer.get('name', option)} needs {offer.get('cost_text', 'more than is left')}: "
                          f"{offer.get('why', 'it cannot be paid')}")
        args = dict(target["args"])
        args[option] = True if hit is None else hit
        return self._rerun_latest(rng, seq, target.get("rolls", {}), faces=faces, args=args, on_hit=option)

    def decide_luck(self, player: str, sign: int, rng: random.Random, seq: int, roll: str | None = None,
                    face: int | None = None) -> dict:
        """Spend one of ``player``'s luck dice on a roll of the latest action (+1 adds it, -1 subtracts it)."""
        target = self.history.latest_action()
        if target is None or not target.get("rolls"):
            raise Refused("there is no roll to spend a luck die on: the latest action rolled no dice")
        if player not in self.state["luck"]:
            raise Refused(f"{player!r} is not a player at this table "
                          f"(players: {', '.join(self.state['luck']) or 'none'})")
        if self.state["luck"][player] < 1:
            raise Refused(f"{player} has no luck dice left this session")
        name = roll or next(iter(target["rolls"]))
        if name not in target["rolls"]:
            raise Refused(f"the latest action has no roll {name!r} (its rolls: {', '.join(target['rolls'])})")
        if sign not in (1, -1):
            raise Refused("a luck die is added (+1) or subtracted (-1)")
        refused = luck_sign_refused(self.rules, sign)
        if refused:
            raise Refused(refused)
        sides = luck_die_sides(self.rules)
        if face is None:
            face = rng.randrange(sides) + 1
        elif not (isinstance(face, int) and 1 <= face <= sides):
            raise Refused(f"a luck die shows 1..{sides}, not {face!r}")
        luck = LuckDie(sides, face, sign, player)
        return self._rerun_latest(rng, seq, target["rolls"], extra_luck={name: [luck]},
                                  luck={"player": player, "roll": name, "sign": sign, "face": face})

    def luck_would(self, player: str, sign: int, roll: str, face: int) -> dict | None:
        """The latest action as a luck die of ``face`` on ``roll`` would leave it (``decide_luck``'s event, not
        applied, and not remembered as the event decided last), or None when that luck die would be refused: what
        a view asks to say whether a luck die can change the outcome. Remembered while the latest action stands
        (the state is then the one it was played on), so a table redrawn without a new action asks nothing again."""
        latest = self.history.latest_action()
        key = (player, sign, roll, face)
        seq = latest["seq"] if latest is not None else None
        if self._luck_would[0] != seq:
            self._luck_would = (seq, {})
        known = self._luck_would[1]
        if key not in known:
            last = self._last_rolls
            try:
                known[key] = self.decide_luck(player, sign, random.Random(face), 0, roll=roll, face=face)
            except (Refused, DiceError):
                known[key] = None
            finally:
                self._last_rolls = last
        return known[key]

    def decide_amend(self, faces: Mapping[str, Any], rng: random.Random, seq: int) -> dict:
        """Replace the latest action's rolls with the faces real dice showed (by roll name)."""
        target = self.history.latest_action()
        if target is None or not target.get("rolls"):
            raise Refused("there is no roll to correct: the latest action rolled no dice")
        unknown = [n for n in faces if n not in target["rolls"]]
        if unknown:
            raise Refused(f"the latest action has no roll {unknown[0]!r} (its rolls: {', '.join(target['rolls'])})")
        recorded = {k: v for k, v in target["rolls"].items() if k not in faces}
        return self._rerun_latest(rng, seq, recorded, faces=dict(faces), amended=sorted(faces))

    def decide_undo(self, seq: int) -> dict:
        target = self.history.latest_action()
        if target is None:
            raise Refused("there is nothing to undo")
        return fill({"seq": seq, "kind": UNDO, **self._meta(Undo.class_version), "undoes": target["seq"],
                     "what": target["kind"]}, Undo.roles, self.state)

    def decide_redo(self, seq: int) -> dict:
        target = self.history.latest_undone()
        if target is None:
            raise Refused("there is nothing to redo")
        return fill({"seq": seq, "kind": REDO, **self._meta(Redo.class_version), "redoes": target["seq"],
                     "what": target["kind"]}, Redo.roles, self.state)


def _charge_luck(ctx: Ctx) -> None:
    """Every luck die on this action's rolls costs its player one luck die."""
    spent: dict[str, int] = {}
    for r in ctx.roll_objects.values():  # (``Play`` records no ``rolls``: the rolls themselves, for both)
        for l in r.luck:
            spent[l.who] = spent.get(l.who, 0) + 1
    for player, n in spent.items():
        have = ctx.state["luck"].get(player)
        if have is None:
            ctx.refuse(f"{player!r} is not a player at this table")
        if have < n:
            ctx.refuse(f"{player} has no luck dice left this session")
        ctx.set(["luck", player], have - n)


def play(state: dict, rules: Rules, kind: str, args: Mapping[str, Any], rng: random.Random, *,
         recorded: Mapping[str, dict] | None = None, extra_luck: Mapping[str, list] | None = None) -> Play:
    """Play command ``kind`` on ``state`` in place and keep what it changed, for a simulation (the danger
    forecast). The same command as ``Engine.decide`` runs, but no event is made and nothing is recorded (see
    ``Play``); refused, the state is as it was. ``recorded`` and ``extra_luck`` re-run
    it with the faces a first run rolled plus luck dice, which are charged to their players as
    ``Engine.decide_luck`` charges them. Returns the context (its ``roll_objects``: the rolls made)."""
    fn = COMMANDS.get(kind)
    if fn is None:
        raise Refused(f"there is no action {kind!r}")
    if OVERRIDE in args:
        args, override = _split_override(args)
    else:
        override = None
    _bind(kind, fn, args)
    ctx = Play(state, rules, rng, kind, args, recorded=recorded, extra_luck=extra_luck)
    ctx.override = override
    return played(ctx, fn, args)


def played(ctx: Play, fn, args: Mapping[str, Any]) -> Play:
    """``fn(ctx, **args)`` on a simulation's context, what ``play`` runs once it has found the command: a re-run's
    luck dice (``ctx.recorded``, ``ctx.extra_luck``) charged to their players; refused, the state as it was. A body
    that does what the command does, faster, runs through it too (the forecast's kept attack plans). Returns
    ``ctx``."""
    try:
        fn(ctx, **args)
        if ctx.recorded or ctx.extra_luck:
            _charge_luck(ctx)
    except BaseException:
        ctx.rollback()
        raise
    return ctx


def refusal(state: dict, rules: Rules, kind: str, args: Mapping[str, Any]) -> str | None:
    """Why command ``kind`` with ``args`` would be refused now, or None: the command is played on ``state`` and
    taken back, whatever happens (what a view asks before it offers a click, so nothing it offers is refused
    without saying why first)."""
    fn = COMMANDS.get(kind)
    if fn is None:
        return f"there is no action {kind!r}"
    call, override = _split_override(args)
    ctx = Play(state, rules, random.Random(0), kind, call)
    ctx.override = override
    try:
        _bind(kind, fn, call)
        _bounded(kind, call)
        fn(ctx, **call)
        return None
    except (Refused, DiceError) as err:
        return str(err)
    finally:
        ctx.rollback()


def _split_override(args: Mapping[str, Any]) -> tuple[dict, str | None]:
    """(the command's own arguments, the keeper's override or None); an override says why, in words."""
    override = args.get(OVERRIDE)
    if OVERRIDE in args and not (isinstance(override, str) and override.strip()):
        shown = cut(override) if isinstance(override, str) else type(override).__name__
        raise Refused(f"a keeper's override says why, in words ({OVERRIDE}='the goblin was surprised'), "
                      f"not {shown}")
    if override is not None and len(override) > MAX_WORDS:
        raise Invalid(f"{OVERRIDE}: a text of {len(override):,} characters; at most {MAX_WORDS:,}", OVERRIDE)
    if override is not None and text_problem(override, OVERRIDE) is not None:
        raise Invalid(text_problem(override, OVERRIDE), OVERRIDE)
    own = dict(args)
    own.pop(OVERRIDE, None)
    return own, override


def _bounded(kind: str, args: Mapping) -> None:
    """Refuse an argument past the limits every command keeps (``schema.bounds``: a number past its limit, a text
    too long or holding a character that turns text around), naming the field, before the command does any work:
    what the keeper's table, a script and a line of the log written by hand all meet."""
    for name, value in args.items():
        problem = argument_problem(kind, name, value)
        if problem is not None:
            raise Invalid(problem[1], problem[0])


def _bind(kind: str, fn, args: Mapping) -> None:
    """Refuse arguments the command does not take, or a required one left out, naming it and the accepted ones:
    its parameters and the options it declares (``command(kind, options=...)``); a command with ``**options`` and
    no declaration checks its own."""
    takes = fn.takes
    if (takes.open_ended or takes.names.issuperset(args)) and takes.required.issubset(args):
        return
    said = f"{kind} takes: {', '.join(takes.order) or 'nothing'}" + (", and options" if takes.open_ended else "")
    unknown = [] if takes.open_ended else [a for a in args if a not in takes.names]
    if unknown:
        raise Refused(f"{kind} has no argument {', '.join(map(repr, unknown))} ({said})")
    missing = [n for n in takes.order if n in takes.required and n not in args]
    raise Refused(f"{kind} needs {', '.join(map(repr, missing))} ({said})")


# ---------------------------------------------------------------- deciding a logged event again


class Unrecorded(Exception):
    """Deciding a logged event again rolled dice the event did not record."""


class _NoDice(random.Random):
    """A generator that refuses to roll: an event decided again rolls only the faces it recorded."""

    def random(self) -> float:
        raise Unrecorded("the rules roll dice this event did not record")

    def getrandbits(self, k: int) -> int:
        raise Unrecorded("the rules roll dice this event did not record")


def redecide(engine: Engine, event: Mapping[str, Any]) -> dict:
    """The event the rules make now from a logged event's kind, arguments and recorded faces (a luck die or typed
    faces through the same path as play; undo and redo too), not applied: what ``delvebook validate`` compares
    with the log. Raises Refused (the rules refuse it now) or Unrecorded (they roll dice it did not record)."""
    kind, seq = event.get("kind"), event.get("seq")
    rng = _NoDice()
    if kind == UNDO:
        return engine.decide_undo(seq)
    if kind == REDO:
        return engine.decide_redo(seq)
    rolls = event.get("rolls") or {}
    if not isinstance(rolls, Mapping):
        raise Refused("its rolls are not a mapping of roll names to records")
    if event.get("replaces") is not None:
        # A luck die or typed faces re-run the latest action with its faces; where the new result asks for dice
        # the action had not rolled (a miss turned into a hit rolls damage), play rolled them, and the event
        # records them: the re-run reads them from there.
        luck = event.get("luck")
        if isinstance(luck, Mapping):
            name = luck.get("roll")
            try:
                return engine.decide_luck(luck.get("player"), luck.get("sign"), rng, seq, roll=name,
                                          face=luck.get("face"))
            except Unrecorded:
                target = engine.history.latest_action()
                die = LuckDie(luck_die_sides(engine.rules), luck["face"], luck["sign"], luck["player"])
                recorded = {**rolls, name: target["rolls"][name]}
                return engine._rerun_latest(rng, seq, recorded, extra_luck={name: [die]},
                                            luck={"player": luck["player"], "roll": name, "sign": luck["sign"],
                                                  "face": luck["face"]})
        amended = event.get("amended")
        if isinstance(amended, list) and all(isinstance(n, str) and n in rolls for n in amended):
            faces = {n: rolls[n].get("faces") for n in amended}
            try:
                return engine.decide_amend(faces, rng, seq)
            except Unrecorded:
                recorded = {k: v for k, v in rolls.items() if k not in faces}
                return engine._rerun_latest(rng, seq, recorded, faces=dict(faces), amended=sorted(faces))
        option = event.get("on_hit")
        if isinstance(option, str):
            # A choice taken once the hit was seen (a smite): the attack re-run with its own dice and the choice;
            # the dice the choice added (the smite's) are the ones the event recorded beyond the attack's.
            target = engine.history.latest_action() or {}
            before = target.get("rolls") or {}
            faces = {n: rec.get("faces") for n, rec in rolls.items() if n not in before and isinstance(rec, Mapping)}
            args = event.get("args")
            hit = args.get(option) if isinstance(args, Mapping) else None
            return engine.decide_on_hit(option, rng, seq, faces=faces or None,
                                        hit=hit if isinstance(hit, int) and not isinstance(hit, bool) else None)
        raise Refused("it replaces an action, but with neither a luck die, typed faces nor a choice on a hit")
    args = event.get("args", {})
    if not isinstance(args, Mapping):
        raise Refused("its args are not a mapping")
    faces = {name: rec.get("faces") for name, rec in rolls.items() if isinstance(rec, Mapping)}
    return engine.decide(kind, dict(args), rng, seq, faces=faces)
