"""A session told as a story, for "previously on..." at the start of the next one.

``session_recap(camp, session=None)`` selects, from the actions of one session that stand (History's
``standing``: an undone attack is not told; a roll a luck die or typed dice replaced is told as it stands), what a
table retells: who was at the table, where the party went (rooms, quests, rests, found gear, NPCs), each fight
(how it began and ended, who dealt each finishing blow, the closest call: the lowest hearts or a death save
defied, who fell), level-ups and choices, luck that turned a roll, coins and XP. Every event in it is told by the
one narrator (``delvebook.narrate``); the recap only chooses, orders and heads them. ``recap`` gives it as
Markdown; a ``Recap`` is plain text in sections (``as_dict`` for a view: the table's "Last time...", the players'
screen), with ``markdown()`` and ``html()`` (every value escaped).

Standard library only (reads a campaign's events, standing, state and rules).
"""

from __future__ import annotations

import html
from typing import Any, Iterable, Mapping, NamedTuple

from ..core.declared import Action, view
from ..core.events import REDO, UNDO
from ..core.records import damage_in
from ..core.roles import FOES, PARTY
from ..engine.checks import DeathSave
from ..engine.encounters import EndEncounter, Encounter
from ..engine.creation import Choose, LevelUpEvent
from ..engine.progress import Awarded, Earn, EndSession, ExploreRoom, StartSession
from . import tell
from .fight import dealt
from .keeping import level_line
from .words import dealer, money, names, plural

__all__ = ["Recap", "session_recap", "recaps", "recap", "session_of"]

_WAY = ("complete_quest", "rest", "give", "npc", "remove_npc", "add_delver")


class Recap(NamedTuple):
    """One session told: its number, a title, sections of plain-text lines (``(heading, lines)``: each fight is a
    section headed by how it began), each line a sentence of the narrator's or a summary of them; how many fights,
    and who died."""

    session: int
    title: str
    sections: list
    fights: int = 0
    died: tuple = ()

    @property
    def summary(self) -> str:
        """The session in a line: 'Session 10 · 5 fights · Ilse and Father Odo died'."""
        bits = [self.title] + ([plural(self.fights, "fight")] if self.fights else [])
        return " · ".join(bits + ([f"{names(self.died)} died"] if self.died else []))

    def as_dict(self) -> dict:
        """JSON-shaped, for a view: ``{"session", "title", "summary", "sections": [{"heading", "lines"}]}``."""
        return {"session": self.session, "title": self.title, "summary": self.summary,
                "sections": [{"heading": h, "lines": list(lines)} for h, lines in self.sections]}

    def markdown(self) -> str:
        out = [f"## {self.title}", ""]
        for heading, lines in self.sections:
            out += [f"**{_md(heading)}**", ""] + [f"- {_md(line)}" for line in lines] + [""]
        return "\n".join(out).rstrip() + "\n"

    def html(self) -> str:
        """The recap as HTML (headings and lists; every text escaped here)."""
        return "".join(f"<h4>{html.escape(h)}</h4><ul>" + "".join(f"<li>{html.escape(x)}</li>" for x in lines)
                       + "</ul>" for h, lines in self.sections)


def _md(text: str) -> str:
    """Text as Markdown shows it literally (its markup characters escaped)."""
    return "".join("\\" + c if c in "\\`*_[]<" else c for c in str(text))


def session_of(event: Mapping) -> int | None:
    """The session an event belongs to: the latest begun when it was recorded (one between two sessions counts in
    the one before); a session's start belongs to the session it begins."""
    e = view(event)
    return e.number if isinstance(e, StartSession) else e.session


