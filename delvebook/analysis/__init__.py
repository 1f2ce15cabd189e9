"""Tidy pandas frames from a campaign's log: events, rolls, hearts, XP, encounters (and damage, luck, fairness).

Every frame is built from the log in one replay (``fold.build``): History folds each event, and collectors
(``delvebook.core.collect``) follow its actions in force, each adding what an action adds (a hearts row per combatant
it changed, a row per die it rolled...) when it comes in force and taking it back when it is undone or replaced.
The log keeps everything the table did, including actions later undone or replaced (a luck die, typed dice): the
``events`` frame has every event, with an ``in_force`` column saying whether its changes are part of the campaign
as it stands (History's ``standing``); every other frame holds what the actions in force added, in log order, so a
hearts row shows the hearts exactly as ``camp.state_at(seq)`` has them. Who did what to whom is read from each
event's roles (``actor``, ``targets``, ``sides``, each damage entry's ``by``), never guessed.

Each function takes a :class:`~delvebook.Campaign` or a campaign folder (opened read-only, without the
writer's lock). ``frames(x)`` gives them all as a dict. ``calibration(x)`` (``calibrate``) sets the danger
forecast of each fight, made again from the state at its start, beside what happened. The rooms: ``fold`` (the
replay), ``tables`` (each frame's columns and types), ``fair_dice`` (the dice's chi-squared), ``calibrate``. This
package imports pandas; ``import delvebook`` does not.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, Callable, Mapping

from ..core.extras import require

require("analysis", "delvebook.analysis", "pandas")  # before the imports: names the extra

import pandas as pd  # noqa: E402

from .fold import FRAMES, frame, open_campaign, shared_frames  # noqa: E402
from .calibrate import Calibration, calibration  # noqa: E402
from .fair_dice import FAIR_LEVEL, chi_squared_p, face_probabilities, fairness_verdict  # noqa: E402

__all__ = ["frames", "events", "rolls", "hearts", "xp", "encounters", "damage", "luck", "fairness",
           "levels", "chi_squared_p", "fairness_verdict", "face_probabilities", "FAIR_LEVEL", "FRAME_NAMES",
           "calibration", "Calibration", "recap", "frame"]

FRAME_NAMES: tuple[str, ...] = ("events", "rolls", "hearts", "xp", "encounters", "damage", "luck", "fairness",
                                 "levels")
"""Every frame by name: the built-in ones, then each declared in a module of this package (``fold.frame``)."""

Source = Any  # a Campaign, a folder path, or a dict of frames already built


def frames(x: Source, *, copy: bool = True, progress: Callable[[str], None] | None = None) -> dict[str, pd.DataFrame]:
    """Every frame of the campaign (a Campaign or a folder path), by name: ``events``, ``rolls``, ``hearts``,
    ``xp``, ``encounters``, ``damage``, ``luck``, ``fairness``, ``levels``.

    Copies you may change freely; ``copy=False`` gives the frames shared by charts and the report (built once
    per open campaign and state, and rebuilt when the log grows): read them, do not change them.
    ``progress`` is called with a line of text at each step of a build."""
    if isinstance(x, Mapping) and "events" in x:
        built = dict(x)
    else:
        camp, opened = open_campaign(x)
        try:
            built = shared_frames(camp, progress, keep=not opened)
        finally:
            if opened:
                camp.close()
    return {k: v.copy() for k, v in built.items()} if copy else built


def recap(x: Source, session: int | None = None) -> str:
    """One session of the campaign (a Campaign or a folder) told in the game's words, as Markdown: who was at the
    table, where the party went, each fight (finishing blows, the closest call, who fell), level-ups and choices,
    luck that turned a roll, coins and XP; only what stands (``delvebook.narrate.recap``, which a view calls for the same
    story as plain text). ``session`` None: the latest that ended."""
    from ..narrate import recap as told
    camp, opened = open_campaign(x)
    try:
        return told.recap(camp, session)
    finally:
        if opened:
            camp.close()


def events(x: Source) -> pd.DataFrame:
    """One row per event in the log, undone ones included.

    Columns: ``seq``; ``kind`` (category); ``v`` (event format version); ``clock`` (game clock, seconds);
    ``ts`` (wall time, datetime64[ns, UTC]); ``session``, ``encounter``, ``round`` (Int64, NA outside);
    ``actor`` (who acts: a name, or ``keeper``) and ``target`` (the first it is aimed at; categories: every
    event's ``targets`` and ``sides`` are columns too); ``in_force`` (bool: its
    changes are part of the campaign as it stands); ``status`` (category: ``in force``, ``undone``,
    ``replaced`` by a luck die or typed dice, ``undo``/``redo`` for those records, ``note`` for a record that
    changes nothing); ``replaced_by``, ``undone_by`` (Int64); ``replaces``, ``undoes``, ``redoes`` (Int64);
    ``luck_player`` (category: who spent the luck die of a replacing event); ``amended`` (bool: the table
    typed the faces); ``n_rolls``, ``n_changes``; ``args``, ``rolls``, ``changes`` (JSON text); then every
    field its kind's declaration names (``core.declared``), typed by the declared type, never by what the log
    happens to hold, so a column has one type in every campaign and the frame goes to Parquet as it is
    (``frame.to_parquet(...)``): a name or an id is a category (``skill``), words are text (``description``), whole
    numbers Int64 (``total``), yes or no boolean (``success``); a list of plain values stays a list (``results``,
    ``vanquished``, ``attack_totals``); an exact chance becomes a float with the fraction's text beside
    (``chance`` and ``chance_exact``: 0.2 and "1/5"), a record of chances one pair per field (an attack's
    ``chance_win``, ``chance_tie``, ``chance_lose``); a record, a list of records or a field whose kinds declare
    it differently is JSON text (``damage``, ``xp_awards``, ``counter``...: ``json.loads`` it, or reach inside with
    SQL's JSON functions). A field whose key SQL reserves has a column of its own name (a check's number
    ``target_number``, the initiative's ``sides_order``, a Commander's ``commander_order``).
    """
    return frames(x, copy=False)["events"].copy()


def rolls(x: Source) -> pd.DataFrame:
    """One row per die rolled in an in-force event, luck dice included (one row each, ``luck`` True).

    Columns: ``seq``, ``session``, ``encounter`` (Int64), ``kind`` (the event's), ``roll`` (its name in the
    event: ``check``, ``attack``, ``resist``, ``damage``...), ``who`` (who the roll is for: a delver, a foe,
    ``keeper``, ``party``/``foes`` for initiative), ``player`` (who threw this die: the delver's player, the
    player who spent a luck die, else ``keeper``), ``why``, ``expr``; ``die`` (0-based place in the roll),
    ``sides``, ``face``, ``kept`` (False for a die dropped by advantage), ``luck`` (a luck die), ``sign``
    (+1, or -1 for a subtracted luck die); per roll: ``luck_applied`` (signed sum of its luck dice),
    ``base_total`` (before luck), ``total``, ``success`` (boolean, NA when the roll has no success of its own:
    a check or death save succeeded; an attack roll hit; a resist roll held off every hit).
    """
    return frames(x, copy=False)["rolls"].copy()


def hearts(x: Source) -> pd.DataFrame:
    """Each combatant's hearts after every in-force event that changed them (or their status).

    One row per (event, combatant). Delvers start with a row at ``seq`` 0 (the setup); a foe's first row is
    the event it entered. Columns: ``seq``, ``ts``, ``clock``, ``session``, ``encounter``, ``round``, ``kind``
    (the event's, category), ``who`` (category), ``side`` (``party``/``foes``), ``foe_kind``, ``player``,
    ``hearts``, ``max_hearts``, ``change`` (hearts gained (+) or lost (-) here; NA on a first row),
    ``status`` (``alive``, ``dying``, ``dead``), ``source`` (what did it: the damage or healing source, or the
    event kind), ``down`` (hearts reached 0 here), ``death`` (died here), ``death_save`` (a death save was rolled
    here), ``death_save_success`` (boolean). A foe's name is reused across fights: (``encounter``, ``who``)
    names one foe.
    """
    return frames(x, copy=False)["hearts"].copy()


def xp(x: Source) -> pd.DataFrame:
    """Each delver's cumulative XP and level after each award (one row per delver's share of an award).

    Columns: ``seq``, ``ts``, ``clock``, ``session``, ``encounter``, ``kind``, ``who``, ``player``, ``amount``
    (this delver's share), ``award`` (the whole award), ``reason``, ``source`` (``room``, ``coins``,
    ``vanquished``, ``quest``...), ``pool_before``, ``pool_after`` (the party's undivided XP pool), ``xp``
    (cumulative, after this share), ``level`` (after the event), ``level_up`` (this event raised the level;
    marked on the delver's last row of the event). An award that only fills the pool has no rows.
    """
    return frames(x, copy=False)["xp"].copy()


def encounters(x: Source) -> pd.DataFrame:
    """One row per fight in force: ``encounter`` (its number), ``name``, ``session``, ``start_seq``,
    ``end_seq`` (NA while running), ``start_ts``, ``end_ts``, ``rounds``, ``foes`` (how many), ``foe_kinds``
    (a list: each foe's kind, in order of entry), ``party_dealt``/``party_taken`` (hearts of damage after armor
    dealt by and to delvers), ``foes_dealt``/``foes_taken``, ``armor_absorbed`` (by the party's armor),
    ``vanquished`` (foes),
    ``delvers_down`` (times a delver hit 0 hearts), ``deaths`` (delvers who died), ``death_saves`` (the
    last two count the death saves rolled after the fight too, until the next one begins in that session),
    ``xp`` (for the vanquished), ``ended``.
    """
    return frames(x, copy=False)["encounters"].copy()


def damage(x: Source) -> pd.DataFrame:
    """One row per hit that did damage, in in-force events (attacks, counter-attacks, spells, abilities, damage
    by the keeper's hand).

    Columns: ``seq``, ``session``, ``encounter``, ``round``, ``kind``, ``dealer`` (who or what dealt it, as the
    event names it in ``by``), ``dealer_side`` (``party``, ``foes``, ``creatures``, ``keeper``, ``hazard``: a trap
    named as the dealer),
    ``target``, ``target_side``, ``source`` (what: a weapon, a spell, the keeper's words), ``counter`` (a
    counter-attack),
    ``raw`` (rolled), ``av`` (armor value), ``absorbed`` (by armor), ``dealt`` (after armor:
    ``raw == absorbed + dealt``), ``hearts_before``, ``hearts_after``, ``hearts_lost`` (``hearts_before -
    hearts_after``), ``overkill`` (``dealt - hearts_lost``: damage past 0 hearts, else 0), ``vanquished``,
    ``death_save_due``.
    """
    return frames(x, copy=False)["damage"].copy()


def luck(x: Source) -> pd.DataFrame:
    """One row per luck die spent and still in force: ``seq``, ``session``, ``encounter``, ``kind``,
    ``player`` (who spent it), ``roll``, ``who`` (whose roll), ``sign``, ``face``, ``total_before``,
    ``total_after``, ``outcome_before``, ``outcome_after`` (``success``/``failure``, or the attack's results),
    ``flipped`` (the outcome changed), ``effect`` (``turned to success``, ``turned to failure``, ``changed
    the total only``)."""
    return frames(x, copy=False)["luck"].copy()


def fairness(x: Source) -> pd.DataFrame:
    """Per player and die (D20, D6): ``rolls``, observed ``counts`` (list by face), ``chi2``, ``df``,
    ``p_value`` (chance that fair dice look at least this uneven), ``fair`` (p >= 0.10: within what fair
    dice do 9 times in 10; NA with too few rolls to judge) and ``verdict`` in words."""
    return frames(x, copy=False)["fairness"].copy()


def levels(x: Source) -> pd.DataFrame:
    """The XP each level starts at under the campaign's rules: ``level``, ``xp`` (Int64)."""
    return frames(x, copy=False)["levels"].copy()


for _module in pkgutil.iter_modules(__path__):  # a module declaring a frame of its own (``frame``) is found
    importlib.import_module(f"{__name__}.{_module.name}")
FRAME_NAMES += tuple(name for name in FRAMES if name not in FRAME_NAMES)
