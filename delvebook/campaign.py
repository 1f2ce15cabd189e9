"""The keeper's API: a campaign folder, its rules, its state, and every action of play.

Every action goes through the engine (which decides the event), is written to the log on disk
(flushed and fsync'ed) and only then folded into the state, so nothing the table did is lost even if
the kernel dies. Undo and redo are events too.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import functools
import gc
import io
import os
import random
import re
import shutil
import stat
import tempfile
import threading
import weakref
import zipfile
from pathlib import Path
from typing import Any, Iterable, Mapping

from .dice import roll_html
from .dice import Roll
from .engine import Engine, Refused, upgrade_event
from .model import current_actor
from .events import History, Standing, Touched, clone, replay
from .model import Creature, Delver, Foe, new_state

__all__ = ["Campaign", "Fight", "Outcome", "Refused"]


class Outcome(dict):
    """An event of play as the action returned it: a dict, with its rolls drawn in a notebook. Left last in a cell
    it shows the campaign's live roll view (the view registered as ``roll``: its dice, luck dice and real dice,
    following the action when a luck die replaces it), or its own HTML where no front end is installed."""

    _roll_objects: dict | None = None  # the rolls themselves, when the engine that made them handed them over
    touched: Touched | None = None  # what the event changed (delvers, foes, players...), when it was just applied
    campaign: "Campaign | None" = None  # the campaign that recorded it (its views show it live)

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def rolls(self) -> dict[str, Roll]:
        if self._roll_objects is not None:
            return dict(self._roll_objects)
        return {k: Roll.from_dict(v) for k, v in self.get("rolls", {}).items()}

    @property
    def roll(self) -> Roll | None:
        """The action's first roll (the check, the attack), with any luck spent on it."""
        rolls = self.get("rolls")
        return Roll.from_dict(next(iter(rolls.values()))) if rolls else None

    def summary(self) -> str:
        """The outcome told in one line (``narrate.describe``)."""
        from .narrate import describe
        return describe(self, self.campaign)

    def _ipython_display_(self) -> None:
        from IPython.display import display
        camp = self.campaign
        if camp is not None:
            try:
                shown = view("roll")
            except LookupError:  # no front end installed: the outcome's own HTML
                pass
            else:
                display(shown(camp, self))
                return
        display({"text/html": self._repr_html_(), "text/plain": repr(self)}, raw=True)

    def _repr_html_(self) -> str:
        from .dice import DiceError, escape_html as esc
        try:
            summary = self.summary()
        except Exception:  # a record the narrator cannot read (a hand-made event): show its kind, escaped
            summary = f"{self.get('kind')}"
        parts = [f'<div class="delvebook-outcome"><div>{esc(summary)}</div>']
        records = self.get("rolls") if self._roll_objects is None else None
        if records is None:
            rolls = list((self._roll_objects or {}).values())
        else:
            rolls = []
            for name, rec in (records.items() if isinstance(records, Mapping) else ()):
                try:
                    rolls.append(Roll.from_dict(rec))
                except (DiceError, KeyError, TypeError, ValueError, AttributeError):
                    parts.append(f'<div class="delvebook-roll">{esc(name)}: {esc(rec)}</div>')
        for r in rolls:
            parts.append(roll_html(r))
        parts.append("</div>")
        return "".join(parts)


def _locked(method):
    """Run a method holding the campaign's lock: threads sharing one Campaign act one at a time (a decision reads
    and rolls back the live state, and the log takes one seq at a time)."""
    @functools.wraps(method)
    def locked(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)
    return locked


