"""What one event touched, in the game's nouns (``Touched``): what ``History.apply`` returns, so that views redraw
what changed without reading change paths themselves.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Touched"]

_MISSING = object()
_POOLS = frozenset({"xp_pool", "coin_pool", "xp_awarded"})


class Touched:
    """What one event changed, in the game's nouns, derived from its change paths (an undo, a redo and a
    replacing action count the changes they take back or put back too).

    ``delvers``, ``foes``: names whose sheet changed; ``creatures``: named creatures (NPCs, familiars) whose sheet
    changed, or who came or went; ``players``: players whose luck dice count changed;
    ``conditions``: ids of conditions begun, changed or ended, and ``holders``: who has (or had) them;
    ``encounter``: the fight itself (begun, ended, its order, round or turn); ``session``, ``seats``,
    ``clock``: those changed; ``pools``: ``xp_pool`` / ``coin_pool`` / ``xp_awarded``; ``other``: any other
    top-level key (``quests``, ``rooms``...); ``paths``: every change path, in the order applied."""

    __slots__ = ("paths", "delvers", "foes", "creatures", "players", "conditions", "holders", "encounter",
                 "session", "seats", "clock", "pools", "other")

    def __init__(self) -> None:
        self.paths: list[tuple] = []
        self.delvers: set[str] = set()
        self.foes: set[str] = set()
        self.creatures: set[str] = set()
        self.players: set[str] = set()
        self.conditions: set[int] = set()
        self.holders: set[str] = set()
        self.encounter = False
        self.session = False
        self.seats = False
        self.clock = False
        self.pools: set[str] = set()
        self.other: set[str] = set()

    def __bool__(self) -> bool:
        return bool(self.paths)

    def under(self, *prefix: Any) -> bool:
        """Whether any change sits under ``prefix`` (or replaced a whole branch that holds it)."""
        n = len(prefix)
        return any(p[:n] == prefix or prefix[:len(p)] == p for p in self.paths)

    def __repr__(self) -> str:
        bits = [f"{k}={sorted(getattr(self, k))}" for k in ("delvers", "foes", "creatures", "players", "conditions",
                                                          "pools", "other") if getattr(self, k)]
        bits += [k for k in ("encounter", "session", "seats", "clock") if getattr(self, k)]
        return f"Touched({', '.join(bits) or 'nothing'})"

    # ---- noting one change (called as it is applied: a condition's index means the list as it is then)
    def _note(self, state: dict, path: list, value: Any) -> None:
        head = path[0]
        n = len(path)
        if head == "conditions" and n >= 3:
            cond = state["conditions"][path[1]]
            self.conditions.add(cond["id"])
            self.holders.add(cond["who"])

    def _noted(self, path: list, new: Any, old: Any) -> None:
        self.paths.append(tuple(path))
        head = path[0]
        n = len(path)
        if head == "delvers":
            if n > 1:
                self.delvers.add(path[1])
            else:
                self.delvers |= _keys(old) | _keys(new)
        elif head == "encounter":
            if n > 2 and path[1] == "foes":
                self.foes.add(path[2])
                return
            self.encounter = True
            if n == 1:
                for enc in (old, new):
                    if isinstance(enc, dict):
                        self.foes |= set(enc.get("foes", ()))
            elif n == 2 and path[1] == "foes":
                self.foes |= _keys(old) | _keys(new)
        elif head == "luck":
            if n > 1:
                self.players.add(path[1])
            else:
                was, now = _dict(old), _dict(new)
                self.players |= {p for p in set(was) | set(now) if was.get(p, _MISSING) != now.get(p, _MISSING)}
        elif head == "conditions":
            if n == 1:
                was = {c["id"]: c for c in _list(old)}
                now = {c["id"]: c for c in _list(new)}
                for cid in set(was) | set(now):
                    a, b = was.get(cid), now.get(cid)
                    if a != b:
                        self.conditions.add(cid)
                        self.holders.add((a or b)["who"])
            elif n == 2:
                for cond in (old, new):
                    if isinstance(cond, dict):
                        self.conditions.add(cond["id"])
                        self.holders.add(cond["who"])
        elif head == "creatures":
            if n > 1:
                self.creatures.add(path[1])
            else:
                self.creatures |= _keys(old) | _keys(new)
        elif head == "session":
            self.session = True
        elif head == "seats":
            self.seats = True
        elif head == "clock":
            self.clock = True
        elif head in _POOLS:
            self.pools.add(head)
        else:
            self.other.add(head)


def _keys(x: Any) -> set:
    return set(x) if isinstance(x, dict) else set()


def _dict(x: Any) -> dict:
    return x if isinstance(x, dict) else {}


def _list(x: Any) -> list:
    return x if isinstance(x, list) else []
