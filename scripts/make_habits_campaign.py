"""Play a campaign whose table keeps fixed habits the forecast is not told, to see whether it learns them.

    .venv/bin/python scripts/make_habits_campaign.py FOLDER [--fights 24] [--seed 5]

Three delvers fight goblins, bandits, orcs and now and then an ogre, every action through the public API
(``Campaign.encounter``, ``Fight.attack``, ``Campaign.death_save``, ``Campaign.spend_luck``), by these habits
(``HABITS``, in words):

- the party leaves a fight once two of its delvers are down (below 1 heart; asked before every turn);
- the foes attack the standing delver with the most hearts; the delvers attack the first standing foe;
- luck dice go on failed death saves only, the delver's own player's, while they have any; never on an attack.

Between fights the keeper heals the living to full and a fallen delver's player brings a new one; a session is four
fights (luck dice come back at each). The next fight is left prepared: two orcs (``orc_pair``).
``forecast.habits.learn`` should find these habits in the log, and the calibration score them above the documented
default (the test suite checks both on a small campaign it makes).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from delvebook import Campaign  # noqa: E402
from delvebook.engine import Refused  # noqa: E402

HABITS = {"leave once down": 2, "foes attack": "most_hearts", "delvers attack": "first",
          "luck": "failed death saves only, the delver's own player"}
PARTY = [{"name": "Ash", "class": "fighter", "player": "Ana", "choices": {"weapon": "sword_and_shield"}},
         {"name": "Bram", "class": "rogue", "player": "Ben"},
         {"name": "Cora", "class": "cleric", "player": "Cleo", "choices": {"weapon": "dagger"}}]
CLASSES = ["fighter", "rogue", "cleric", "namer"]
FOES = [["orc", "orc"], ["ogre"], ["ogre", "goblin"], ["orc", "orc", "bandit"], ["bandit", "bandit", "goblin"]]
PER_SESSION = 4


def _death_saves(camp: Campaign, party: list[str]) -> None:
    """Every delver the last deed left dying saves at once; its own player spends luck dice on a failed save."""
    for name in party:
        d = camp.delver(name)
        if d.status != "dying":
            continue
        camp.death_save(name)
        while camp.delver(name).status == "dead" and camp.players.get(d.player, 0) > 0:
            camp.spend_luck(d.player, 1, roll="death_save")


def play_fight(camp: Campaign, foes: list[str]) -> str:
    """One fight by the habits; returns how it ended: ``won``, ``left`` or ``wiped``."""
    fight = camp.encounter(foes)
    fight.initiative()
    party = list(fight.order["party"])
    for _ in range(500):
        standing_foes = [n for n in fight.order["foes"] if fight.foe(n).status == "alive"]
        down = [n for n in party if camp.delver(n).status != "alive" or camp.delver(n).hearts < 1]
        if not standing_foes or len(down) >= HABITS["leave once down"] or len(down) == len(party):
            break
        actor = fight.actor
        if actor in party and camp.delver(actor).status == "alive":
            _try(fight.attack, actor, standing_foes[0])  # the first standing foe
        elif actor in standing_foes:
            standing = [n for n in party if camp.delver(n).status == "alive"]
            target = max(standing, key=lambda n: camp.delver(n).hearts)  # the most hearts (ties: the earlier)
            _try(fight.attack, actor, target)
        _death_saves(camp, party)
        fight.next_turn()
    won = not [n for n in fight.order["foes"] if fight.foe(n).status == "alive"]
    wiped = all(camp.delver(n).status == "dead" for n in party)
    fight.end()
    _death_saves(camp, party)
    return "won" if won else "wiped" if wiped else "left"


def _try(fn, *args) -> None:
    try:
        fn(*args)
    except Refused:
        pass


def between_fights(camp: Campaign, r: random.Random, joined: list[int]) -> None:
    """The keeper heals the living to full; a fallen delver's player brings a new delver."""
    for d in list(camp.delvers):
        if d.status != "dead" and d.hearts < d.max_hearts:
            camp.heal(d.name, d.max_hearts - d.hearts, source="a night at the inn")
    alive_players = {d.player for d in camp.delvers if d.status != "dead"}
    for p in PARTY:
        if p["player"] not in alive_players:
            joined[0] += 1
            camp.add_delver(f"Recruit {joined[0]}", r.choice(CLASSES), player=p["player"])


def play(camp: Campaign, fights: int, seed: int) -> list[str]:
    """``fights`` fights by the habits, in sessions of ``PER_SESSION``; returns how each ended."""
    r = random.Random(seed)
    ended, joined = [], [0]
    for i in range(fights):
        if i % PER_SESSION == 0:
            if i:
                camp.end_session()
            camp.start_session()
        ended.append(play_fight(camp, r.choice(FOES)))
        between_fights(camp, r, joined)
    camp.end_session()
    return ended


def create(folder: Path, seed: int = 5) -> Campaign:
    """A new campaign of the three delvers in ``folder`` (which must not exist), open to play."""
    return Campaign.create(folder, name="The Habits", seed=seed, delvers=PARTY,
                           notes="Played by scripts/make_habits_campaign.py with fixed habits.")


def make(folder: Path, fights: int = 24, seed: int = 5) -> list[str]:
    """A new campaign in ``folder`` played by the habits, with the next fight prepared (two orcs, for the encounter
    builder); returns how each fight ended."""
    with create(folder, seed) as camp:
        ended = play(camp, fights, seed)
        camp.prepare_encounter("The orc pair", {"orc": 2}, id="orc_pair", note="Two orcs hold the stair.")
        return ended


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder")
    ap.add_argument("--fights", type=int, default=24)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args(argv)
    ended = make(Path(args.folder), args.fights, args.seed)
    counts = ", ".join(f"{k} {ended.count(k)}" for k in ("won", "left", "wiped"))
    print(f"{args.folder}: {len(ended)} fights: {counts}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
