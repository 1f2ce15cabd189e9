"""Opening a campaign and recording an action, against their floors, measured in one run.

For the bundled finished campaign (10k events) and a generated 100,000-event one (played by
scripts/make_finished_campaign.py into a temporary folder, or into --big once and reused), prints:

- a later open (in a process that opened a campaign before): ``Campaign.open(read_only=True)`` of the whole log, the
  rules and the party set up, every line read and checked (its seal, the next seq, a kind, changes that are places of
  the state, roll records that are rolls), the log folded into the state by the one check (``store.playcheck``), and
  the state after it checked; and the same open from the campaign's snapshot (``store.snapshot``: the log's bytes
  read and hashed, the state and the stacks loaded, the lines after it folded);
- floor: each line's JSON (``- {...}``, without its seal) through a bare ``json.loads``, and nothing else;
- all timed the same way, in turns (floor, open, reopen, floor...), in CPU time: best of --repeat, a full
  collection before each, the cycle collector paused during each (Campaign.open pauses it itself; the floor is
  given the same), what each made kept until its clock stops (freeing it is not part of making it);
- as the keeper sees it: the same open with the collector running around the call (Campaign.open pauses it inside,
  and the young objects it made are scanned once when it resumes), then the full collection that comes later with
  the campaign alive: the work the pause defers, reported apart so the target hides nothing;
- PyYAML's C loader on the same file, and one recorded action (with fsync) against a bare fsync'ed append;
- the first open in a fresh process, what a keeper's new kernel pays (the CPU time from before ``import delvebook`` to
  the open campaign: imports, the rules, the open), without and with the campaign's snapshot, against the json floor
  measured in that process, medians of --runs processes; targets: the long delve with its snapshot at most 1.5x its
  floor, the generated campaign's at most 0.25x, and the prepared campaign (an empty log) at most 120 ms of CPU. The
  package is compiled first (an install has its .pyc files), and snapshots and prepared forms go to a cache folder
  of the bench's own;
- with --breakdown, where the open's time goes, each part timed as the open is and against the same floor: the log read
  without the shape checks (``scan(shape=None)``), read with them (``scan``), and the replay (``events.replay``);
- with --hand N, the same open of a copy of the long campaign whose last N lines lost their seal (written by hand:
  each is decided again by the rules as it is folded), to show what a hand-edited line costs;
- with --against REV, only the long campaign's open/floor today against revision REV's (its package and its own long
  campaign, by ``git archive``), each measured in turns in fresh processes the same way; the target: at most 1.1x
  the reference's ratio (an open may cost up to 10% more than before against the same floor). With --instructions,
  the same in instructions counted by valgrind (each open and floor done twice and once, subtracted), with the
  target of at most 1.75x: the unit that figure was set in (1.6x before the restructure, bb62ae6, was counted in
  instructions; in CPU time that revision's open is 1.74x its floor).

Prints ratios; asserts nothing. Run: .venv/bin/python bench/campaign.py [--events 100000] [--runs 3] [--big DIR]
[--breakdown] [--first] [--against REV [--instructions]]
"""

from __future__ import annotations

import argparse
import gc
import inspect
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
TREE = Path(os.environ.get("DELVEBOOK_BENCH_TREE") or ROOT)
"""The delvebook measured: this checkout, or (in a child run by --against) the tree of an earlier revision."""
sys.path.insert(0, str(TREE))

from delvebook import Campaign  # noqa: E402

TARGET = 1.75
"""open/floor at most this, in instructions (--against REV --instructions): the unit it was set in."""
GROWTH = 1.10
"""--against: the open may cost up to 10% more against its floor than the reference revision's open against its own."""


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


def open_campaign(path: Path, snapshots: bool = False) -> Campaign:
    """``Campaign.open(path, read_only=True)``, by default folding the whole log (no snapshot read or written, as
    every open did before snapshots; a tree from before them has no choice)."""
    from delvebook.store import CampaignStore
    if "snapshots" in inspect.signature(CampaignStore.open).parameters:
        camp = Campaign.open(CampaignStore.open(path, read_only=True, snapshots=snapshots))
    else:
        camp = Campaign.open(path, read_only=True)
    camp.close()
    return camp


