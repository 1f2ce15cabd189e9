"""Play a long campaign through the engine with a fixed seed, so the bundled finished campaign can be
regenerated (and stays valid as the format grows).

    .venv/bin/python scripts/make_finished_campaign.py [campaigns/the-long-delve] [--events 10500] [--record FILE]

``make long-delve`` runs it for the bundled campaign with ``--record scripts/the-long-delve.sources.json``: the
digests of every source it read (``sources_digest``), which the fast tier compares, so a change to the engine, the
rules or this script that may change the log says so in ``make test``, not only in the slow tier.

A table of five plays at least 20 sessions: rooms explored, checks (with luck dice spent on misses),
fights from initiative to XP turn by turn (one action a turn; arrows and bolts spent, crossbows reloaded;
smites chosen once a hit is seen; familiars fighting beside their mages; deaths, death saves, fallen delvers
replaced; now and then an ambush the keeper lets the party open before initiative), abilities and spells,
level-ups to 3 with their choices, found gear, prisoners kept as NPCs and questioned with Truth, rests, quests,
coins, and the keeper's undos.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from delvebook import Campaign  # noqa: E402
from sources_digest import loaded_sources, record  # noqa: E402
from delvebook.engine import Refused  # noqa: E402
from delvebook.core.model import familiar_of  # noqa: E402


def db_familiar(camp, who: str):
    """The name of ``who``'s familiar while it lives, or None."""
    f = familiar_of(camp.state, who)
    return f.name if f is not None else None

PARTY = [
    {"name": "Wren", "class": "rogue", "player": "Ana"},
    {"name": "Brakka", "class": "fighter", "player": "Ben", "choices": {"weapon": "sword_and_shield"}},
    {"name": "Ilse", "class": "mage", "player": "Cleo", "choices": {"weapon": "staff"}},
    {"name": "Father Odo", "class": "cleric", "player": "Dev", "choices": {"weapon": "dagger"}},
    {"name": "Sable", "class": "namer", "player": "Eli"},
]
RECRUITS = [("Tamsin", "rogue"), ("Gorm", "fighter"), ("Vesper", "mage"), ("Mother Hild", "cleric"),
            ("Quill", "namer"), ("Rook", "rogue"), ("Harrow", "fighter"), ("Lune", "mage")]
FOES_BY_TIER = {1: ["goblin", "giant_rat", "skeleton", "cultist"], 2: ["bandit", "wolf", "zombie", "imp", "skeleton"],
                3: ["orc", "ogre", "bandit", "zombie", "sprite"]}
SKILLS = ["stealth", "athletics", "lore", "insight", "perception", "medicine", "investigation", "persuasion",
          "intimidation", "magic", None]
LOOT = [  # what the delvers find now and then, given by the keeper
    ("fighter", "sword", {"bonus": 1, "name": "Sword +1", "tags": ["magic"]}),
    ("fighter", {"name": "Chain shirt", "av": 2, "dv": 12}, {}),
    ("fighter", "crossbow", {}),
    ("rogue", {"name": "Battered lute", "instrument": True}, {}),
    ("rogue", "dagger", {"bonus": 1, "name": "Dagger +1"}),
    (None, "torch", {"count": 3}),
]
QUESTS = ["the drowned bell", "the salt king's crown", "the lantern of Vell", "the bone ferry", "the last warden",
          "the sunken archive", "the weeping door", "the copper saint"]


