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
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import delvebook as db  # noqa: E402
from delvebook.core.events import clone  # noqa: E402
from delvebook.core.model import combatant, is_alive  # noqa: E402
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
    for k in range(attacks):  # a delver and a foe by turns, each at the first standing on the other side
        s = camp.state
        sides = [[n for n in names if is_alive(combatant(s, n)[1])]
                 for names in (s["seats"], list(s["encounter"]["foes"]))]
        if not all(sides):
            break
        mine, theirs = sides[k % 2], sides[1 - k % 2]
        camp.act("attack", attacker=mine[k % len(mine)], target=theirs[0], keeper_override="bench")
        made.append([clone(e) for e in camp.events])
    return [data[0], made]


def _camps(setup, logs) -> list:
    return [db.Campaign.open(MemoryStore(clone(setup), [clone(e) for e in log])) for log in logs]


def _best(fn, reps: int) -> float:
    """The least CPU time of ``reps`` runs of ``fn`` (garbage collected before each)."""
    return min(timeit.repeat(fn, setup=gc.collect, number=1, repeat=reps, timer=time.process_time))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=5, help="runs of each view, the least CPU time kept")
    parser.add_argument("--attacks", type=int, default=20, help="attacks of the fight, a view after each")
    opts = parser.parse_args(argv)
    setup, logs = _fight(opts.attacks)
    real = outcome.luck_reach
    outcome.luck_reach = lambda *a, **k: Reach(1, "")
    try:
        plain = _camps(setup, logs)
        best = {"plain": _best(lambda: [table_view(c, UI()) for c in plain], opts.reps)}
    finally:
        outcome.luck_reach = real
    firsts = []
    for _ in range(opts.reps):  # the first view after a click: nothing remembered yet, fresh campaigns each time
        camps = _camps(setup, logs)
        firsts.append(timeit.timeit(lambda: [table_view(c, UI()) for c in camps], number=1, timer=time.process_time))
    best["first"] = min(firsts)
    best["again"] = _best(lambda: [table_view(c, UI()) for c in camps], opts.reps)
    for c in camps:  # the memory switched off: every view asks the engine again
        c.engine.luck_would = _forgetful(c.engine)
    best["unremembered"] = _best(lambda: [table_view(c, UI()) for c in camps], opts.reps)
    ms = {k: v / len(logs) * 1000 for k, v in best.items()}
    print(f"python {sys.version.split()[0]}; {len(logs)} views after an attack, best of {opts.reps}, CPU time")
    for name, each in ms.items():
        print(f"{name:<14}{each:7.2f} ms a view   {each / ms['plain']:5.2f}x plain")
    print(f"the memory is worth {ms['unremembered'] / ms['again']:.2f}x on a redraw without a new action")
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
