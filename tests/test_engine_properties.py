"""Properties of the engine over random sequences of legal and illegal commands: the turn economy, found gear,
choices made on a hit, the familiar and named NPCs among them, scrolls and books (read, copied, destroyed),
darkness, Lay on Hands on the dead, orders heard by a familiar."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from delvebook.engine import Refused
from delvebook.core.events import clone, replay
from enginekit import Table

NAMES = ["Wren", "Bo", "Ada", "Cy", "Nim", "Nobody"]
FOES = ["Goblin 1", "Goblin 2", "Ogre 1", "Grak", "Pip", "Nobody"]
SKILLS = [None, "stealth", "athletics", "magic", "lore"]
ITEMS = ["sword", "arrow", "crossbow", "bolt", "torch", "dragon", {"name": "Sword +1", "damage": "2d6", "bonus": 1},
         {"name": "Chain shirt", "av": 2, "dv": 12}, {"name": "Lute", "instrument": True}, {"name": "Bad", "av": -1},
         {"item": "scroll", "spells": ["aid"]}, {"item": "spellbook", "spells": ["truth", "light"], "name": "A book"}]
TAKEN = ["arrow", "dagger", "Sword +1", "Chain shirt", "Leather armor", "torch", "Lute", "nothing"]
ABILITIES = [("Wren", "sprint", {}), ("Wren", "dodge", {}), ("Wren", "focus", {}), ("Wren", "hide", {"target": 12}),
             ("Bo", "ferocious_strike", {}), ("Bo", "double_strike", {}), ("Bo", "sentry", {}),
             ("Bo", "second_wind", {}), ("Cy", "bless", {"target": "Bo"}), ("Cy", "heal_by_touch", {"target": "Bo"}),
             ("Cy", "lay_on_hands", {"target": "Wren", "hearts": 1}), ("Nim", "blood_magic", {}),
             ("Bo", "command_charge", {}), ("Bo", "command_fire", {"hearing": ["Pip", "Bo"]}),
             ("Cy", "lay_on_hands_revive", {"target": "Wren"}), ("Ada", "continued_research", {"spell": "aid"}),
             ("Ada", "continued_research", {"spell": "truth"})]
SPELLS = [("Ada", "find_familiar", {"name": "Pip"}), ("Ada", "firebolt", {"target": "FOE"}),
          ("Ada", "light", {"blind": True, "target": "FOE"}), ("Ada", "magic_missile", {"target": "FOE"}),
          ("Cy", "truth", {"target": "Grak"}), ("Cy", "truth", {"target": "FOE"}),
          ("Cy", "inflict_wounds", {"target": "Grak"}), ("Cy", "inflict_wounds", {"target": "FOE"}),
          ("Cy", "guiding_bolt", {"target": "FOE"}), ("Cy", "aid", {"target": "Wren"}),
          ("Cy", "dispel_magic", {"target": "Grak", "condition": "compelled_truth"}),
          ("Ada", "aid", {"via": "scroll", "target": "Wren"})]
"""(caster, spell, args); a FOE target is one of the fight's living foes (or Grak outside a fight)."""


def _party() -> Table:
    t = Table(seed=3).party(("Wren", "rogue"), ("Bo", "fighter", {"weapon": "sword_and_shield"}), ("Ada", "mage"),
                            ("Cy", "cleric"), ("Nim", "namer"))
    for _ in range(2):  # an oath fighter who may smite, a cleric with divine spells, a mage with every spell
        t.do("level_up", who="Bo")
        t.do("level_up", who="Cy")
    t.do("level_up", who="Ada")
    t.do("level_up", who="Ada")
    t.do("choose", who="Bo", choice="specialty", option="armorer")
    t.do("choose", who="Bo", choice="technique", option="oath")
    t.do("choose", who="Bo", choice="oath", option="vengeance")
    t.do("choose", who="Cy", choice="specialty", option="healer")
    t.do("give", who="Bo", item="crossbow")
    t.do("give", who="Bo", item="bolt", count=4)
    t.setup, t.events = clone(t.state), []  # the table starts from here
    from delvebook.engine import Engine
    t.engine = Engine(t.rules, t.setup)
    return t


