"""The log and the players' last rolls (``logEl``, ``lastRolls`` in log.js): the latest events told, undone and
replaced ones marked (left out on the players' screen), from what the campaign's History keeps standing."""

from __future__ import annotations

from ..core.declared import view
from ..narrate import tell
from .outcome import dice_of, roll_label, rolls_of
from .shared import UI, hidden_names

__all__ = ["log_rows", "last_rolls", "asked_by", "LOG_ROWS", "LAST_ROLLS"]

LOG_ROWS = 40
LAST_ROLLS = 6  # the players' screen: the rolls still standing it lists


def log_rows(camp, ui: UI) -> list[dict]:
    """The latest events told, newest first, each marked as undo or redo, undone or replaced (and by which);
    the players' screen leaves out all but what stands."""
    standing = camp.standing
    hidden = hidden_names(camp, ui)
    rows = []
    for e in reversed(camp.events):
        v = view(e)
        seq, kind = v.seq, v.kind
        mark, by = "", None
        if kind in ("undo", "redo"):
            mark = kind
        elif standing.undone_by(seq) is not None:
            mark, by = "undone", standing.undone_by(seq)
        elif standing.replaced_by(seq) is not None:
            mark, by = "replaced", standing.replaced_by(seq)
        if ui.mode == "players" and mark:
            continue  # the players see the table as it stands
        rows.append({"seq": seq, "kind": kind, "text": tell(e, camp, hidden)["text"], "mark": mark, "by": by,
                     "asked_by": asked_by(e),
                     "note": (f"undone by #{by}" if mark == "undone" else
                              f"replaced by #{by}" if mark == "replaced" else "")})
        if len(rows) >= LOG_ROWS:
            break
    return rows


def asked_by(e) -> str | None:
    """The player who asked for this action from their own device (``asked_by``), if one did."""
    asked = view(e).asked_by
    player = getattr(asked, "player", None)
    return player if isinstance(player, str) else None


def last_rolls(camp, ui: UI) -> list[dict]:
    """The players' "last rolls": the latest actions with dice that still stand, newest first; one undone or
    replaced (a luck die, real dice typed) is left out, so each roll shows once, as it stands."""
    standing = camp.standing
    hidden = hidden_names(camp, ui)
    rows = []
    for e in reversed(camp.events):
        v = view(e)
        rolled = rolls_of(e)
        if not rolled or not standing.in_force(v.seq):
            continue
        told = tell(e, camp, hidden)
        rows.append({"seq": v.seq, "kind": v.kind, "text": told["text"], "verdict": told["verdict"],
                     "rolls": [{"name": n, "label": roll_label(n, rec), **dice_of(rec)} for n, rec in rolled.items()]})
        if len(rows) >= LAST_ROLLS:
            break
    return rows
