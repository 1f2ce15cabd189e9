"""Small scenarios that play a part of the rules through the engine and record what a keeper would see, for the walk
over every field of the rules data a house rule may set (``test_house_rules_walk.py``): each event (or the refusal
a command met), the state it leaves, and what the table shows of the delvers (abilities and spells with their
labels, costs, descriptions and timing; level-up choices; checks; the party strip). Played in memory with a
seeded RNG, so two runs with the same rules give the same outcome, and one field changed shows as a difference."""

from __future__ import annotations

import json
import random
from types import SimpleNamespace
from typing import Any, Iterator, Mapping

from delvebook.core.dice import parse
from delvebook.engine import Engine, Refused, effects, queries
from delvebook.core.model import is_dead, new_state
from delvebook.core.rules import PROVENANCE_KEYS
from delvebook.view.checks import checks as checks_view
from delvebook.view.choices import choices as choices_view
from delvebook.view.party import party_strip
from delvebook.view.shared import UI

OVERRIDE = "the walk plays every deed at once"
HARMFUL = {"holy_water"}
"""Abilities whose target is better a foe (the walk aims everything else that may at the delver itself)."""


def leaves(node: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """Every field of the rules data (provenance keys left out): a value that is not a mapping, or an empty one."""
    if isinstance(node, Mapping):
        for k, v in node.items():
            if k not in PROVENANCE_KEYS:
                yield from leaves(v, path + (k,))
    else:
        yield path, node


class Walk:
    """A table in memory: ``do`` decides and applies a command (a refusal is recorded, not raised), ``look`` records
    what the table shows of some delvers, ``outcome`` is all of it as text."""

    def __init__(self, rules, seed: int = 11):
        self.rules = rules
        self.engine = Engine(rules, new_state("walk", seed))
        self.rng = random.Random(seed)
        self.seen: list = []
        self.camp = SimpleNamespace(state=self.engine.state, rules=rules)

    @property
    def state(self) -> dict:
        return self.engine.state

    def do(self, kind: str, faces: Mapping | None = None, **args: Any) -> dict | None:
        try:
            e = self.engine.decide(kind, args, self.rng, len(self.seen) + 1, faces)
        except Refused as err:
            self.seen.append(["refused", kind, str(err)])
            return None
        self.engine.apply(e)
        self.seen.append({k: v for k, v in e.items() if k != "ts"})
        self.camp.state = self.engine.state
        return e

    def party(self, *members: tuple) -> "Walk":
        for m in members:
            self.do("add_delver", name=m[0], class_id=m[1], choices=m[2] if len(m) > 2 else None)
        return self

    def look(self, *who: str) -> None:
        from delvebook.engine.base import Reader
        s, rules, ui = self.state, self.rules, UI()
        shown: dict = {"party": party_strip(self.camp, ui, None, None)}
        for w in who:
            if w not in s["delvers"]:
                continue
            shown[w] = {
                "abilities": [tuple(a) for a in queries.abilities_available(s, rules, w)],
                "offered": [[i.choices(Reader(s, rules), w) for i in a.inputs if i.choices]
                            for a in queries.abilities_available(s, rules, w)],
                "spells": [tuple(sp) for sp in queries.spells_available(s, rules, w)],
                "choices": choices_view(self.camp, ui, w),
                "checks": checks_view(self.camp, ui, w)["skills"],
                "weapons": queries.weapons(s, rules, w),
                "raisable": [queries.raisable_skills(rules, s["delvers"][w], {"from_skills": {"bonus": b,
                                                                                            "weapon": weapon}})
                             for b in ("proficient", "expert") for weapon in (False, True)],
            }
        self.seen.append(["shown", json.loads(json.dumps(shown, default=repr))])

    def outcome(self) -> str:
        return json.dumps([self.seen, self.state], sort_keys=True, default=repr)

    # ---- playing everything a delver has

    def foes(self) -> list[str]:
        enc = self.state["encounter"]
        return [n for n, f in enc["foes"].items() if not is_dead(f)] if enc else []

    def inputs(self, who: str, inputs: tuple, *, harmful: bool) -> dict:
        """Values for an ability's or a spell's inputs: the first of its choices, a foe for what harms, the delver
        itself for what helps, one of whatever is counted."""
        from delvebook.engine.base import Reader
        r = Reader(self.state, self.rules)
        d = self.state["delvers"][who]
        out: dict = {}
        for inp in inputs:
            if inp.choices is not None:
                offered = inp.choices(r, who)
                if offered:
                    out[inp.name] = offered[0][0]
                continue
            if inp.kind == "creature" and inp.name == "target":
                foes = self.foes()
                out["target"] = foes[0] if (harmful or inp.required) and foes else who
            elif inp.kind == "number" and inp.required:
                out[inp.name] = 1
            elif inp.kind == "names" and d["true_names"]:
                out[inp.name] = d["true_names"][:1]
            elif inp.kind == "text" and inp.required:
                out[inp.name] = "a wolf" if inp.name == "creature" else "a spell the table agreed"
            elif inp.kind == "condition":
                conds = self.state["conditions"]
                if conds:
                    out[inp.name] = conds[0]["id"]
        return out

    def standing(self, who: str) -> None:
        """A delver laid low (a counter-attack) defies death, to play on."""
        if self.state["delvers"][who]["status"] == "dying":
            top = parse(queries.death_save(self.state, self.rules).die).max
            self.do("death_save", who=who, faces={"death_save": [top]})

    def everything(self, who: str) -> None:
        """``who`` checks with each skill, attacks with each weapon, uses each ability and casts each spell it has
        (the turn economy waived), then each foe attacks it once."""
        s, rules = self.state, self.rules
        d = s["delvers"][who]
        if s["encounter"] is not None and not self.foes():  # someone to fight
            self.do("add_foes", foes=["ogre", "skeleton"])
        self.standing(who)
        for sid in list(d["skills"]):
            self.do("check", who=who, skill=sid, target=12)
        for label, arg in queries.weapons(s, rules, who):
            for foe in self.foes()[:1]:
                self.do("attack", attacker=who, target=foe, weapon=arg, keeper_override=OVERRIDE)
        self.standing(who)
        if queries.ability_available(s, rules, who, "smite") is not None:
            for foe in self.foes()[:2]:
                self.do("attack", attacker=who, target=foe, smite=True, keeper_override=OVERRIDE,
                        faces={"attack": [20] + [1] * 5, "resist": [1]})
        for a in sorted(queries.abilities_available(self.state, rules, who),
                        key=lambda a: -rules.abilities(d["class_id"])[a.id]["level"]):
            if a.id in effects.CASTINGS and not any(i.choices for i in a.inputs):
                continue
            harmful = any("attack" in i.what for i in a.inputs) or a.id in HARMFUL
            args = self.inputs(who, a.inputs, harmful=harmful)
            target = args.pop("target", None)
            self.do("use", who=who, ability=a.id, target=target, keeper_override=OVERRIDE, **args)
        self.do("moved", who=who)
        for a in queries.abilities_available(self.state, rules, who):  # what may not follow a move
            if rules.abilities(d["class_id"])[a.id].get("mechanics", {}).get("still"):
                self.do("use", who=who, ability=a.id, target=(self.foes() or [who])[0], keeper_override=OVERRIDE)
        for sp in queries.spells_available(self.state, rules, who):
            spec = queries.spell_spec(rules, sp.id, d) or {}
            args = self.inputs(who, sp.inputs, harmful=spec.get("damage") is not None or "attack" in spec)
            target = args.pop("target", None)
            via = sp.via if sp.via in ("wand", "sword", "scroll") else None
            self.do("cast", who=who, spell=sp.id, target=target, via=via, keeper_override=OVERRIDE, **args)
        for foe in self.foes():
            if not is_dead(self.state["delvers"][who]):
                self.do("attack", attacker=foe, target=who, keeper_override=OVERRIDE)