def _living(t: Table, names) -> list:
    from delvebook.core.model import combatant
    return [n for n in names if (c := combatant(t.state, n)) is not None and c[1]["status"] != "dead"]


def _command(data, t: Table) -> tuple:
    """A command, often a sensible one for the state the table is in (the actor acting, at a foe), sometimes not."""
    from delvebook.core.model import current_actor
    enc = t.state["encounter"]
    actor = current_actor(t.state)
    kinds = ["check", "attack", "next_turn", "encounter", "initiative", "end_encounter", "award_xp", "earn",
             "spend", "rest", "start_session", "end_session", "luck", "luck", "undo", "undo", "redo", "death_save",
             "damage", "heal", "level_up", "complete_quest", "explore_room", "advance_time", "set_order", "give",
             "take", "drop", "reload", "use", "cast", "npc", "on_hit", "lighting"]
    if enc is None:
        kinds += ["encounter"] * 4
    elif enc["side"] is None:
        kinds += ["initiative"] * 6
    else:
        kinds += ["attack"] * 8 + ["next_turn"] * 6 + ["use", "cast", "cast", "set_order", "reload"]
    latest = t.engine.history.latest_action() or {}
    if latest.get("on_hit_options"):
        kinds += ["on_hit"] * 10
    kind = data.draw(st.sampled_from(kinds))
    sensible = data.draw(st.integers(0, 9)) < 7
    who = actor if sensible and actor in t.state["delvers"] else data.draw(st.sampled_from(NAMES))
    anyone = NAMES + FOES
    override = {"keeper_override": "the keeper rules it"} if data.draw(st.integers(0, 9)) == 0 else {}
    foes = list(enc["foes"]) if enc else []
    if kind == "check":
        return kind, dict(who=data.draw(st.sampled_from(NAMES + ["Grak"])), skill=data.draw(st.sampled_from(SKILLS)),
                          target=data.draw(st.integers(1, 30)))
    if kind == "attack":
        if sensible and actor is not None:
            attacker = actor
            if actor == "Ada" and "Pip" in t.state["creatures"] and data.draw(st.booleans()):
                attacker = "Pip"  # the familiar acts in its mage's turn
            side = _living(t, foes + ["Pip"]) if attacker in t.state["delvers"] or attacker == "Pip" else \
                _living(t, NAMES[:5] + ["Pip"])
            side = [n for n in side if n != attacker and n != "Pip" or attacker in foes]
            target = data.draw(st.sampled_from(side)) if side else data.draw(st.sampled_from(anyone))
        else:
            attacker, target = data.draw(st.sampled_from(anyone)), data.draw(st.sampled_from(anyone))
        args = dict(attacker=attacker, target=target, multi=data.draw(st.sampled_from([None, None, None, 2])),
                    advantage=data.draw(st.booleans()), **override)
        extra = data.draw(st.sampled_from([{}, {}, {}, {"weapon": "Bow"}, {"weapon": "Crossbow"}, {"smite": True},
                                           {"weapon": "Dagger", "thrown": True}, {"counter_weapon": "Dagger"},
                                           {"sentry": True}] + ([{"weapon": "Crossbow"}] * 3 if attacker == "Bo"
                                                                else [])))
        args.update(extra)
        return kind, {k: v for k, v in args.items() if v is not None}
    if kind == "encounter":
        spec = data.draw(st.lists(st.sampled_from(["goblin", "ogre", "bandit", "dragon", {"npc": "Grak"}]),
                                  min_size=0, max_size=3))
        return kind, dict(foes=spec, **({"dark": True} if data.draw(st.integers(0, 4)) == 0 else {}))
    if kind == "lighting":
        return kind, dict(dark=data.draw(st.booleans()))
    if kind == "initiative":
        return kind, dict(first=data.draw(st.sampled_from([None, "party", "foes"])))
    if kind == "end_encounter":
        return kind, dict(keep=data.draw(st.sampled_from([None, None, ["Goblin 1"], ["Bandit 1"]])))
    if kind in ("award_xp",):
        return kind, dict(amount=data.draw(st.integers(-5, 150)))
    if kind in ("earn", "spend"):
        args = dict(amount=data.draw(st.integers(-3, 400)))
        if kind == "spend" or data.draw(st.booleans()):
            args["who"] = who
        return kind, args
    if kind == "luck":
        return kind, dict(player=data.draw(st.sampled_from(NAMES)), sign=data.draw(st.sampled_from([1, -1])))
    if kind == "reload":
        return kind, dict(who="Bo" if sensible else who, **override)
    if kind in ("death_save", "level_up"):
        return kind, dict(who=who)
    if kind in ("damage", "heal"):
        return kind, dict(who=data.draw(st.sampled_from(anyone)), amount=data.draw(st.integers(0, 25)))
    if kind in ("complete_quest", "explore_room"):
        return kind, dict(name=data.draw(st.sampled_from(["a", "b", "c"])))
    if kind == "advance_time":
        return kind, dict(minutes=data.draw(st.integers(0, 120)))
    if kind == "set_order":
        order = data.draw(st.permutations(NAMES[:5]))
        return kind, dict(order=list(order)[:data.draw(st.sampled_from([5, 5, 4]))])
    if kind == "give":
        item = data.draw(st.sampled_from(ITEMS))
        return kind, dict(who=data.draw(st.sampled_from(NAMES)), item=item,
                          count=data.draw(st.sampled_from([1, 1, 20])))
    if kind in ("take", "drop"):
        args = dict(who=data.draw(st.sampled_from(NAMES)), item=data.draw(st.sampled_from(TAKEN)),
                    count=data.draw(st.integers(1, 3)))
        if kind == "take" and data.draw(st.booleans()):
            args["to"] = data.draw(st.sampled_from(NAMES))
        return kind, args
    if kind == "use":
        mine = [x for x in ABILITIES if x[0] == who] if sensible else []
        owner, ability, args = data.draw(st.sampled_from(mine or ABILITIES))
        return kind, dict(who=owner if sensible else who, ability=ability, **args, **override)
    if kind == "cast":
        mine = [x for x in SPELLS if x[0] == who] if sensible else []
        caster, spell, args = data.draw(st.sampled_from(mine or SPELLS))
        args = dict(args)
        if args.get("target") == "FOE":
            targets = _living(t, foes) or ["Grak"]
            args["target"] = data.draw(st.sampled_from(targets))
        return kind, dict(who=caster, spell=spell, **args, **override)
    if kind == "npc":
        return kind, dict(name=data.draw(st.sampled_from(["Grak", "Wren"])), foe="bandit")
    if kind == "on_hit":
        return kind, dict(option="smite")
    return kind, {}