class Player:
    """Makes the table's decisions with its own seeded RNG (the campaign's RNG rolls the dice)."""

    def __init__(self, camp: Campaign, seed: int):
        self.camp = camp
        self.r = random.Random(seed)
        self.recruits = list(RECRUITS)
        self.rooms = 0
        self.quests = 0
        self.replaced: set[str] = set()
        self.prisoners: list[str] = []

    def try_(self, fn, *args, **kw):
        try:
            return fn(*args, **kw)
        except Refused:
            return None

    def alive(self) -> list:
        return [d for d in self.camp.delvers if d.status != "dead"]

    def choose_pending(self) -> None:
        for d in self.camp.delvers:
            for p in list(d.data.get("pending_choices", ())):
                cls = self.camp.rules.level(d.class_id, p["level"]).get("choices", {})
                spec = cls.get(p["choice"])
                if spec is None and "within" in p:
                    outer = cls[p["within"]]["options"][d.choices[p["within"]]]
                    spec = outer["choices"][p["choice"]]
                if spec is None:
                    continue
                if "from_skills" in spec:
                    opts = [s for s, b in d.skills.items() if b == "proficient"
                            and not self.camp.rules.class_(d.class_id)["skills"].get(s, {}).get("weapon")]
                else:
                    opts = [k for k in spec["options"] if k not in ("source", "quote", "reason", "note", "assumed")]
                if opts:
                    self.try_(self.camp.choose, d.name, p["choice"], self.r.choice(opts))

    def maybe_luck(self, outcome, chance: float = 0.5, sign: int = 1) -> None:
        """A player spends a luck die on the roll just seen: +1 to help a delver, -1 against a foe."""
        if outcome is None or self.r.random() > chance:
            return
        players = [p for p, n in self.camp.players.items() if n > 0]
        if players:
            self.try_(self.camp.spend_luck, self.r.choice(players), sign)

    def keeper_slip(self) -> None:
        """Now and then the keeper takes something back (and sometimes puts it back)."""
        if self.r.random() < 0.03 and self.camp.can_undo:
            self.camp.undo()
            if self.r.random() < 0.5 and self.camp.can_redo:
                self.camp.redo()

    def replace_the_fallen(self) -> None:
        for d in self.camp.delvers:
            if d.status == "dead" and d.name not in self.replaced:
                self.replaced.add(d.name)
                if self.recruits:
                    name, cls = self.recruits.pop(0)
                else:
                    name, cls = f"Recruit {len(self.replaced)}", self.r.choice(["rogue", "fighter", "mage", "cleric", "namer"])
                self.camp.add_delver(name, cls, player=d.player)

    def explore(self) -> None:
        for _ in range(self.r.choice([0, 0, 1, 1, 2])):
            self.rooms += 1
            self.camp.explore_room(f"room {self.rooms}")
            self.keeper_slip()
        for _ in range(self.r.randint(2, 5)):
            alive = self.alive()
            if not alive:
                return
            d = self.r.choice(alive)
            o = self.try_(self.camp.check, d.name, self.r.choice(SKILLS), self.r.randint(8, 20))
            if o is not None and not o["success"]:
                self.maybe_luck(o, 0.4)
            self.keeper_slip()

    def tier(self) -> int:
        levels = [d.level for d in self.alive()] or [1]
        return max(1, min(3, round(sum(levels) / len(levels))))

    def abilities(self, d, fight) -> bool:
        """Sometimes a delver uses a class ability instead of attacking (its action); True if it did. Free ones
        (a Commander's order, Ferocious strike) leave the action for the attack."""
        r, camp = self.r, self.camp
        foes = [f for f in fight.foes if f.status != "dead"]
        if d.class_id == "fighter" and d.choices.get("technique") == "commander" and d.resources.get("grit", 0) \
                and r.random() < 0.3:
            self.try_(camp.use, d.name, r.choice(["command_charge", "command_fire", "command_hold_the_line"]))
        hurt = sorted(self.alive(), key=lambda x: x.hearts - x.max_hearts)
        if d.class_id == "cleric" and hurt and hurt[0].hearts < hurt[0].max_hearts // 2:
            points = min(d.resources.get("healing_points", 0), hurt[0].max_hearts - hurt[0].hearts)
            if points and hurt[0].status == "alive" and self.try_(camp.use, d.name, "lay_on_hands",
                                                                    target=hurt[0].name, hearts=points):
                return True
        if d.class_id == "cleric" and r.random() < 0.2 and d.resources.get("blessings", 0):
            if self.try_(camp.use, d.name, "bless", target=r.choice(self.alive()).name):
                return True
        if d.class_id == "fighter" and d.hearts < d.max_hearts // 2 and d.resources.get("grit", 0) >= 2:
            if self.try_(camp.use, d.name, "second_wind"):
                return True
        if d.class_id == "fighter" and r.random() < 0.25 and d.resources.get("grit", 0):
            self.try_(camp.use, d.name, r.choice(["ferocious_strike", "double_strike"]))
        if d.class_id == "mage" and foes and r.random() < 0.5:
            spell = r.choice([s for s in ("magic_missile", "firebolt") if s in d.spells] or [None])
            if spell and self.try_(camp.cast, d.name, spell, target=r.choice(foes).name):
                return True
        if d.class_id == "namer" and foes and r.random() < 0.3 and d.resources.get("soul_points", 0) >= 2:
            names = d.true_names[:2]
            if self.try_(camp.cast, d.name, "naming", names=names, description="a knot of named wind holds the foes",
                         cost=2):
                return True
        return False

    def weapon(self, d):
        """The weapon a delver takes up this turn: a bow or a loaded crossbow now and then, if it has the ammunition."""
        r = self.r
        items = {it.get("item"): it.get("count", 0) for it in d.data["items"]}
        for w in d.weapons:
            if w.get("item") == "bow" and items.get("arrow", 0) > 0 and r.random() < (0.5 if d.class_id == "rogue"
                                                                                     else 0.25):
                return w["name"]
            if w.get("item") == "crossbow" and items.get("bolt", 0) > 0 and r.random() < 0.5:
                return w["name"]
        return None

    def strike(self, d, fight, foes) -> None:
        """A delver's turn: an ability, or an attack (a smite chosen on a hit), and its familiar's bite."""
        camp, r = self.camp, self.r
        if self.abilities(d, fight):
            return
        target = r.choice(foes).name
        crossbow = next((w for w in d.weapons if w.get("item") == "crossbow"), None)
        if crossbow is not None and not crossbow.get("loaded", True) and r.random() < 0.5 \
                and self.try_(camp.reload, d.name):
            return  # reloading takes the action
        o = self.try_(fight.attack, d.name, target, weapon=self.weapon(d)) or \
            self.try_(fight.attack, d.name, target)
        if o is not None:
            offers = [x for x in o.get("on_hit_options", ()) if x.get("affordable")]
            if offers and r.random() < 0.6:
                o = self.try_(camp.on_hit, offers[0]["option"]) or o
            if o["results"] == ["miss"]:
                self.maybe_luck(o, 0.25)
        familiar = db_familiar(camp, d.name)
        living = [f.name for f in fight.foes if f.status != "dead"]
        if familiar is not None and living and r.random() < 0.7:
            # the keeper rules that a familiar's nip draws no counter: the varmint darts in and away
            self.try_(fight.attack, familiar, r.choice(living), counter=False)

    def fight(self) -> None:
        camp, r = self.camp, self.r
        tier = self.tier()
        n = r.randint(1, 3)
        fight = camp.encounter([r.choice(FOES_BY_TIER[tier]) for _ in range(n)])
        alive = self.alive()
        if r.random() < 0.05 and alive:  # an ambush: the keeper lets the party strike before anyone rolls
            self.try_(fight.attack, r.choice(alive).name, fight.foes[0].name,
                      keeper_override="the party caught them unawares")
        fight.initiative(first=r.choice([None, None, None, "party", "foes"]))
        for _ in range(400):
            foes = [f for f in fight.foes if f.status != "dead"]
            party = [d for d in camp.delvers if d.status == "alive"]
            down = [d for d in camp.delvers if d.name in fight.order["party"]
                    and (d.status != "alive" or d.hearts * 10 < d.max_hearts * 4)]
            if not foes or down or not party:
                break  # victory, or the party pulls its wounded out of the fight
            actor = fight.actor
            if actor in camp.state["delvers"]:
                d = camp.delver(actor)
                if d.status == "dying":
                    o = camp.death_save(d.name)
                    if not o["success"] and o["total"] >= 3:
                        for _ in range(2):  # the whole table pools luck to lift a death save
                            if camp.delver(d.name).status == "dead":
                                self.maybe_luck(camp.events[-1], 1.0)
                elif d.status == "alive":
                    self.strike(d, fight, foes)
            elif actor is not None and party:
                o = self.try_(fight.attack, actor, r.choice(party).name)
                if o is not None and "hit" in o["results"]:
                    self.maybe_luck(o, 0.3, sign=-1)
            self.keeper_slip()
            fight.next_turn()
        standing = [f.name for f in fight.foes if f.status != "dead"]
        if camp.fight is not None and r.random() < 0.1 and standing:
            fight.add_foes([r.choice(FOES_BY_TIER[tier])])  # reinforcements arrive as the fight ends
        humanoids = [f.name for f in fight.foes if f.status != "dead" and "humanoid" in f.tags]
        if humanoids and r.random() < 0.3 and len(self.prisoners) < 2:
            fight.end(keep=humanoids[:1])  # one surrenders: a prisoner to question
            self.prisoners.append(humanoids[0])
        else:
            fight.end()
        for d in camp.delvers:
            if d.status == "dying":
                o = camp.death_save(d.name)
                if not o["success"]:
                    self.maybe_luck(o, 0.8)
        self.choose_pending()
        if r.random() < 0.7:
            camp.earn({"crown": r.randint(1, 12), "talon": r.randint(0, 9)}, reason="loot")
        if r.random() < 0.15:
            self.find_gear()
        self.question_prisoners()

    def find_gear(self) -> None:
        """Something found among the fallen: the keeper hands it to a delver who can use it."""
        camp, r = self.camp, self.r
        cls, item, details = r.choice(LOOT)
        takers = [d for d in self.alive() if cls is None or d.class_id == cls]
        if not takers:
            return
        d = r.choice(takers)
        self.try_(camp.give, d.name, item, **details)
        if item == "crossbow":
            self.try_(camp.give, d.name, "bolt", count=20)

    def question_prisoners(self) -> None:
        """A prisoner is questioned (Truth, if the cleric can), then handed over to the watch."""
        camp, r = self.camp, self.r
        for name in list(self.prisoners):
            if name not in camp.state["creatures"]:
                self.prisoners.remove(name)
                continue
            clerics = [d for d in self.alive() if d.class_id == "cleric" and d.level == 3
                       and d.resources.get("blessings", 0)]
            if clerics and r.random() < 0.7:
                self.try_(camp.cast, clerics[0].name, "truth", target=name)
            else:
                asker = self.alive()
                if asker:
                    self.try_(camp.check, asker[0].name, "insight", vs=name)
            if r.random() < 0.5:
                camp.remove_npc(name)
                self.prisoners.remove(name)

    def summon(self) -> None:
        """After a rest a mage with Find Familiar in the book calls a familiar, if it has none."""
        camp = self.camp
        for d in self.alive():
            if d.class_id == "mage" and "find_familiar" in d.spells and db_familiar(camp, d.name) is None:
                self.try_(camp.cast, d.name, "find_familiar", name=f"{d.name}'s familiar",
                          form=self.r.choice(["rat", "crow", "toad", "cat"]))

    def camp_out(self) -> None:
        """A night's rest; the cleric spends the restored healing points on the worst wounds."""
        camp = self.camp
        camp.rest()
        self.summon()
        for c in [d for d in camp.delvers if d.class_id == "cleric" and d.status == "alive"]:
            for d in sorted(camp.delvers, key=lambda x: x.hearts - x.max_hearts):
                points = min(camp.delver(c.name).resources.get("healing_points", 0), d.max_hearts - d.hearts)
                if points > 0 and d.status == "alive":
                    self.try_(camp.use, c.name, "lay_on_hands", target=d.name, hearts=points)

    def session(self, number: int) -> None:
        camp, r = self.camp, self.r
        camp.start_session()
        for _ in range(r.randint(5, 8)):
            self.explore()
            living = [d for d in camp.delvers if d.status == "alive"]
            if living and sum(d.hearts for d in living) * 2 < sum(d.max_hearts for d in living):
                self.camp_out()  # too hurt to fight on: they make camp first
            self.fight()
            self.replace_the_fallen()
            self.choose_pending()
        if number % 3 == 0 and self.quests < len(QUESTS):
            camp.complete_quest(QUESTS[self.quests])
            self.quests += 1
            self.choose_pending()
        if r.random() < 0.5:
            camp.roll("d66", who="keeper", why="loot table")
            self.maybe_luck(camp.events[-1], 0.3)
        camp.rest()
        self.summon()
        for d in camp.delvers:  # the keeper rules that a week in town mends the living
            if d.status == "alive" and d.hearts < d.max_hearts:
                self.try_(camp.heal, d.name, d.max_hearts - d.hearts, source="a week in town")
        for d in self.alive():  # and the archers buy arrows
            arrows = sum(it.get("count", 0) for it in d.data["items"] if it.get("item") == "arrow")
            if any(w.get("item") == "bow" for w in d.weapons) and arrows < 10:
                self.try_(camp.buy, d.name, "arrow")
        camp.end_session()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path", nargs="?", default=str(ROOT / "campaigns" / "the-long-delve"))
    ap.add_argument("--events", type=int, default=10_000, help="play until the log has at least this many events")
    ap.add_argument("--sessions", type=int, default=20, help="and at least this many sessions")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--record", metavar="FILE", help="write the digests of every source read (what the fast tier "
                                                     "compares to say the campaign is due)")
    args = ap.parse_args(argv)
    path = Path(args.path)
    if path.exists():
        shutil.rmtree(path)
    camp = Campaign.create(path, name="The Long Delve", seed=args.seed, delvers=PARTY,
                           notes="A finished campaign played by scripts/make_finished_campaign.py with a fixed seed.")
    start = dt.datetime(2026, 1, 6, 19, 0, tzinfo=dt.timezone.utc)
    ticks = {"n": 0, "session": 0}

    def clock() -> str:  # sessions a week apart, an event every 20 seconds of real time
        ticks["n"] += 1
        t = start + dt.timedelta(weeks=ticks["session"], seconds=20 * ticks["n"])
        return t.isoformat(timespec="seconds")

    camp._clock = clock
    table = Player(camp, args.seed)
    number = 0
    while number < args.sessions or len(camp.events) < args.events:
        number += 1
        ticks["session"], ticks["n"] = number - 1, 0
        table.session(number)
    n = len(camp.events)
    levels = {d.name: d.level for d in camp.delvers}
    camp.close()
    print(f"{path}: {number} sessions, {n} events; levels {levels}")
    if args.record:
        made = path.resolve().relative_to(ROOT).as_posix() if path.resolve().is_relative_to(ROOT) else str(path)
        record(Path(args.record), loaded_sources(sys.modules.values(), also=[Path(__file__)]), made)
        print(f"{args.record}: the digests of what made it")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