class Campaign:
    """A campaign folder opened for play (or read-only for analysis).

    Threads may share one: every action (deciding it, writing it, folding it in) holds the campaign's lock."""

    def __init__(self, store, rules, engine: Engine, read_only: bool):
        self._lock = threading.RLock()
        self._unpacked: "weakref.finalize | None" = None  # a zip's temporary folder, removed on close and at exit
        self._store = store
        self.rules = rules
        self.engine = engine
        self.read_only = read_only
        self._clock = None  # a function giving event timestamps; None: wall clock
        self.rng = random.Random(f"{store.campaign.get('seed')}:{len(store.events)}")
        self.listeners: list = []  # called with each Outcome once it is on disk and applied (views refresh)
        self._tail = None  # a read-only campaign's follower of its log (catch_up)
        self._frozen = False  # whether opening froze it out of the cycle collector's passes (close thaws it)

    # ---------------------------------------------------------------- opening
    @classmethod
    def create(cls, path: str | os.PathLike, name: str, seed: int | None = None, *,
               delvers: Iterable[Mapping] = (), bestiary: Mapping | None = None,
               house_rules: Mapping | None = None, **extra: Any) -> "Campaign":
        """A new campaign folder; refuses a folder that already holds one."""
        from .store import FORMAT_VERSION, CampaignStore  # the store loads YAML: only when a campaign is opened
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
        from .store import CampaignStore, MemoryStore, StoreError
        if isinstance(path, (CampaignStore, MemoryStore)):
            with _collector_paused():
                return cls._from_store(path, read_only=path.read_only)
        p = Path(path)
        notes: list[str] = []
        temporary = None
        try:
            is_zip = p.is_file() and _is_zip(p)
        except OSError as err:
            raise StoreError(f"cannot reach it ({err.strerror})", p) from None
        if is_zip:
            if unpack_to is not None:
                p, note = _unpack_zip(p, Path(unpack_to))
                notes.append(note)
                read_only = bool(read_only)
            else:
                if read_only is False:
                    raise StoreError(f"a zip opens read-only: play recorded in a temporary copy would be lost. To "
                                     f"play from it, name the folder where play is recorded: "
                                     f"Campaign.open({str(path)!r}, unpack_to='play/{p.stem}')", p)
                read_only = True
                temporary = Path(tempfile.mkdtemp(prefix="delvebook-zip-"))
                try:
                    p, _ = _unpack_zip(Path(path), temporary / "campaign")
                except BaseException:
                    shutil.rmtree(temporary, ignore_errors=True)
                    raise
                notes.append(f"{path}: read-only, from a temporary copy removed when the campaign is closed; to "
                             f"play from the zip, open it with unpack_to='a folder of yours'")
        elif unpack_to is not None:
            raise StoreError("unpack_to is for a zip made by export_zip; this is not one", p)
        read_only = bool(read_only)
        # Opening makes tens of thousands of acyclic dicts (events, then the state they fold into): run during
        # the open, the cycle collector would scan them again and again as they pile up and find nothing; paused,
        # it scans them once when it resumes (bench/campaign.py shows both).
        try:
            with _collector_paused():
                folding = _Folding()
                try:
                    store = CampaignStore.open(p, read_only=read_only, fold=folding.start)
                except _DoesNotReplay:  # the log reads but does not replay: read it again to say where
                    store = CampaignStore.open(p, read_only=read_only)
                    folding = None
                try:
                    camp = cls._from_store(store, read_only=read_only, folding=folding)
                except BaseException:
                    store.close()
                    raise
                camp._frozen = _freeze()
        except BaseException:
            if temporary is not None:
                shutil.rmtree(temporary, ignore_errors=True)
            raise
        store.problems += notes
        if temporary is not None:
            camp._unpacked = weakref.finalize(camp, shutil.rmtree, str(temporary), True)
        return camp

    @classmethod
    def _from_store(cls, store, read_only: bool, folding: "_Folding | None" = None) -> "Campaign":
        if folding is not None:  # folded as the store read the log
            rules, setup, history = folding.rules, folding.setup, folding.history
        else:
            rules = rules_for(store.campaign)
            setup = setup_state(store.campaign, rules)
            history = None
        try:
            engine = Engine(rules, setup, store.events, history=history)
        except _NOT_REPLAYED:
            raise _replay_error(store, rules, setup) from None
        from .statecheck import shape_for
        if shape_for(rules).state_problems(engine.state):
            raise _replay_error(store, rules, setup) from None
        return cls(store, rules, engine, read_only)

    @_locked
    def close(self) -> None:
        """Release the write lock (the files stay as they are), and remove a zip's temporary folder; safe to
        call twice."""
        self._store.close()
        if self._unpacked is not None:
            self._unpacked()
        if self._frozen:
            self._frozen = _thaw()

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
        return _TableDelver(d, self)

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
        from .engine import queries
        return queries.may_act(self.state, self.rules, who)

    @property
    def fight(self) -> "Fight | None":
        return Fight(self) if self.state["encounter"] is not None else None

    @property
    def prepared_encounters(self) -> dict[str, dict]:
        """Encounters the keeper prepared in campaign.yaml, by id: ``name``, ``foes`` (one entry per foe,
        counts expanded), ``note``, ``dark`` (fought in darkness); ``camp.encounter(id)`` starts one."""
        out = {}
        for eid, enc in (self._store.campaign.get("encounters") or {}).items():
            out[eid] = {"name": enc.get("name") or eid, "foes": _expand_prepared(enc["foes"]),
                        "note": enc.get("note"), "dark": bool(enc.get("dark"))}
        return out

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
        return self.engine.history.events_by_seq[seq]

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
        return self.events[-1]["seq"] + 1 if self.events else 1

    @_locked
    def _record(self, event: dict) -> Outcome:
        if self.read_only:
            raise Refused("this campaign is open read-only")
        if event.get("seq") != self._next_seq():  # decided outside the lock, on a state that has moved on
            raise Refused("another action was recorded while this one was decided; nothing was recorded, try again")
        event["ts"] = self._now()
        self._store.append(event)  # on disk (fsync'ed) before the state changes
        touched = self.engine.apply(event)
        outcome = Outcome(event)
        outcome.touched = touched
        outcome.campaign = self
        outcome._roll_objects = self.engine.rolls_of(event)
        for listener in list(self.listeners):
            listener(outcome)
        return outcome

    @_locked
    def catch_up(self) -> list[Outcome]:
        """A read-only campaign follows its log: fold in the events another process (the keeper's table) has
        appended since the last call, and tell the listeners; returns them, oldest first. If the log was
        replaced or shrank (a torn line set aside), the campaign is read again and every event is returned."""
        if not self.read_only:
            raise Refused("this campaign records play itself: it has every event already")
        if self._tail is None:
            self._tail = self._store.follow()
        got = self._tail.poll()
        if got.reload:
            fresh = Campaign.open(self.path, read_only=True)
            self._store, self.rules, self.engine = fresh._store, fresh.rules, fresh.engine
            if fresh._frozen:  # this campaign keeps one hold on the collector's freeze: the fresh open's
                if self._frozen:
                    _thaw()
                self._frozen, fresh._frozen = True, False
            self._tail = None
            events = list(self.events)
            outcomes = [Outcome(e) for e in events]
            for o in outcomes:
                o.touched = None  # everything may have changed
                o.campaign = self
        else:
            outcomes = []
            for event in got.events:
                self._store.events.append(event)
                outcome = Outcome(event)
                outcome.touched = self.engine.apply(event)
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
                   choices: Mapping[str, str] | None = None, faces: Mapping | None = None) -> Delver:
        """A new delver joins at the end of the table; the class's random things are rolled."""
        self.act("add_delver", faces=faces, name=name, class_id=class_id, player=player,
                 choices=dict(choices) if choices else None)
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
        encounter id from campaign.yaml); ``dark``: fought in darkness (a prepared encounter may say so)."""
        prepared = self._store.campaign.get("encounters", {})
        if isinstance(foes, str) and foes in prepared:
            name = name or foes
            dark = dark or bool(prepared[foes].get("dark"))
            foes = _expand_prepared(prepared[foes]["foes"])
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

    def danger(self, foes: Any = None, fights: int = 2000, seed: int | None = None, **options: Any):
        """How deadly a fight is, before the first roll: up to ``fights`` fights of the party as it stands against
        ``foes`` (bestiary ids or specs, or a prepared encounter's id; None: the fight running now, from where it
        stands), played by the rules in memory. Nothing is written to the campaign. Returns a
        ``forecast.Danger``; ``options``: ``policy``, ``precision``, ``progress``, ``workers``, ``name`` (see
        ``delvebook.forecast.forecast``)."""
        from .forecast import forecast
        name = options.pop("name", None)
        prepared = self.prepared_encounters
        if isinstance(foes, str):
            if foes not in prepared:
                raise Refused(f"there is no prepared encounter {foes!r} (prepared: {', '.join(prepared) or 'none'});"
                              " name foes as a list of bestiary ids")
            name = name or prepared[foes]["name"]
            if prepared[foes]["dark"]:
                options.setdefault("dark", True)
            foes = prepared[foes]["foes"]
        return forecast(self.rules, self.state, None if foes is None else list(foes), name=name, fights=fights,
                        seed=seed, campaign=self._store.campaign, **options)

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
        from .store import StoreError
        root = self.path
        if root is None:
            raise StoreError("this campaign has no folder to export (an in-memory store)")
        buf = io.BytesIO()
        total = 0
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            for name in _export_names(root):
                data = _read_own_file(root / name, EXPORT_MAX_BYTES - total, required=name in _REQUIRED)
                if data is None:
                    continue
                total += len(data)
                info = zipfile.ZipInfo(f"{root.name}/{name}", date_time=_zip_time(root / name))
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = (stat.S_IFREG | 0o644) << 16
                z.writestr(info, data)
        return buf.getvalue()

    def dashboard(self):
        """The keeper's table: party, fight, log (a widget; leave it last in a cell to show it)."""
        return view("dashboard")(self)

    def __repr__(self) -> str:
        mode = ", read-only" if self.read_only else ""
        return f"<Campaign {self.name!r} at {self.path}: {len(self.state['delvers'])} delvers, {len(self.events)} events{mode}>"