def _run(t: Table, kind: str, args: dict) -> bool:
    try:
        if kind == "luck":
            t.luck(args["player"], args["sign"])
        elif kind == "undo":
            t.undo()
        elif kind == "redo":
            t.redo()
        elif kind == "on_hit":
            t.on_hit(args["option"])
        else:
            t.do(kind, **args)
        return True
    except Refused:
        return False


def _check_invariants(t: Table) -> None:
    s = t.state
    assert s["xp_awarded"] == sum(d["xp"] for d in s["delvers"].values()) + s["xp_pool"]
    combatants = list(s["delvers"].values()) + (list(s["encounter"]["foes"].values()) if s["encounter"] else []) \
        + list(s["creatures"].values())
    for c in combatants:
        assert 0 <= c["hearts"], c
        assert all(0 <= a["dv"] <= a["dv_max"] for a in c.get("armor", ())), c
        assert all(it.get("count", 1) >= 0 for it in c.get("items", ())), c
    for player, n in s["luck"].items():
        assert 0 <= n <= 3
    enc = s["encounter"]
    if enc is not None and enc["side"] is not None:  # no one has more than its one action in a turn
        for who, used in enc["used"].items():  # (an override acts outside the turn economy: nothing marked)
            assert sum(1 for k in used if k.startswith("action")) <= t.rules.core["turns"]["actions"], (who, used)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_command_sequence_replays_to_the_live_state(data):
    t = _party()
    n = data.draw(st.integers(5, 60))
    for _ in range(n):
        before = clone(t.state)
        kind, args = _command(data, t)
        if not _run(t, kind, args):
            assert t.state == before  # a refused command changes nothing
        _check_invariants(t)
    assert replay(t.setup, t.events).state == t.state


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_undo_of_the_last_k_actions_then_redo_gives_back_the_same_state(data):
    t = _party()
    for _ in range(data.draw(st.integers(3, 40))):
        kind, args = _command(data, t)
        if kind not in ("undo", "redo"):
            _run(t, kind, args)
    snapshots = [clone(t.state)]
    k = data.draw(st.integers(1, 8))
    undone = 0
    for _ in range(k):
        if t.engine.history.latest_action() is None:
            break
        t.undo()
        undone += 1
        snapshots.append(clone(t.state))
    for i in range(undone):
        t.redo()
        assert t.state == snapshots[undone - i - 1]
    assert t.state == snapshots[0]
    assert replay(t.setup, t.events).state == t.state


