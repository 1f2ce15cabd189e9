"""How tests/data/v1-log was written: a short campaign played through every kind of event by a delvebook that
wrote event format 1 (main at 9d32dc8: ``git archive 9d32dc8 delvebook | tar -x -C /tmp/v1``, then
``PYTHONPATH=/tmp/v1 python tests/data/make_v1_log.py tests/data/v1-log``). Kept to say how the log was made; run
with today's delvebook it writes today's format."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import delvebook as db

ROOT = Path(__file__).resolve().parent.parent.parent
out = Path(sys.argv[1])
if out.exists():
    shutil.rmtree(out)
camp = db.Campaign.create(out, name="Every kind of event", seed=23)
keep = (ROOT / "campaigns" / "the-sunken-keep" / "campaign.yaml").read_text()
(out / "campaign.yaml").write_text(keep.replace("spells: [magic_missile, firebolt, light]",
                                                "spells: [magic_missile, firebolt, light, find_familiar]"))
camp.close()
camp = db.Campaign.open(out)
done, refused = [], []


def do(what, fn, *a, **k):
    try:
        r = fn(*a, **k)
        done.append(what)
        return r
    except db.Refused as err:
        refused.append(f"{what}: {err}")


do("start_session", camp.start_session)
do("explore_room", camp.explore_room, "the flooded hall")
do("complete_quest", camp.complete_quest, "the drowned bell")
do("award_xp", camp.award_xp, 7, reason="a riddle answered")
do("earn", camp.earn, "3C", reason="a purse in the reeds")
do("earn one", camp.earn, "1C", who="Wren")
do("spend", camp.spend, "Wren", "5T", reason="a candle")
do("buy", camp.buy, "Brakka", "bolt")
do("give", camp.give, "Brakka", "crossbow")
do("give described", camp.give, "Wren", {"name": "Battered lute", "instrument": True})
do("take to", camp.take, "Wren", "Battered lute", to="Sable")
do("drop", camp.drop, "Sable", "Battered lute")
do("advance_time", camp.advance_time, minutes=30)
do("condition", camp.act, "condition", who="Sable", name="cursed", duration="hour")
do("end_condition", camp.act, "end_condition", who="Sable", name="cursed")
do("npc", camp.npc, "Grak", "bog_goblin", note="a prisoner")
do("check target", camp.check, "Wren", "stealth", 12, faces={"check": [9, 2]})
do("luck", camp.spend_luck, "Ana", +1, face=4)
do("check vs someone", camp.check, "Brakka", "athletics", vs="Grak")
do("check vs dice", camp.check, "Ilse", "lore", vs="d20+2")
do("amend", camp.amend, opposed=[1])
do("roll", camp.roll, "d66", why="a wandering monster")
do("roll by", camp.roll, "2d6", who="Sable", why="the bell's toll")
do("undo", camp.undo)
do("redo", camp.redo)
do("damage by hand", camp.damage, "Wren", 2, source="a falling portcullis")
do("damage by hand, armor", camp.damage, "Brakka", 3, armor=True)
do("heal by hand", camp.heal, "Wren", 1, source="a potion")
do("heal by the keeper", camp.heal, "Brakka", 5)
fight = do("encounter", camp.encounter, ["bog_goblin", "bog_goblin", {"npc": "Grak"}], name="causeway_ambush")
do("add_foes", fight.add_foes, ["eel_swarm", "drowned_dead"])
do("set_order", fight.set_order, ["Ilse", "Wren", "Brakka", "Father Odo", "Sable"])
do("initiative", fight.initiative)
ilse = 0


def standing():  # the foes still up, Grak (to be kept as a prisoner) aside
    return [f.name for f in fight.foes if f.status != "dead" and f.name != "Grak"]


for _ in range(16):
    actor = fight.actor
    if actor is None or not standing():
        break
    if actor == "Ilse":
        ilse += 1
        if ilse == 1:
            do("magic missile", camp.cast, "Ilse", "magic_missile", target=[standing()[0]] * 3)
        else:
            do("firebolt", camp.cast, "Ilse", "firebolt", target=standing()[-1])
            do("light's touch", camp.cast, "Ilse", "light", target=standing()[-1], blind=True,
               keeper_override="the keeper allows a second deed")
    elif actor == "Wren":
        do("attack, a miss countered", fight.attack, "Wren", standing()[0],
           faces={"attack": [1, 1], "resist": [19], "counter_damage": [3]})
    elif actor == "Brakka":
        do("attack, a tie", fight.attack, "Brakka", standing()[-1], faces={"attack": [10, 1], "resist": [11]})
    elif actor == "Father Odo":
        do("lay on hands", camp.use, "Father Odo", "lay_on_hands", target="Wren", hearts=1)
    elif actor == "Sable":
        do("naming", camp.cast, "Sable", "naming", names=["Water"], description="the water rises", cost=1)
    elif actor in standing():
        do("a foe's attack", fight.attack, actor, "Father Odo", counter=False)
    do("next_turn", fight.next_turn)
do("second wind", camp.use, "Brakka", "second_wind", keeper_override="a breath")
do("damage to dying", camp.damage, "Sable", 40)
do("death save", camp.death_save, "Sable", faces={"death_save": [6]})
do("end_encounter", camp.act, "end_encounter", keep=["Grak"])
do("remove_npc", camp.remove_npc, "Grak")
do("familiar", camp.cast, "Ilse", "find_familiar", name="Pip", form="toad", keeper_override="between fights")
fight = do("encounter", camp.encounter, ["bog_goblin"])
do("initiative", fight.initiative, first="party")
do("a familiar's attack", fight.attack, "Pip", "Bog goblin 1", keeper_override="Pip goes now")
do("a foe's attack on the familiar", fight.attack, "Bog goblin 1", "Pip", keeper_override="its turn")
do("end_encounter", camp.act, "end_encounter")
do("rest", camp.rest)
do("award to level", camp.award_xp, 300)
do("level_up", camp.level_up, "Wren")
do("add_delver", camp.add_delver, "Tamsin", "rogue", player="Fae")
do("end_session", camp.end_session)
camp.close()
print(len(camp.events), "events;", "done:", ", ".join(sorted(set(done))))
print("refused:", *refused, sep="\n  ")