class _TableDelver(Delver):
    """A delver seen from its campaign: in a notebook cell it shows its live character card."""

    def __init__(self, data: Mapping, camp: "Campaign"):
        super().__init__(data)
        self._camp = camp

    def _ipython_display_(self) -> None:
        from IPython.display import display
        display(view("card")(self._camp, self.name))


class Fight:
    """The running encounter, seen from the campaign: foes, order, the current actor, and its actions."""

    def __init__(self, camp: Campaign):
        self.camp = camp

    @property
    def _enc(self) -> dict:
        enc = self.camp.state["encounter"]
        if enc is None:
            raise Refused("this fight has ended")
        return enc

    @property
    def foes(self) -> list[Foe]:
        return [Foe(f) for f in self._enc["foes"].values()]

    def foe(self, name: str) -> Foe:
        return Foe(self._enc["foes"][name])

    @property
    def round(self) -> int:
        return self._enc["round"]

    @property
    def side(self) -> str | None:
        return self._enc["side"]

    @property
    def order(self) -> dict[str, list[str]]:
        return {k: list(v) for k, v in self._enc["order"].items()}

    @property
    def actor(self) -> str | None:
        return current_actor(self.camp.state)

    def initiative(self, first: str | None = None, faces: Mapping | None = None, *,
                   keeper_override: str | None = None) -> Outcome:
        """Sides roll D6 (ties re-rolled), or ``first="party"``/``"foes"`` when one side obviously goes first."""
        return self.camp.act("initiative", faces=faces, first=first, keeper_override=keeper_override)

    def attack(self, attacker: str, target: str, weapon: Any = None, faces: Mapping | None = None,
               **options: Any) -> Outcome:
        """``attacker`` attacks ``target`` on its turn (its action; ``keeper_override="why"`` to ignore the turn).
        ``counter_weapon`` names the target's answer, ``thrown=True`` throws a melee weapon, ``smite=True``
        declares a smite (or choose it after the hit: ``on_hit("smite")``)."""
        return self.camp.act("attack", faces=faces, attacker=attacker, target=target, weapon=weapon, **options)

    def on_hit(self, option: str, hit: int | None = None, faces: Mapping | None = None) -> Outcome:
        """A choice the latest attack offered once its hit was seen (a smite): see ``Campaign.on_hit``."""
        return self.camp.on_hit(option, hit=hit, faces=faces)

    def may_act(self, who: str):
        """May ``who`` act now, and with what: see ``Campaign.may_act``."""
        return self.camp.may_act(who)

    def next_turn(self, *, keeper_override: str | None = None) -> Outcome:
        return self.camp.act("next_turn", keeper_override=keeper_override)

    def set_order(self, order: list[str], *, keeper_override: str | None = None) -> Outcome:
        return self.camp.act("set_order", order=list(order), keeper_override=keeper_override)

    def add_foes(self, foes: list, *, keeper_override: str | None = None) -> Outcome:
        return self.camp.act("add_foes", foes=list(foes), keeper_override=keeper_override)

    def end(self, keep: list | None = None, *, keeper_override: str | None = None) -> Outcome:
        """End the fight: XP for the vanquished, split across the party; ``keep`` names foes still standing who
        stay in the story as NPCs (NPCs who fought go back to being NPCs by themselves)."""
        return self.camp.act("end_encounter", keep=list(keep) if keep else None, keeper_override=keeper_override)

    def _ipython_display_(self) -> None:
        """Left last in a cell: the live fight tracker (the view registered as ``fight``), or the fight in words
        where no front end is installed."""
        from IPython.display import display
        try:
            shown = view("fight")
        except LookupError:
            display({"text/plain": repr(self)}, raw=True)
            return
        display(shown(self.camp))

    def __repr__(self) -> str:
        try:
            enc = self._enc
        except Refused:
            return "<Fight (ended)>"
        foes = ", ".join(f"{f['name']} {f['hearts']}/{f['max_hearts']}" for f in enc["foes"].values())
        return f"<Fight {enc['name']!r}, round {enc['round']}, actor {self.actor}: {foes}>"