def test_a_scripted_fight_with_turns_gear_smites_a_familiar_and_an_npc_replays_and_undoes_exactly():
    """The new commands in one sequence the random ones may miss: every kind succeeds at least once."""
    t = _party()
    t.do("npc", name="Grak", foe="bandit")
    t.do("cast", who="Ada", spell="find_familiar", name="Pip")
    t.do("give", who="Bo", item="crossbow")
    t.do("give", who="Bo", item="bolt", count=5)
    t.do("encounter", foes=[{"npc": "Grak"}, "ogre"])
    t.do("set_order", order=["Bo", "Wren", "Ada", "Cy", "Nim"])
    t.do("initiative", first="party")
    t.do("attack", attacker="Bo", target="Ogre 1", faces={"attack": [15, 1], "resist": [3], "damage": [2, 2]})
    t.on_hit("smite", faces={"smite": [3, 3]})
    t.turn("Wren").do("use", who="Wren", ability="sprint")
    t.do("attack", attacker="Wren", target="Grak", weapon="Bow",
         faces={"attack": [15, 1], "resist": [3], "damage": [2]})
    t.turn("Ada").do("attack", attacker="Pip", target="Ogre 1", faces={"attack": [15], "resist": [3]})
    t.do("cast", who="Cy", spell="truth", target="Grak", keeper_override="Cy's prayer was already said",
         faces={"save": [15]})
    t.turn("Ogre 1").do("attack", attacker="Ogre 1", target="Pip", faces={"attack": [15, 1], "resist": [3],
                                                                         "damage": [1, 1, 1]})
    t.turn("Bo").do("attack", attacker="Bo", target="Ogre 1", weapon="Crossbow",
                    faces={"attack": [2, 1], "resist": [19]})
    t.turn("Bo").do("reload", who="Bo")
    t.do("end_encounter")
    t.do("take", who="Bo", item="Crossbow", to="Wren")
    history = [clone(t.state)]
    assert replay(t.setup, t.events).state == t.state
    assert t.state["creatures"]["Grak"]["role"] == "npc" and t.state["creatures"]["Pip"]["status"] == "dead"
    for _ in range(8):
        t.undo()
    for _ in range(8):
        t.redo()
    assert t.state == history[0] and replay(t.setup, t.events).state == t.state


def test_xp_awarded_equals_xp_held_plus_the_pool_over_a_long_run():
    t = _party()
    for amount in [7, 100, 33, 1, 250, 4]:
        t.do("award_xp", amount=amount)
        _check_invariants(t)
    assert t.state["xp_awarded"] == 395
