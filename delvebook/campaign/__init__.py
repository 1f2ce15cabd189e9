"""The keeper's API: a campaign folder, its rules, its state, and every action of play.

Every action goes through the engine (which decides the event), is checked, written to the log on disk
(flushed and fsync'ed) before the call returns, so nothing the table did is lost even if the kernel dies. Undo
and redo are events too. Beside ``Campaign``: ``outcome`` (what an action returns, and the views a front end
registers), ``fight`` (the running encounter seen from the campaign), ``collector`` (the cycle collector around
an open campaign).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import functools
import os
import random
import shutil
import threading
import weakref
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from ..core import declared
from ..engine import ASKED_BY, Engine, Refused
from ..core.events import Standing, Touched, replay
from ..core.model import Creature, Delver, current_actor  # noqa: F401 (current_actor: as it was importable here)
from ..core.statecheck import dotted_path
from .collector import collector_paused, freeze, thaw
from .fight import Fight, TableDelver
from .outcome import VIEW_GROUP, Outcome, view  # noqa: F401 (VIEW_GROUP: where a front end registers views)
from .preparing import Preparing

__all__ = ["Campaign", "Fight", "Outcome", "Refused"]


def _locked(method):
    """Run a method holding the campaign's lock: threads sharing one Campaign act one at a time (a decision reads
    and rolls back the live state, and the log takes one seq at a time)."""
    @functools.wraps(method)
    def locked(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)
    return locked


class Campaign(Preparing):
    """A campaign folder opened for play (or read-only for analysis).

    Threads may share one: every action (deciding it, writing it, folding it in) holds the campaign's lock."""

    def __init__(self, store, rules, engine: Engine, read_only: bool):
        self._lock = threading.RLock()
        self._unpacked: "weakref.finalize | None" = None  # a zip's temporary folder, removed on close and at exit
        self._store = store
        store.declared = declared.problem  # the writer checks every event against its declaration before it appends it
        self.rules = rules
        self.engine = engine
        self.read_only = read_only
        self._clock = None  # a function giving event timestamps; None: wall clock
        self.rng = random.Random(f"{store.campaign.get('seed')}:{store.next_seq - 1}")
        self.listeners: list = []  # called with each Outcome once it is on disk and applied (views refresh)
        self._tail = None  # a read-only campaign's follower of its log (catch_up)
        self._frozen = False  # whether opening froze it out of the cycle collector's passes (close thaws it)
        self._asked_by: dict | None = None  # who asked for the actions being recorded (``asked``)

    # ---------------------------------------------------------------- opening
    @classmethod
    def create(cls, path: str | os.PathLike, name: str, seed: int | None = None, *,
               delvers: Iterable[Mapping] = (), bestiary: Mapping | None = None,
               house_rules: Mapping | None = None, **extra: Any) -> "Campaign":
        """A new campaign folder; refuses a folder that already holds one."""
        from ..store import FORMAT_VERSION, CampaignStore  # the store loads YAML: only when a campaign is opened
        data: dict[str, Any] = {"format": FORMAT_VERSION, "name": name}
        if seed is None:
            seed = random.SystemRandom().randrange(2 ** 31)
        data["seed"] = seed
        sheets = [dict(d) for d in delvers]
        if sheets:
            data["delvers"] = sheets
            data["seats"] = [d["name"] for d in sheets]
        if bestiary:
            data["bestiary"] = dict(bestiary)
        if house_rules:
            data["house_rules"] = dict(house_rules)
        data.update(extra)
        store = CampaignStore.create(path, data)
        try:
            return cls._from_store(store, read_only=False)
        except BaseException:
            store.close()
            raise

    @classmethod
    def open(cls, path: Any, read_only: bool | None = None, *, unpack_to: str | os.PathLike | None = None
             ) -> "Campaign":
        """Open a campaign folder (for play; ``read_only=True`` to read it), or play on a store already open (a
        ``MemoryStore`` for a simulation; ``read_only`` is then the store's own).

        A zip made by ``export_zip`` opens read-only, from a temporary folder removed when the campaign is closed
        (or at exit). To play from a zip, name the folder where play is recorded: ``unpack_to="play/keep"``
        unpacks it there (a folder that already holds the campaign is opened as it is, never unpacked over).
        Zips are unpacked within limits (size, entries, compression ratio), and only a campaign's own files."""
        from ..store import CampaignStore, MemoryStore, archive
        if isinstance(path, (CampaignStore, MemoryStore)):
            with collector_paused():
                return cls._from_store(path, read_only=path.read_only)
        place = archive.campaign_place(Path(path), read_only, unpack_to)
        p, read_only, notes, temporary = place
        try:
            with collector_paused():  # the one pause of an open: reading, setting up and folding the log
                # a zip's temporary copy keeps no snapshot (its path is gone at close)
                store = CampaignStore.open(p, read_only=read_only, snapshots=temporary is None)
                try:
                    camp = cls._from_store(store, read_only=read_only)
                except BaseException:
                    store.close()
                    raise
                camp._frozen = freeze()
        except BaseException:
            if temporary is not None:
                shutil.rmtree(temporary, ignore_errors=True)
            raise
        store.problems += notes
        if temporary is not None:
            camp._unpacked = weakref.finalize(camp, shutil.rmtree, str(temporary), True)
        return camp

    @classmethod
    def _from_store(cls, store, read_only: bool) -> "Campaign":
        """A campaign over an open store: its log judged and folded by the one check (``store.playcheck``: what
        ``validate`` runs), from the party its campaign file sets up."""
        from ..store.playcheck import play_log
        from ..store.setup import setup_state
        setup = setup_state(store.campaign, store.rules)
        resumed = store.resumed() if hasattr(store, "resumed") else None  # a folder's snapshot: only its tail read
        if resumed is not None:
            restored, tail, unsealed = resumed
            engine = play_log(store.rules, setup, tail, unsealed=unsealed, file=store.log_file,
                              campaign_file=store.campaign_file, line_of=store.line_of, restored=restored,
                              every=lambda: store.events)
            store.resumed_folded(tail)
        else:
            engine = play_log(store.rules, setup, store.events, unsealed=store.unsealed, file=store.log_file,
                              campaign_file=store.campaign_file, line_of=store.line_of)
        if hasattr(store, "keep_snapshot"):
            store.keep_snapshot(engine.history)
        return cls(store, store.rules, engine, read_only)

    @_locked
    def close(self) -> None:
        """Release the write lock (the files stay as they are), and remove a zip's temporary folder; safe to
        call twice. The campaign's snapshot is brought up to date first (``store.snapshot``: outside the folder)."""
        if hasattr(self._store, "keep_snapshot"):
            self._store.keep_snapshot(self.engine.history)
        self._store.close()
        if self._unpacked is not None:
            self._unpacked()
        if self._frozen:
            self._frozen = thaw()

    def __enter__(self) -> "Campaign":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---------------------------------------------------------------- reading
    @property
    def path(self) -> Path:
        return self._store.path

    @property
    def name(self) -> str:
        return self._store.campaign["name"]

    @property
    def problems(self) -> list[str]:
        """What opening reported (a torn last line set aside, and where)."""
        return list(self._store.problems)

    @property
    def state(self) -> dict:
        """The current state (plain data; treat as read-only)."""
        return self.engine.state

    @property
    def events(self) -> list[dict]:
        """The log, oldest first."""
        return self._store.events

    @property
    def setup(self) -> dict:
        return self.engine.setup

    def state_at(self, seq: int) -> dict:
        """The state as it was just after event ``seq``."""
        return replay(self.engine.setup, [e for e in self.events if e["seq"] <= seq]).state

    def _view(self, name: str) -> Delver:
        d = dict(self.state["delvers"][name])
        d["_luck"] = self.state["luck"].get(d["player"], 0)
        return TableDelver(d, self)

    @property
    def delvers(self) -> list[Delver]:
        """The party in seat order (clockwise)."""
        return [self._view(n) for n in self.state["seats"]]

    def delver(self, name: str) -> Delver:
        if name not in self.state["delvers"]:
            raise KeyError(f"no delver named {name!r} (the party: {', '.join(self.state['seats']) or 'none'})")
        return self._view(name)

    @property
    def players(self) -> dict[str, int]:
        """Each player's luck dice left this session."""
        return dict(self.state["luck"])

    @property
    def creatures(self) -> list[Creature]:
        """The named creatures outside the party and the fight: NPCs and familiars, living or dead."""
        return [Creature(c) for c in self.state.get("creatures", {}).values()]

    def creature(self, name: str) -> Creature:
        """A named creature (an NPC, a familiar) by name."""
        c = self.state.get("creatures", {}).get(name)
        if c is None:
            raise KeyError(f"no creature named {name!r} (creatures: {', '.join(self.state.get('creatures', {})) or 'none'})")
        return Creature(c)

    def may_act(self, who: str):
        """May ``who`` act now, and with what (``engine.queries.may_act``): whose turn it is, whether ``who`` still
        has its action (``.action``), what it used, and why not (``.why``)."""
        from ..engine import queries
        return queries.may_act(self.state, self.rules, who)

    @property
    def fight(self) -> "Fight | None":
        return Fight(self) if self.state["encounter"] is not None else None

    @property
    def quests(self) -> list[dict]:
        """Quests prepared in campaign.yaml and any completed in play: ``id``, ``name``, ``note``, ``done``."""
        return self._prepared("quests", self.state["quests"])

    @property
    def rooms(self) -> list[dict]:
        """Rooms prepared in campaign.yaml and any explored in play: ``id``, ``name``, ``note``, ``done``."""
        return self._prepared("rooms", self.state["rooms"])

    def _prepared(self, key: str, done: list[str]) -> list[dict]:
        table = self._store.campaign.get(key) or {}
        out = [{"id": tid, "name": t.get("name") or tid, "note": t.get("note"), "done": (t.get("name") or tid) in done}
               for tid, t in table.items()]
        named = {t["name"] for t in out}
        out += [{"id": None, "name": n, "note": None, "done": True} for n in done if n not in named]
        return out

    @property
    def notes(self) -> str | None:
        """The keeper's notes from campaign.yaml."""
        return self._store.campaign.get("notes")

    @property
    def standing(self) -> Standing:
        """Which actions stand, kept by the campaign's History as it folds (``events.Standing``, read-only):
        ``in_force(seq)``, ``replaced_by(seq)``, ``undone_by(seq)``, ``current(seq)``. What a view asks instead
        of reading the log again (``events.standing(camp.events)`` gives the same answer, slowly)."""
        return self.engine.history.standing

    @property
    def latest_action(self) -> dict | None:
        """The latest action still in force (what undo would take back), or None."""
        return self.engine.history.latest_action()

    @property
    def latest_undone(self) -> dict | None:
        """The latest action undone (what redo would put back), or None."""
        return self.engine.history.latest_undone()

    def event(self, seq: int) -> dict:
        """The event with this seq."""
        return self.engine.history.event(seq)

    @property
    def can_undo(self) -> bool:
        return self.engine.history.latest_action() is not None

    @property
    def can_redo(self) -> bool:
        return self.engine.history.latest_undone() is not None

    # ---------------------------------------------------------------- acting
    def _now(self) -> str:
        if self._clock is not None:
            return self._clock()
        return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")

    def _next_seq(self) -> int:
        return self._store.next_seq

    @_locked
    def _record(self, event: dict) -> Outcome:
        if self.read_only:
            raise Refused("this campaign is open read-only")
        if event.get("seq") != self._next_seq():  # decided outside the lock, on a state that has moved on
            raise Refused("another action was recorded while this one was decided; nothing was recorded, try again")
        event["ts"] = self._now()
        if self._asked_by is not None:
            event[ASKED_BY] = dict(self._asked_by)
        touched = self._fold_checked(event)
        try:
            self._store.append(event)  # on disk (fsync'ed) before the call returns and anyone is told
        except BaseException:
            self._fold_again()
            raise
        outcome = Outcome(event)
        outcome.touched = touched
        outcome.campaign = self
        outcome._roll_objects = self.engine.rolls_of(event)
        for listener in list(self.listeners):
            listener(outcome)
        return outcome

    @contextlib.contextmanager
    def asked(self, player: str, request: int) -> Iterator[None]:
        """Actions recorded inside carry who asked for them: ``asked_by: {"player", "request"}``, a player's request
        from their own device that the keeper accepted (``delvebook.players``). The event is the one the keeper's
        click would have made, and undo takes it back like any other."""
        with self._lock:
            before = self._asked_by
            self._asked_by = {"player": str(player), "request": int(request)}
            try:
                yield
            finally:
                self._asked_by = before

    def _fold_checked(self, event: dict) -> Touched:
        """Fold a new event in and check the state after it as the reader checks a log's final state, before
        anything is written: what would make the campaign unopenable is refused (StoreError, as the writer refuses
        a line the reader would not read), with nothing recorded."""
        from ..store import StoreError
        try:
            touched = self.engine.apply(event)
            problems = self._store.shape.state_problems(self.engine.state)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as err:
            self._fold_again()
            raise StoreError(f"this {event.get('kind')} does not fold into the state ({type(err).__name__}: {err}); "
                             f"nothing was recorded", self._store.log_file) from None
        if problems:
            self._fold_again()
            where, why = problems[0]
            raise StoreError(f"after this {event.get('kind')} the state would not hold: {dotted_path(where)}: {why}; "
                             f"nothing was recorded", self._store.log_file)
        return touched

    def _fold_again(self) -> None:
        """The state as the log on disk makes it, folded again from the setup (after an event that was folded in
        but not recorded)."""
        self.engine = Engine(self.rules, self.engine.setup, self.events)

    @_locked
    def catch_up(self) -> list[Outcome]:
        """A read-only campaign follows its log: fold in the events another process (the keeper's table) has
        appended since the last call, and tell the listeners; returns them, oldest first. If the log was
        replaced or shrank (a torn line set aside), the campaign is read again and every event is returned."""
        if not self.read_only:
            raise Refused("this campaign records play itself: it has every event already")
        from ..store.playcheck import LogCheck
        if self._tail is None:
            self._tail = self._store.follow()
        got = self._tail.poll()
        if got.reload:
            fresh = Campaign.open(self.path, read_only=True)
            self._store, self.rules, self.engine = fresh._store, fresh.rules, fresh.engine
            if fresh._frozen:  # this campaign keeps one hold on the collector's freeze: the fresh open's
                if self._frozen:
                    thaw()
                self._frozen, fresh._frozen = True, False
            self._tail = None
            events = list(self.events)
            outcomes = [Outcome(e) for e in events]
            for o in outcomes:
                o.touched = None  # everything may have changed
                o.campaign = self
        else:
            outcomes = []
            check = LogCheck(self.rules, self.engine.setup, engine=self.engine, file=self._store.log_file)
            for i, event in enumerate(got.events):  # a line written by hand is judged by the rules, as opening does
                event, touched = check.take(event, i in self._tail.unsealed, self.engine.apply, self._tail.lines[i])
                self._store.add_read(event)
                outcome = Outcome(event)
                outcome.touched = touched
                outcome.campaign = self
                outcomes.append(outcome)
        for outcome in outcomes[-1:] if got.reload else outcomes:
            for listener in list(self.listeners):
                listener(outcome)
        return outcomes

    @_locked
    def act(self, kind: str, faces: Mapping[str, Any] | None = None, **args: Any) -> Outcome:
        """Any action by its kind (``check``, ``attack``, ``rest``...): decided by the rules, logged, applied.

        ``faces`` gives what real dice showed, by roll name (``{"check": [14, 3]}``)."""
        if self.read_only:
            raise Refused("this campaign is open read-only")
        args = {k: v for k, v in args.items() if v is not None}
        return self._record(self.engine.decide(kind, args, self.rng, self._next_seq(), faces))

    def add_delver(self, name: str, class_id: str, player: str | None = None, *,
                   choices: Mapping[str, str] | None = None, seat: int | None = None,
                   faces: Mapping | None = None) -> Delver:
        """A new delver joins at the end of the table (or at ``seat``, counted clockwise from 0); the class's random
        things are rolled, or typed from real dice (``faces={"hearts": [4]}``)."""
        self.act("add_delver", faces=faces, name=name, class_id=class_id, player=player,
                 choices=dict(choices) if choices else None, seat=seat)
        return self.delver(name)

    def start_session(self, *, keeper_override: str | None = None) -> Outcome:
        return self.act("start_session", keeper_override=keeper_override)

    def end_session(self, *, keeper_override: str | None = None) -> Outcome:
        return self.act("end_session", keeper_override=keeper_override)

    def rest(self, *, keeper_override: str | None = None) -> Outcome:
        return self.act("rest", keeper_override=keeper_override)

    def advance_time(self, minutes: int = 0, hours: int = 0, *, keeper_override: str | None = None) -> Outcome:
        return self.act("advance_time", minutes=minutes, hours=hours, keeper_override=keeper_override)

    def award_xp(self, amount: int, reason: str = "keeper's award", *, keeper_override: str | None = None) -> Outcome:
        return self.act("award_xp", amount=amount, reason=reason, keeper_override=keeper_override)

    def complete_quest(self, name: str, *, keeper_override: str | None = None) -> Outcome:
        return self.act("complete_quest", name=name, keeper_override=keeper_override)

    def explore_room(self, name: str, *, keeper_override: str | None = None) -> Outcome:
        return self.act("explore_room", name=name, keeper_override=keeper_override)

    def earn(self, amount, who: str | None = None, reason: str | None = None, *,
             keeper_override: str | None = None) -> Outcome:
        return self.act("earn", amount=amount, who=who, reason=reason, keeper_override=keeper_override)

    def spend(self, who: str, amount, reason: str | None = None, *, keeper_override: str | None = None) -> Outcome:
        return self.act("spend", who=who, amount=amount, reason=reason, keeper_override=keeper_override)

    def buy(self, who: str, item: str, count: int = 1, *, keeper_override: str | None = None) -> Outcome:
        return self.act("buy", who=who, item=item, count=count, keeper_override=keeper_override)

    # ---- gear found and lost
    def give(self, who: str, item, count: int = 1, **details: Any) -> Outcome:
        """Found gear joins ``who``'s sheet: a gear id (``"crossbow"``, ``"arrow"`` with ``count=20``), a gear id
        with details changed (``"sword", bonus=1, name="Sword +1"``: its bonus is added to damage), or an item
        described inline (``{"name": "Lute", "instrument": True}``; a weapon with ``damage``, ``bonus``, ``skill``,
        ``tags``; armor with ``av``, ``dv``, ``kind``). Armor is fitted to its wearer (an Armorer's bonus)."""
        return self.act("give", who=who, item=item, count=count, **details)

    def take(self, who: str, item, count: int = 1, to: str | None = None, *,
             keeper_override: str | None = None) -> Outcome:
        """Gear leaves ``who``'s sheet (lost, broken, stolen), or goes to another delver (``to``)."""
        return self.act("take", who=who, item=item, count=count, to=to, keeper_override=keeper_override)

    def drop(self, who: str, item, count: int = 1, *, keeper_override: str | None = None) -> Outcome:
        """``who`` drops gear (a thrown dagger that is lost): it leaves the sheet."""
        return self.act("drop", who=who, item=item, count=count, keeper_override=keeper_override)

    def reload(self, who: str, weapon=None, *, keeper_override: str | None = None) -> Outcome:
        """Reload a crossbow: it takes ``who``'s action in a fight (the Crossbows specialty needs no reload)."""
        return self.act("reload", who=who, weapon=weapon, keeper_override=keeper_override)

    # ---- named creatures outside the party
    def npc(self, name: str, foe: str | None = None, *, note: str | None = None, **typed: Any) -> Creature:
        """Name a creature outside any fight: from the bestiary (``foe="bandit"``) or typed (``hearts=6,
        tags=["humanoid"], skills={"insight": "proficient"}``). It makes checks and saves, is the target of
        spells (Truth, Dispel magic, Locate Creature, Inflict wounds), and keeps its conditions across fights;
        it may join a fight (``camp.encounter([{"npc": name}, "goblin"])``)."""
        self.act("npc", name=name, foe=foe, note=note, **typed)
        return self.creature(name)

    def remove_npc(self, name: str, *, keeper_override: str | None = None) -> Outcome:
        return self.act("remove_npc", name=name, keeper_override=keeper_override)

    def check(self, who: str, skill: str | None = None, target: int | None = None, *, vs: str | None = None,
              faces: Mapping | None = None, **options: Any) -> Outcome:
        """A check against a target number, or opposed by someone (``vs``); ``save=True`` for a save."""
        return self.act("check", faces=faces, who=who, skill=skill, target=target, vs=vs, **options)

    def save(self, who: str, target: int, skill: str | None = None, **options: Any) -> Outcome:
        return self.check(who, skill, target, save=True, **options)

    def roll(self, expr: str, who: str | None = None, why: str | None = None,
             faces: Mapping | None = None) -> Outcome:
        """Any roll the table wants on the record (loot tables, wandering monsters)."""
        return self.act("roll", faces=faces, expr=expr, who=who, why=why)

    def death_save(self, who: str, faces: Mapping | None = None, *, keeper_override: str | None = None) -> Outcome:
        return self.act("death_save", faces=faces, who=who, keeper_override=keeper_override)

    def choose(self, who: str, choice: str, option: str, *, keeper_override: str | None = None) -> Outcome:
        return self.act("choose", who=who, choice=choice, option=option, keeper_override=keeper_override)

    def level_up(self, who: str, *, keeper_override: str | None = None) -> Outcome:
        return self.act("level_up", who=who, keeper_override=keeper_override)

    def use(self, who: str, ability: str, faces: Mapping | None = None, **options: Any) -> Outcome:
        """A class ability, paying its cost (grit, blessings, healing points, soul points, hearts)."""
        return self.act("use", faces=faces, who=who, ability=ability, **options)

    def cast(self, who: str, spell: str, faces: Mapping | None = None, **options: Any) -> Outcome:
        """A spell from the caster's book, wand, blessings or true names."""
        return self.act("cast", faces=faces, who=who, spell=spell, **options)

    def damage(self, who: str, amount: int, source: str = "keeper", armor: bool = False, **options: Any) -> Outcome:
        """Damage by the keeper's hand (a trap, a fall): ``source`` says what in the keeper's words; ``by="Falling
        block"`` names who or what dealt it (a hazard, or someone here), to whom it is credited."""
        return self.act("damage", who=who, amount=amount, source=source, armor=armor, **options)

    def heal(self, who: str, amount: int, source: str = "keeper", *, by: str | None = None,
             keeper_override: str | None = None) -> Outcome:
        """Healing by the keeper's hand (a potion): ``source`` in the keeper's words, ``by`` as for ``damage``."""
        return self.act("heal", who=who, amount=amount, source=source, by=by, keeper_override=keeper_override)

    # ---- fights
    def encounter(self, foes: list, name: str | None = None, *, dark: bool = False,
                  keeper_override: str | None = None) -> "Fight":
        """A fight begins with these foes (bestiary ids, ``{"npc": name}`` for a named NPC, or a prepared
        encounter id, from campaign.yaml or the table); ``dark``: fought in darkness (a prepared encounter may say so)."""
        prepared = self.prepared_encounters
        if isinstance(foes, str) and foes in prepared:
            name = name or prepared[foes]["name"]  # its name, or its id where campaign.yaml gives none
            dark = dark or prepared[foes]["dark"]
            foes = prepared[foes]["foes"]
        self.act("encounter", foes=list(foes), name=name, keeper_override=keeper_override,
                 **({"dark": True} if dark else {}))
        return Fight(self)

    @_locked
    def on_hit(self, option: str, hit: int | None = None, faces: Mapping | None = None) -> Outcome:
        """Take a choice the latest attack offered once its hit was seen (``outcome.on_hit_options``: a smite):
        the attack is resolved again with the same dice and the choice (its own new dice rolled, or typed in
        ``faces``), replacing it; undo brings the attack back as it was."""
        if self.read_only:
            raise Refused("this campaign is open read-only")
        return self._record(self.engine.decide_on_hit(option, self.rng, self._next_seq(), faces=faces, hit=hit))

    # ---- luck, typed dice, undo
    @_locked
    def spend_luck(self, player: str, sign: int = 1, roll: str | None = None, face: int | None = None) -> Outcome:
        """``player`` spends a luck die on the latest action's roll (its first, or ``roll`` by name):
        ``sign`` +1 adds it, -1 subtracts it. The action is resolved again with the same dice."""
        if self.read_only:
            raise Refused("this campaign is open read-only")
        return self._record(self.engine.decide_luck(player, sign, self.rng, self._next_seq(), roll=roll, face=face))

    @_locked
    def amend(self, **faces: Any) -> Outcome:
        """The table rolled real dice: replace the latest action's rolls by name (``amend(check=[14, 2])``)."""
        if self.read_only:
            raise Refused("this campaign is open read-only")
        return self._record(self.engine.decide_amend(faces, self.rng, self._next_seq()))

    @_locked
    def undo(self) -> Outcome:
        if self.read_only:
            raise Refused("this campaign is open read-only")
        return self._record(self.engine.decide_undo(self._next_seq()))

    @_locked
    def redo(self) -> Outcome:
        if self.read_only:
            raise Refused("this campaign is open read-only")
        return self._record(self.engine.decide_redo(self._next_seq()))

    # ---------------------------------------------------------------- sharing
    @_locked
    def export_zip(self) -> bytes:
        """The campaign's own files as zip bytes: campaign.yaml, the log and the side files delvebook made (a
        torn tail set aside, a displaced log), under a folder named like the campaign's. Nothing else: no
        symlink, no hidden file (``.git/``, the lock), no other file; bounded in size, each file read through
        one descriptor that is checked to be a regular file first."""
        from ..store import StoreError, archive
        if self.path is None:
            raise StoreError("this campaign has no folder to export (an in-memory store)")
        return archive.export_zip(self.path)

    def dashboard(self):
        """The keeper's table: party, fight, log (a widget; leave it last in a cell to show it)."""
        return view("dashboard")(self)

    def __repr__(self) -> str:
        mode = ", read-only" if self.read_only else ""
        return f"<Campaign {self.name!r} at {self.path}: {len(self.state['delvers'])} delvers, {len(self.events)} events{mode}>"