def recaps(camp: Any, sessions: Iterable[int] | None = None, hidden: Iterable[str] = ()) -> list[Recap]:
    """The recap of each session (``sessions``: those numbers only), in order, from one pass over the log."""
    wanted = None if sessions is None else set(sessions)
    standing = camp.standing
    by_session: dict[int, list] = {}
    for event in camp.events:
        e = view(event)
        n = e.number if isinstance(e, StartSession) else e.session
        if not n or (wanted is not None and n not in wanted) or e.kind in (UNDO, REDO):
            continue
        if isinstance(e, Action) and not standing.in_force(e.seq):
            continue  # undone, or replaced by what is told in its place
        by_session.setdefault(n, []).append(e)
    return [_told(camp, n, evs, tuple(hidden)) for n, evs in sorted(by_session.items())]


def session_recap(camp: Any, session: int | None = None, hidden: Iterable[str] = ()) -> Recap:
    """One session's recap (None: the latest session that has ended, else the one running)."""
    if session is None:
        session = latest_session(camp)
    found = recaps(camp, [session], hidden)
    if not found:
        raise ValueError(f"no session {session} in this campaign")
    return found[0]


def latest_session(camp: Any) -> int:
    """The latest session that has ended and stands, else the latest begun (the one "previously on" tells)."""
    ended, begun = None, None
    standing = camp.standing
    for event in camp.events:
        e = view(event)
        if isinstance(e, (EndSession, StartSession)) and standing.in_force(e.seq):
            if isinstance(e, EndSession):
                ended = e.number
            else:
                begun = e.number
    if ended is None and begun is None:
        raise ValueError("no session has begun in this campaign")
    return ended if ended is not None else begun


def recap(camp: Any, session: int | None = None, hidden: Iterable[str] = ()) -> str:
    """One session told in the game's words, as Markdown (None: the latest session that has ended)."""
    return session_recap(camp, session, hidden).markdown()


# ---------------------------------------------------------------- telling one session

def _say(e: Any, camp: Any, hidden: tuple) -> str:
    return tell(e.data, camp, hidden)["text"]


def _told(camp: Any, number: int, events: list, hidden: tuple) -> Recap:
    sections: list[tuple[str, list[str]]] = []
    seats = list(camp.state.get("seats", ()))
    delvers = camp.state.get("delvers", {})
    at_table: dict[str, None] = {}  # every delver an event names, or an award or a find is shared with
    for e in events:
        for name, side in (e.sides or {}).items():
            if side == PARTY:
                at_table[name] = None
        if isinstance(e, Awarded):
            for a in e.xp_awards:
                at_table.update(dict.fromkeys(a.shares or ()))
        if isinstance(e, Earn):
            at_table.update(dict.fromkeys(e.purses or ()))
    party = sorted(at_table, key=lambda n: (seats.index(n) if n in seats else len(seats), n))
    if party:
        sections.append(("At the table", [names(f"{n} ({delvers[n]['player']})" if n in delvers else n
                                                for n in party)]))
    way = []
    rooms: list[str] = []
    for e in events:  # the rooms explored between two other steps of the way are said in one line
        if isinstance(e, ExploreRoom):
            rooms.append(str(e.room))
            continue
        if e.kind in _WAY:
            if rooms:
                way.append(_rooms(rooms))
                rooms = []
            way.append(_say(e, camp, hidden))
    if rooms:
        way.append(_rooms(rooms))
    if way:
        sections.append(("Where the party went", way))
    fights = _fights(camp, events, hidden)
    sections += [(fight[0], fight[1:]) for fight in fights]
    growing = []
    for e in events:
        if isinstance(e, (Awarded, LevelUpEvent)):
            growing += [level_line(u, camp) for u in e.level_ups]
        if isinstance(e, Choose):
            growing.append(_say(e, camp, hidden))
    if growing:
        sections.append(("Growing", growing))
    luck = _luck_that_turned(camp, events, hidden)
    if luck:
        sections.append(("Luck that turned a roll", luck))
    spoils = []
    earned = [e for e in events if isinstance(e, Earn)]
    if len(earned) == 1:
        spoils.append(_say(earned[0], camp, hidden))
    elif earned:
        why = names(dict.fromkeys(str(e.reason) for e in earned if e.reason))
        spoils.append(f"{money(getattr(camp, 'rules', None), sum(e.talons or 0 for e in earned))} earned, "
                      f"{plural(len(earned), 'time')}" + (f" ({why})" if why else ""))
    xp = _xp_shares(events)
    if xp:
        spoils.append(f"XP: {sum(xp.values())} in all (" + ", ".join(f"{n} {x}" for n, x in xp.items()) + ")")
    if spoils:
        sections.append(("Coins and XP", spoils))
    died = tuple(e.actor for e in events if isinstance(e, DeathSave) and e.success is False)
    return Recap(number, f"Session {number}", sections, len(fights), died)


