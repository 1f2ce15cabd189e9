"""A small table for engine tests: an Engine with a seeded RNG, and ``do`` that decides and applies."""

from __future__ import annotations

import random

from delvebook.engine import Engine, Refused
from delvebook.core.events import clone, replay
from delvebook.core.model import new_state
from delvebook.core.rules.load import load_rules


class Table:
    def __init__(self, seed: int = 1, house_rules: dict | None = None):
        self.rules = load_rules(house_rules)
        self.setup = new_state("test", seed)
        self.engine = Engine(self.rules, self.setup)
        self.rng = random.Random(seed)
        self.events: list[dict] = []

    @property
    def state(self) -> dict:
        return self.engine.state

    def _seq(self) -> int:
        return len(self.events) + 1

    def _apply(self, event: dict) -> dict:
        self.events.append(event)
        self.engine.apply(event)
        return event

    def do(self, kind: str, faces: dict | None = None, **args) -> dict:
        return self._apply(self.engine.decide(kind, args, self.rng, self._seq(), faces))

    def luck(self, player: str, sign: int, roll: str | None = None, face: int | None = None) -> dict:
        return self._apply(self.engine.decide_luck(player, sign, self.rng, self._seq(), roll=roll, face=face))

    def amend(self, **faces) -> dict:
        return self._apply(self.engine.decide_amend(faces, self.rng, self._seq()))

    def on_hit(self, option: str, faces: dict | None = None, hit: int | None = None) -> dict:
        return self._apply(self.engine.decide_on_hit(option, self.rng, self._seq(), faces=faces, hit=hit))

    def undo(self) -> dict:
        return self._apply(self.engine.decide_undo(self._seq()))

    def redo(self) -> dict:
        return self._apply(self.engine.decide_redo(self._seq()))

    def refused(self, kind: str, faces: dict | None = None, **args) -> str:
        """Run a command that must be refused; check that it changed nothing and return the message."""
        before = clone(self.state)
        try:
            self.do(kind, faces, **args)
        except Refused as err:
            assert self.state == before
            return str(err)
        raise AssertionError(f"{kind} {args} was not refused")

    def turn(self, name: str) -> "Table":
        """Play on (next turn) until ``name``'s turn in the fight, with nothing used yet in it."""
        from delvebook.core.model import current_actor, used_this_turn
        for _ in range(4 * (len(self.state["delvers"]) + len(self.state["encounter"]["foes"])) + 4):
            if current_actor(self.state) == name and not used_this_turn(self.state, name):
                return self
            self.do("next_turn")
        raise AssertionError(f"{name}'s turn never came")

    def replayed(self) -> dict:
        return replay(self.setup, self.events).state

    def delver(self, name: str) -> dict:
        return self.state["delvers"][name]

    def foe(self, name: str) -> dict:
        return self.state["encounter"]["foes"][name]

    def party(self, *members: tuple) -> "Table":
        """Add delvers: (name, class_id[, choices]) each; faces for fighters' hearts are rolled."""
        for m in members:
            name, cls = m[0], m[1]
            args = {"name": name, "class_id": cls}
            if len(m) > 2:
                args["choices"] = m[2]
            self.do("add_delver", **args)
        return self