def reopen(path: Path) -> Campaign:
    """The open a keeper's next kernel makes: from the campaign's snapshot (written by an earlier open)."""
    return open_campaign(path, snapshots=True)


FIRST = """
import gc, json, sys, time
t = time.process_time()
sys.path.insert(0, sys.argv[2])
from delvebook import Campaign
camp = Campaign.open(sys.argv[1], read_only=True)
t_open = time.process_time() - t
restored = getattr(camp._store, "restored", None) is not None
camp.close()
floors = []
for _ in range(int(sys.argv[3])):  # measured as ``paused`` measures the floor: after a collection, the collector off
    gc.collect()
    gc.disable()
    t = time.process_time()
    with open(sys.argv[1] + "/log.yaml", encoding="utf-8") as f:
        events = [json.loads(line[2:line.rindex("}") + 1]) for line in f if line.startswith("- {")]
    floors.append(time.process_time() - t)
    gc.enable()
    del events
print(json.dumps({"open": t_open, "floor": min(floors), "restored": restored}))
"""
"""A keeper's new kernel: the CPU time from before ``import delvebook`` to the campaign open (imports, the rules, the
open), then the json floor of the same log measured in the same process."""


def first_open(path: Path, snapshot: bool, runs: int, floors: int = 2) -> tuple[float, float, float]:
    """(the first open in a fresh process, its json floor, open/floor): medians over ``runs`` fresh processes, each
    with the campaign's snapshot (written by an open before) or without one (removed before each; the open writes
    it, as a keeper's first open does). The package is compiled first (a keeper's install has its .pyc files)."""
    from delvebook.store import snapshot as snap
    opens, lows = [], []
    for _ in range(runs):
        file = snap.snapshot_file(path)
        if not snapshot and file.exists():
            file.unlink()
        if snapshot and not file.exists():
            reopen(path)
        got = json.loads(subprocess.run([sys.executable, "-c", FIRST, str(path), str(TREE), str(floors)], check=True,
                                        capture_output=True, text=True).stdout)
        if got["restored"] != snapshot:
            raise SystemExit(f"{path.name}: a first open {'with' if snapshot else 'without'} a snapshot was not one")
        opens.append(got["open"])
        lows.append(got["floor"])
    o, f = statistics.median(opens), statistics.median(lows)
    return o, f, statistics.median(a / b for a, b in zip(opens, lows))


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
    from delvebook.core import events
    from delvebook.store import log
    camp = open_campaign(path)
    setup, evs = camp.engine.setup, camp.events
    parts = [("read, no shape checks", lambda: log.scan(path / "log.yaml", shape=None)),
             ("read and checked", lambda: log.scan(path / "log.yaml")),
             ("replay", lambda: events.replay(setup, evs))]
    print("    " + "  ".join(f"{name} {t:6.3f} s ({t / t_floor:4.2f}x)"
                             for name, t in ((name, paused(fn, repeat)) for name, fn in parts)), flush=True)


def in_turns(path: Path, repeat: int, *opens) -> tuple[float, ...]:
    """(the floor, then each of ``opens``, by default the full open) of ``path``, each the best of ``repeat``,
    measured in turns: floor, open, floor... so that all meet the same machine (a drift in its speed between a batch
    of floors and a batch of opens would show as a ratio)."""
    opens = opens or (open_campaign,)
    open_campaign(path)  # the shipped rules are read once per process: not part of opening a campaign
    best = [float("inf")] * (1 + len(opens))
    for _ in range(repeat):
        for i, fn in enumerate((floor, *opens)):
            best[i] = min(best[i], paused(lambda: fn(path), 1))
    return tuple(best)


def measure_open(path: Path, repeat: int, with_yaml: bool, parts: bool = False) -> float:
    n = len(floor(path))
    reopen(path)  # its snapshot, as an earlier open leaves it
    t_floor, t_open, t_reopen = in_turns(path, repeat, open_campaign, reopen)
    t_keeper, t_full = as_the_keeper_sees_it(path, repeat)
    ratio = t_open / t_floor
    line = (f"{path.name:<16}{n:>8,} events  json floor {t_floor:6.3f} s  later open: the whole log {t_open:6.3f} s "
            f"({ratio:4.2f}x), from its snapshot {t_reopen:6.3f} s ({t_reopen / t_floor:4.2f}x)  |  collector on "
            f"around the whole log's: open {t_keeper:6.3f} s, a full collection after {t_full:6.3f} s")
    if with_yaml:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        t_yaml = paused(lambda: yaml.load((path / "log.yaml").read_text(encoding="utf-8"), Loader=loader), 1)
        line += f"  |  PyYAML {loader.__name__} {t_yaml:5.2f} s ({t_yaml / t_open:4.1f}x the open)"
    print(line, flush=True)
    if parts:
        breakdown(path, repeat, t_floor)
    return ratio


