"""Preparing an evening, where the keeper feels it, against references measured in the same run.

- a click with a bestiary of 10,000 foe types against the same click with one of 10 (the view model and the
  campaign call, in process; fsync'ed to a temporary folder): target within 1.5x;
- how long the table waits on the builder's forecast: the longest slice the kernel spends before it lets a click
  through, one process and every core (the widget's own loop: ``table.forecasting.Runner``), beside a click's own
  view model;
- a forecast of thousands of foes cancelled: seconds from ``cancel()`` to its return, one process and every core
  (target: under a second), beside one plain fight of the bundled bell tower.

Each figure over --runs runs (the machine's cores are shared: read ranges). Asserts nothing.
Run: .venv/bin/python bench/prepare.py [--runs 5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import delvebook as db  # noqa: E402
from delvebook.forecast import default_workers  # noqa: E402
from delvebook.table import UI, perform, table_view  # noqa: E402
from delvebook.table.forecasting import SLICE, Runner  # noqa: E402

KEEP = ROOT / "campaigns" / "the-sunken-keep"
TARGET_BESTIARY = 1.5
TARGET_CANCEL = 1.0


def _range(xs: list[float], fmt: str = "{:.1f}") -> str:
    return f"{fmt.format(min(xs))}..{fmt.format(max(xs))} (median {fmt.format(statistics.median(xs))})"


def _campaign(folder: Path, n: int) -> db.Campaign:
    bestiary = {f"foe{i}": {"name": f"Foe {i}", "hearts": 3, "attack_bonus": 0, "damage": "d6", "tags": []}
                for i in range(n)}
    return db.Campaign.create(folder, name=f"{n} foe types", seed=1, bestiary=bestiary,
                              delvers=[{"name": "Wren", "class": "rogue", "player": "Ana"},
                                       {"name": "Brakka", "class": "fighter", "player": "Ben"}])


CLICKS = [
    ("a check", {"do": "check", "who": "Wren", "skill": "stealth"}),
    ("the Keeper panel", {"do": "panel", "panel": "keeper"}),
    ("the bestiary", {"do": "keeper_tab", "tab": "bestiary"}),
    ("the encounters", {"do": "keeper_tab", "tab": "encounters"}),
    ("a fight by name", {"do": "start_fight", "args": {"foe": "Foe 7"}}),
    ("its end", {"do": "end_fight", "confirmed": True}),
    ("back to play", {"do": "panel", "panel": "play"}),
]


def click_seconds(camp: db.Campaign) -> dict[str, float]:
    ui = UI()
    perform(camp, ui, {"do": "start_session"})
    table_view(camp, ui)
    out = {}
    for name, intent in CLICKS:
        t = time.perf_counter()
        perform(camp, ui, intent)
        table_view(camp, ui)
        out[name] = time.perf_counter() - t
        assert ui.refusal is None, ui.refusal
    return out


def longest_wait(camp: db.Campaign, workers_parallel: bool) -> tuple[float, float, int]:
    """(the longest slice the widget's loop spends in the forecast, the time to its first estimate, fights): the
    builder's forecast of the bell tower stepped as ``Table._drive`` steps it."""
    ui = UI(panel="keeper", keeper_tab="encounters")
    perform(camp, ui, {"do": "builder_open", "id": "bell_tower"})
    runner = Runner(camp, lambda: ui)
    runner.sync()
    if not workers_parallel and runner.job is not None and runner.job.workers > 1:
        runner.close()  # one process: the same forecast with workers=1
        runner.job = camp.danger_job(camp.prepared_encounters["bell_tower"]["foes"], fights=20_000, workers=1)
        runner.key = "bench"
    longest, first, t0 = 0.0, None, time.perf_counter()
    while runner.busy:
        parallel = runner.parallel
        s = time.perf_counter()
        runner.step(0.0 if parallel else SLICE)
        longest = max(longest, time.perf_counter() - s)
        if first is None and (ui.forecast or {}).get("done"):
            first = time.perf_counter() - t0
        if parallel:
            time.sleep(0.03)
    done = (ui.forecast or {}).get("done", 0)
    runner.close()
    return longest, first or 0.0, done


def cancel_seconds(camp: db.Campaign, workers: int) -> float:
    job = camp.danger_job(["gnat"] * 2000, fights=500, seed=1, workers=workers)
    job.step(0.3)
    t = time.perf_counter()
    job.cancel()
    return time.perf_counter() - t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    cores = default_workers()
    print(f"python {sys.version.split()[0]}; {cores} cores")
    tmp = Path(tempfile.mkdtemp(prefix="delvebook-bench-"))
    try:
        small, big = _campaign(tmp / "small", 10), _campaign(tmp / "big", 10_000)
        print(f"\na click with 10,000 foe types against 10 (view model and campaign call), over {args.runs} runs:")
        ratios = []
        per: dict[str, list[float]] = {}
        for _ in range(args.runs):
            a, b = click_seconds(small), click_seconds(big)
            for name in a:
                per.setdefault(name, []).append(b[name] / a[name])
            ratios.append(sum(b.values()) / sum(a.values()))
        for name, xs in per.items():
            print(f"  {name:<18} {_range(xs, '{:.2f}')}x")
        print(f"  all {len(CLICKS)} clicks      {_range(ratios, '{:.2f}')}x; target <= {TARGET_BESTIARY}x: "
              f"{'met' if statistics.median(ratios) <= TARGET_BESTIARY else 'NOT met'}")
        small.close()
        big.close()

        keep = tmp / "keep"
        shutil.copytree(KEEP, keep)
        camp = db.Campaign.open(keep)
        camp.prepare_foe("Gnat", 1, -20, 0)  # harmless: a fight of 2000 runs to the round cap
        click = statistics.median(sum(click_seconds_of(camp)) for _ in range(3))
        print(f"\nthe table's wait on the builder's forecast (bell tower, to ±2 points), over {args.runs} runs; a "
              f"click's own view model here: {click * 1000:.1f} ms")
        for parallel in sorted({False, cores > 1}):
            longest, first, fights = [], [], []
            for _ in range(args.runs):
                a, b, n = longest_wait(camp, parallel)
                longest.append(a * 1000)
                first.append(b * 1000)
                fights.append(n)
            label = f"{cores} processes" if parallel else "1 process  "
            print(f"  {label} longest slice {_range(longest)} ms ({statistics.median(longest) / 1000 / click:.1f}x "
                  f"a click), first estimate {_range(first, '{:.0f}')} ms, {min(fights)}..{max(fights)} fights")
        print(f"\na forecast of 2000 foes cancelled (seconds from cancel() to its return), over {args.runs} runs:")
        one_fight = statistics.median(
            camp.danger("bell_tower", fights=20, seed=s, workers=1, precision=0).seconds / 20 for s in range(3))
        print(f"  one plain fight of the bell tower: {one_fight * 1000:.1f} ms (the reference)")
        for workers in sorted({1, cores}):
            xs = [cancel_seconds(camp, workers) for _ in range(args.runs)]
            print(f"  {workers} process{'es' if workers > 1 else '  '} {_range([x * 1000 for x in xs])} ms "
                  f"({statistics.median(xs) / one_fight:.1f}x a fight); target < {TARGET_CANCEL:g} s: "
                  f"{'met' if max(xs) < TARGET_CANCEL else 'NOT met'}")
        camp.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def click_seconds_of(camp: db.Campaign) -> list[float]:
    ui = UI()
    out = []
    for intent in ({"do": "panel", "panel": "keeper"}, {"do": "keeper_tab", "tab": "encounters"},
                   {"do": "panel", "panel": "play"}):
        t = time.perf_counter()
        perform(camp, ui, intent)
        table_view(camp, ui)
        out.append(time.perf_counter() - t)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
