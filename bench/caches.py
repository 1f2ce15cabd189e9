"""What each cache the pure core keeps is worth, measured in one run: prints ratios, asserts nothing.

Every cache in dice, distribution and the engine is an ``lru_cache`` on a pure function, each with its reason in a
comment above it. Here each is switched off in turn (the function swapped for the one it wraps) and three
workloads are timed with it and without it, in turns, the best of --reps (CPU time of this process, so other
processes on the machine count as little as can be):

- forecast: the danger forecast of the bundled campaign's three prepared encounters (one worker), --fights each;
- recorded: fights played through ``Campaign.act`` on an in-memory store (attacks and checks, decided, checked,
  logged in memory and applied: a table click but the fsync);
- view: the table's view model of a fight in progress, computed again (what every click computes).

A ratio is (time without the cache) / (time with it): 1.17x means the cache saves 15% of that workload. A cache
stays while some workload shows it worth more than a few percent.

Run: .venv/bin/python bench/caches.py [--reps 5] [--fights 150]
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import delvebook as db  # noqa: E402
from delvebook.core import dice  # noqa: E402
from delvebook.core import distribution  # noqa: E402
from delvebook.core.events import clone  # noqa: E402
from delvebook.store import CampaignStore, MemoryStore  # noqa: E402

KEEP = ROOT / "campaigns" / "the-sunken-keep"

CACHES = {  # name -> (module, the cached function's name in it)
    "parse": (dice, "_parse_text"),
    "odds": (distribution, "_odds_of_notation"),
}


def _without(module, name):
    """Switch the cache off: the module calls the function it wraps; returns what switches it back on."""
    cached = getattr(module, name)
    setattr(module, name, cached.__wrapped__)
    return lambda: setattr(module, name, cached)


def _clear_all() -> None:
    for module, name in CACHES.values():
        getattr(module, name).cache_clear()


def _memory_copy(data) -> db.Campaign:
    return db.Campaign.open(MemoryStore(clone(data[0]), [clone(e) for e in data[1]]))


def workloads(fights: int) -> dict:
    with CampaignStore.open(KEEP, read_only=True) as store:
        data = (clone(store.campaign), [clone(e) for e in store.events])
    forecast_camp = _memory_copy(data)

    def forecast() -> None:
        for enc in ("causeway_ambush", "flooded_chapel", "bell_tower"):
            forecast_camp.danger(enc, fights=fights, seed=1, precision=0, workers=1)

    def recorded() -> None:
        for seed in range(8):
            camp = _memory_copy(data)
            camp.start_session()
            camp.encounter(["bell_warden", "goblin", "goblin"]).initiative(first="party")
            rng = random.Random(seed)
            for k in range(40):
                s = camp.state
                party = [n for n in s["seats"] if s["delvers"][n]["status"] == "alive"]
                foes = [n for n, f in s["encounter"]["foes"].items() if f["status"] == "alive"]
                if not party or not foes:
                    break
                a, t = (party, foes) if k % 2 == 0 else (foes, party)
                camp.act("attack", attacker=rng.choice(a), target=rng.choice(t), keeper_override="bench")
                able = [n for n in s["seats"] if s["delvers"][n]["status"] == "alive"]
                if able:
                    camp.check(rng.choice(able), "stealth", 12)

    from delvebook.table import UI, table_view
    view_camp = _memory_copy(data)
    view_camp.start_session()
    view_camp.encounter(["bell_warden", "goblin", "goblin"]).initiative(first="party")

    def view() -> None:
        ui = UI()
        for _ in range(100):
            table_view(view_camp, ui)

    return {"forecast": forecast, "recorded": recorded, "view": view}


def _cpu(fn) -> float:
    gc.collect()
    t = time.process_time()
    fn()
    return time.process_time() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--fights", type=int, default=150)
    args = ap.parse_args()
    work = workloads(args.fights)
    print(f"python {sys.version.split()[0]}; best of {args.reps}, CPU time; ratio = without the cache / with it")
    print(f"{'cache':<14}" + "".join(f"{w:>22}" for w in work))
    for name, (module, attr) in CACHES.items():
        cells = []
        for w, fn in work.items():
            fn()  # warm: the first run reads the rules, imports, fills every cache
            on, off = [], []
            for _ in range(args.reps):
                on.append(_cpu(fn))
                back = _without(module, attr)
                try:
                    off.append(_cpu(fn))
                finally:
                    back()
            cells.append(f"{min(off) / min(on):5.2f}x of {min(on) * 1000:5.0f} ms")
        print(f"{name:<14}" + "".join(f"{c:>22}" for c in cells))
    _clear_all()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