def measure_action(path: Path, n: int = 200) -> None:
    from delvebook.store import dump_event_line
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


def measure_first_opens(finished: Path, big: Path, runs: int) -> None:
    """What a keeper's new kernel pays: the first open in a fresh process, without and with the campaign's snapshot,
    against the json floor measured in the same process; and the prepared campaign's (an empty log) in CPU time."""
    print(f"first open in a fresh process (imports, the rules, the open), medians of {runs}:", flush=True)
    for path, target in ((finished, 1.5), (big, 0.25)):
        without = first_open(path, False, runs)
        with_ = first_open(path, True, runs)
        print(f"  {path.name:<16} without a snapshot {without[0]:6.3f} s ({without[2]:4.2f}x its floor), with "
              f"{with_[0]:6.3f} s ({with_[2]:4.2f}x; target {target}x: {'within' if with_[2] <= target else 'OVER'}); "
              f"json floor {with_[1]:6.3f} s", flush=True)
    prepared = ROOT / "campaigns" / "the-sunken-keep"
    first_open(prepared, False, 1)  # its rules and campaign file prepared, as after a keeper's first open ever
    ms = first_open(prepared, False, max(runs, 5), floors=1)[0] * 1000
    print(f"  {prepared.name:<16} (prepared, an empty log): {ms:5.0f} ms of CPU (target 120 ms: "
          f"{'within' if ms <= 120 else 'OVER'})", flush=True)


def reference_tree(rev: str) -> Path:
    """The package and the long campaign as they were at ``rev`` (``git archive``: the repository is not touched),
    in a temporary folder."""
    tree = Path(tempfile.mkdtemp(prefix="delvebook-ref-"))
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "delvebook", "campaigns/the-long-delve"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


