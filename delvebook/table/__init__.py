"""The keeper's table: one front end for the whole evening, and the same front end for its parts.

``dashboard(camp)`` is the whole table (``camp.dashboard()``); ``card(camp, name)``, ``fight(camp)``, ``log(camp)``
and ``roll(camp, outcome)`` show one part alone in a cell, live. The campaign finds them as entry points
(``delvebook.views``), and a delver, a fight or an outcome left last in a cell shows itself through them (their
``_ipython_display_``, in ``delvebook.campaign``).

- ``view``: ``table_view(camp, ui) -> dict``, the view model (pure Python, tested without a browser), one module
  per panel;
- ``intents``: a click's intent -> one campaign call (``perform``; any command by a form: ``act``), with
  ``keeping``'s for the Keeper panel at the table and ``preparing``'s for the party, the bestiary, the encounter
  builder and roll tables; ``forecasting``: the builder's forecast and tuner, run between messages; ``shape``: what
  a click's message must be; ``phones``: the players' phones' intents;
- ``slot``: the table's place in the table notebook (a reload with no save finds the live table there);
- ``widget``: the anywidget whose ES module and CSS (``static/``) draw the view model.

Needs the ``table`` extra (ipywidgets, anywidget).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from ..core.extras import require

require("table", "delvebook.table (the keeper's table)")  # before the imports: names the extra

from .intents import perform  # noqa: E402
from . import keeping, preparing  # noqa: E402,F401  (the Keeper panel's intents register)
from ..view.slot import SLOT  # noqa: E402
from ..view import UI, table_view  # noqa: E402
from .widget import Table  # noqa: E402

__all__ = ["Table", "UI", "table_view", "perform", "dashboard", "card", "fight", "log", "roll", "players",
           "playing", "play_copy"]

def _table(camp, **kw: Any) -> Table:
    return Table(camp, **kw)


_DASHBOARDS: dict = {}  # campaign folder -> its dashboard in this kernel (one a campaign: shown again, the same)


def dashboard(camp) -> Table:
    """The whole table for ``camp``: party, the current actor's actions, the fight, the outcome and luck dice,
    the log, the keeper's panel and the charts. One a campaign in a kernel: asked again (a cell run again), it is
    the same table, as it stood (the panel open, who acts). The campaign played in the table notebook
    (``playing``) gets the notebook's table slot (``slot.SLOT``), so a reloaded page finds it with no save."""
    key = Path(camp.path).resolve()
    live = _DASHBOARDS.get(key)
    if live is not None and live.camp is camp and live.comm is not None:
        return live
    table = _table(camp, **_slot_for(camp, key))
    _DASHBOARDS[key] = table
    return table


def _slot_for(camp, key: Path) -> dict:
    """``{"model_id": SLOT}`` for the dashboard of the campaign this kernel plays (``playing``), unless the dashboard
    of another campaign it still plays holds the slot; a dashboard of a campaign opened again lets it go."""
    if _PLAYING.get(key) is not camp:
        return {}
    holder = next((t for t in _DASHBOARDS.values() if t.comm is not None and t.model_id == SLOT), None)
    if holder is not None:
        if any(c is holder.camp for c in _PLAYING.values()):
            return {}
        holder.close()  # its campaign was opened again: the new one takes the notebook's slot
    return {"model_id": SLOT}


def card(camp, name: str) -> Table:
    """One delver's card, live: the sheet, its checks, attacks, abilities and spells, the outcome."""
    camp.delver(name)  # a clear KeyError for a name not in the party
    return _table(camp, scope="card", who=name)


def fight(camp) -> Table:
    """The fight tracker alone: the party, the foes, the order and the current actor's actions."""
    return _table(camp, scope="fight")


def log(camp) -> Table:
    """The log with undo and redo."""
    return _table(camp, scope="log")


def roll(camp, outcome: Any = None) -> Table:
    """One action's outcome with its dice, luck dice and real dice (the latest action when none is given); it
    follows the action when a luck die or typed dice replace it."""
    seq = outcome.get("seq") if outcome is not None else None
    return _table(camp, scope="roll", focus=seq)


def players(camp, hide_hearts: bool = False, foe_hearts: bool = False) -> Table:
    """The read-only players' mode of the same front end, for a second screen: big type, full width, foes as
    wounds (their hearts only with ``foe_hearts``), the delvers' hearts as wounds too with ``hide_hearts``, the
    last rolls as they stand (undone and replaced ones left out), and no control: its view model holds no intent.
    ``delvebook.players.player_widget`` is this, following a campaign's log on disk."""
    t = _table(camp, mode="players")
    t.ui.hide_hearts = hide_hearts
    t.ui.foe_hearts = foe_hearts
    t.refresh()
    return t


# ---------------------------------------------------------------- the play copy

_PLAYING: dict = {}  # resolved campaign folder -> the campaign this kernel has open for play in it


def playing(path: str | os.PathLike):
    """The campaign in ``path``, opened for play once in this kernel: a cell run again (Run All, the page
    reloaded) gets the campaign it already has open instead of tripping over that campaign's own write lock, and
    changes nothing on disk. A campaign held by another kernel or process is a ``CampaignHeld`` (a ``LockedError``):
    one sentence saying who holds it, how to watch it read-only and how to take it over (a notebook shows just that
    sentence, not a traceback)."""
    from ..campaign import Campaign
    from ..store.holder import held
    from ..store import LockedError
    key = Path(path).resolve()
    try:
        camp = Campaign.open(path)
    except LockedError:
        camp = _PLAYING.get(key)
        if camp is None:  # held by another kernel or process: say so
            raise held(path, _name(path)) from None
        return camp
    _PLAYING[key] = camp
    return camp


def _name(path) -> str | None:
    """The campaign's name from its campaign.yaml, for a sentence about it (None if it cannot be read)."""
    try:
        from ..core.yamlsafe import load
        return str(load((Path(path) / "campaign.yaml").read_text(encoding="utf-8")).get("name") or "") or None
    except Exception:  # noqa: BLE001  (a sentence about a held campaign must not fail on its file)
        return None


def play_copy(prepared: str | os.PathLike, folder: str | os.PathLike = "play"):
    """The campaign played in ``folder/<name of prepared>``: copied from the prepared campaign on a first run,
    opened after (``playing``: the same kernel asking again gets the campaign it already has open, so a re-run
    never trips over the campaign's own write lock and changes nothing on disk)."""
    source = Path(os.environ.get("DELVEBOOK_CAMPAIGN") or prepared)
    play = Path(folder) / source.name
    if not play.exists():
        shutil.copytree(source, play, ignore=shutil.ignore_patterns(".delvebook.lock", "requests"))
    return playing(play)