def _rooms(rooms: list[str]) -> str:
    return f"Room explored: {rooms[0]}" if len(rooms) == 1 else f"Rooms explored: {names(rooms)}"


def _fights(camp: Any, events: list, hidden: tuple) -> list[list[str]]:
    """Each fight of the session: how it began, each finishing blow, the closest call (a death save defied, else
    the lowest hearts a delver fell to), who fell (a death save failed, during the fight or after it, before the
    next begins), how it ended."""
    fights: list[dict] = []
    for e in events:
        if isinstance(e, Encounter):
            fights.append({"begun": _say(e, camp, hidden), "blows": [], "lowest": None, "saves": [],
                           "deaths": [], "ending": None})
            continue
        if not fights:
            continue
        fight = fights[-1]
        sides = e.sides or {}
        for entry, _counter in damage_in(e):
            if entry.wasted or entry.dealt is None:
                continue
            target, by = entry.target, dealer(entry)  # what the keeper named, for hearts taken by hand
            if entry.vanquished and sides.get(target) == FOES:
                fight["blows"].append(f"{by} felled {target}: {dealt(entry, hidden)}")
            if sides.get(target) == PARTY and entry.hearts_after is not None and entry.dealt > 0:
                low = fight["lowest"]
                if low is None or entry.hearts_after < low[0]:
                    fight["lowest"] = (entry.hearts_after, f"{by} hit {target}: {dealt(entry, hidden)}")
        if isinstance(e, DeathSave):
            (fight["saves"] if e.success else fight["deaths"]).append(_say(e, camp, hidden))
        elif isinstance(e, EndEncounter):
            fight["ending"] = _say(e, camp, hidden)
    return [_fight_lines(f) for f in fights]


def _fight_lines(fight: dict) -> list[str]:
    lines = [fight["begun"]]
    blows = fight["blows"]
    lines += blows if len(blows) <= 3 else blows[:2] + [f"... and {plural(len(blows) - 2, 'more foe')} felled"]
    if fight["saves"]:
        lines += fight["saves"]
    elif fight["lowest"] is not None:
        lines.append(f"Closest call: {fight['lowest'][1]}")
    if fight["ending"] is not None:
        lines.append(fight["ending"])
    return lines + fight["deaths"]


def _luck_that_turned(camp: Any, events: list, hidden: tuple) -> list[str]:
    """Each luck die in force that changed an outcome (a failure to a success, a hit to a miss...)."""
    out = []
    for e in events:
        if not isinstance(e, Action) or not e.luck or e.replaces is None:
            continue
        try:
            before = view(camp.event(e.replaces))
        except (KeyError, IndexError):
            continue
        if outcome(before) != outcome(e):
            out.append(_say(e, camp, hidden))
    return out


def outcome(e: Any) -> Any:
    """How an action came out, to compare one a luck die re-ran with what it replaced: its success, else its
    attacks' results (None for an action that has neither)."""
    success = e.success if "success" in type(e).FIELDS else None
    if success is not None:
        return success
    return tuple(e.results or ()) if "results" in type(e).FIELDS else ()


def _xp_shares(events: list) -> dict[str, int]:
    xp: dict[str, int] = {}
    for e in events:
        if isinstance(e, Awarded):
            for a in e.xp_awards:
                for name, amount in (a.shares or {}).items():
                    xp[name] = xp.get(name, 0) + amount
    return {n: x for n, x in xp.items() if x}