def _child(tree: Path, *args: str, under: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """This script run again in a fresh process on the delvebook of ``tree`` (``under``: a tool that runs it)."""
    return subprocess.run([*under, sys.executable, str(Path(__file__).resolve()), *args], check=True,
                          capture_output=True, text=True, env={**os.environ, "DELVEBOOK_BENCH_TREE": str(tree)})


def child_ratio(tree: Path, repeat: int) -> float:
    """open/floor of the long campaign of ``tree``, measured in a fresh process as ``in_turns`` measures it."""
    return json.loads(_child(tree, "--child-ratio", "--repeat", str(repeat)).stdout)["ratio"]


def instructions(tree: Path, what: str) -> int:
    """The instructions ``what`` (``floor`` or ``open`` of the long campaign of ``tree``) takes once: counted by
    valgrind's callgrind for a process doing it twice and one doing it once (both after one warm-up), subtracted,
    so that starting Python and importing delvebook are not counted."""
    def count(k: int) -> int:
        out = _child(tree, "--child-count", what, str(k),
                     under=("valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null")).stderr
        return int(out.rsplit("Collected : ", 1)[1].split()[0])
    return count(2) - count(1)


def against(rev: str, runs: int, repeat: int, counted: bool) -> None:
    """The open against its floor today and at ``rev``, each on its own long campaign, in turns in fresh processes
    (and with ``counted``, in instructions); the target: today's ratio at most ``GROWTH`` times the reference's."""
    ref = reference_tree(rev)
    try:
        pairs = []
        for run in range(runs):
            pairs.append((child_ratio(ref, repeat), child_ratio(TREE, repeat)))
            print(f"  run {run + 1}: {rev} {pairs[-1][0]:4.2f}x, this tree {pairs[-1][1]:4.2f}x", flush=True)
        was, now = (statistics.median(p[i] for p in pairs) for i in (0, 1))
        print(f"the-long-delve open/floor in CPU time, medians: {rev} {was:4.2f}x, this tree {now:4.2f}x: "
              f"{now / was:4.2f} times the reference ({'within' if now <= was * GROWTH else 'OVER'} {GROWTH}x)")
        if counted:
            rows = {}
            for name, tree in ((rev, ref), ("this tree", TREE)):
                f, o = instructions(tree, "floor"), instructions(tree, "open")
                rows[name] = o / f
                print(f"  {name}: open {o / 1e6:,.0f}M instructions, floor {f / 1e6:,.0f}M: {o / f:4.2f}x", flush=True)
            was, now = rows[rev], rows["this tree"]
            print(f"the-long-delve open/floor in instructions: {rev} {was:4.2f}x, this tree {now:4.2f}x "
                  f"({'within' if now <= TARGET else 'OVER'} {TARGET}x): {now / was:4.2f} times the reference "
                  f"({'within' if now <= was * GROWTH else 'OVER'} {GROWTH}x)")
    finally:
        shutil.rmtree(ref, ignore_errors=True)


def child(args) -> int:
    """What --against runs in a fresh process on one tree: the ratio (JSON), or ``what`` done ``k`` times."""
    path = TREE / "campaigns" / "the-long-delve"
    if args.child_ratio:
        t_floor, t_open = in_turns(path, args.repeat)
        print(json.dumps({"ratio": t_open / t_floor}))
        return 0
    what, k = args.child_count
    fn = floor if what == "floor" else open_campaign
    open_campaign(path)  # warm: the rules are read once per process, the file is in the page cache
    floor(path)
    gc.collect()
    gc.disable()
    for _ in range(int(k)):
        fn(path)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=3, help="measure the opens this many times (each a best of)")
    ap.add_argument("--repeat", type=int, default=5, help="best of this many opens per run (3 for the big one)")
    ap.add_argument("--big", default=None, help="generate the big campaign here once and reuse it (kept)")
    ap.add_argument("--breakdown", action="store_true", help="also time the parts of each open (read, checks, replay)")
    ap.add_argument("--hand", type=int, default=0, help="also open the long campaign with its last N lines unsealed")
    ap.add_argument("--against", metavar="REV", help="only compare the long campaign's open/floor with revision REV's")
    ap.add_argument("--instructions", action="store_true", help="with --against: also in instructions (valgrind)")
    ap.add_argument("--first", action="store_true", help="only the first opens in fresh processes (--big needed)")
    ap.add_argument("--child-ratio", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--child-count", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child_ratio or args.child_count:
        return child(args)
    if args.against:
        print(f"python {sys.version.split()[0]}; open/floor against {args.against}'s (target: at most {GROWTH}x its)")
        against(args.against, args.runs, args.repeat, args.instructions)
        return 0
    finished = ROOT / "campaigns" / "the-long-delve"
    print(f"python {sys.version.split()[0]}, PyYAML {yaml.__version__}; open/floor in CPU time (the targets, at most "
          f"{GROWTH}x the ratio before and {TARGET}x in instructions: --against REV --instructions)")
    cache = tempfile.mkdtemp(prefix="delvebook-bench-cache-")  # snapshots and prepared forms: the bench's own
    os.environ["DELVEBOOK_CACHE"] = cache
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(TREE / "delvebook")], check=True,
                   stdout=subprocess.DEVNULL)
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
    if args.first:
        measure_first_opens(finished, big, args.runs)
        shutil.rmtree(cache, ignore_errors=True)
        return 0
    ratios: dict[str, list[float]] = {finished.name: [], big.name: []}
    for run in range(args.runs):
        print(f"run {run + 1}:")
        ratios[finished.name].append(measure_open(finished, args.repeat, with_yaml=run == 0, parts=args.breakdown))
        ratios[big.name].append(measure_open(big, max(1, args.repeat - 2), with_yaml=run == 0, parts=args.breakdown))
    for name, rs in ratios.items():
        print(f"{name:<22} open/floor over {len(rs)} runs: " + ", ".join(f"{r:.2f}x" for r in rs) +
              f"  (median {statistics.median(rs):.2f}x)")
    measure_first_opens(finished, big, args.runs)
    if args.hand:
        measure_hand(finished, args.hand, args.repeat)
    measure_action(finished)
    if tmp is not None:
        shutil.rmtree(tmp)
    shutil.rmtree(cache, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
