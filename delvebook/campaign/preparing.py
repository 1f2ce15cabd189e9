"""The keeper's API for preparing an evening (a part of ``Campaign``): the party's seats and retirements, the
bestiary's foe types, prepared encounters, roll tables and rolls on them, and how deadly a fight is (the danger
forecast, played at once or a slice at a time, and its tuner).

Each is one campaign call -> one event (``engine.preparing``), written to the log, undoable, told by the narrator.
What stands is campaign.yaml's preparation with the table's laid over, id by id (``engine.queries.prepared``):
``camp.foe_types``, ``camp.prepared_encounters``, ``camp.roll_tables``.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

__all__ = ["Preparing"]


class Preparing:
    """Preparing the evening: mixed into ``Campaign`` (which gives ``act``, ``state`` and ``rules``)."""

    # ---- what stands
    @property
    def foe_types(self) -> Mapping:
        """Every foe type by id (the bestiary: shipped, house rules, campaign.yaml, the table's), read-only."""
        from ..engine.queries import foe_types
        return foe_types(self.state, self.rules)

    @property
    def roll_tables(self) -> Mapping:
        """Every roll table by id (the namer's true names, campaign.yaml's, the table's), read-only."""
        from ..engine.queries import roll_tables
        return roll_tables(self.state, self.rules)

    @property
    def prepared_encounters(self) -> dict[str, dict]:
        """Encounters prepared in campaign.yaml or by the table, by id: ``name``, ``foes`` (one entry per foe, counts
        expanded), ``note``, ``dark`` (fought in darkness); ``camp.encounter(id)`` starts one."""
        from ..engine.queries import encounter_foes, encounters
        return {eid: {"name": enc.get("name") or eid, "foes": encounter_foes(enc), "note": enc.get("note"),
                      "dark": bool(enc.get("dark"))}
                for eid, enc in encounters(self.state, self.rules).items()}

    # ---- the party
    def retire_delver(self, name: str) -> Any:
        """``name`` leaves the table for good (off the seats, out of every split), kept in the history."""
        return self.act("retire_delver", who=name)

    def set_seats(self, order: Iterable[str]) -> Any:
        """The delvers at the table in a new clockwise order (the party's default order in a fight)."""
        return self.act("set_seats", order=list(order))

    # ---- the bestiary
    def prepare_foe(self, name: str, hearts: int, attack_bonus: Any = 0, damage: Any = "d6", *,
                    id: str | None = None, tags: Iterable[str] = (), armor: Mapping | None = None,
                    multi_attack: int | None = None, ranged: bool | None = None, counters: bool | None = None,
                    note: str | None = None, change: bool = False) -> Any:
        """A foe type for the bestiary (its id made from the name unless given), or one changed (``change=True``):
        hearts, attack bonus and damage (dice or a number), tags (undead, demon...), armor ``{"av", "dv"}``,
        multi-attack, ranged, ``counters=False`` for one that never hits back, a keeper's note."""
        return self.act("prepare_foe", name=name, hearts=hearts, attack_bonus=attack_bonus, damage=damage, id=id,
                        tags=list(tags), armor=dict(armor) if armor else None, multi_attack=multi_attack,
                        ranged=ranged, counters=counters, note=note, change=change or None)

    def remove_foe(self, id: str) -> Any:
        return self.act("remove_foe", id=id)

    # ---- prepared encounters
    def prepare_encounter(self, name: str, foes: Any, *, id: str | None = None, note: str | None = None,
                          dark: bool = False, change: bool = False) -> Any:
        """A named encounter: ``foes`` as ``{"goblin": 3, "ogre": 1}``, or a list of ids and ``{"foe", "count"}``;
        ``dark``: fought in darkness; ``camp.encounter(id)`` starts it, ``camp.danger(id)`` forecasts it."""
        if isinstance(foes, Mapping):
            foes = [{"foe": k, "count": v} for k, v in foes.items()]
        return self.act("prepare_encounter", name=name, foes=list(foes), id=id, note=note, dark=dark or None,
                        change=change or None)

    def remove_encounter(self, id: str) -> Any:
        return self.act("remove_encounter", id=id)

    # ---- roll tables
    def prepare_table(self, name: str, dice: str, entries: Any, *, id: str | None = None,
                      without_replacement: bool = False, note: str | None = None, change: bool = False) -> Any:
        """A roll table: ``dice`` (d6, 2d6, d66...) and ``entries``, a list of ``{"range": "1-3", "result": ...,
        "roll": other table}`` or a mapping ``{"1-3": "a rusty dagger", 6: {"roll": "gems"}}``."""
        if isinstance(entries, Mapping):
            entries = [{"range": k, **(v if isinstance(v, Mapping) else {"result": v})} for k, v in entries.items()]
        return self.act("prepare_table", name=name, dice=dice, entries=[dict(e) if isinstance(e, Mapping) else e
                                                                         for e in entries],
                        id=id, without_replacement=without_replacement or None, note=note, change=change or None)

    def remove_table(self, id: str) -> Any:
        return self.act("remove_table", id=id)

    def roll_table(self, table: str, who: str | None = None, faces: Mapping | None = None) -> Any:
        """A roll on ``table``: the entry its total lands in (and what that entry rolls on); a luck die on it
        (``spend_luck``) moves the entry, and the outcome says what it was."""
        return self.act("roll_table", faces=faces, table=table, who=who)

    def reset_table(self, table: str) -> Any:
        """A table drawn without replacement made whole again."""
        return self.act("reset_table", table=table)

    # ---- how deadly a fight is
    def danger(self, foes: Any = None, fights: int = 2000, seed: int | None = None, **options: Any):
        """How deadly a fight is, before the first roll: up to ``fights`` fights of the party as it stands against
        ``foes`` (bestiary ids or specs, or a prepared encounter's id; None: the fight running now, from where it
        stands), played by the rules in memory. Nothing is written to the campaign. Returns a
        ``forecast.Danger``; ``options``: ``policy``, ``precision``, ``progress``, ``workers``, ``name``,
        ``sitting_out`` (delvers who do not fight: a what-if), ``dark`` (see ``delvebook.forecast.forecast``)."""
        from ..forecast import forecast
        _fights_bounded(fights)
        foes, name = self._danger_foes(foes, options)
        return forecast(self.rules, self.state, foes, name=name, fights=fights, seed=seed,
                        campaign=self._store.campaign, **options)

    def habits(self):
        """How this party plays, learned from the campaign's own fights (``forecast.habits``: when it leaves a
        fight, whom it attacks, how it spends luck), each with what it rests on; the documented default where the
        log is too short. Every forecast plays by them unless given ``policy="default"`` (or a Policy)."""
        from ..forecast.habits import learn
        return learn(self)

    def danger_job(self, foes: Any = None, fights: int = 2000, seed: int | None = None, **options: Any):
        """The forecast ``danger`` gives, played a slice at a time (a ``forecast.Job``: ``job.step(seconds)``,
        ``job.danger()`` so far, ``job.cancel()``): what a view drives between its messages, so the kernel keeps
        answering clicks while it runs. Nothing is written to the campaign."""
        from ..forecast import Job
        _fights_bounded(fights)
        foes, name = self._danger_foes(foes, options)
        return Job(self.rules, self.state, foes, name=name, fights=fights, seed=seed, campaign=self._store.campaign,
                   **options)

    def _danger_foes(self, foes: Any, options: dict) -> tuple[list | None, str | None]:
        """(the foes, the name) a forecast plays: a prepared encounter's (its darkness too, into ``options``); the
        policy it plays by into ``options`` (by default how this party plays, ``habits``)."""
        from ..forecast.habits import policy_named
        options["policy"] = policy_named(self, options.get("policy"))
        name = options.pop("name", None)
        prepared = self.prepared_encounters
        if isinstance(foes, str):
            if foes not in prepared:
                from ..engine import Refused
                raise Refused(f"there is no prepared encounter {foes!r} (prepared: {', '.join(prepared) or 'none'});"
                              " name foes as a list of bestiary ids")
            if prepared[foes]["dark"]:
                options.setdefault("dark", True)
            return prepared[foes]["foes"], name or prepared[foes]["name"]
        return (None if foes is None else list(foes)), name

    # ---- tuning an encounter
    def tune(self, foe: str, target: str = "nobody dies", base: Any = None, **options: Any):
        """How many ``foe`` (a foe type's id or name) meet ``target`` ("nobody dies": the chance of a death at most
        5%; "a real threat": the party wins at most 80% of the time) beside ``base`` (foes, or a prepared
        encounter's id): each count's forecast, and the count proposed (``forecast.Tuner``: ``.proposed``,
        ``.candidates``). Options as ``danger``'s, and ``most`` (the most foes tried, 12)."""
        return self.tuner(foe, target, base, **options).run()

    def tuner(self, foe: str, target: str = "nobody dies", base: Any = None, **options: Any):
        """``tune``, played a slice at a time (``step(seconds)``, ``cancel()``): what a view drives."""
        from ..engine import Refused
        from ..engine.queries import foe_id
        from ..forecast import Tuner
        fid = foe_id(self.state, self.rules, foe)
        if fid is None:
            raise Refused(f"there is no foe type {foe!r} in the bestiary")
        if base is None:
            from ..forecast.habits import policy_named
            options["policy"] = policy_named(self, options.get("policy"))
        foes, name = self._danger_foes(base, options) if base is not None else ([], options.pop("name", None))
        return Tuner(self.rules, self.state, fid, target, foes, name=name, campaign=self._store.campaign,
                     **options)


def _fights_bounded(fights: Any) -> None:
    """Refuse more fights than a forecast plays (``bounds.MAX_FIGHTS``), naming the limit, before one is played."""
    from ..core.rules.schema.bounds import MAX_FIGHTS, number_shown
    if type(fights) is int and fights > MAX_FIGHTS:
        from ..engine import Invalid
        raise Invalid(f"fights: at most {MAX_FIGHTS:,}, not {number_shown(fights)}", "fights")