# ---------------------------------------------------------------- views

VIEW_GROUP = "delvebook.views"
"""The entry-point group where a front end registers its views (``dashboard``, ``card``): the campaign shows
itself through whatever is installed, and imports no view."""


def view(name: str):
    """The view registered as ``name`` (a callable taking the campaign)."""
    from importlib.metadata import entry_points
    found = [ep for ep in entry_points(group=VIEW_GROUP) if ep.name == name]
    if not found:
        raise LookupError(f"no delvebook view {name!r} is installed: pip install 'delvebook[table]'")
    return found[0].load()


# ---------------------------------------------------------------- setup from campaign.yaml

def rules_for(campaign: Mapping):
    """The rules with the campaign's house rules and bestiary folded in: the very rules its check of
    campaign.yaml played by (``rules.load.rules_for_campaign``), so a campaign that validates opens."""
    from .rules.load import rules_for_campaign
    return rules_for_campaign(campaign)


_NOT_REPLAYED = (KeyError, IndexError, TypeError, ValueError, AttributeError, RecursionError)
"""What folding an event that does not fit the state before it raises (``_replay_error`` then says where)."""


class _DoesNotReplay(Exception):
    """An event of the log read did not fold into the state before it."""


class _Folding:
    """The fold of a log into the state as the store reads it (``CampaignStore.open``'s ``fold``): one pass over
    the events, each folded while it is fresh from the parser (``start`` is called once the campaign file is
    read)."""

    def __init__(self) -> None:
        self.rules = self.setup = self.history = None

    def start(self, campaign: dict):
        self.rules = rules_for(campaign)
        self.setup = setup_state(campaign, self.rules)
        self.history = History(clone(self.setup))
        history = self.history
        fold = history.fold

        def each(event: dict) -> None:
            try:
                fold(upgrade_event(event, history.state), None)  # a log of an older format is read in today's
            except _NOT_REPLAYED:
                raise _DoesNotReplay from None
        return each


