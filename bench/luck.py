"""What saying where a luck die can change the outcome costs the table, measured in one run: prints ratios, asserts
nothing.

After an attack, the luck dice offered on each of its rolls are worked out by playing the attack again with a luck
die (``Engine.luck_would``: the biggest face, then halving towards the smallest that matters). Three views of the
same fight, each the table's view model right after an attack, are timed (CPU time, best of --reps):

- plain: every luck die offered, none played again (the table before it said what a luck die can change);
- first: the view right after the click (the attack played again for each roll and way);
- again: the same view computed again without a new action (the forecast refining redraws it four times a second):
  ``Engine.luck_would`` remembers its answers while the latest action stands;
- unremembered: ``again`` with that memory switched off.

Run: .venv/bin/python bench/luck.py [--reps 5] [--attacks 20]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import delvebook as db  # noqa: E402
from delvebook.core.events import clone  # noqa: E402
from delvebook.narrate.luck import Reach  # noqa: E402
from delvebook.store import CampaignStore, MemoryStore  # noqa: E402
from delvebook.table import UI, table_view  # noqa: E402
from delvebook.view import outcome  # noqa: E402

KEEP = ROOT / "campaigns" / "the-sunken-keep"


def _fight(attacks: int) -> list:
    """A fight in memory and, after each of ``attacks`` attacks, what the table shows is computed from: the
    campaign as it stood (a copy each)."""
    with CampaignStore.open(KEEP, read_only=True) as store:
        data = (clone(store.campaign), [clone(e) for e in store.events])
    camp = db.Campaign.open(MemoryStore(clone(data[0]), [clone(e) for e in data[1]]))
    camp.start_session()
    camp.encounter(["bell_warden", "goblin", "goblin"]).initiative(first="party")
    made = []
    for k in range(attacks):
        s = camp.state
        party = [n for n in s["seats"] if s["delvers"][n]["status"] == "alive"]
        foes = [n for n, f in s["encounter"]["foes"].items() if f["status"] == "alive"]
        if not party or not foes:
            break
        a, t = (party, foes) if k % 2 == 0 else (foes, party)
        camp.act("attack", attacker=a[k % len(a)], target=t[k % len(t)], keeper_override="bench")
        made.append([clone(e) for e in camp.events])
    return [data[0], made]


def _camps(setup, logs) -> list:
    return [db.Campaign.open(MemoryStore(clone(setup), [clone(e) for e in log])) for log in logs]


def _cpu(fn) -> float:
    gc.collect()
    t = time.process_time()
    fn()
    return time.process_time() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--attacks", type=int, default=20)
    args = ap.parse_args()
    setup, logs = _fight(args.attacks)
    times: dict[str, list] = {"plain": [], "first": [], "again": [], "unremembered": []}
    real = outcome.luck_reach
    for _ in range(args.reps):
        camps = _camps(setup, logs)
        outcome.luck_reach = lambda *a, **k: Reach(1, "")
        try:
            times["plain"].append(_cpu(lambda: [table_view(c, UI()) for c in camps]))
        finally:
            outcome.luck_reach = real
        camps = _camps(setup, logs)
        times["first"].append(_cpu(lambda: [table_view(c, UI()) for c in camps]))
        times["again"].append(_cpu(lambda: [table_view(c, UI()) for c in camps]))
        for c in camps:  # the memory switched off: every view asks the engine again
            c.engine.luck_would = _forgetful(c.engine)
        times["unremembered"].append(_cpu(lambda: [table_view(c, UI()) for c in camps]))
    best = {k: min(v) / len(logs) * 1000 for k, v in times.items()}
    print(f"python {sys.version.split()[0]}; {len(logs)} views after an attack, best of {args.reps}, CPU time")
    for name, ms in best.items():
        print(f"{name:<14}{ms:7.2f} ms a view   {ms / best['plain']:5.2f}x plain")
    print(f"the memory is worth {best['unremembered'] / best['again']:.2f}x on a redraw without a new action")
    return 0


def _forgetful(engine):
    """``engine.luck_would`` as if it remembered nothing."""
    bound = type(engine).luck_would

    def luck_would(*args, **kwargs):
        engine._luck_would = (None, {})
        return bound(engine, *args, **kwargs)
    return luck_would


if __name__ == "__main__":
    raise SystemExit(main())
