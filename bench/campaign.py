"""Opening a campaign and recording an action, against their floors, measured in one run.

For the bundled finished campaign (10k events) and a generated 100,000-event one (played by
scripts/make_finished_campaign.py into a temporary folder, or into --big once and reused), prints:

- open: ``Campaign.open(read_only=True)``, the rules and the party set up, every line read and checked (its seal,
  the next seq, a kind, changes that are places of the state, roll records that are rolls), the log folded into
  the state by the one check (``store.playcheck``), and the state after it checked;
- floor: each line's JSON (``- {...}``, without its seal) through a bare ``json.loads``, and nothing else;
- both timed the same way, in turns (floor, open, floor, open...), in CPU time: best of --repeat, a full
  collection before each, the cycle collector paused during each (Campaign.open pauses it itself; the floor is
  given the same), what each made kept until its clock stops (freeing it is not part of making it); the target
  is open/floor <= 1.75x;
- as the keeper sees it: the same open with the collector running around the call (Campaign.open pauses it inside,
  and the young objects it made are scanned once when it resumes), then the full collection that comes later with
  the campaign alive: the work the pause defers, reported apart so the target hides nothing;
- PyYAML's C loader on the same file, and one recorded action (with fsync) against a bare fsync'ed append;
- with --breakdown, where the open's time goes, each part timed as the open is and against the same floor: the log read
  without the shape checks (``scan(shape=None)``), read with them (``scan``), and the replay (``events.replay``);
- with --hand N, the same open of a copy of the long campaign whose last N lines lost their seal (written by hand:
  each is decided again by the rules as it is folded), to show what a hand-edited line costs.

Prints ratios; asserts nothing. Run: .venv/bin/python bench/campaign.py [--events 100000] [--runs 3] [--big DIR]
[--breakdown]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from delvebook import Campaign, events  # noqa: E402
from delvebook.store import log  # noqa: E402
from delvebook.store import dump_event_line  # noqa: E402

TARGET = 1.75


def paused(fn, repeat: int) -> float:
    """Best time of ``fn`` over ``repeat`` runs, each after a full collection and with the collector paused: the
    CPU time of this process (``time.process_time``; the files are in the page cache), so that other work on a
    shared machine does not count.

    What ``fn`` returns is kept until the clock stops: the time is of making it, not of making and freeing it
    (a keeper frees an open campaign when done with it, not as it opens; the floor's events likewise)."""
    times = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            t = time.process_time()
            made = fn()
            times.append(time.process_time() - t)
            del made
        finally:
            gc.enable()
    return min(times)


def floor(path: Path) -> list:
    with open(path / "log.yaml", encoding="utf-8") as f:
        return [json.loads(line[2:line.rindex("}") + 1]) for line in f if line.startswith("- {")]


def open_campaign(path: Path) -> Campaign:
    camp = Campaign.open(path, read_only=True)
    camp.close()
    return camp


def as_the_keeper_sees_it(path: Path, repeat: int) -> tuple[float, float]:
    """(the open with the collector on around the call, a full collection afterwards), best of ``repeat``."""
    opens, fulls = [], []
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        camp = open_campaign(path)
        opens.append(time.perf_counter() - t)
        t = time.perf_counter()
        gc.collect()
        fulls.append(time.perf_counter() - t)
        del camp
    return min(opens), min(fulls)


def breakdown(path: Path, repeat: int, t_floor: float) -> None:
    """The parts of the open, each best of ``repeat`` with the collector paused, as times and as ratios to the floor."""
    camp = open_campaign(path)
    setup, evs = camp.engine.setup, camp.events
    parts = [("read, no shape checks", lambda: log.scan(path / "log.yaml", shape=None)),
             ("read and checked", lambda: log.scan(path / "log.yaml")),
             ("replay", lambda: events.replay(setup, evs))]
    print("    " + "  ".join(f"{name} {t:6.3f} s ({t / t_floor:4.2f}x)"
                             for name, t in ((name, paused(fn, repeat)) for name, fn in parts)), flush=True)


def measure_open(path: Path, repeat: int, with_yaml: bool, parts: bool = False) -> float:
    n = len(floor(path))
    open_campaign(path)  # the shipped rules are read once per process: not part of opening a campaign
    # floor and open in turns, so that both meet the same machine (a drift in its speed between a batch of floors
    # and a batch of opens would show as a ratio); each its best
    t_floor = t_open = float("inf")
    for _ in range(repeat):
        t_floor = min(t_floor, paused(lambda: floor(path), 1))
        t_open = min(t_open, paused(lambda: open_campaign(path), 1))
    t_keeper, t_full = as_the_keeper_sees_it(path, repeat)
    ratio = t_open / t_floor
    line = (f"{path.name:<16}{n:>8,} events  open {t_open:6.3f} s  json floor {t_floor:6.3f} s  "
            f"open/floor {ratio:4.2f}x ({'within' if ratio <= TARGET else 'OVER'} {TARGET}x)  |  collector on "
            f"around it: open {t_keeper:6.3f} s, a full collection after {t_full:6.3f} s")
    if with_yaml:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        t_yaml = paused(lambda: yaml.load((path / "log.yaml").read_text(encoding="utf-8"), Loader=loader), 1)
        line += f"  |  PyYAML {loader.__name__} {t_yaml:5.2f} s ({t_yaml / t_open:4.1f}x the open)"
    print(line, flush=True)
    if parts:
        breakdown(path, repeat, t_floor)
    return ratio


def measure_action(path: Path, n: int = 200) -> None:
    work = Path(tempfile.mkdtemp()) / "c"
    shutil.copytree(path, work)
    with Campaign.open(work) as camp:
        name = next(d.name for d in camp.delvers if d.status == "alive")
        action = []
        for _ in range(n):
            t = time.perf_counter()
            camp.check(name, None, 10)
            action.append(time.perf_counter() - t)
        sample = dump_event_line(camp.events[-1])
    bare = []
    fd = os.open(work / "bare.yaml", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        for _ in range(n):
            t = time.perf_counter()
            os.write(fd, sample)
            os.fsync(fd)
            bare.append(time.perf_counter() - t)
    finally:
        os.close(fd)
    a, b = statistics.median(action), statistics.median(bare)
    print(f"one action (a check, fsync'ed), median of {n}: {a * 1e6:8.0f} us; bare fsync'ed append of the same "
          f"{len(sample)} bytes: {b * 1e6:8.0f} us; ratio {a / b:4.2f}x")
    shutil.rmtree(work.parent)


def measure_hand(path: Path, n: int, repeat: int) -> None:
    """The open of a copy of ``path`` whose last ``n`` lines lost their seal, against the open of ``path``."""
    work = Path(tempfile.mkdtemp()) / path.name
    shutil.copytree(path, work, ignore=shutil.ignore_patterns(".delvebook*"))
    lines = (work / "log.yaml").read_text(encoding="utf-8").split("\n")
    events = [i for i, line in enumerate(lines) if line.startswith("- {")]
    for i in events[-n:]:
        lines[i] = lines[i].split(" # seal ")[0]
    (work / "log.yaml").write_text("\n".join(lines), encoding="utf-8")
    sealed = hand = float("inf")
    for _ in range(repeat):
        sealed = min(sealed, paused(lambda: open_campaign(path), 1))
        hand = min(hand, paused(lambda: open_campaign(work), 1))
    print(f"{path.name}: the last {n:,} lines without their seal (decided again by the rules): open {hand:6.3f} s, "
          f"sealed {sealed:6.3f} s; {(hand - sealed) / n * 1e6:,.0f} us a hand-written line")
    shutil.rmtree(work.parent)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=3, help="measure the opens this many times (each a best of)")
    ap.add_argument("--repeat", type=int, default=5, help="best of this many opens per run (3 for the big one)")
    ap.add_argument("--big", default=None, help="generate the big campaign here once and reuse it (kept)")
    ap.add_argument("--breakdown", action="store_true", help="also time the parts of each open (read, checks, replay)")
    ap.add_argument("--hand", type=int, default=0, help="also open the long campaign with its last N lines unsealed")
    args = ap.parse_args(argv)
    finished = ROOT / "campaigns" / "the-long-delve"
    print(f"python {sys.version.split()[0]}, PyYAML {yaml.__version__}; target open/floor <= {TARGET}x")
    tmp = None
    if args.big:
        big = Path(args.big)
    else:
        tmp = Path(tempfile.mkdtemp())
        big = tmp / f"generated-{args.events // 1000}k"
    if not (big / "log.yaml").exists():
        t = time.perf_counter()
        subprocess.run([sys.executable, str(ROOT / "scripts" / "make_finished_campaign.py"), str(big),
                        "--events", str(args.events), "--seed", "7"], check=True, stdout=subprocess.DEVNULL)
        print(f"(generated {big.name} in {time.perf_counter() - t:.0f} s)")
    ratios: dict[str, list[float]] = {finished.name: [], big.name: []}
    for run in range(args.runs):
        print(f"run {run + 1}:")
        ratios[finished.name].append(measure_open(finished, args.repeat, with_yaml=run == 0, parts=args.breakdown))
        ratios[big.name].append(measure_open(big, max(1, args.repeat - 2), with_yaml=run == 0, parts=args.breakdown))
    for name, rs in ratios.items():
        print(f"{name:<22} open/floor over {len(rs)} runs: " + ", ".join(f"{r:.2f}x" for r in rs) +
              f"  (median {statistics.median(rs):.2f}x)")
    if args.hand:
        measure_hand(finished, args.hand, args.repeat)
    measure_action(finished)
    if tmp is not None:
        shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