@contextlib.contextmanager
def _collector_paused():
    """Pause the cycle collector for a block (opening: read, set up, replay), as it was on entry afterwards."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


_FROZEN = [0]  # campaigns open whose opening froze the objects then alive out of the cycle collector's passes
_FROZEN_LOCK = threading.Lock()


def _freeze() -> bool:
    """Move every object alive now (an open campaign's events and state: millions at 100k events) out of the
    cycle collector's full passes (``gc.freeze``): they are acyclic and live as long as the campaign, and a full
    pass over them stalls a click for seconds. Returns True: a hold that ``_thaw`` releases."""
    with _FROZEN_LOCK:
        gc.freeze()
        _FROZEN[0] += 1
    return True


def _thaw() -> bool:
    """Release one campaign's hold; the last one closed gives the frozen objects back to the collector
    (``gc.unfreeze``), so what closing left unreachable is collected. Returns False (no hold left)."""
    with _FROZEN_LOCK:
        _FROZEN[0] -= 1
        if _FROZEN[0] == 0:
            gc.unfreeze()
    return False


def setup_state(campaign: Mapping, rules) -> dict:
    """The state before the log: the campaign's prepared delvers, built by the same rules as in play.

    Anything random a sheet leaves out is rolled from the campaign's seed and the delver's name, so
    opening the same files always gives the same party."""
    engine = Engine(rules, new_state(campaign.get("name", ""), campaign.get("seed")))
    for i, sheet in enumerate(campaign.get("delvers") or ()):
        rng = random.Random(f"{campaign.get('seed')}:{sheet['name']}")
        args = {"name": sheet["name"], "class_id": sheet["class"], "player": sheet.get("player"),
                "choices": dict(sheet.get("choices") or {}) or None}
        args = {k: v for k, v in args.items() if v is not None}
        event = engine.decide("add_delver", args, rng, seq=i + 1)
        engine.apply(event)
        d = engine.state["delvers"][sheet["name"]]
        if "hearts" in sheet:
            d["hearts"] = d["max_hearts"] = int(sheet["hearts"])
        for f in ("spells", "true_names"):
            if f in sheet:
                d[f] = list(sheet[f])
        if "purse" in sheet:  # talons, or {currency unit: count} in the campaign's currency
            purse = sheet["purse"]
            d["purse"] = purse if isinstance(purse, int) else rules.talons(purse)
    seats = campaign.get("seats")
    if seats:
        engine.state["seats"] = list(seats) + [n for n in engine.state["seats"] if n not in seats]
    state = clone(engine.state)
    return state


def _expand_prepared(foes: list) -> list:
    out = []
    for f in foes:
        if isinstance(f, Mapping) and "count" in f:
            spec = {k: v for k, v in f.items() if k != "count"}
            out += [dict(spec) for _ in range(int(f["count"]))]
        else:
            out.append(f)
    return out


# ---------------------------------------------------------------- zips in and out

ZIP_MAX_BYTES = 512 << 20
"""A zip unpacks to at most this many bytes (512 MiB: a 100,000-event log is about 64 MiB)."""
ZIP_MAX_ENTRIES = 1000
"""A zip holds at most this many entries (a campaign is a few files)."""
ZIP_MAX_RATIO = 100
"""An entry may unpack to at most this many times its compressed size (a log compresses about 10 times; a zip
bomb a thousand)."""
EXPORT_MAX_BYTES = 512 << 20
"""``export_zip`` holds at most this many bytes of files."""

_OWN_FILE = re.compile(r"^(campaign\.yaml|log\.yaml|log\.(torn|displaced)-[0-9A-Za-z.\-]{1,64}\.yaml)$")
_REQUIRED = ("campaign.yaml", "log.yaml")


def _is_zip(path: Path) -> bool:
    try:
        return zipfile.is_zipfile(path)
    except OSError:
        return False


def _export_names(root: Path) -> list[str]:
    """The campaign's own files in its folder (top level only), campaign.yaml and the log first."""
    from .store import StoreError
    try:
        names = sorted(n for n in os.listdir(root) if _OWN_FILE.match(n))
    except OSError as err:
        raise StoreError(f"cannot list the campaign folder ({err.strerror})", root) from None
    for name in _REQUIRED:
        if name not in names:
            raise StoreError(f"no {name} to export", root)
    return list(_REQUIRED) + [n for n in names if n not in _REQUIRED]


def _read_own_file(file: Path, room: int, required: bool) -> bytes | None:
    """A campaign file's bytes, read through one descriptor: a symlink, a device or a pipe is refused (required
    files) or left out (side files) before a byte is read; at most ``room`` bytes."""
    from .store import StoreError
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(file, flags)
    except OSError as err:
        if not required:
            return None
        why = "a symlink" if os.path.islink(file) else err.strerror
        raise StoreError(f"is not a campaign file delvebook exports ({why}); the export holds only regular files "
                         f"of the folder, and nothing was exported", file) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            if not required:
                return None
            raise StoreError("is not a regular file (a device, a pipe?); nothing was exported", file)
        if st.st_size > room:
            raise StoreError(f"the campaign's files come to more than {EXPORT_MAX_BYTES >> 20} MiB; nothing was "
                             f"exported", file)
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if size > room:
                raise StoreError(f"grew past {EXPORT_MAX_BYTES >> 20} MiB while it was read; nothing was exported",
                                 file)
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _zip_time(file: Path) -> tuple:
    try:
        t = _dt.datetime.fromtimestamp(os.stat(file, follow_symlinks=False).st_mtime)
    except (OSError, ValueError, OverflowError):
        t = _dt.datetime(1980, 1, 1)
    return (max(1980, t.year), t.month, t.day, t.hour, t.minute, t.second)


def _unpack_zip(path: Path, target: Path) -> tuple[Path, str]:
    from .store import os_error
    try:
        return _unpack_zip_into(path, target)
    except OSError as err:
        raise os_error(err, "unpack the zip; nothing was kept", target) from None


def _unpack_zip_into(path: Path, target: Path) -> tuple[Path, str]:
    """Unpack an exported campaign zip into ``target`` (a new or empty folder), within limits, refusing what
    would escape it: only a campaign's own files (campaign.yaml, the log, its side files) at the top of the zip or
    under one folder, as regular files. Returns (the campaign folder, a note saying where play is recorded).
    A folder that already holds a campaign is opened as it is: unpacking never writes over play."""
    from .store import StoreError, check_new_path
    if (target / "campaign.yaml").exists():
        return target, (f"{target}: already holds a campaign (unpacked before?): opened as it is, {path} was not "
                        f"unpacked again; play is recorded in {target}")
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise StoreError("already holds files; unpack a zip into a new or empty folder", target)
    check_new_path(target)
    try:
        z = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as err:
        raise StoreError(f"not a zip delvebook can read ({err})", path) from None
    made_folder = not target.exists()
    written: list[Path] = []
    try:
        with z:
            infos = z.infolist()
            if len(infos) > ZIP_MAX_ENTRIES:
                raise StoreError(f"{len(infos):,} entries; a campaign zip holds at most {ZIP_MAX_ENTRIES:,}", path)
            wanted = _campaign_entries(infos, path)
            total = 0
            try:
                target.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                raise StoreError(f"cannot make the folder to unpack into ({err.strerror})", target) from None
            for name, info in wanted:
                dest = target / name
                written.append(dest)
                total = _unpack_entry(z, info, dest, total, path)
    except BaseException:
        for f in written:
            try:
                os.unlink(f)
            except OSError:
                pass
        if made_folder:
            shutil.rmtree(target, ignore_errors=True)
        raise
    return target, f"{target}: unpacked from {path}; play is recorded here"


def _campaign_entries(infos: list, path: Path) -> list[tuple[str, Any]]:
    from .store import StoreError
    files = [i for i in infos if not i.is_dir()]
    prefix = ""
    if not any(i.filename == "campaign.yaml" for i in files):  # export_zip's layout: one folder holding it
        roots = {i.filename[:-len("campaign.yaml")] for i in files
                 if i.filename.endswith("/campaign.yaml") and i.filename.count("/") == 1
                 and not i.filename.startswith(("/", "."))}
        if len(roots) == 1:
            prefix = roots.pop()
    wanted = []
    for info in files:
        name = info.filename
        if not name.startswith(prefix):
            continue
        name = name[len(prefix):]
        if not _OWN_FILE.match(name):
            continue  # not a campaign file (a README, a notebook, .git): left in the zip
        kind = (info.external_attr >> 16) & 0o170000
        if kind not in (0, stat.S_IFREG):
            raise StoreError(f"{info.filename!r} is not a plain file in the zip (a symlink?); refused", path)
        wanted.append((name, info))
    if not any(n == "campaign.yaml" for n, _ in wanted):
        raise StoreError("no campaign.yaml inside the zip (at its top, or in one folder)", path)
    return wanted


def _unpack_entry(z: zipfile.ZipFile, info, dest: Path, total: int, path: Path) -> int:
    from .store import StoreError
    limit = ZIP_MAX_RATIO * max(info.compress_size, 1 << 16)
    written = 0
    try:
        fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as err:
        raise StoreError(f"cannot unpack {info.filename!r} ({err.strerror})", dest) from None
    try:
        with z.open(info) as src:
            while True:
                chunk = src.read(1 << 20)
                if not chunk:
                    break
                written += len(chunk)
                total += len(chunk)
                if written > limit:
                    raise StoreError(f"{info.filename!r} unpacks to more than {ZIP_MAX_RATIO} times its compressed "
                                     f"size (a zip bomb?); refused", path)
                if total > ZIP_MAX_BYTES:
                    raise StoreError(f"unpacks to more than {ZIP_MAX_BYTES >> 20} MiB; a campaign zip is at most "
                                     f"that; refused", path)
                try:
                    _write_all(fd, chunk)
                except OSError as err:
                    raise StoreError(f"could not unpack {info.filename!r} ({err.strerror}); nothing was kept",
                                     dest) from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, NotImplementedError) as err:
        raise StoreError(f"{info.filename!r} cannot be read from the zip ({err})", path) from None
    except RuntimeError as err:  # an encrypted entry
        raise StoreError(f"{info.filename!r} cannot be read from the zip ({err})", path) from None
    finally:
        os.close(fd)
    return total


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _replay_error(store, rules, setup):
    """The StoreError naming the first event whose changes do not apply, or after which the state is not one
    the views can show (the log's file:line and the field): replayed again one event at a time (this is only the
    path of a log that does not open)."""
    from .events import History, apply_changes
    from .statecheck import dotted_path, shape_for
    from .store import StoreError
    shape = shape_for(rules)
    setup_problems = shape.state_problems(setup)
    if setup_problems:
        where, why = setup_problems[0]
        return StoreError(f"the party this file sets up does not hold: {dotted_path(where)}: {why}",
                          store.path / "campaign.yaml" if store.path is not None else None)
    history = History(clone(setup))
    file = store.path / "log.yaml" if store.path is not None else None
    for event in store.events:
        before = clone(history.state)
        try:
            history.apply(event)
        except _NOT_REPLAYED as err:
            field, reason = _why_not_applied(before, event, err, apply_changes)
            return StoreError(reason, file, _line_of(store, event), field)
        problems = shape.state_problems(history.state)
        if problems:
            where, why = problems[0]
            return StoreError(f"after this event the state does not hold: {dotted_path(where)}: {why}", file,
                              _line_of(store, event), "changes" if event.get("changes") is not None else None)
    return StoreError("the log does not replay (no single event to blame)", file)


def _why_not_applied(state, event, err, apply_changes) -> tuple[str | None, str]:
    from .statecheck import dotted_path
    changes = event.get("changes")
    kind = event.get("kind")
    if kind in ("undo", "redo") or event.get("replaces") is not None or not isinstance(changes, list):
        return (kind if kind in ("undo", "redo") else "replaces"), f"does not apply to the log before it: {err}"
    for i, change in enumerate(changes):
        try:
            apply_changes(state, [change])
        except (KeyError, IndexError, TypeError, ValueError, AttributeError):
            path = change[0] if isinstance(change, list) and change else change
            return f"changes[{i}]", (f"{dotted_path(path) if isinstance(path, list) else path}: no such place in "
                                     f"the state at this point (a change sets a field that exists, or adds one at "
                                     f"the end of a list)")
    return "changes", f"does not apply: {type(err).__name__}: {err}"


def _line_of(store, event) -> int | None:
    line_of = getattr(store, "line_of", None)
    return line_of(event.get("seq")) if line_of is not None else None
